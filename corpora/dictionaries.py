"""Dictionaries (word lists) as one component: load, merge, look up.

Sibanda & Uzuner (2006, §5) use dictionary presence of the target and its neighbours as
features; the heuristic and MIMIC baselines (§4.1; Neamatullah et al. 2008) are built on
lookup tables.  Every system consults dictionaries through :class:`Dictionaries`, so the
paper's "PHI found in dictionaries" vs "PHI not in dictionaries" conditions (§6.3) are
defined against exactly the lists the systems see.

Canonical list names (entries are stored lower-cased; multi-word entries keep one space):

==========================  ==========================================================
``female_first_names``      female given names
``male_first_names``        male given names
``last_names``              surnames
``last_name_prefixes``      "van", "de", "mc", ...
``name_titles``             "mr", "mrs", "dr", ... (the deid ``prefixes_unambig`` list)
``doctor_first_names``      given names of clinicians (deid list)
``doctor_last_names``       surnames of clinicians (deid list)
``locations``               cities, towns, regions
``local_places``            local place names (deid list)
``hospitals``               hospital / clinic names, without "hospital"
``us_states``               US state names
``us_state_abbreviations``  two-letter and dotted abbreviations
``countries``               country names
``ethnicities``             ethnicity words
``companies``               company names
``area_codes``              US telephone area codes
``months``                  month names and abbreviations
``common_words``            common English words that are never PHI
``commonest_words``         the most frequent English words
``medical_terms``           medical vocabulary (our substitute for MeSH)
``medical_phrases``         eponym phrases that are not PHI ("bell's palsy")
==========================  ==========================================================

A list may have an *ambiguous* part: entries that are also ordinary words (the deid
``*_ambig`` files); :meth:`Dictionaries.ambiguous` returns it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from corpora.model import CorpusError

#: Environment variable naming an extra dictionary directory (same as ``--dictionaries``).
ENV_DICTIONARIES = "DEID_BENCH_DICTIONARIES"

#: deid-1.1 file name -> (canonical list, is the ambiguous part)
DEID_FILES: dict[str, tuple[str, bool]] = {
    "lists/female_names_unambig.txt": ("female_first_names", False),
    "lists/female_names_ambig.txt": ("female_first_names", True),
    "lists/female_names_popular.txt": ("female_first_names", False),
    "lists/male_names_unambig.txt": ("male_first_names", False),
    "lists/male_names_ambig.txt": ("male_first_names", True),
    "lists/male_names_popular.txt": ("male_first_names", False),
    "lists/last_names_unambig.txt": ("last_names", False),
    "lists/last_names_ambig.txt": ("last_names", True),
    "lists/last_names_popular.txt": ("last_names", False),
    "lists/last_name_prefixes.txt": ("last_name_prefixes", False),
    "lists/prefixes_unambig.txt": ("name_titles", False),
    "lists/doctor_first_names.txt": ("doctor_first_names", False),
    "lists/doctor_last_names.txt": ("doctor_last_names", False),
    "lists/locations_unambig.txt": ("locations", False),
    "lists/locations_ambig.txt": ("locations", True),
    "lists/local_places_unambig.txt": ("local_places", False),
    "lists/local_places_ambig.txt": ("local_places", True),
    "lists/stripped_hospitals.txt": ("hospitals", False),
    "lists/us_states.txt": ("us_states", False),
    "lists/us_states_abbre.txt": ("us_state_abbreviations", False),
    "lists/more_us_state_abbreviations.txt": ("us_state_abbreviations", False),
    "lists/countries_unambig.txt": ("countries", False),
    "lists/ethnicities_unambig.txt": ("ethnicities", False),
    "lists/company_names_unambig.txt": ("companies", False),
    "lists/company_names_ambig.txt": ("companies", True),
    "lists/us_area_code.txt": ("area_codes", False),
    "dict/common_words.txt": ("common_words", False),
    "dict/commonest_words.txt": ("commonest_words", False),
    "dict/medical_phrases.txt": ("medical_phrases", False),
    "dict/notes_common.txt": ("common_words", False),
}

MONTHS = frozenset(
    """january february march april may june july august september october november december
    jan feb mar apr jun jul aug sep sept oct nov dec""".split()
)


def normalize(entry: str) -> str:
    """Lower-case and collapse white space: the form entries and look-ups share."""
    return " ".join(entry.lower().split())


def read_word_list(path: Path) -> list[str]:
    """Entries of a one-entry-per-line file, blank lines and ``#`` comments skipped."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise CorpusError(f"cannot read word list: {exc.strerror}", file=str(path)) from exc
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            out.append(normalize(line))
    return out


@dataclass
class Dictionaries:
    """Named word lists with fast membership tests."""

    lists: dict[str, set[str]] = field(default_factory=dict)
    ambiguous_parts: dict[str, set[str]] = field(default_factory=dict)
    sources: list[str] = field(default_factory=list)

    def add(self, name: str, entries: Iterable[str], *, ambiguous: bool = False) -> None:
        words = {normalize(e) for e in entries if e.strip()}
        self.lists.setdefault(name, set()).update(words)
        if ambiguous:
            self.ambiguous_parts.setdefault(name, set()).update(words)

    def get(self, name: str) -> set[str]:
        """The entries of list ``name`` (empty if the list is unknown)."""
        return self.lists.get(name, set())

    def ambiguous(self, name: str) -> set[str]:
        return self.ambiguous_parts.get(name, set())

    def contains(self, name: str, word: str) -> bool:
        return normalize(word) in self.lists.get(name, ())

    def names(self) -> list[str]:
        return sorted(self.lists)

    def merged(self, other: Dictionaries) -> Dictionaries:
        out = Dictionaries(sources=[*self.sources, *other.sources])
        for src in (self, other):
            for name, words in src.lists.items():
                out.add(name, words)
            for name, words in src.ambiguous_parts.items():
                out.add(name, words, ambiguous=True)
        return out

    def union(self, names: Iterable[str]) -> set[str]:
        out: set[str] = set()
        for n in names:
            out |= self.get(n)
        return out

    def as_mapping(self) -> Mapping[str, set[str]]:
        return self.lists


def load_directory(directory: str | os.PathLike[str]) -> Dictionaries:
    """Load a dictionary directory.

    Two layouts are understood: the deid-1.1 layout (``lists/*.txt``, ``dict/*.txt``, mapped
    by :data:`DEID_FILES`), and a flat one where ``NAME.txt`` (and ``NAME.ambig.txt``) add to
    the canonical list ``NAME``.
    """
    root = Path(directory)
    if not root.is_dir():
        raise CorpusError("dictionary directory not found", file=str(root))
    out = Dictionaries(sources=[str(root)])
    known = set()
    for rel, (name, ambiguous) in DEID_FILES.items():
        path = root / rel
        if path.is_file():
            out.add(name, read_word_list(path), ambiguous=ambiguous)
            known.add(path.resolve())
    for path in sorted(root.glob("*.txt")):
        if path.resolve() in known:
            continue
        stem = path.name[: -len(".txt")]
        ambiguous = stem.endswith(".ambig")
        name = stem[: -len(".ambig")] if ambiguous else stem
        out.add(name, read_word_list(path), ambiguous=ambiguous)
    out.add("months", MONTHS)
    return out


_SYSTEM_CACHE: dict[str | None, Dictionaries] = {}


def system_dictionaries(directory: str | os.PathLike[str] | None = None) -> Dictionaries:
    """The dictionaries systems consult: the packaged defaults, plus ``directory`` (or the
    ``DEID_BENCH_DICTIONARIES`` directory) when given.  Cached per directory.

    Kept apart from the lists used to *generate* surrogates so that "PHI not in a
    dictionary" (Sibanda & Uzuner 2006, §6.3) is a real condition.
    """
    key = str(directory) if directory is not None else os.environ.get(ENV_DICTIONARIES)
    cached = _SYSTEM_CACHE.get(key)
    if cached is None:
        cached = default_dictionaries()
        if key:
            cached = cached.merged(load_directory(key))
        _SYSTEM_CACHE[key] = cached
    return cached


def default_dictionaries() -> Dictionaries:
    """Default system dictionaries, built from data that ships with PyPI packages.

    Placeholder until the packaged defaults land: months only.
    """
    out = Dictionaries(sources=["builtin"])
    out.add("months", MONTHS)
    return out

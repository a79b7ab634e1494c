"""The word lists of the deid program, each in the role the program gives it.

The deid 1.1 user manual (Neamatullah 2006, "Dictionaries and Lists") describes each file:
``*_unambig`` lists are "hashed and scrubbed directly" -- a word in one is PHI anywhere;
``*_ambig`` and ``*_popular`` lists are "hashed and marked as potential PHI" -- PHI only
where a rule confirms it; ``common_words``, ``commonest_words``, the SNOMED word list and
``notes_common`` tell rules that a word is an ordinary one.  A name can be in an
unambiguous and an ambiguous file at once (it is then unambiguous), so the files are read
one by one (:func:`corpora.dictionaries.deid_files`) rather than through the merged
canonical lists.

Which files load follows the program's output configuration (``deid-output.config``):
names, clinician names, locations, local places, hospitals, companies and US states on;
countries and ethnicities off.  Two substitutions, stated where they apply:

* the program's SNOMED word list ``dict/sno_edited.txt`` is read when the directory has it;
  otherwise the harness's medical vocabulary and common English words stand in for it
  (:func:`medical_word_substitute`);
* without a deid-1.1 directory, the packaged lists stand in (census names and GeoNames
  places split into unambiguous and ambiguous parts by the common-words test; no clinician
  or local-place lists, no popular names).

``local_lists=False`` leaves out the two kinds of list a site compiles from its own notes:
the clinician first and last names and the local place names.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from corpora.dictionaries import DEID_FILES, SITE_LISTS, Dictionaries, default_dictionaries
from systems.mimic_rules.tags import Tag

#: The deid-1.1 files of the site lists (``local_lists=False`` drops them).
LOCAL_FILES = frozenset(rel for rel, (name, _) in DEID_FILES.items() if name in SITE_LISTS)


def _name(part: str, source: str, label: str = "PATIENT") -> Tag:
    return Tag(
        "name.list",
        label,
        part=part,
        source=source,
        ambiguous=source != "unambiguous" and source != "doctor",
    )


#: deid-1.1 file -> the tag its entries get, in the order look-ups report them (places
#: before names, so a word that is both keeps the place's category).
FILE_TAGS: dict[str, Tag] = {
    "lists/stripped_hospitals.txt": Tag("hospital.list", "HOSPITAL"),
    "lists/locations_unambig.txt": Tag("location.list", "LOCATION"),
    "lists/locations_ambig.txt": Tag("location.list", "LOCATION", ambiguous=True),
    "lists/local_places_unambig.txt": Tag("location.local", "LOCATION"),
    "lists/local_places_ambig.txt": Tag("location.local", "LOCATION", ambiguous=True),
    "lists/company_names_unambig.txt": Tag("location.company", "LOCATION"),
    "lists/company_names_ambig.txt": Tag("location.company", "LOCATION", ambiguous=True),
    "lists/doctor_first_names.txt": _name("first", "doctor", "DOCTOR"),
    "lists/doctor_last_names.txt": _name("last", "doctor", "DOCTOR"),
    "lists/female_names_unambig.txt": _name("first", "unambiguous"),
    "lists/male_names_unambig.txt": _name("first", "unambiguous"),
    "lists/last_names_unambig.txt": _name("last", "unambiguous"),
    "lists/female_names_ambig.txt": _name("first", "ambiguous"),
    "lists/male_names_ambig.txt": _name("first", "ambiguous"),
    "lists/last_names_ambig.txt": _name("last", "ambiguous"),
    "lists/female_names_popular.txt": _name("first", "popular"),
    "lists/male_names_popular.txt": _name("first", "popular"),
    "lists/last_names_popular.txt": _name("last", "popular"),
    "dict/medical_phrases.txt": Tag("medical_phrase", "O", ambiguous=True, blocks=True),
}

#: The same roles for the harness's canonical lists (no deid-1.1 directory).
CANONICAL_TAGS: dict[tuple[str, bool], Tag] = {
    ("hospitals", False): FILE_TAGS["lists/stripped_hospitals.txt"],
    ("locations", False): FILE_TAGS["lists/locations_unambig.txt"],
    ("locations", True): FILE_TAGS["lists/locations_ambig.txt"],
    ("local_places", False): FILE_TAGS["lists/local_places_unambig.txt"],
    ("local_places", True): FILE_TAGS["lists/local_places_ambig.txt"],
    ("companies", False): FILE_TAGS["lists/company_names_unambig.txt"],
    ("companies", True): FILE_TAGS["lists/company_names_ambig.txt"],
    ("doctor_first_names", False): FILE_TAGS["lists/doctor_first_names.txt"],
    ("doctor_last_names", False): FILE_TAGS["lists/doctor_last_names.txt"],
    ("female_first_names", False): FILE_TAGS["lists/female_names_unambig.txt"],
    ("male_first_names", False): FILE_TAGS["lists/male_names_unambig.txt"],
    ("last_names", False): FILE_TAGS["lists/last_names_unambig.txt"],
    ("female_first_names", True): FILE_TAGS["lists/female_names_ambig.txt"],
    ("male_first_names", True): FILE_TAGS["lists/male_names_ambig.txt"],
    ("last_names", True): FILE_TAGS["lists/last_names_ambig.txt"],
    ("medical_phrases", False): FILE_TAGS["dict/medical_phrases.txt"],
}

_ENTRY_WORD = re.compile(r"[a-z0-9_']+")
_LAST_IS_WORD = re.compile(r"[a-z'\-]\Z")


def _longest_first(entry: str) -> tuple[int, str]:
    """Sort key: longer entries first (so regex alternations prefer them), then by text
    (so the order never depends on set iteration, i.e. on ``PYTHONHASHSEED``)."""
    return (-len(entry), entry)


def entry_words(entry: str) -> tuple[str, ...]:
    """The words of a list entry as the look-up compares them: split at anything but
    letters, digits, "_" and "'"; after the first word, words not ending in a letter
    (numbers) are not compared."""
    words = _ENTRY_WORD.findall(entry)
    if not words:
        return ()
    return (words[0], *(w for w in words[1:] if _LAST_IS_WORD.search(w)))


class MimicLexicon:
    """Word lists as sets and look-up tables, built once per set of lists (see
    :func:`systems.mimic.lexicon`): what lets the rules run at >100,000 tokens per second.

    ``words`` maps a lower-cased word to the tags of the single-word entries it is in;
    ``phrases`` maps the first word of a multi-word entry to (other words, tags) pairs,
    longest first.
    """

    def __init__(
        self,
        tagged: Iterable[tuple[Tag, Iterable[str]]],
        *,
        common: Iterable[str],
        commonest: Iterable[str],
        note_words: Iterable[str],
        ambiguous_names: Iterable[str],
        last_name_prefixes: Iterable[str],
        name_prefixes: Iterable[str],
        us_states: Iterable[str],
        state_abbreviations: Iterable[str],
        area_codes: Iterable[str],
        hospitals: Iterable[str],
    ) -> None:
        words: dict[str, list[Tag]] = {}
        phrases: dict[str, dict[tuple[str, ...], list[Tag]]] = {}
        for tag, entries in tagged:
            for entry in entries:
                ws = entry_words(entry)
                if not ws:
                    continue
                if len(ws) == 1:
                    tags = words.setdefault(ws[0], [])
                else:
                    tags = phrases.setdefault(ws[0], {}).setdefault(ws[1:], [])
                if tag not in tags:
                    tags.append(tag)
        self.words: dict[str, tuple[Tag, ...]] = {w: tuple(t) for w, t in words.items()}
        self.phrases: dict[str, list[tuple[tuple[str, ...], tuple[Tag, ...]]]] = {
            head: sorted(
                ((rest, tuple(t)) for rest, t in by_rest.items()), key=lambda x: (-len(x[0]), x[0])
            )
            for head, by_rest in phrases.items()
        }
        #: every word a look-up can start at (single-word entries and phrase heads)
        self.known = frozenset(self.words) | frozenset(self.phrases)
        note = frozenset(note_words)
        #: deid's "common" test: English words, medical words and the note-word list.
        self.common = frozenset(common) | note
        #: deid's "commonest" test: the most frequent words and the note-word list.
        self.commonest = frozenset(commonest) | note
        #: words so common in notes that even street and hospital rules skip them
        self.note_words = note
        self.ambiguous_names = frozenset(ambiguous_names)
        self.last_name_prefixes = frozenset(last_name_prefixes)
        self.name_prefixes = tuple(sorted(set(name_prefixes), key=_longest_first))
        self.us_states = tuple(sorted(set(us_states), key=_longest_first))
        self.us_state_set = frozenset(us_states)
        self.state_abbreviations = frozenset(state_abbreviations)
        self.area_codes = frozenset(area_codes)
        self.hospital_words = frozenset(h for h in hospitals if " " not in h)
        self._zip: re.Pattern[str] | None = None
        self._prefix: re.Pattern[str] | None = None
        #: first words of the surname prefixes, for a quick test before the pattern
        self.prefix_cues = frozenset(x.split()[0] for x in self.name_prefixes)

    def zip_pattern(self) -> re.Pattern[str] | None:
        """A US state name or abbreviation followed by a zip code (compiled once)."""
        if self._zip is None and (self.us_states or self.state_abbreviations):
            names = sorted({*self.us_states, *self.state_abbreviations}, key=_longest_first)
            self._zip = re.compile(
                r"\b(?:"
                + "|".join(re.escape(n).replace(r"\ ", r"\s+") for n in names)
                + r") *[.,]*\s*\d{5}-?[0-9]*\b",
                re.IGNORECASE | re.ASCII,
            )
        return self._zip

    def prefix_pattern(self) -> re.Pattern[str] | None:
        """A surname prefix ("de la", "van der") and the word after it (compiled once)."""
        if self._prefix is None and self.name_prefixes:
            alternatives = "|".join(re.escape(x).replace(r"\ ", " ") for x in self.name_prefixes)
            self._prefix = re.compile(
                r"\b(" + alternatives + r")[\s'\-]+ *([A-Za-z]+)\b", re.IGNORECASE | re.ASCII
            )
        return self._prefix

    # ----------------------------------------------------------------- word tests

    def is_common(self, word: str) -> bool:
        return word.lower() in self.common

    def is_commonest(self, word: str) -> bool:
        return word.lower() in self.commonest

    def is_note_word(self, word: str) -> bool:
        return word.lower() in self.note_words

    def is_ambiguous_name(self, word: str) -> bool:
        return word.lower() in self.ambiguous_names

    def is_state(self, word: str) -> bool:
        return word.lower() in self.us_state_set

    def is_state_abbreviation(self, word: str) -> bool:
        return word.lower() in self.state_abbreviations


def medical_word_substitute() -> frozenset[str]:
    """What stands in for the program's SNOMED word list where a directory lacks it: the
    harness's medical vocabulary and its common English words (word frequencies, names and
    places left out) -- both general lists, not drawn from any corpus."""
    d = default_dictionaries()
    return frozenset(d.get("medical_terms") | d.get("common_words"))


def from_deid_files(files: Mapping[str, frozenset[str]], local_lists: bool = True) -> MimicLexicon:
    """The lexicon of a deid-1.1 directory (see the module docstring)."""

    def f(rel: str) -> frozenset[str]:
        if not local_lists and rel in LOCAL_FILES:
            return frozenset()
        return files.get(rel, frozenset())

    medical = f("dict/sno_edited.txt") or medical_word_substitute()
    return MimicLexicon(
        ((tag, f(rel)) for rel, tag in FILE_TAGS.items()),
        common=f("dict/common_words.txt") | medical,
        commonest=f("dict/commonest_words.txt"),
        note_words=f("dict/notes_common.txt"),
        ambiguous_names=f("lists/female_names_ambig.txt")
        | f("lists/male_names_ambig.txt")
        | f("lists/last_names_ambig.txt"),
        last_name_prefixes=f("lists/last_name_prefixes.txt"),
        name_prefixes=f("lists/prefixes_unambig.txt"),
        us_states=f("lists/us_states.txt"),
        state_abbreviations=f("lists/us_states_abbre.txt")
        | f("lists/more_us_state_abbreviations.txt"),
        area_codes=f("lists/us_area_code.txt"),
        hospitals=f("lists/stripped_hospitals.txt"),
    )


def from_dictionaries(d: Dictionaries, local_lists: bool = True) -> MimicLexicon:
    """The lexicon of the harness's canonical lists (no deid-1.1 directory): a list's
    ambiguous part proposes, the rest marks directly.

    Entries with letters outside ASCII ("Łódź", "Jönköping") are left out: the program
    reads its lists and its notes as ASCII words (:func:`entry_words`), so such an entry
    would stand for its ASCII fragments ("d", "nk ping"), which its own lists never hold.
    Their ASCII spellings ("Jonkoping") are entries of their own."""

    def part(name: str, ambiguous: bool) -> set[str]:
        if not local_lists and name in SITE_LISTS:
            return set()
        amb = d.ambiguous(name)
        return {e for e in (amb if ambiguous else d.get(name) - amb) if e.isascii()}

    return MimicLexicon(
        ((tag, part(name, amb)) for (name, amb), tag in CANONICAL_TAGS.items()),
        common=d.get("common_words") | d.get("commonest_words") | d.get("medical_terms"),
        commonest=d.get("commonest_words"),
        note_words=(),
        ambiguous_names=d.ambiguous("female_first_names")
        | d.ambiguous("male_first_names")
        | d.ambiguous("last_names"),
        last_name_prefixes=d.get("last_name_prefixes"),
        name_prefixes=(),
        us_states=d.get("us_states"),
        state_abbreviations=d.get("us_state_abbreviations"),
        area_codes=d.get("area_codes"),
        hospitals=d.get("hospitals"),
    )

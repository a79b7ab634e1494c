"""``mimic``: the MIMIC / PhysioNet rule-based de-identifier (Neamatullah et al. 2008).

A re-implementation of the deid 1.1 Perl program (``deid.pl``) as Tafvizi (2011, §2.5,
Tables 2.2-2.6) summarises it and as the program itself behaves with its output
configuration (``deid-output.config``), over the harness's token interface.  It learns
nothing (``requires_training = False``).  The published result it re-creates is 0.967 PHI
recall / 0.748 precision of the original program on the PhysioNet nursing notes
(Neamatullah et al. 2008; deid 1.1 README).

How the program works, and so this re-implementation (:mod:`systems.mimic_rules`):

1. a note is cut into paragraphs (blank or punctuation-only lines separate them; line
   breaks inside one are spaces) and each paragraph is searched on its own;
2. every word and multi-word entry is looked up in the word lists
   (:mod:`~systems.mimic_rules.lists`): entries of unambiguous lists are PHI, entries of
   ambiguous and popular lists are *candidates* a rule must confirm, medical phrases
   ("Bell's palsy") hide the names in them;
3. the rule families run in the program's order, each adding candidates: dates
   (§2.5.2, Table 2.2, :mod:`~systems.mimic_rules.dates`), telephone and pager numbers
   (§2.5.5, Table 2.3, :mod:`~systems.mimic_rules.phones`), locations and hospitals
   (§2.5.3-§2.5.4, :mod:`~systems.mimic_rules.locations`), SSNs, e-mail and URLs (§2.5.6,
   Table 2.4), ages over 89 (§2.5.7, Tables 2.5-2.6, :mod:`~systems.mimic_rules.numbers`),
   names (§2.5.1, :mod:`~systems.mimic_rules.names`), record numbers;
4. the final check keeps the candidates with an unambiguous tag, and ambiguous ones that
   pair up as first + last name (:func:`~systems.mimic_rules.candidates.approve`);
5. names found by context rules are marked wherever else they occur in the note.

Every token overlapping a PHI span gets its category and the rule that found it
(:meth:`MimicDeidentifier.annotate`; the Mega SVM sees both as features through
:class:`systems.features.mimic.MimicRuleFeatures`).

Word lists.  With ``dictionaries`` naming a deid-1.1 directory
(``--dictionaries ../shared/dictionaries/deid-1.1``) the rules read that directory's files,
each in the role the program gives it (:mod:`~systems.mimic_rules.lexicon`); without one,
the packaged census/GeoNames lists stand in.  ``local_lists=False`` leaves out the
lists a site builds from its own notes -- the clinician first and last names and the
local place names: on the PhysioNet development notes those lists hold 82 % of the
clinician-name occurrences (``python -m bench corpus stats physionet:DIR --dictionaries
DIR``), so they measure the program on its own corpus more than on a new hospital's.

Faithfulness and deviations.  The rules follow the program's behaviour, read from its
source and checked by running it; nothing in them was chosen on notes that results are
reported on.  Hand-checking was done on the *tuning subset* only (the PhysioNet patients
whose id is a multiple of 5, :func:`corpora.folds.tuning_split`); ``mimic`` is reported
on the other patients (``evaluation:physionet:DIR``); the procedure is in
``docs/mimic.md``.  Where the re-implementation departs from the program:

* name indicators ("son", "mom", "friend") match whole words only -- the program also
  takes the rest of a word that merely starts with one ("friend|ly");
* words that context rules found to be names are marked again only within the same note;
  the program also remembers them across the notes of one patient, which ties a note's
  result to the notes processed before it;
* the program's own gold-standard ward rule (one ward name and its number) is applied to
  every one-word entry of the hospital list;
* the program's SNOMED word list (``dict/sno_edited.txt``), part of its common-word test,
  is read when the dictionary directory has it (a full deid 1.1 install does); the shared
  deid-1.1 lists do not, and the harness's medical vocabulary and common English words
  stand in (:func:`~systems.mimic_rules.lexicon.medical_word_substitute`).  That list,
  not the rules, is most of what still separates the two: with it, the decisions match
  the program's on every token of the 22 tuning patients (docs/mimic.md);
* date checks use the real calendar and a fixed latest year (2030) instead of the clock;
* features switched off in the program's output configuration stay off (country and
  ethnicity lists, US state names on their own, the patient-name list).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from corpora.dictionaries import Dictionaries, deid_files, system_dictionaries
from corpora.model import OUTSIDE
from infra.memo import memoize
from systems.base import System, register
from systems.mimic_rules import dates, locations, names, numbers, phones
from systems.mimic_rules.candidates import (
    Candidates,
    Paragraph,
    approve,
    label_tokens,
    paragraphs,
    repeated_names,
)
from systems.mimic_rules.lexicon import MimicLexicon, from_deid_files, from_dictionaries
from systems.mimic_rules.lists import list_entries
from systems.mimic_rules.tags import Tag

if TYPE_CHECKING:
    from corpora.model import Document

Stage = Callable[[Paragraph, Candidates, MimicLexicon], None]

#: The rule families in the order the program runs them on a paragraph.
STAGES: tuple[tuple[str, Stage], ...] = (
    ("lists", list_entries),
    ("holidays", dates.holidays),
    ("numeric dates", dates.numeric_dates),
    ("month-name dates", dates.month_name_dates),
    ("partial dates", dates.partial_dates),
    ("years", dates.years),
    ("phones", phones.phone_numbers),
    ("pagers", phones.pagers),
    ("wards", locations.wards),
    ("indicated places", locations.indicated_places),
    ("streets", locations.streets),
    ("words around places", locations.words_around_places),
    ("postal", locations.postal),
    ("hospital cues", locations.hospital_cues),
    ("identifiers", numbers.identifiers),
    ("ages", numbers.ages),
    ("indicated names", names.indicated_names),
    ("last, first", names.last_first),
    ("plural titles", names.plural_titles),
    ("credentials", names.credentials),
    ("provider cues", names.provider_cues),
    ("name prefixes", names.name_prefixes),
    ("person titles", names.person_titles),
    ("strict titles", names.strict_titles),
    ("titles", names.titles),
    ("name patterns", names.name_patterns),
    ("problem names", names.problem_names),
    ("record numbers", numbers.record_numbers),
)


def phi_spans(lex: MimicLexicon, text: str) -> list[tuple[int, int, list[Tag]]]:
    """The PHI spans of a note: (start, end, tags) in text order."""
    scan = text.replace("\n", " ")
    spans: list[tuple[int, int, list[Tag]]] = []
    for a, b in paragraphs(text):
        para = Paragraph(scan[a:b])
        cands = Candidates()
        for _, stage in STAGES:
            stage(para, cands, lex)
        if cands.spans:
            spans.extend((a + s, a + e, tags) for s, e, tags in approve(cands, para.text, lex))
    return repeated_names(scan, spans, lex)


def tag(lex: MimicLexicon, document: Document) -> tuple[list[str], list[str]]:
    """Labels and the rule that fired, one per token of ``document``."""
    toks = document.tokens
    labels = [OUTSIDE] * len(toks)
    rules = [""] * len(toks)
    if toks:
        spans = phi_spans(lex, document.text)
        label_tokens([t.start for t in toks], [t.end for t in toks], spans, labels, rules)
    return labels, rules


def lexicon(dictionaries: str | None = None, local_lists: bool = True) -> MimicLexicon:
    """The compiled lexicon for a dictionary directory (``None``: ``DEID_BENCH_DICTIONARIES``
    or the packaged lists), cached per list set."""
    files = deid_files(dictionaries)
    if files:
        return _compiled(files, local_lists)
    return _compiled(system_dictionaries(dictionaries), local_lists)


@memoize("mimic.lexicons", identity=(0,))
def _compiled(
    source: Mapping[str, frozenset[str]] | Dictionaries, local_lists: bool
) -> MimicLexicon:
    """The lexicon of a deid-1.1 directory's files, or of canonical word lists, compiled once
    per list set (the files and the dictionaries of a directory are loaded once)."""
    if isinstance(source, Dictionaries):
        return from_dictionaries(source, local_lists)
    return from_deid_files(source, local_lists)


def annotate(
    document: Document, dicts: Dictionaries, local_lists: bool = True
) -> tuple[list[str], list[str]]:
    """Labels and fired rules for ``document`` with the canonical word lists ``dicts`` (no
    registry, no directory: what tests and feature classes with their own lists use)."""
    return tag(_compiled(dicts, local_lists), document)


@register
class MimicDeidentifier(System):
    """The MIMIC / PhysioNet rule-based de-identifier (see the module docstring).

    Parameters
    ----------
    dictionaries:
        A dictionary directory (deid-1.1 layout: the program's own lists); ``None`` uses
        ``DEID_BENCH_DICTIONARIES`` or the packaged lists.
    local_lists:
        Use the site's own clinician-name and local-place lists (deid-1.1's
        ``doctor_*_names.txt`` and ``local_places_*.txt``).  ``False`` measures the rules
        as a new hospital would meet them, without lists compiled from its notes.
    """

    relative_cost = 0.2  # measured, for scheduling only
    name = "mimic"
    description = "MIMIC/PhysioNet rule-based de-identifier (Neamatullah et al. 2008)"
    citation = "Neamatullah et al. 2008; Tafvizi 2011 §2.5"
    departures = (
        "deid.pl 1.1 re-implemented rule by rule (output configuration); without its "
        "SNOMED word list the harness's common words stand in; repeated names within a note only"
    )
    requires_training = False
    predicts_categories = True

    def __init__(self, dictionaries: str | None = None, local_lists: bool = True) -> None:
        self.dictionaries = dictionaries
        self.local_lists = local_lists

    def check_params(self) -> None:
        if not isinstance(self.local_lists, bool):
            raise ValueError(f"mimic.local_lists must be true or false, not {self.local_lists!r}")

    def _lexicon(self) -> MimicLexicon:
        return lexicon(self.dictionaries, self.local_lists)

    def annotate(self, document: Document) -> tuple[list[str], list[str]]:
        """Per token: the label and the name of the rule that assigned it ("" for ``O``)."""
        return tag(self._lexicon(), document)

    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        lex = self._lexicon()
        return [tag(lex, doc)[0] for doc in documents]

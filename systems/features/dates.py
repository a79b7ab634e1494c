"""The heuristic baseline's date rules as features (ours, not Tafvizi's Mega).

The learned systems find dates written as ``7/22`` or ``July 22``; what they miss are the
shorthand forms of ICU nursing notes.  Among the dates Mega missed on the 390 notes of
PhysioNet's *tuning* patients (never reported on; :func:`corpora.folds.tuning_split`) when
trained on the other 1,170 were ordinal days ("seen on the 3rd"), two-digit years beside
an apostrophe ("quit in 71 '", "CABG ' 93"), month names cut short and month/year pairs
("11/79"); among its false alarms were slash-separated lab values ("CVP 18/12").  (The
examples are made up in the same forms; the error file of ``python -m bench run --systems
mega --train-corpus evaluation:physionet:DIR --corpora tuning:physionet:DIR --errors
FILE`` lists the real ones.)

Every one of those forms is already a date rule of the heuristic baseline
(:mod:`systems.patterns`: Tafvizi's Table 2.2 and the ``DATE_EXTRA`` family, with their
validators -- a month and a day in range, not a ventilator setting, a fraction or a pain
score -- and the year-beside-a-medical-event rule).  So this class does not write date
regexes of its own: it tells the SVM which of those rules a token falls in
(``date_rule=date.year_apostrophe``, ``date_rule=date.md``, ...), and the SVM learns how
far to trust each one on these notes.

It is the ``dates`` source of :data:`systems.mega.MEGA_SOURCES`, off by default (``--param
mega.sources=statdeid,stanford,mist,illinois,mimic,dates``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from corpora.model import OUTSIDE
from systems.features.base import FeatureClass, TokenFeatures
from systems.patterns import (
    DATE_EXTRA,
    DATE_TABLE,
    PatternSet,
    label_tokens,
    token_forms,
    year_tokens,
)

if TYPE_CHECKING:
    from corpora.model import Document

#: The heuristic's date patterns, tried where they can start (:class:`PatternSet`).
DATE_PATTERNS = PatternSet((*DATE_TABLE, *DATE_EXTRA))
#: The rule name :func:`systems.patterns.year_tokens` stands for.
YEAR_EVENT_RULE = "date.year_event"


class DateForms(FeatureClass):
    """Which of the heuristic's date rules the target token falls in, if any."""

    name = "date_forms"

    def extract(self, document: Document) -> list[TokenFeatures]:
        toks = document.tokens
        if not toks:
            return []
        labels = [OUTSIDE] * len(toks)
        rules = [""] * len(toks)
        starts = [t.start for t in toks]
        forms = token_forms(toks)
        matches = DATE_PATTERNS.find(document.text, forms, starts)
        label_tokens(toks, matches, labels, rules, starts=starts)
        for i in year_tokens(forms):
            rules[i] = rules[i] or YEAR_EVENT_RULE
        return [{f"date_rule={rule}": 1.0} if rule else {} for rule in rules]

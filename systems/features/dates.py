"""Date forms of nursing notes that no source system's features name (ours, not a paper's).

The learned systems find dates written as ``7/22`` or ``July 22``; what they miss are the
shorthand forms of ICU nursing notes.  On the 390 notes of PhysioNet's *tuning* patients
(never reported on; :func:`corpora.folds.tuning_split`), with Mega trained on the other
1,170 notes, the dates among the last 4 % of PHI by score were ordinal days ("it's the
11th"), two-digit years beside an apostrophe ("stopped smoking 62 '", "redo in ' 84"),
"sept." and month/year pairs ("12/83"); and slash-separated lab values ("BUN/Cre 88/3.1",
"PAP 23/17") scored like dates among the false alarms.  A token's own shape says which
is which better than its words do, so this class names the forms:

* ``df=ordinal``: a day number with its ordinal suffix (``11th``, ``3rd``);
* ``df=month_abbrev``: a month name cut short (``Sept.``, ``jan``);
* ``df=md_plausible``, ``df=my_plausible``, ``df=slash_implausible``: ``a/b`` with a month
  and a day, a month and a year, or neither (``88/3``, ``140/6``);
* ``df=apostrophe_year``: two digits with an apostrophe on them or beside them.

Tafvizi's Mega SVM has no such class; it is the ``dates`` source of
:data:`systems.mega.MEGA_SOURCES`, off by default (``--param
mega.sources=statdeid,stanford,mist,illinois,mimic,dates``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from systems.features.base import FeatureClass, TokenFeatures

if TYPE_CHECKING:
    from corpora.model import Document

_ORDINAL = re.compile(r"^\d{1,2}(st|nd|rd|th)$", re.IGNORECASE)
_MONTH_ABBREV = re.compile(r"^(jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.?$", re.I)
_SLASH = re.compile(r"^(\d{1,2})/(\d{1,4})$")
_TWO_DIGITS = re.compile(r"^'?\d{2}'?$")
_APOSTROPHES = frozenset({"'", "`", "’"})


class DateForms(FeatureClass):
    """Shorthand date forms of the target token (see the module docstring)."""

    name = "date_forms"

    def extract(self, document: Document) -> list[TokenFeatures]:
        toks = document.tokens
        n = len(toks)
        out: list[TokenFeatures] = []
        for i, tok in enumerate(toks):
            w = tok.text
            row: TokenFeatures = {}
            if _ORDINAL.match(w):
                row["df=ordinal"] = 1.0
            if _MONTH_ABBREV.match(w):
                row["df=month_abbrev"] = 1.0
            slash = _SLASH.match(w)
            if slash:
                row[_slash_form(slash.group(1), slash.group(2))] = 1.0
            if _TWO_DIGITS.match(w):
                before = toks[i - 1].text if i > 0 else ""
                after = toks[i + 1].text if i + 1 < n else ""
                if "'" in w or before in _APOSTROPHES or after in _APOSTROPHES:
                    row["df=apostrophe_year"] = 1.0
            out.append(row)
        return out


def _slash_form(first: str, second: str) -> str:
    """Which date ``first/second`` could be: month/day, month/two-digit year, or none."""
    month, rest = int(first), int(second)
    if 1 <= month <= 12 and 1 <= rest <= 31 and len(second) <= 2:
        return "df=md_plausible"
    if 1 <= month <= 12 and (len(second) == 2 or 1900 <= rest <= 2100):
        return "df=my_plausible"
    return "df=slash_implausible"

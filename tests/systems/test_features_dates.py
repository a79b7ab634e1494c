"""The heuristic's date rules as features (``mega``'s opt-in ``dates`` source)."""

from __future__ import annotations

from corpora.model import Document
from systems.features.dates import DateForms

NOTE = Document(
    "n",
    "seen on the 11th. quit smoking 62'. CABG in '84 and again in Sept. "
    "Stent in 12/83, seen 3/2. K/Mg 88/3.1, CVP 23/17, ratio 1/2.",
)


def _forms(word: str) -> set[str]:
    rows = DateForms().extract(NOTE)
    return {f for tok, row in zip(NOTE.tokens, rows, strict=True) if tok.text == word for f in row}


def test_ordinal_days_and_month_abbreviations() -> None:
    assert _forms("11th") == {"date_rule=date.ordinal"}
    assert _forms("Sept.") == {"date_rule=date.month"}
    assert _forms("smoking") == set()


def test_apostrophe_years_on_either_side() -> None:
    assert _forms("62") == {"date_rule=date.year_apostrophe"}
    assert _forms("84") == {"date_rule=date.year_apostrophe"}


def test_slash_pairs_only_where_a_date_rule_accepts_them() -> None:
    assert _forms("3/2") == {"date_rule=date.md"}
    assert _forms("12/83") == {"date_rule=date.my"}  # no 83rd day: a month and a year
    assert _forms("23/17") == set()  # no 23rd month: a lab value
    assert _forms("1/2") == set()  # a fraction, which the heuristic's validator rejects
    assert _forms("88/3.1") == set()  # a decimal is no date part


def test_an_empty_note_has_no_rows() -> None:
    assert DateForms().extract(Document("e", "")) == []

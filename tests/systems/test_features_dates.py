"""The shorthand date forms of nursing notes (``mega``'s opt-in ``dates`` source)."""

from __future__ import annotations

from corpora.model import Document
from systems.features.dates import DateForms

NOTE = Document(
    "n",
    "it's the 11th. stopped smoking 62 '. MI in ' 84 and redo in Sept. "
    "Reoccluded in 12/83, seen 3/2 and 12/2006. BUN/Cre 88/3.1, PAP 23/17, ratio 1/2.",
)


def _forms(word: str) -> set[str]:
    rows = DateForms().extract(NOTE)
    return {f for tok, row in zip(NOTE.tokens, rows, strict=True) if tok.text == word for f in row}


def test_ordinal_days_and_month_abbreviations() -> None:
    assert _forms("11th") == {"df=ordinal"}
    assert _forms("Sept.") == {"df=month_abbrev"}
    assert _forms("smoking") == set()


def test_apostrophe_years_on_either_side() -> None:
    assert _forms("62") == {"df=apostrophe_year"}
    assert _forms("84") == {"df=apostrophe_year"}


def test_slash_pairs_say_which_date_they_could_be() -> None:
    assert _forms("3/2") == {"df=md_plausible"}
    assert _forms("12/83") == {"df=my_plausible"}  # no 83rd day: a month and a year
    assert _forms("12/2006") == {"df=my_plausible"}
    assert _forms("23/17") == {"df=slash_implausible"}  # no 23rd month: a lab value
    assert _forms("1/2") == {"df=md_plausible"}  # a fraction can look like a date; context decides
    assert _forms("88/3.1") == set()  # a decimal is no date part

"""Feature classes of the MITRE MIST de-identifier (Aberdeen et al. 2010; Tafvizi 2011, §2.3).

Tafvizi describes MIST's features as of two kinds only: whether the word matches one of
the regular expressions of her Table 2.1, and whether it is in one of a set of
dictionaries.  Table 2.1 has eighteen rows; five of them are already the shared
:class:`~systems.features.common.Orthography` features, so they are taken from there and
not written twice (the Mega SVM unions these tuples with Stat De-id's, which also uses
``Orthography``):

======================================  ==========================================
Table 2.1 row                           feature
======================================  ==========================================
first character capitalized             ``init_cap`` (Orthography)
all characters capitalized              ``all_caps`` (Orthography)
contains a digit                        ``has_digit`` (Orthography)
natural number                          ``all_digits`` (Orthography)
contains a dash                         ``has_hyphen`` (Orthography)
every other row                         ``re=<name>`` (:class:`MistRegex`)
======================================  ==========================================

``Orthography`` also contributes ``len``, ``all_lower`` and ``has_slash``, which are not in
Table 2.1 -- a small superset accepted to keep one copy of each feature.

The thesis's text of Table 2.1 is partly garbled; where a pattern is unreadable the
description column decides (e.g. "contains dash-separated alpha-numeric sequences" is a
letter or digit, a dash, then a digit).  MIST's own dictionaries are not available; the
dictionary features use the harness's system dictionaries (deid-1.1 lists when a
directory is given) through :class:`~systems.features.common.DictionaryWindow`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from systems.features.base import FeatureClass, TokenFeatures
from systems.features.common import DictionaryWindow, Orthography

if TYPE_CHECKING:
    from corpora.model import Document

#: Table 2.1 rows not covered by ``Orthography``: name -> pattern (matched with ``search``,
#: so anchored patterns carry their own ``^``/``$``).  A letter is any Unicode letter
#: (``[^\W\d_]``), as the table's words say ("lower-case and capital letters"): on ASCII text
#: these are the ``[A-Za-z]`` patterns, and "Jäkel" is alphabetic like "Jakel".
TABLE_2_1: dict[str, str] = {
    "alpha": r"^[^\W\d_]+$",  # a mix of lower-case and capital letters (letters only)
    "single_digit": r"^[0-9]$",
    "double_digit": r"^[0-9][0-9]$",
    "four_digits": r"[0-9]{4}",  # contains four consecutive digits
    "real_number": r"^[0-9]+\.[0-9]+$",
    "alphanumeric": r"^[^\W_]+$",
    "punctuation": r"^[\W_]+$",
    "phone_7": r"^[0-9]{3}-[0-9]{4}$",  # xxx-xxxx
    "phone_10": r"^[0-9]{3}-[0-9]{3}-[0-9]{4}$",  # xxx-xxx-xxxx
    "five_digits": r"^[0-9]{5}$",
    "no_vowels": r"^[^AaEeIiOoUu]+$",
    "dash_alnum": r"[^\W_].*-.*[0-9]",  # dash-separated alpha-numeric sequences
    "date_separator": r"^[-/]$",
}

#: The dictionaries MIST-style membership features consult (canonical list names or the
#: groups of :data:`~systems.features.common.DEFAULT_DICTIONARY_GROUPS`).
MIST_DICTIONARY_GROUPS: tuple[str, ...] = (
    "first_name",
    "last_name",
    "location",
    "hospital",
    "month",
    "name_titles",
    "companies",
    "ethnicities",
    "common_words",
)


class MistRegex(FeatureClass):
    """Which Table 2.1 regular expressions the target matches (``re=phone_7``).

    These are how a sequence model with no digit vocabulary learns that ``555-1234`` is a
    phone and ``2005`` a year (Tafvizi §2.3): the patterns generalize over every number
    the training data never showed.
    """

    name = "mist_regex"

    def __init__(self, patterns: tuple[str, ...] = tuple(TABLE_2_1)) -> None:
        self.patterns = patterns

    def extract(self, document: Document) -> list[TokenFeatures]:
        compiled = [(f"re={p}", re.compile(TABLE_2_1[p])) for p in self.patterns]
        cache: dict[str, TokenFeatures] = {}
        out: list[TokenFeatures] = []
        for tok in document.tokens:
            row = cache.get(tok.text)
            if row is None:
                row = {name: 1.0 for name, rx in compiled if rx.search(tok.text)}
                cache[tok.text] = row
            out.append(dict(row))
        return out


def mist_features(dictionaries: str | None = None) -> tuple[FeatureClass, ...]:
    """MIST's feature classes as Tafvizi describes them: Table 2.1 plus dictionary
    membership of the target and its neighbours (``dictionaries``: an extra directory)."""
    return (
        Orthography(),
        MistRegex(),
        DictionaryWindow(
            offsets=(-1, 0, 1), groups=MIST_DICTIONARY_GROUPS, dictionaries=dictionaries
        ),
    )


"""The two pieces of Markdown every report is made of: a percentage and a table.

In one small module so that the sections other steps contribute to report.md (dominance,
generalization, the ledger) and the paper scripts format numbers the same way, without
importing the report (:mod:`bench.report.render`), which imports them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any


def pct(x: Any, digits: int = 1) -> str:
    """A fraction as a percentage with ``digits`` decimals ("" for a missing value)."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    return f"{100 * x:.{digits}f}"


def md_table(rows: Sequence[Sequence[Any]], headers: Sequence[str]) -> str:
    """A GitHub-flavoured Markdown table; cells are shown as they are, never re-read as
    numbers (an ID like ``007`` keeps its zeros)."""
    from tabulate import tabulate

    return tabulate(rows, headers=list(headers), tablefmt="github", disable_numparse=True)

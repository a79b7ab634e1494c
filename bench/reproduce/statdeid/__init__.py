"""``python -m bench reproduce statdeid``: the Stat De-id re-implementation report.

* :mod:`~bench.reproduce.statdeid.design` -- the report's system, classes and quoted figures;
* :mod:`~bench.reproduce.statdeid.experiments` -- the runs, and the parts of each claim;
* :mod:`~bench.reproduce.statdeid.claims` -- each claim, a pure function of its parts;
* :mod:`~bench.reproduce.statdeid.render` -- the report's Markdown and figures.
"""

from __future__ import annotations

from bench.reproduce.statdeid.design import NAME, ROLES, TITLE
from bench.reproduce.statdeid.experiments import reproduce

__all__ = ["NAME", "ROLES", "TITLE", "reproduce"]

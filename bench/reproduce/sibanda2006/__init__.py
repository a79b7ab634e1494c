"""``python -m bench reproduce sibanda2006``: Sibanda & Uzuner (2006), table by table.

* :mod:`~bench.reproduce.sibanda2006.design` -- the paper's systems, corpora and tables, and ours;
* :mod:`~bench.reproduce.sibanda2006.experiments` -- the runs, and the parts of each claim;
* :mod:`~bench.reproduce.sibanda2006.claims` -- each claim, a pure function of its parts;
* :mod:`~bench.reproduce.sibanda2006.render` -- the report's Markdown.
"""

from __future__ import annotations

from bench.reproduce.sibanda2006.design import NAME, ROLES, TITLE
from bench.reproduce.sibanda2006.experiments import reproduce

__all__ = ["NAME", "ROLES", "TITLE", "reproduce"]

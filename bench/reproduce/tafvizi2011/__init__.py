"""``python -m bench reproduce tafvizi2011``: Tafvizi (2011), Hypotheses 1-4.

* :mod:`~bench.reproduce.tafvizi2011.design` -- her hypotheses, collections, feature sets and
  appendix B findings;
* :mod:`~bench.reproduce.tafvizi2011.experiments` -- the runs, and the parts of each claim;
* :mod:`~bench.reproduce.tafvizi2011.claims` -- each claim, a pure function of its parts;
* :mod:`~bench.reproduce.tafvizi2011.render` -- the report's Markdown.
"""

from __future__ import annotations

from bench.reproduce.tafvizi2011.design import NAME, ROLES, TITLE, held_out_split
from bench.reproduce.tafvizi2011.experiments import reproduce

__all__ = ["NAME", "ROLES", "TITLE", "held_out_split", "reproduce"]

"""``python -m bench reproduce tafvizi2011``: Tafvizi (2011), Hypotheses 1-4.

* :mod:`~bench.reproduce.tafvizi2011.design` -- her hypotheses, collections, feature sets and
  appendix B findings;
* :mod:`~bench.reproduce.tafvizi2011.experiments` -- the runs, and the parts of each claim;
* :mod:`~bench.reproduce.tafvizi2011.claims` -- each claim, a pure function of its parts;
* :mod:`~bench.reproduce.tafvizi2011.render` -- the report's Markdown.
"""

from __future__ import annotations

from bench.reproduce.common import Clock, Options, Report
from bench.reproduce.tafvizi2011 import claims, experiments, render
from bench.reproduce.tafvizi2011.design import NAME, ROLES, TITLE, held_out_split


def reproduce(options: Options) -> Report:
    """Run the four hypotheses' experiments, judge her claims and build ``tafvizi2011.md``."""
    clock = Clock()
    runs = experiments.run_all(options)
    parts = experiments.parts_of(runs)
    verdicts = [claim(parts[claim], options.alpha) for claim in claims.CLAIMS]
    markdown = render.report(runs, verdicts, clock)
    failed = any(c.result.failed for c in runs.cells())
    return Report(NAME, markdown, verdicts, failed=failed)


__all__ = ["NAME", "ROLES", "TITLE", "held_out_split", "reproduce"]

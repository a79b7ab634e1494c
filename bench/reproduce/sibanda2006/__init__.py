"""``python -m bench reproduce sibanda2006``: Sibanda & Uzuner (2006), table by table.

* :mod:`~bench.reproduce.sibanda2006.design` -- the paper's systems, corpora and tables, and ours;
* :mod:`~bench.reproduce.sibanda2006.experiments` -- the runs, and the parts of each claim;
* :mod:`~bench.reproduce.sibanda2006.claims` -- each claim, a pure function of its parts;
* :mod:`~bench.reproduce.sibanda2006.render` -- the report's Markdown.
"""

from __future__ import annotations

from bench.reproduce.common import Clock, Options, Report
from bench.reproduce.sibanda2006 import claims, experiments, render
from bench.reproduce.sibanda2006.design import NAME, ROLES, TITLE


def reproduce(options: Options) -> Report:
    """Run the paper's experiments, judge its claims and build ``sibanda2006.md``."""
    clock = Clock()
    ctx = experiments.run_all(options)
    parts = experiments.parts_of(ctx)
    verdicts = [claim(parts[claim], options.alpha) for claim in claims.CLAIMS]
    markdown = render.report(ctx, parts, verdicts, clock)
    return Report(NAME, markdown, verdicts, failed=ctx.result.failed)


__all__ = ["NAME", "ROLES", "TITLE", "reproduce"]

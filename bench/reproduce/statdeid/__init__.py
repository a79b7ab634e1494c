"""``python -m bench reproduce statdeid``: the Stat De-id re-implementation report.

* :mod:`~bench.reproduce.statdeid.design` -- the report's system, classes and quoted figures;
* :mod:`~bench.reproduce.statdeid.experiments` -- the runs, and the parts of each claim;
* :mod:`~bench.reproduce.statdeid.claims` -- each claim, a pure function of its parts;
* :mod:`~bench.reproduce.statdeid.render` -- the report's Markdown and figures.
"""

from __future__ import annotations

from bench.reproduce.common import Clock, Options, Report
from bench.reproduce.statdeid import claims, experiments, render
from bench.reproduce.statdeid.design import NAME, ROLES, TITLE


def reproduce(options: Options) -> Report:
    """Run the report's experiments, judge its claims and build ``statdeid.md``."""
    clock = Clock()
    ctx = experiments.run_all(options)
    parts = experiments.parts_of(ctx)
    verdicts = [claim(parts[claim], options.alpha) for claim in claims.CLAIMS]
    markdown, figures = render.report(ctx, verdicts, clock)
    return Report(NAME, markdown, verdicts, figures, failed=ctx.lc_result.failed)


__all__ = ["NAME", "ROLES", "TITLE", "reproduce"]

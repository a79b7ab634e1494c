"""``python -m bench reproduce PAPER``: one command per paper, our figures beside theirs
and a verdict per claim.

* ``sibanda2006`` -- :mod:`bench.reproduce.sibanda2006`
* ``tafvizi2011`` -- :mod:`bench.reproduce.tafvizi2011`
* ``statdeid`` -- :mod:`bench.reproduce.statdeid`

Each module has ``reproduce(options) -> Report``; :func:`reproduce` runs one by name and
writes ``<out>/<paper>.md`` (and its figures beside it).
"""

from __future__ import annotations

import importlib
from pathlib import Path

from bench.reproduce.common import Options, Report

#: Paper name -> (module, one line for ``--help``).
PAPERS: dict[str, tuple[str, str]] = {
    "sibanda2006": (
        "bench.reproduce.sibanda2006",
        "Sibanda & Uzuner 2006: local context vs dictionaries and global context, Tables 2-13",
    ),
    "tafvizi2011": (
        "bench.reproduce.tafvizi2011",
        "Tafvizi 2011: Hypotheses 1-4 of the Mega SVM, appendix tables with z-tests",
    ),
    "statdeid": (
        "bench.reproduce.statdeid",
        "Stat De-id re-implementation report: kernels, feature ablations, learning curve",
    ),
}


def reproduce(paper: str, options: Options) -> tuple[Report, Path]:
    """Run ``paper``'s experiments and write its report; returns it and its path."""
    if paper not in PAPERS:
        raise KeyError(paper)
    module = importlib.import_module(PAPERS[paper][0])
    report: Report = module.reproduce(options)
    return report, report.write(Path(options.out))


__all__ = ["PAPERS", "Options", "Report", "reproduce"]

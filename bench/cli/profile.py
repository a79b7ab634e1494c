"""``python -m bench profile RUN``: where a saved run's worker-seconds went
(:mod:`bench.report.profile`)."""

from __future__ import annotations

import argparse
from typing import Any


def add_parser(sub: Any) -> None:
    prof = sub.add_parser(
        "profile",
        help="where a run's worker-seconds went, per system and stage",
        description="Read a report's run.json and print, per system (and corpus), the "
        "worker-seconds of each stage: featurize, fit, inner fits, predict.",
    )
    prof.add_argument("run_dir", metavar="RUN", help="a report directory or its run.json")
    prof.add_argument("--by-corpus", action="store_true", help="one row per system and corpus")
    prof.set_defaults(handler=command)


def command(args: argparse.Namespace) -> int:
    from bench.report.profile import load_run, render
    from bench.run.run_types import UsageError

    try:
        run = load_run(args.run_dir)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    print(render(run, ("system", "corpus") if args.by_corpus else ("system",)))
    return 0

"""``python -m bench compare BEFORE AFTER``: did a change move a run's F on the same notes?
(:mod:`bench.report.documents`)."""

from __future__ import annotations

import argparse
from typing import Any


def add_parser(sub: Any) -> None:
    comp = sub.add_parser(
        "compare",
        help="paired test of two runs' PHI F on the notes both scored",
        description="Pair the notes two reports scored (by a hash of their text and gold "
        "spans, from each report's documents.csv) and test, per system and corpus, the "
        "difference in token-level PHI F by approximate randomization over the notes, "
        "Holm-corrected over the rows: what a change to a system or a word list did.",
    )
    comp.add_argument("before", metavar="BEFORE", help="a report directory (or its documents.csv)")
    comp.add_argument("after", metavar="AFTER", help="a report directory (or its documents.csv)")
    comp.add_argument(
        "--shuffles", type=int, default=10_000, help="approximate randomization shuffles (10000)"
    )
    comp.add_argument("--seed", type=int, default=0, help="the shuffles' seed (0)")
    comp.add_argument("--alpha", type=float, default=0.05, help="significance level (0.05)")
    comp.add_argument("--csv", metavar="FILE", help="also write the table to FILE")
    comp.set_defaults(handler=command)


def command(args: argparse.Namespace) -> int:
    from bench.report.documents import compare, read_counts, render
    from bench.run.run_types import UsageError
    from infra.cache import atomic_write_text

    if args.shuffles < 1:
        raise UsageError("--shuffles must be at least 1")
    try:
        before, after = read_counts(args.before), read_counts(args.after)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    table = compare(before, after, n_shuffles=args.shuffles, seed=args.seed)
    if table.empty:
        raise UsageError(
            f"{args.before} and {args.after} share no (system, corpus): nothing to compare"
        )
    if not (table["notes"] > 0).any():
        raise UsageError(
            f"{args.before} and {args.after} share {len(table)} (system, corpus) but no "
            "scored note (the same text and gold PHI): nothing to compare"
        )
    print(render(table, args.before, args.after, args.alpha))
    if args.csv:
        atomic_write_text(args.csv, table.to_csv(index=False))
    return 0

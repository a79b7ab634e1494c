"""``python -m bench reproduce PAPER``: a paper's experiments, its figures beside ours and
a verdict per claim (:mod:`bench.reproduce`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from bench.cli.common import EXIT_FAILED, EXIT_OK, category_weights
from bench.cli.options import (
    at_least,
    corpus_options,
    positive_or_all,
    probability,
    resample_count,
)
from bench.run.run_types import DEFAULT_RESAMPLES, DEFAULT_SHUFFLES
from corpora.folds import GROUP_BY_CHOICES


def add_parser(sub: Any) -> None:
    from bench.reproduce import PAPERS

    rep = sub.add_parser(
        "reproduce",
        help="a paper's experiments: its figures beside ours, a verdict per claim",
        description="Run one paper's experiments through the runner (cached), print each "
        "published table beside ours and judge each claim by a rule written in code; "
        "writes OUT/PAPER.md (and its figures).  Papers: "
        + "; ".join(f"{k}: {v}" for k, (_, v) in PAPERS.items()),
    )
    rep.add_argument("paper", choices=list(PAPERS), metavar="PAPER", help=", ".join(PAPERS))
    rep.add_argument(
        "--base",
        metavar="SPEC",
        default="authentic",
        help="the corpus the experiments run on (and the variants they derive from it): "
        "the embedded corpus (default) or e.g. physionet:DIR, i2b2-2006:FILE",
    )
    rep.add_argument(
        "--other",
        metavar="SPEC",
        default=None,
        help="tafvizi2011: a second corpus for the universality and cross-corpus tests "
        "(default with the embedded base: its nursing notes against its discharge summaries)",
    )
    rep.add_argument(
        "--out", metavar="DIR", default="reports", help="where PAPER.md goes (default reports)"
    )
    rep.add_argument("--folds", type=at_least(2), default=10, help="cross-validation folds (10)")
    rep.add_argument(
        "--jobs",
        type=positive_or_all,
        default=-1,
        help="parallel cells on this machine; default -1 = every core",
    )
    rep.add_argument("--alpha", type=probability, default=0.05, help="significance level (0.05)")
    rep.add_argument(
        "--shuffles",
        type=at_least(1),
        default=DEFAULT_SHUFFLES,
        help=f"approximate randomization shuffles ({DEFAULT_SHUFFLES:,})",
    )
    rep.add_argument(
        "--resamples",
        type=resample_count,
        default=DEFAULT_RESAMPLES,
        help=f"bootstrap resamples ({DEFAULT_RESAMPLES})",
    )
    rep.add_argument(
        "--group-by",
        choices=GROUP_BY_CHOICES,
        default="auto",
        help="keep groups of documents on one side of every split (as for run)",
    )
    rep.add_argument(
        "--quick",
        action="store_true",
        help="smoke test: 60 embedded documents (a --base file keeps its size), 3 folds, "
        "fewer shuffles (numbers meaningless)",
    )
    corpus_options(rep)
    rep.set_defaults(handler=command)


def command(args: argparse.Namespace) -> int:
    from bench.reproduce import reproduce
    from bench.reproduce.common import Options, command_line

    options = Options(
        base=args.base,
        other=args.other,
        out=Path(args.out),
        folds=args.folds,
        seed=args.seed,
        group_by=args.group_by,
        n_documents=args.n_documents,
        phi_rate=args.phi_rate,
        category_weights=category_weights(args),
        jobs=args.jobs,
        dictionaries=args.dictionaries,
        alpha=args.alpha,
        n_shuffles=args.shuffles,
        n_resamples=args.resamples,
        lenient=args.lenient,
        show_progress=not args.quiet,
        command=tuple(args._argv) if args._argv else command_line(None),
    )
    if args.quick:
        options = options.quick()
    report, path = reproduce(args.paper, options)
    for v in report.verdicts:
        print(f"{v.verdict:>17}  {v.claim}")
    print(f"\nreport: {path}")
    return EXIT_FAILED if report.failed else EXIT_OK

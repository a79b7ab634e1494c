"""``python -m bench ablation|infogain|kernels``: the SVM analyses of the papers
(:mod:`bench.reproduce.ablation`), each printed beside the published figures."""

from __future__ import annotations

import argparse
from typing import Any

from bench.cli.common import EXIT_OK, read_corpus
from bench.cli.options import analysis_options, at_least


def add_parser(sub: Any) -> None:
    abl = sub.add_parser(
        "ablation",
        help="feature-class ablations",
        description="Train with only one feature class, or all but one (Stat De-id §5.4).",
    )
    abl.add_argument("corpus", metavar="CORPUS")
    abl.add_argument("--mode", choices=("only", "without"), default="only")
    abl.add_argument("--folds", type=at_least(2), default=None, help="cross-validation folds (10)")
    analysis_options(abl)

    ig = sub.add_parser(
        "infogain",
        help="information gain of features",
        description="Information gain of the SVM's features (Sibanda & Uzuner 2006, §6.4).",
    )
    ig.add_argument("corpus", metavar="CORPUS")
    ig.add_argument(
        "--top", type=at_least(0), default=30, help="rows to show (0 = all; default 30)"
    )
    analysis_options(ig)

    kern = sub.add_parser(
        "kernels",
        help="compare SVM kernels",
        description="Linear, quadratic and Gaussian kernels (Stat De-id report, Table 3).",
    )
    kern.add_argument("corpus", metavar="CORPUS")
    kern.add_argument(
        "--train-documents",
        type=at_least(1),
        default=50,
        help="training documents (50, as in Table 3)",
    )
    analysis_options(kern)
    for p in (abl, ig, kern):
        p.set_defaults(handler=command)


def command(args: argparse.Namespace) -> int:
    """ablation / infogain / kernels: the SVM analyses of :mod:`bench.reproduce.ablation`."""
    try:
        from bench.reproduce import ablation
    except ImportError as exc:
        from bench.run.run_types import UsageError

        raise UsageError(f"`{args.command}` needs bench.reproduce.ablation: {exc}") from None
    from bench.reproduce import paper_figures

    corpus = read_corpus(args.corpus, args)
    _check_analysis_size(args, len(corpus.documents))
    if args.command == "ablation":
        table = ablation.feature_ablation(
            corpus, mode=args.mode, folds=args.folds or 10, seed=args.seed
        )
        published = "; ".join(
            f"{k}: " + ", ".join(f"{m} {v:.2f}" for m, v in vals.items())
            for k, vals in paper_figures.SD_ABLATION.items()
        )
    elif args.command == "infogain":
        table = ablation.information_gain(corpus, top=args.top, dictionaries=args.dictionaries)
        published = (
            "most informative in Sibanda & Uzuner 2006 §6.4: the target word, the bigrams "
            "before and after it, the words before and after it"
        )
    else:
        table = ablation.kernel_experiment(
            corpus, train_documents=args.train_documents, seed=args.seed
        )
        published = "; ".join(
            f"{k}: PHI P {v[0]:.1f} R {v[1]:.1f}, non-PHI P {v[2]:.1f} R {v[3]:.1f}"
            for k, v in paper_figures.SD_KERNELS.items()
        )
    print_table(table, args.csv)
    print(f"\nPublished (different data): {published}")
    return EXIT_OK


def _check_analysis_size(args: argparse.Namespace, n_documents: int) -> None:
    """The corpus is large enough for the analysis (checked once it is loaded)."""
    from bench.run.run_types import UsageError

    folds = getattr(args, "folds", None) or 10  # ablation only
    if args.command == "ablation" and folds > n_documents:
        raise UsageError(
            f"corpus {args.corpus}: cannot make {folds} folds from {n_documents} documents "
            "(use --folds)"
        )
    if args.command == "kernels" and n_documents < 2:
        raise UsageError(f"corpus {args.corpus}: the kernel experiment needs at least 2 documents")


def print_table(table: Any, csv_path: str | None) -> None:
    import pandas as pd

    from bench.run.run_types import UsageError
    from infra.cache import atomic_write_text

    df = table if isinstance(table, pd.DataFrame) else pd.DataFrame(list(table))
    print(df.to_markdown(index=False, floatfmt=".4f"))
    if csv_path:
        try:
            atomic_write_text(csv_path, df.to_csv(index=False))
        except OSError as exc:
            raise UsageError(f"cannot write --csv {csv_path}: {exc.strerror or exc}") from exc

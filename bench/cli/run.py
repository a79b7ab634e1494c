"""``python -m bench run`` and ``learning-curve``: the benchmark, and scores against the
size of the training set."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, category_weights, note, warn
from bench.cli.options import fraction_list, run_options
from bench.run.run_types import TEST_VARIANTS

if TYPE_CHECKING:
    from bench.run.run_types import RunResult


def add_parser(sub: Any) -> None:
    run = sub.add_parser(
        "run",
        help="run systems x corpora and write a report",
        description="Run every chosen system on every chosen corpus (k-fold CV by document, "
        "or the corpus's own split), test the differences and write results.csv, "
        "significance.csv, run.json and report.md.",
    )
    run_options(run, default_systems="all")
    run.add_argument(
        "--protocol",
        choices=("auto", "cv", "split"),
        default="auto",
        help="auto: the corpus's own train/test split where it has one, else cv",
    )
    run.add_argument(
        "--test-variant",
        choices=TEST_VARIANTS,
        default=None,
        help="also test each fold's model on this variant of its test documents "
        "(trained on the authentic training folds): surrogate, ambiguous or unseen names, "
        "or foreign: names and places of other countries, which no training step may use",
    )
    run.add_argument(
        "--train-corpus",
        metavar="CORPUS",
        default=None,
        help="train on this corpus and test on each --corpora one (Tafvizi 2011 Table A.13)",
    )
    run.set_defaults(handler=command)

    lc = sub.add_parser(
        "learning-curve",
        help="scores vs training-set size",
        description="Train on nested fractions of each training fold (Stat De-id report §5.6).",
    )
    run_options(lc, default_systems="svm")
    lc.add_argument(
        "--fractions",
        type=fraction_list,
        default="0.03125,0.0625,0.125,0.25,0.5,1",
        help="comma-separated training fractions (default 3.125%%..100%%)",
    )
    lc.set_defaults(handler=learning_curve)


def augment_choices(text: str | None) -> tuple[tuple[str, ...], ...]:
    """``--augment`` as the augmentations it offers, each the tuple of variants, one entry
    per copy: one, or several for a range of copies (a UsageError if bad, and for a value
    given that names none: ``--augment ''`` is not "no augmentation" said on purpose, but
    a variable left empty)."""
    from bench.run.run_types import UsageError
    from bench.training.augment import parse_augment_choices

    if text is None:
        return ((),)
    try:
        return parse_augment_choices(text)
    except ValueError as exc:
        raise UsageError(f"--augment {exc}") from None


def parse_params(items: Sequence[str]) -> dict[str, dict[str, Any]]:
    import ast

    from bench.run.run_types import UsageError

    out: dict[str, dict[str, Any]] = {}
    for item in items:
        key, sep, value = item.partition("=")
        system, dot, name = key.partition(".")
        if not sep or not dot or not system or not name:
            raise UsageError(f"--param {item!r}: use SYSTEM.NAME=VALUE, e.g. svm.C=0.5")
        try:
            parsed: Any = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            parsed = value
        out.setdefault(system, {})[name] = parsed
    return out


def learning_curve(args: argparse.Namespace) -> int:
    """``learning-curve``: :func:`command` under the learning-curve protocol."""
    return command(args, protocol="learning-curve")


def _count_saved_looks(result: RunResult, out: Path) -> None:
    """Add to the run's ledger what the reports kept beside ``out`` had scored on its test
    notes (:func:`bench.report.saved_looks.scored_before`): the ledger starts empty with
    each cache, and those reports were looks too."""
    if not result.ledger:
        return
    from bench.report.saved_looks import scored_before

    recorded = result.ledger.get("corpora", {})
    fingerprints = {name: c.fingerprint for name, c in result.corpora.items() if name in recorded}
    notes = {name: recorded[name]["notes"] for name in fingerprints if "notes" in recorded[name]}
    result.ledger["saved_reports"] = scored_before(
        out.absolute().parent, fingerprints, result.started, notes
    )


def command(args: argparse.Namespace, *, protocol: str | None = None) -> int:
    from bench.report.outputs import summary_table, write_error_analysis, write_outputs
    from bench.run.run_types import RunConfig, UsageError
    from bench.run.runner import run
    from corpora.model import printable

    if args.no_cache:
        os.environ["DEID_BENCH_NO_CACHE"] = "1"
    fractions: tuple[float, ...] = getattr(args, "fractions", None) or ()
    augment = augment_choices(args.augment)
    config = RunConfig(
        systems=[args.systems],
        corpora=[args.corpora],
        folds=args.folds,
        seed=args.seed,
        protocol=protocol or args.protocol,
        train_corpus=getattr(args, "train_corpus", None),
        lenient=args.lenient,
        n_documents=args.n_documents,
        phi_rate=args.phi_rate,
        category_weights=category_weights(args),
        dictionaries=args.dictionaries,
        jobs=args.jobs,
        backend=args.backend,
        scheduler=args.scheduler,
        show_progress=not args.quiet,
        alpha=args.alpha,
        n_resamples=args.resamples,
        n_shuffles=args.shuffles,
        system_params=parse_params(args.param),
        group_by=args.group_by,
        test_variant=getattr(args, "test_variant", None),
        tune=args.tune,
        objective=args.objective,
        inner_folds=args.inner_folds,
        augment=augment[0],
        augment_choices=augment if len(augment) > 1 else (),
        extra_training=getattr(args, "extra_training", None),
        allow_near_duplicates=args.allow_near_duplicates,
        **({"fractions": fractions} if fractions else {}),
    )
    result = run(config)
    for name, n in result.skipped.items():
        if n:
            warn(f"skipped {n} bad record(s) in corpus {name} (--lenient)")
    out = Path(args.out)
    command = ["python", "-m", "bench", *sys.argv[1:]] if args._argv is None else args._argv
    _count_saved_looks(result, out)
    try:
        paths = write_outputs(result, out, command)
    except OSError as exc:
        raise UsageError(f"cannot write the report to {out}: {exc.strerror or exc}") from exc
    if args.errors:
        try:
            n = write_error_analysis(result, args.errors)
        except OSError as exc:
            raise UsageError(
                f"cannot write --errors {args.errors}: {exc.strerror or exc} (the report "
                f"is in {out})"
            ) from exc
        note(args, f"wrote {n} missed/spurious PHI tokens to {args.errors} (contains PHI, 0600)")
    print(printable(summary_table(result), keep="\n"))
    print(printable(f"\nreport: {paths['report']}", keep="\n"))
    skipped = sorted({f["system"] for f in result.failures if f.get("skipped")})
    if skipped:
        warn(f"skipped: {', '.join(skipped)} (not installed here; see the report)")
    failures = [f for f in result.failures if not f.get("skipped")]
    if failures:
        missing = [f for f in failures if f["error"].startswith("MissingResourceError")]
        if missing and len(missing) == len(failures):
            warn(f"error: {missing[0]['error'].split(' at ')[0]}")
            return EXIT_USAGE
        systems = sorted({f["system"] for f in failures})
        warn(f"failed: {', '.join(systems)} (see the report's Failures section)")
        return EXIT_FAILED
    return EXIT_OK

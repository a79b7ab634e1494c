"""``python -m bench``: list systems and corpora, corpus Tables 1, 6, 10, run the benchmark.

Subcommands (each has ``--help``)::

    list                               systems and corpora, one line each
    corpus stats CORPUS                Tables 1, 6, 10 of Sibanda & Uzuner 2006, beside theirs
    run --systems all|NAME,... --corpora all|CORPUS,... --folds K --seed S --out DIR
    learning-curve --systems ... --corpora ...   training fractions 3.125 %-100 %
    ablation CORPUS --mode only|without          feature-class ablations (Stat De-id §5.4)
    infogain CORPUS                              information gain of features (SU06 §6.4)
    kernels CORPUS                               SVM kernels (Stat De-id Table 3)
    reproduce sibanda2006|tafvizi2011|statdeid   a paper's experiments, figures and verdicts
    check NAME|MODULE:CLASS|all                  a system against the adapter contract
    ledger [--corpus TEXT]                       every configuration scored per set of notes

Exit codes: 0 success; 1 a system failed (the others finished and were reported); 2 bad
input or usage (one line on stderr, never a traceback); 130 interrupted (Ctrl-C); 141 the
reader of the output went away (``python -m bench list | head``).  Every option is checked
before any work starts (:func:`validate`), so a bad value never costs a run.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from bench import ledger
from bench.run_types import (
    DEFAULT_INNER_FOLDS,
    DEFAULT_OBJECTIVE,
    DEFAULT_RESAMPLES,
    DEFAULT_SHUFFLES,
    TEST_VARIANTS,
    check_objective,
)
from corpora.folds import GROUP_BY_CHOICES

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
#: 128 + the signal number, as a shell reports a process stopped by SIGINT / SIGPIPE.
EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 130, 141


class _Parser(argparse.ArgumentParser):
    """argparse that exits with code 2 and one line, as the rest of the CLI does."""

    def error(self, message: str) -> Any:  # type: ignore[override]
        from corpora.model import printable

        self.exit(EXIT_USAGE, f"{self.prog}: error: {printable(message)}\n")


# --------------------------------------------------------------------------- option types
# Each checks one option's value at parse time, so argparse reports it as one line naming
# the option (exit code 2).

_WHOLE = re.compile(r"[+-]?[0-9]+")


def _whole(text: str) -> int:
    """A whole number in ASCII digits (``int`` would also take ``1_0`` and ``١٠``)."""
    if not _WHOLE.fullmatch(text.strip()):
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}")
    return int(text)


def _at_least(minimum: int, what: str = "") -> Any:
    def parse(text: str) -> int:
        value = _whole(text)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}{what}: {value}")
        return value

    parse.__name__ = "whole number"  # argparse names the type in its messages
    return parse


def _positive_int(text: str) -> int:
    """``--jobs``: a positive number, or -1 for every core."""
    value = _whole(text)
    if value < 1 and value != -1:
        raise argparse.ArgumentTypeError("must be a positive number (or -1 for all cores)")
    return value


#: Seeds are used by numpy's generators, which take 0 <= seed < 2**32.
MAX_SEED = 2**32 - 1


def _seed(text: str) -> int:
    value = _whole(text)
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"must be between 0 and {MAX_SEED}: {value}")
    return value


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number: {text!r}")
    return value


def _positive_number(text: str) -> float:
    value = _number(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be more than 0: {text!r}")
    return value


def _probability(text: str) -> float:
    value = _number(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1 (exclusive): {text!r}")
    return value


#: Bootstrap resamples are drawn as one resamples x documents matrix of floats (8 bytes
#: each), so more than this would need gigabytes for a corpus of a few thousand notes.
MAX_RESAMPLES = 100_000


def _resamples(text: str) -> int:
    value = _whole(text)
    if not 0 <= value <= MAX_RESAMPLES:
        raise argparse.ArgumentTypeError(f"must be between 0 and {MAX_RESAMPLES:,}: {value}")
    return value


def _objective(text: str) -> str:
    """``--objective``: f1, f2 or precision@recall=R (:func:`bench.run_types.check_objective`)."""
    try:
        return check_objective(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _fractions(text: str) -> tuple[float, ...]:
    """``--fractions``: comma-separated training fractions, each in (0, 1]."""
    try:
        values = tuple(float(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: use numbers like 0.25,0.5,1") from None
    if not values:
        raise argparse.ArgumentTypeError("give at least one fraction, e.g. 0.25,0.5,1")
    bad = [v for v in values if not 0 < v <= 1]  # also catches nan
    if bad:
        raise argparse.ArgumentTypeError(f"each fraction must be in (0, 1]: {bad[0]}")
    return values


def _category_weights(args: argparse.Namespace) -> tuple[tuple[str, float], ...]:
    from bench.run_types import UsageError
    from corpora.generator import DEFAULT_CATEGORY_WEIGHTS

    out = []
    for item in getattr(args, "category_weight", []):
        name, sep, value = item.partition("=")
        try:
            weight = float(value)
        except ValueError:
            weight = -1.0
        name = name.strip().upper()
        valid = math.isfinite(weight) and weight >= 0
        if not sep or not valid or name not in DEFAULT_CATEGORY_WEIGHTS:
            raise UsageError(
                f"--category-weight {item!r}: use CATEGORY=W with CATEGORY one of "
                f"{', '.join(DEFAULT_CATEGORY_WEIGHTS)} and W a finite number >= 0, e.g. DATE=2"
            )
        out.append((name, weight))
    return tuple(out)


def _common_corpus_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--seed", type=_seed, default=0, help="seed of the corpus generator and folds (0)"
    )
    p.add_argument(
        "--n-documents",
        type=_at_least(1),
        default=None,
        metavar="N",
        help="number of documents of the embedded corpora (default: the generator's)",
    )
    p.add_argument(
        "--phi-rate",
        type=_positive_number,
        default=1.0,
        metavar="X",
        help="PHI share knob of the embedded corpora: the weight of PHI-bearing sentence "
        "templates (1.0: about 13%% of tokens are PHI, as in the paper's Table 1; 0.05: "
        "about 10%%; 5: about 15%%)",
    )
    p.add_argument(
        "--category-weight",
        action="append",
        default=[],
        metavar="CATEGORY=W",
        help="relative weight of a PHI category in the embedded corpora, e.g. DATE=2 (repeatable)",
    )
    p.add_argument(
        "--lenient",
        action="store_true",
        help="skip bad records in corpus files (the count is reported) instead of stopping",
    )
    p.add_argument(
        "--dictionaries",
        metavar="DIR",
        default=None,
        help="extra dictionary directory in deid-1.1 layout for the systems "
        "(same as DEID_BENCH_DICTIONARIES)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bars or progress messages")


def _run_options(p: argparse.ArgumentParser, *, default_systems: str) -> None:
    p.add_argument(
        "--systems",
        default=default_systems,
        help="'all' or comma-separated system names (see `list`); ALIAS=NAME runs NAME "
        "under another name (the same system twice, with --param ALIAS.X=...); default: "
        "%(default)s",
    )
    p.add_argument(
        "--corpora",
        default="all",
        help="'all' (the four embedded corpora) or comma-separated corpus specs",
    )
    p.add_argument(
        "--folds", type=_at_least(2), default=10, help="cross-validation folds (default 10)"
    )
    _common_corpus_options(p)
    p.add_argument(
        "--out",
        metavar="DIR",
        default=None,
        help="output directory (default reports/<timestamp>): must be new, empty or a "
        "previous report holding only the files its run wrote, which is replaced as a whole; "
        "one run at a time (docs/cli.md)",
    )
    p.add_argument(
        "--jobs",
        type=_positive_int,
        default=-1,
        help="parallel cells on this machine (joblib); default -1 = every core",
    )
    p.add_argument(
        "--backend",
        choices=("sequential", "joblib", "dask"),
        default=None,
        help="where cells run (default: sequential for --jobs 1, else joblib)",
    )
    p.add_argument("--scheduler", metavar="ADDRESS", help="dask scheduler address (with dask)")
    p.add_argument(
        "--errors",
        metavar="FILE",
        help="write missed/spurious PHI with context, and failed systems' full error "
        "messages, to FILE (contains PHI: created 0600, and not allowed inside --out)",
    )
    p.add_argument("--alpha", type=_probability, default=0.05, help="significance level (0.05)")
    p.add_argument(
        "--resamples",
        type=_resamples,
        default=DEFAULT_RESAMPLES,
        help=f"bootstrap resamples for F1 CIs ({DEFAULT_RESAMPLES})",
    )
    p.add_argument(
        "--shuffles",
        type=_at_least(1),
        default=DEFAULT_SHUFFLES,
        help=f"approximate randomization shuffles ({DEFAULT_SHUFFLES:,}, as Yeh 2000 recommends)",
    )
    p.add_argument(
        "--group-by",
        choices=GROUP_BY_CHOICES,
        default="auto",
        help="keep groups of documents on one side of every split: auto (patients where "
        "the corpus knows them, else documents), patient, template (the embedded corpus's "
        "pattern families) or document",
    )
    p.add_argument(
        "--tune",
        action="store_true",
        help="choose each learned system's hyperparameters and decision threshold by an "
        "inner grouped cross-validation on the training folds only",
    )
    p.add_argument(
        "--objective",
        type=_objective,
        metavar="f1|f2|precision@recall=R",
        default=DEFAULT_OBJECTIVE,
        help="what --tune maximizes (default f2: a missed PHI leaks, a false alarm only "
        "redacts a word)",
    )
    p.add_argument(
        "--inner-folds",
        type=_at_least(2),
        metavar="K",
        default=DEFAULT_INNER_FOLDS,
        help=f"folds of --tune's inner cross-validation (default {DEFAULT_INNER_FOLDS}; more "
        "folds train the inner models on more notes, so a threshold chosen on them "
        "transfers better to the refitted model, at the cost of more fits)",
    )
    p.add_argument(
        "--augment",
        default=None,
        metavar="VARIANT[:N],...",
        help="add transformed copies of the training documents (surrogate, unseen; N copies "
        "of each with other names, default 1) to training, so learned systems do not "
        "memorise the training notes' names; with --tune, selection is also judged on one "
        "copy per variant of the held-out inner parts",
    )
    p.add_argument(
        "--extra-training",
        default=None,
        metavar="CORPUS",
        help="add this corpus's documents to every training set, inner folds of --tune "
        "included, and never score them (e.g. tuning:physionet:DIR beside "
        "evaluation:physionet:DIR); refused if it shares a document, a patient or a note's "
        "text with --corpora",
    )
    p.add_argument(
        "--allow-near-duplicates",
        action="store_true",
        help="score notes that are the same as training notes with other PHI (surrogate or "
        "unseen variants of them), which is refused otherwise; the report says how many",
    )
    p.add_argument(
        "--no-cache", action="store_true", help="recompute everything (ignore the disk cache)"
    )
    _peers_option(p)
    p.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="SYSTEM.NAME=VALUE",
        help="a system parameter, e.g. svm.C=0.5 (repeatable; VALUE is a Python literal); "
        "SYSTEM.augment=unseen:2,surrogate or =none replaces --augment for one learned system",
    )


def _peers_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--peers",
        metavar="FILE",
        default=None,
        help="TOML file naming external de-identifiers, each a system of its own "
        "(docs/peers.md; same as DEID_BENCH_PEERS)",
    )


def _load_peers(args: argparse.Namespace) -> None:
    """Register the external systems of ``--peers`` / ``DEID_BENCH_PEERS`` (one line of error
    for a bad file), and pass the file on to worker processes through the environment."""
    from bench.run_types import UsageError
    from systems.command import ENV_PEERS, PeerFileError, load_presets

    path = getattr(args, "peers", None) or os.environ.get(ENV_PEERS)
    if not path:
        return
    os.environ[ENV_PEERS] = str(Path(path).resolve())
    try:
        load_presets(os.environ[ENV_PEERS])
    except PeerFileError as exc:
        raise UsageError(f"--peers: {exc}") from None


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m bench",
        description="deid-bench: compare de-identification systems on clinical text.",
    )
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    listing = sub.add_parser(
        "list", help="list systems and corpora", description="List systems and corpora."
    )
    _peers_option(listing)

    corpus = sub.add_parser("corpus", help="corpus tools", description="Corpus tools.")
    corpus_sub = corpus.add_subparsers(dest="corpus_command", required=True, parser_class=_Parser)
    stats = corpus_sub.add_parser(
        "stats",
        help="words per PHI category, ambiguous, not in a dictionary (Tables 1, 6, 10)",
        description="Tokens per PHI category, of them ambiguous and not in a dictionary, "
        "beside the paper's figures (Sibanda & Uzuner 2006, Tables 1, 6 and 10).",
    )
    stats.add_argument("corpus", metavar="CORPUS", help="an embedded corpus or KIND:PATH spec")
    _common_corpus_options(stats)
    convert = corpus_sub.add_parser(
        "convert",
        help="write a corpus in another format (jsonl, brat)",
        description="Read any corpus the harness reads and write it as JSON lines (the native "
        "format: text, spans, marks, metadata, patient group) or as brat stand-off files "
        "(text and spans) for viewing in brat.  The output holds the notes' PHI: it is written "
        "owner-only, and never over an existing file or directory.",
    )
    convert.add_argument("corpus", metavar="CORPUS", help="an embedded corpus or KIND:PATH spec")
    convert.add_argument("out", metavar="OUT", help="the .jsonl file or brat directory to create")
    convert.add_argument(
        "--to", choices=("jsonl", "brat"), required=True, help="the format to write"
    )
    _common_corpus_options(convert)

    run = sub.add_parser(
        "run",
        help="run systems x corpora and write a report",
        description="Run every chosen system on every chosen corpus (k-fold CV by document, "
        "or the corpus's own split), test the differences and write results.csv, "
        "significance.csv, run.json and report.md.",
    )
    _run_options(run, default_systems="all")
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

    lc = sub.add_parser(
        "learning-curve",
        help="scores vs training-set size",
        description="Train on nested fractions of each training fold (Stat De-id report §5.6).",
    )
    _run_options(lc, default_systems="svm")
    lc.add_argument(
        "--fractions",
        type=_fractions,
        default="0.03125,0.0625,0.125,0.25,0.5,1",
        help="comma-separated training fractions (default 3.125%%..100%%)",
    )

    abl = sub.add_parser(
        "ablation",
        help="feature-class ablations",
        description="Train with only one feature class, or all but one (Stat De-id §5.4).",
    )
    abl.add_argument("corpus", metavar="CORPUS")
    abl.add_argument("--mode", choices=("only", "without"), default="only")
    _analysis_options(abl)

    ig = sub.add_parser(
        "infogain",
        help="information gain of features",
        description="Information gain of the SVM's features (Sibanda & Uzuner 2006, §6.4).",
    )
    ig.add_argument("corpus", metavar="CORPUS")
    ig.add_argument(
        "--top", type=_at_least(0), default=30, help="rows to show (0 = all; default 30)"
    )
    _analysis_options(ig)

    kern = sub.add_parser(
        "kernels",
        help="compare SVM kernels",
        description="Linear, quadratic and Gaussian kernels (Stat De-id report, Table 3).",
    )
    kern.add_argument("corpus", metavar="CORPUS")
    kern.add_argument(
        "--train-documents",
        type=_at_least(1),
        default=50,
        help="training documents (50, as in Table 3)",
    )
    _analysis_options(kern)
    _reproduce_parser(sub)
    _check_parser(sub)

    prof = sub.add_parser(
        "profile",
        help="where a run's worker-seconds went, per system and stage",
        description="Read a report's run.json and print, per system (and corpus), the "
        "worker-seconds of each stage: featurize, fit, inner fits, predict.",
    )
    prof.add_argument("run_dir", metavar="RUN", help="a report directory or its run.json")
    prof.add_argument("--by-corpus", action="store_true", help="one row per system and corpus")
    ledger.add_parser(sub)
    return parser


def _reproduce_parser(sub: Any) -> None:
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
    rep.add_argument("--folds", type=_at_least(2), default=10, help="cross-validation folds (10)")
    rep.add_argument(
        "--jobs",
        type=_positive_int,
        default=-1,
        help="parallel cells on this machine; default -1 = every core",
    )
    rep.add_argument("--alpha", type=_probability, default=0.05, help="significance level (0.05)")
    rep.add_argument(
        "--shuffles",
        type=_at_least(1),
        default=DEFAULT_SHUFFLES,
        help=f"approximate randomization shuffles ({DEFAULT_SHUFFLES:,})",
    )
    rep.add_argument(
        "--resamples",
        type=_resamples,
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
        help="smoke test: 60 embedded documents, 3 folds, fewer shuffles (numbers meaningless)",
    )
    _common_corpus_options(rep)


def _check_parser(sub: Any) -> None:
    check = sub.add_parser(
        "check",
        help="check systems against the adapter contract (docs/extending.md)",
        description="Run the conformance suite (systems/conformance.py) on each system, on a "
        "few generated notes: parameters, clone, fit/predict labels, determinism, pickling, "
        "declared tags and facts.  Exit code 1 when a system breaks a promise; a system that "
        "cannot run here is reported as not checked.",
    )
    check.add_argument(
        "systems",
        nargs="+",
        metavar="SYSTEM",
        help="a registered name, 'all', or MODULE:CLASS (a class importable from here, "
        "registered or not)",
    )
    _peers_option(check)


def cmd_check(args: argparse.Namespace) -> int:
    """Every check of :mod:`systems.conformance` on each system, one line per check."""
    from bench.run_types import UsageError
    from corpora.model import printable
    from systems.base import SYSTEMS
    from systems.conformance import NotCheckable, resolve, run_checks, sample_notes

    targets = [n for t in args.systems for n in (SYSTEMS.names() if t == "all" else [t])]
    entries = []
    for target in dict.fromkeys(targets):
        try:
            entries.append(resolve(target))
        except (KeyError, ImportError, AttributeError, TypeError) as exc:
            reason = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
            raise UsageError(f"check {target}: {reason}") from None
    notes = sample_notes()
    failed = False
    for entry in entries:
        try:
            results = run_checks(entry, notes)
        except NotCheckable as exc:
            print(printable(f"{entry.name}: not checked: {exc}"))
            continue
        broken = [r for r in results if not r.passed]
        failed = failed or bool(broken)
        verdict = "FAILS" if broken else "passes"
        print(printable(f"{entry.name}: {verdict} ({len(results) - len(broken)}/{len(results)})"))
        for r in results:
            print(printable(f"  {'ok  ' if r.passed else 'FAIL'} {r.check}  {r.message}".rstrip()))
    return EXIT_FAILED if failed else EXIT_OK


def cmd_reproduce(args: argparse.Namespace) -> int:
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
        category_weights=_category_weights(args),
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


def _analysis_options(p: argparse.ArgumentParser) -> None:
    _common_corpus_options(p)
    p.add_argument("--csv", metavar="FILE", help="also write the table as CSV")
    p.add_argument("--folds", type=_at_least(2), default=None, help="cross-validation folds (10)")


# --------------------------------------------------------------------------- validation
# Run by :func:`main` before any command does work, one function per concern; each raises
# :class:`bench.run_types.UsageError` (or the backend's or cache's own error) with one line.
# Option values argparse can check alone are checked by the option types above; what
# needs the file system, the environment or several options together is checked here.
# The system and corpus names, system parameters and protocol options are checked by
# :func:`bench.plan.make_plan`, also before any corpus is loaded.


def validate(args: argparse.Namespace) -> None:
    """Every check of the parsed options that argparse cannot make alone."""
    _validate_dictionaries(args)
    _validate_cache(args)
    _validate_outputs(args)
    _validate_backend(args)
    if getattr(args, "param", None) is not None:
        _parse_params(args.param)
    if getattr(args, "category_weight", None):
        _category_weights(args)


def _validate_dictionaries(args: argparse.Namespace) -> None:
    from bench.run_types import UsageError

    if getattr(args, "dictionaries", None):
        if not Path(args.dictionaries).is_dir():
            raise UsageError(f"--dictionaries {args.dictionaries}: not a directory")
        os.environ["DEID_BENCH_DICTIONARIES"] = str(Path(args.dictionaries).resolve())
    from_env = os.environ.get("DEID_BENCH_DICTIONARIES")
    if from_env and not Path(from_env).is_dir():
        raise UsageError(f"DEID_BENCH_DICTIONARIES={from_env}: not a directory")


def _validate_cache(args: argparse.Namespace) -> None:
    """``--no-cache``, else a cache directory that can be created (owner-only)."""
    from infra import cache

    if args.command == "list":  # reads no corpus, needs no cache
        return
    if getattr(args, "no_cache", False):
        os.environ["DEID_BENCH_NO_CACHE"] = "1"
    if cache.caching_enabled():
        cache.cache_dir()


def _validate_outputs(args: argparse.Namespace) -> None:
    """``--out``, ``--errors`` and ``--csv`` can be written, and do not collide."""
    from bench.outputs import OutputLock, check_output_dir, check_output_file
    from bench.run_types import UsageError

    if args.command in ("run", "learning-curve"):
        if args.out is None:
            args.out = str(Path("reports") / datetime.now().strftime("%Y%m%d-%H%M%S"))
        check_output_dir(Path(args.out), "--out", _input_paths(args))
        args._out_lock = OutputLock(Path(args.out)).acquire("--out")  # released by main
    if getattr(args, "errors", None):
        check_output_file(Path(args.errors), "--errors")
        out = Path(args.out).resolve()
        if Path(args.errors).resolve().is_relative_to(out):
            raise UsageError(
                f"--errors {args.errors}: the file holds PHI, so it may not be written into "
                f"the report directory {args.out} (which is meant to be shared)"
            )
    if getattr(args, "csv", None):
        check_output_file(Path(args.csv), "--csv")
    if args.command == "reproduce":  # files beside others in OUT, each written atomically
        check_output_file(Path(args.out) / f"{args.paper}.md", "--out")


def _input_paths(args: argparse.Namespace) -> list[str]:
    """The existing files and directories the run reads: each corpus spec's path (the part
    after ``KIND:``, after any ``VARIANT:`` prefixes), ``--peers``, ``--dictionaries``."""
    specs = [
        *str(getattr(args, "corpora", "") or "").split(","),
        getattr(args, "train_corpus", None) or "",
        getattr(args, "extra_training", None) or "",
    ]
    paths = []
    for spec in specs:
        parts = spec.strip().split(":")
        for i in range(len(parts)):
            candidate = ":".join(parts[i:])
            if candidate and Path(candidate).exists():
                paths.append(candidate)
                break
    for option in ("peers", "dictionaries"):
        value = getattr(args, option, None)
        if value and Path(value).exists():
            paths.append(value)
    return paths


def _validate_backend(args: argparse.Namespace) -> None:
    """``--scheduler`` only with dask; a dask scheduler that is reachable and has workers."""
    from bench.execution import dask_client
    from bench.run_types import UsageError

    backend = getattr(args, "backend", None)
    if getattr(args, "scheduler", None) and backend != "dask":
        raise UsageError("--scheduler is used only with --backend dask")
    if backend == "dask":
        with dask_client(args.scheduler):
            pass


# --------------------------------------------------------------------------- commands


def cmd_list(args: argparse.Namespace) -> int:
    """Every registry, one line per entry, each line the entry's own description."""
    from tabulate import tabulate

    from bench.plan import SYSTEM_GROUPS
    from corpora.load import READERS, VARIANTS
    from corpora.model import printable
    from systems.base import available_systems
    from systems.features.statdeid import ALL_FEATURES
    from systems.mega import MEGA_SOURCES

    systems = [
        [name, cls.description, "yes" if cls.requires_training else "no"]
        for name, cls in available_systems().items()
    ]
    systems += [[name, description, ""] for name, description in SYSTEM_GROUPS.items()]
    print("Systems (--systems NAME,...):\n")
    table = tabulate(systems, headers=["name", "what it is", "trained"], tablefmt="simple")
    print(printable(table, keep="\n"))  # names and descriptions of a --peers file
    print(
        "\nCorpora (--corpora NAME,...; 'all' = the four embedded ones: generated discharge "
        "summaries, each as its variant makes them):\n"
    )
    rows = [[e.name, e.description] for e in VARIANTS.entries()]
    rows += [[f"{e.name}:PATH", e.description] for e in READERS.entries()]
    rows.append(["VARIANT:SPEC", f"a variant of any other corpus ({', '.join(VARIANTS)})"])
    print(printable(tabulate(rows, headers=["corpus", "what it is"], tablefmt="simple"), keep="\n"))
    for title, registry in (
        ("Feature classes of svm (--param svm.features=...; ablation)", ALL_FEATURES),
        ("Feature sources of mega (--param mega.sources=...)", MEGA_SOURCES),
    ):
        print(f"\n{title}:\n")
        rows = [[e.name, e.description] for e in registry.entries()]
        print(tabulate(rows, headers=["name", "what it is"], tablefmt="simple"))
    return EXIT_OK


def _load(spec: str, args: argparse.Namespace) -> Any:
    from corpora.load import LoadOptions, load_corpus

    corpus, skipped = load_corpus(
        spec,
        LoadOptions(
            seed=args.seed,
            lenient=args.lenient,
            n_documents=args.n_documents,
            phi_rate=args.phi_rate,
            category_weights=_category_weights(args),
        ),
    )
    if skipped:
        _warn(f"skipped {len(skipped)} bad record(s) in {spec} (--lenient)")
    return corpus


def cmd_corpus_stats(args: argparse.Namespace) -> int:
    from bench.paper_figures import su06_corpus_columns
    from corpora.dictionaries import system_dictionaries
    from corpora.model import printable
    from corpora.stats import stats_markdown

    corpus = _load(args.corpus, args)
    table = stats_markdown(corpus, su06_corpus_columns(), system_dictionaries(args.dictionaries))
    print(printable(table, keep="\n"))
    return EXIT_OK


def cmd_corpus_convert(args: argparse.Namespace) -> int:
    from bench.run_types import UsageError
    from corpora.model import printable
    from corpora.readers.brat import write_brat
    from corpora.readers.jsonl import write_jsonl

    out = Path(args.out)
    if out.exists():
        raise UsageError(f"{out}: already exists (convert never overwrites)")
    corpus = _load(args.corpus, args)
    n = write_brat(corpus, out) if args.to == "brat" else write_jsonl(corpus, out, mode=0o600)
    print(printable(f"wrote {n} documents to {out} ({args.to})"))
    return EXIT_OK


def _augment(text: str | None) -> tuple[str, ...]:
    """``--augment`` as the tuple of variants, one entry per copy (a UsageError if bad,
    and for a value given that names none: ``--augment ''`` is not "no augmentation"
    said on purpose, but a variable left empty)."""
    from bench.augment import parse_augment
    from bench.run_types import UsageError

    if text is None:
        return ()
    try:
        return parse_augment(text)
    except ValueError as exc:
        raise UsageError(f"--augment {exc}") from None


def _parse_params(items: Sequence[str]) -> dict[str, dict[str, Any]]:
    import ast

    from bench.run_types import UsageError

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


def cmd_run(args: argparse.Namespace, *, protocol: str | None = None) -> int:
    from bench.outputs import summary_table, write_error_analysis, write_outputs
    from bench.run_types import RunConfig, UsageError
    from bench.runner import run
    from corpora.model import printable

    if args.no_cache:
        os.environ["DEID_BENCH_NO_CACHE"] = "1"
    fractions: tuple[float, ...] = getattr(args, "fractions", None) or ()
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
        category_weights=_category_weights(args),
        dictionaries=args.dictionaries,
        jobs=args.jobs,
        backend=args.backend,
        scheduler=args.scheduler,
        show_progress=not args.quiet,
        alpha=args.alpha,
        n_resamples=args.resamples,
        n_shuffles=args.shuffles,
        system_params=_parse_params(args.param),
        group_by=args.group_by,
        test_variant=getattr(args, "test_variant", None),
        tune=args.tune,
        objective=args.objective,
        inner_folds=args.inner_folds,
        augment=_augment(args.augment),
        extra_training=getattr(args, "extra_training", None),
        allow_near_duplicates=args.allow_near_duplicates,
        **({"fractions": fractions} if fractions else {}),
    )
    result = run(config)
    for name, n in result.skipped.items():
        if n:
            _warn(f"skipped {n} bad record(s) in corpus {name} (--lenient)")
    out = Path(args.out)
    command = ["python", "-m", "bench", *sys.argv[1:]] if args._argv is None else args._argv
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
        _note(args, f"wrote {n} missed/spurious PHI tokens to {args.errors} (contains PHI, 0600)")
    print(printable(summary_table(result), keep="\n"))
    print(printable(f"\nreport: {paths['report']}", keep="\n"))
    skipped = sorted({f["system"] for f in result.failures if f.get("skipped")})
    if skipped:
        _warn(f"skipped: {', '.join(skipped)} (not installed here; see the report)")
    failures = [f for f in result.failures if not f.get("skipped")]
    if failures:
        missing = [f for f in failures if f["error"].startswith("MissingResourceError")]
        if missing and len(missing) == len(failures):
            _warn(f"error: {missing[0]['error'].split(' at ')[0]}")
            return EXIT_USAGE
        systems = sorted({f["system"] for f in failures})
        _warn(f"failed: {', '.join(systems)} (see the report's Failures section)")
        return EXIT_FAILED
    return EXIT_OK


def cmd_analysis(args: argparse.Namespace) -> int:
    """ablation / infogain / kernels: the SVM analyses of :mod:`bench.ablation`."""
    try:
        from bench import ablation
    except ImportError as exc:
        from bench.run_types import UsageError

        raise UsageError(f"`{args.command}` needs bench.ablation: {exc}") from None
    from bench import paper_figures

    corpus = _load(args.corpus, args)
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
    _print_table(table, args.csv)
    print(f"\nPublished (different data): {published}")
    return EXIT_OK


def _check_analysis_size(args: argparse.Namespace, n_documents: int) -> None:
    """The corpus is large enough for the analysis (checked once it is loaded)."""
    from bench.run_types import UsageError

    folds = args.folds or 10
    if args.command == "ablation" and folds > n_documents:
        raise UsageError(
            f"corpus {args.corpus}: cannot make {folds} folds from {n_documents} documents "
            "(use --folds)"
        )
    if args.command == "kernels" and n_documents < 2:
        raise UsageError(f"corpus {args.corpus}: the kernel experiment needs at least 2 documents")


def _print_table(table: Any, csv_path: str | None) -> None:
    import pandas as pd

    from bench.run_types import UsageError
    from infra.cache import atomic_write_text

    df = table if isinstance(table, pd.DataFrame) else pd.DataFrame(list(table))
    print(df.to_markdown(index=False, floatfmt=".4f"))
    if csv_path:
        try:
            atomic_write_text(csv_path, df.to_csv(index=False))
        except OSError as exc:
            raise UsageError(f"cannot write --csv {csv_path}: {exc.strerror or exc}") from exc


def _note(args: argparse.Namespace, message: str) -> None:
    """A progress message on stderr, unless ``--quiet``."""
    from corpora.model import printable

    if not getattr(args, "quiet", False):
        print(printable(message), file=sys.stderr)


def _warn(message: str) -> None:
    """A line on stderr that ``--quiet`` keeps: it says the result is not what was asked
    for (records skipped, systems not run)."""
    from corpora.model import printable

    print(printable(message), file=sys.stderr)


def cmd_profile(args: argparse.Namespace) -> int:
    from bench.profile import load_run, render
    from bench.run_types import UsageError

    try:
        run = load_run(args.run_dir)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    print(render(run, ("system", "corpus") if args.by_corpus else ("system",)))
    return 0


# --------------------------------------------------------------------------- entry point


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` and run one command; returns the exit code (never raises for input)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (2, already printed)
        return int(exc.code or 0)
    args._argv = ["python", "-m", "bench", *argv] if argv is not None else None
    try:
        return _dispatch(args)
    finally:
        lock = getattr(args, "_out_lock", None)
        if lock is not None:
            lock.release()


def _dispatch(args: argparse.Namespace) -> int:
    """Validate the options and run the command; every error of input is one line."""
    from bench.execution import BackendError
    from bench.run_types import UsageError
    from corpora.model import CorpusError, printable
    from corpora.nlp import MissingResourceError
    from infra.cache import CacheError

    try:
        validate(args)
        _load_peers(args)
        if args.command == "list":
            return cmd_list(args)
        if args.command == "corpus":
            if args.corpus_command == "convert":
                return cmd_corpus_convert(args)
            return cmd_corpus_stats(args)
        if args.command == "run":
            return cmd_run(args)
        if args.command == "learning-curve":
            return cmd_run(args, protocol="learning-curve")
        if args.command == "reproduce":
            return cmd_reproduce(args)
        if args.command == "profile":
            return cmd_profile(args)
        if args.command == "check":
            return cmd_check(args)
        if args.command == "ledger":
            return ledger.command(args)
        return cmd_analysis(args)
    except (CorpusError, MissingResourceError, UsageError, BackendError, CacheError) as exc:
        print(f"error: {printable(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        from infra.cache import caching_enabled

        resume = "; finished cells are cached, so the same command resumes"
        resume = resume if caching_enabled() else ""
        print(f"interrupted: no result file was left half-written{resume}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except OSError as exc:  # a path the file system refuses (too long, read-only, full ...)
        where = f": {exc.filename}" if exc.filename else ""
        print(printable(f"error: {exc.strerror or exc}{where}"), file=sys.stderr)
        return EXIT_USAGE


def _silence_stdout() -> None:
    """After the reader of stdout went away (``| head``), send the rest of the output and
    the interpreter's final flush to /dev/null instead of a second BrokenPipeError."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass  # stdout is not a file (a test's capture): nothing to silence


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

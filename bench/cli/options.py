"""Option types and the option groups several subcommands share.

Each type checks one option's value at parse time, so argparse reports it as one line
naming the option (exit code 2).  What needs the file system, the environment or several
options together is checked by :mod:`bench.cli.validate`.
"""

from __future__ import annotations

import argparse
import math
import re
from typing import Any

from bench.run.run_types import (
    DEFAULT_INNER_FOLDS,
    DEFAULT_OBJECTIVE,
    DEFAULT_RESAMPLES,
    DEFAULT_SHUFFLES,
    check_objective,
)
from corpora.folds import GROUP_BY_CHOICES

_WHOLE = re.compile(r"[+-]?[0-9]+")


def whole_number(text: str) -> int:
    """A whole number in ASCII digits (``int`` would also take ``1_0`` and ``١٠``)."""
    if not _WHOLE.fullmatch(text.strip()):
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}")
    return int(text)


def at_least(minimum: int, what: str = "") -> Any:
    def parse(text: str) -> int:
        value = whole_number(text)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}{what}: {value}")
        return value

    parse.__name__ = "whole number"  # argparse names the type in its messages
    return parse


def positive_or_all(text: str) -> int:
    """``--jobs``: a positive number, or -1 for every core."""
    value = whole_number(text)
    if value < 1 and value != -1:
        raise argparse.ArgumentTypeError("must be a positive number (or -1 for all cores)")
    return value


#: Seeds are used by numpy's generators, which take 0 <= seed < 2**32.
MAX_SEED = 2**32 - 1


def seed_number(text: str) -> int:
    value = whole_number(text)
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"must be between 0 and {MAX_SEED}: {value}")
    return value


def finite_number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number: {text!r}")
    return value


def positive_number(text: str) -> float:
    value = finite_number(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be more than 0: {text!r}")
    return value


def probability(text: str) -> float:
    value = finite_number(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1 (exclusive): {text!r}")
    return value


#: Bootstrap resamples are drawn as one resamples x documents matrix of floats (8 bytes
#: each), so more than this would need gigabytes for a corpus of a few thousand notes.
MAX_RESAMPLES = 100_000


def resample_count(text: str) -> int:
    value = whole_number(text)
    if not 0 <= value <= MAX_RESAMPLES:
        raise argparse.ArgumentTypeError(f"must be between 0 and {MAX_RESAMPLES:,}: {value}")
    return value


def objective(text: str) -> str:
    """``--objective``: f1, f2, precision@recall=R or recall@precision=P
    (:func:`bench.run.run_types.check_objective`)."""
    try:
        return check_objective(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def fraction_list(text: str) -> tuple[float, ...]:
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


def corpus_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--seed", type=seed_number, default=0, help="seed of the corpus generator and folds (0)"
    )
    p.add_argument(
        "--n-documents",
        type=at_least(1),
        default=None,
        metavar="N",
        help="number of documents of the embedded corpora (default: the generator's)",
    )
    p.add_argument(
        "--phi-rate",
        type=positive_number,
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


def run_options(p: argparse.ArgumentParser, *, default_systems: str) -> None:
    """The options of ``run`` and ``learning-curve``, in the order ``--help`` lists them;
    one helper per group, so that each group reads as a whole."""
    _comparison_options(p, default_systems=default_systems)
    _execution_options(p)
    _statistics_options(p)
    _tuning_options(p)
    _training_data_options(p)
    p.add_argument(
        "--no-cache", action="store_true", help="recompute everything (ignore the disk cache)"
    )
    peers_option(p)
    p.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="SYSTEM.NAME=VALUE",
        help="a system parameter, e.g. svm.C=0.5 (repeatable; VALUE is a Python literal); "
        "SYSTEM.augment=unseen:2,surrogate (unseen:1-3 with --tune) or =none replaces "
        "--augment for one learned system",
    )
    p.add_argument(
        "--config",
        metavar="FILE",
        help="run a saved configuration again: a report's run.json (the command it records) "
        "or a TOML file with a [run] table of options; its --out is left out, and options "
        "given after --config win (bench/cli/replay.py)",
    )


def _comparison_options(p: argparse.ArgumentParser, *, default_systems: str) -> None:
    """What is compared: the systems, the corpora (and how the embedded ones are made) and
    the folds that split them."""
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
        "--folds", type=at_least(2), default=10, help="cross-validation folds (default 10)"
    )
    corpus_options(p)


def _execution_options(p: argparse.ArgumentParser) -> None:
    """Where the cells run and where the outputs go: none of these changes a score."""
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
        type=positive_or_all,
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


def _statistics_options(p: argparse.ArgumentParser) -> None:
    """How scores are tested and which documents stay together in the folds."""
    p.add_argument("--alpha", type=probability, default=0.05, help="significance level (0.05)")
    p.add_argument(
        "--resamples",
        type=resample_count,
        default=DEFAULT_RESAMPLES,
        help=f"bootstrap resamples for F1 CIs ({DEFAULT_RESAMPLES})",
    )
    p.add_argument(
        "--shuffles",
        type=at_least(1),
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


def _tuning_options(p: argparse.ArgumentParser) -> None:
    """``--tune`` and what its inner cross-validation chooses by."""
    p.add_argument(
        "--tune",
        action="store_true",
        help="choose each learned system's hyperparameters and decision threshold by an "
        "inner grouped cross-validation on the training folds only",
    )
    p.add_argument(
        "--objective",
        type=objective,
        metavar="f1|f2|precision@recall=R|recall@precision=P",
        default=None,
        help=f"what --tune maximizes (default {DEFAULT_OBJECTIVE}: a missed PHI leaks, a false "
        "alarm only redacts a word; a preset that states its own objective keeps it, and "
        "refuses another given here)",
    )
    p.add_argument(
        "--inner-folds",
        type=at_least(2),
        metavar="K",
        default=None,
        help=f"folds of --tune's inner cross-validation (default {DEFAULT_INNER_FOLDS}; more "
        "folds train the inner models on more notes, so a threshold chosen on them "
        "transfers better to the refitted model, at the cost of more fits)",
    )


def _training_data_options(p: argparse.ArgumentParser) -> None:
    """What learned systems train on besides the training folds, and whether scored notes
    may repeat training notes."""
    p.add_argument(
        "--augment",
        default=None,
        metavar="VARIANT[:N],...",
        help="add transformed copies of the training documents (surrogate, unseen; N copies "
        "of each with other names, default 1) to training, so learned systems do not "
        "memorise the training notes' names; with --tune, selection is also judged on one "
        "copy per variant of the held-out inner parts, and a range (unseen:1-3) lets it "
        "choose the number of copies",
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


def peers_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--peers",
        metavar="FILE",
        default=None,
        help="TOML file naming external de-identifiers, each a system of its own "
        "(docs/peers.md; same as DEID_BENCH_PEERS)",
    )


def analysis_options(p: argparse.ArgumentParser) -> None:
    corpus_options(p)
    p.add_argument("--csv", metavar="FILE", help="also write the table as CSV")

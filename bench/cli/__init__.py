"""``python -m bench``: list systems and corpora, corpus Tables 1, 6, 10, run the benchmark.

Subcommands (each has ``--help``; one module of this package each)::

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
    profile RUN                                  where a saved run's worker-seconds went
    compare BEFORE AFTER                         paired test of two runs' F on the same notes

Exit codes: 0 success; 1 a system failed (the others finished and were reported); 2 bad
input or usage (one line on stderr, never a traceback); 130 interrupted (Ctrl-C); 141 the
reader of the output went away (``python -m bench list | head``).  Every option is checked
before any work starts (:mod:`bench.cli.validate`), so a bad value never costs a run.

A subcommand is a module with ``add_parser(subparsers)``, which sets ``handler`` (its
function of the parsed options returning the exit code); :data:`COMMANDS` lists them in
the order ``--help`` shows them.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence

from bench.cli import (
    analysis,
    check,
    compare,
    corpus,
    ledger,
    listing,
    profile,
    reproduce,
    run,
)
from bench.cli.common import (
    EXIT_BROKEN_PIPE,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    Parser,
)
from bench.cli.validate import load_peers, validate

#: The subcommand modules, in the order of ``--help``.
COMMANDS = (listing, corpus, run, analysis, reproduce, check, profile, compare, ledger)

__all__ = [
    "COMMANDS",
    "EXIT_BROKEN_PIPE",
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_USAGE",
    "build_parser",
    "main",
]


def build_parser() -> argparse.ArgumentParser:
    """The parser of every subcommand (:data:`COMMANDS`)."""
    parser = Parser(
        prog="python -m bench",
        description="deid-bench: compare de-identification systems on clinical text.",
    )
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for command in COMMANDS:
        command.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` and run one command; returns the exit code (never raises for input)."""
    from bench.cli.replay import ConfigError, expand
    from corpora.model import printable

    given = argv is not None
    raw = list(sys.argv[1:] if argv is None else argv)
    try:  # --config FILE: the saved options, recorded in run.json as the command
        argv = expand(raw)
    except ConfigError as exc:
        print(f"error: {printable(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (2, already printed)
        return int(exc.code or 0)
    args._argv = ["python", "-m", "bench", *argv] if given or argv != raw else None
    try:
        with _terminate_as_interrupt():
            return _dispatch(args)
    finally:
        lock = getattr(args, "_out_lock", None)
        if lock is not None:
            lock.release()


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """While a command runs, SIGTERM (``kill``, a job scheduler's time limit) stops it as
    Ctrl-C does: the parallel backend stops its worker processes, which would otherwise
    go on computing cells nobody will read, and the lock and the result files are left as
    an interrupted run leaves them."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _dispatch(args: argparse.Namespace) -> int:
    """Validate the options and run the command; every error of input is one line."""
    from bench.run.execution import BackendError
    from bench.run.run_types import UsageError
    from corpora.model import CorpusError, printable
    from corpora.nlp import MissingResourceError
    from infra.cache import CacheError

    try:
        validate(args)
        load_peers(args)
        handler: Callable[[argparse.Namespace], int] = args.handler
        return handler(args)
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

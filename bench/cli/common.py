"""What every subcommand shares: exit codes, a parser that fails in one line, messages on
stderr, and reading the one corpus a corpus or analysis command works on."""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
#: 128 + the signal number, as a shell reports a process stopped by SIGINT / SIGPIPE.
EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 130, 141


class Parser(argparse.ArgumentParser):
    """argparse that exits with code 2 and one line, as the rest of the CLI does."""

    def error(self, message: str) -> Any:  # type: ignore[override]
        from corpora.model import printable

        self.exit(EXIT_USAGE, f"{self.prog}: error: {printable(message)}\n")


def note(args: argparse.Namespace, message: str) -> None:
    """A progress message on stderr, unless ``--quiet``."""
    from corpora.model import printable

    if not getattr(args, "quiet", False):
        print(printable(message), file=sys.stderr)


def warn(message: str) -> None:
    """A line on stderr that ``--quiet`` keeps: it says the result is not what was asked
    for (records skipped, systems not run)."""
    from corpora.model import printable

    print(printable(message), file=sys.stderr)


def category_weights(args: argparse.Namespace) -> tuple[tuple[str, float], ...]:
    from bench.run.run_types import UsageError
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


def read_corpus(spec: str, args: argparse.Namespace) -> Any:
    from bench.run.plan import check_generator_options_used
    from corpora.load import LoadOptions, load_corpus

    check_generator_options_used(
        args.n_documents, args.phi_rate, category_weights(args), [spec]
    )
    corpus, skipped = load_corpus(
        spec,
        LoadOptions(
            seed=args.seed,
            lenient=args.lenient,
            n_documents=args.n_documents,
            phi_rate=args.phi_rate,
            category_weights=category_weights(args),
        ),
    )
    if skipped:
        warn(f"skipped {len(skipped)} bad record(s) in {spec} (--lenient)")
    return corpus

"""``python -m bench check SYSTEM...``: the conformance suite (:mod:`systems.conformance`)
on each system, one line per check."""

from __future__ import annotations

import argparse
from typing import Any

from bench.cli.common import EXIT_FAILED, EXIT_OK
from bench.cli.options import peers_option


def add_parser(sub: Any) -> None:
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
    peers_option(check)
    check.set_defaults(handler=command)


def command(args: argparse.Namespace) -> int:
    """Every check of :mod:`systems.conformance` on each system, one line per check."""
    from bench.run.run_types import UsageError
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

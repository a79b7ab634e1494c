"""``python -m bench ledger``: the selection ledger's history, per set of test notes
(:mod:`bench.report.ledger`)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from bench.report.ledger import history, ledger_path, read_entries


def add_parser(sub: Any) -> None:
    """``python -m bench ledger``: the subcommand's options."""
    p = sub.add_parser(
        "ledger",
        help="every configuration the harness has scored, per set of test notes",
        description="Print the selection ledger (bench/report/ledger.py): per set of test notes, "
        "identified by their texts, every distinct configuration scored on them, when, how "
        "often, and its last precision and recall.",
    )
    p.add_argument(
        "--corpus",
        metavar="TEXT",
        default=None,
        help="only sets of notes scored under a corpus name containing TEXT",
    )
    p.add_argument(
        "--reports",
        nargs="+",
        metavar="PATH",
        default=None,
        help="count looks from saved reports instead (run.json files, or directories "
        "searched for them): per set of test notes, each report in the order it was run, "
        "with the distinct configurations scored on those notes before it",
    )
    p.add_argument("--json", action="store_true", help="the history as JSON")
    p.set_defaults(handler=command)


#: Columns of ``python -m bench ledger``.
_HEADERS = ("first scored", "runs", "code versions", "P", "R", "as", "configuration")


def _pct(x: float | None) -> str:
    return "" if x is None else f"{100 * x:.1f}"


def command(args: argparse.Namespace) -> int:
    """Print the ledger's history (exit 0, also when there is none yet)."""
    from tabulate import tabulate

    from corpora.model import printable

    if args.reports:
        return _saved_looks(args)
    path = ledger_path()
    entries, bad = read_entries(path)
    groups = history(entries, args.corpus)
    if args.json:
        print(printable(json.dumps(groups, indent=1, ensure_ascii=False), keep="\n"))
        return 0
    print(printable(f"Selection ledger {path}: {len(entries)} entries"))
    if bad:
        print(f"({bad} unreadable line(s) skipped)")
    for g in groups:
        rows = [
            [c["first"], c["times"], c["code_versions"], _pct(c["precision"]), _pct(c["recall"])]
            for c in g["configurations"]
        ]
        for row, c in zip(rows, g["configurations"], strict=True):
            row += [", ".join(c["systems"]), c["description"]]
        title = (
            f"\n{g['n_notes']} notes {g['notes'][:12]} scored as {', '.join(g['corpora'])}: "
            f"{len(g['configurations'])} configurations in {g['runs']} runs"
        )
        table = tabulate(rows, headers=list(_HEADERS), tablefmt="simple")
        print(printable(f"{title}\n{table}", keep="\n"))
    return 0


def _saved_looks(args: argparse.Namespace) -> int:
    """``--reports``: the looks counted from saved run.json files (bench.report.saved_looks)."""
    from tabulate import tabulate

    from bench.report.saved_looks import looks
    from corpora.model import printable

    try:
        groups = looks(args.reports)
    except ValueError as exc:
        print(printable(f"error: {exc}"))
        return 2
    groups = [g for g in groups if not args.corpus or any(args.corpus in c for c in g["corpora"])]
    if args.json:
        print(printable(json.dumps(groups, indent=1, ensure_ascii=False), keep="\n"))
        return 0
    for g in groups:
        rows = [
            [r["started"], r["report"], r["configurations"], r["new"], r["before"]]
            for r in g["reports"]
        ]
        title = (
            f"\nnotes {g['notes'][:12]} scored as {', '.join(g['corpora'])}: "
            f"{g['distinct']} distinct configurations in {len(g['reports'])} saved reports"
        )
        headers = ["started", "report", "configurations", "new", "scored before"]
        print(printable(f"{title}\n{tabulate(rows, headers=headers)}", keep="\n"))
    return 0

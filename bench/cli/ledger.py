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

"""``python -m bench list``: every registry, one line per entry."""

from __future__ import annotations

import argparse
from typing import Any

from bench.cli.common import EXIT_OK
from bench.cli.options import peers_option


def add_parser(sub: Any) -> None:
    listing = sub.add_parser(
        "list", help="list systems and corpora", description="List systems and corpora."
    )
    peers_option(listing)
    listing.set_defaults(handler=command)


def search_rows() -> list[list[str]]:
    """Each trained system's declared configuration space: the values of every choice
    ``--tune`` makes at its defaults, a preset's range of copies, and the choices its
    :attr:`~systems.base.System.wider_search` parameters add."""
    from systems.base import available_systems

    rows: list[list[str]] = []
    for name, entry in available_systems().items():
        if not entry.requires_training:
            continue
        try:
            space = entry().search_space()
        except (TypeError, ValueError) as exc:  # a plug-in that needs parameters to exist
            rows.append([name, f"(not shown: {exc})"])
            continue
        parts = [f"{k}: {', '.join(map(_short, v))}" for k, v in space.items()]
        if entry.augment:
            parts.append(f"copies: {entry.augment}")
        wider = entry.cls.wider_search
        if wider:
            more = entry.cls(**{**entry.params, **wider}).search_space()
            added = [k for k in more if k not in space]
            given = ", ".join(f"{k}={v}" for k, v in wider.items())
            if added:
                parts.append(f"with --param {name}.{given}: also {', '.join(added)}")
        rows.append([name, "; ".join(parts) or "nothing (fixed)"])
    return rows


def _short(value: object) -> str:
    """One choice as a user would write it: ``0.1``, ``shape+section``, a stack's base
    names (``mega+mimic``) rather than their parameters, ``none`` for an empty set."""
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (tuple, list)):
        if not value:
            return "none"
        names = [v[0] if isinstance(v, (tuple, list)) and v else v for v in value]
        return "+".join(map(str, names))
    return str(value)


def command(args: argparse.Namespace) -> int:
    """Every registry, one line per entry, each line the entry's own description."""
    from tabulate import tabulate

    from bench.run.plan import SYSTEM_GROUPS
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
    print(
        "\nWhat --tune chooses inside the training folds, per trained system (its "
        "search_space; a system that scores tokens also has its threshold chosen):\n"
    )
    table = tabulate(search_rows(), headers=["name", "choices"], tablefmt="simple")
    print(printable(table, keep="\n"))
    for title, registry in (
        ("Feature classes of svm (--param svm.features=...; ablation)", ALL_FEATURES),
        ("Feature sources of mega (--param mega.sources=...)", MEGA_SOURCES),
    ):
        print(f"\n{title}:\n")
        rows = [[e.name, e.description] for e in registry.entries()]
        print(tabulate(rows, headers=["name", "what it is"], tablefmt="simple"))
    return EXIT_OK

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
    for title, registry in (
        ("Feature classes of svm (--param svm.features=...; ablation)", ALL_FEATURES),
        ("Feature sources of mega (--param mega.sources=...)", MEGA_SOURCES),
    ):
        print(f"\n{title}:\n")
        rows = [[e.name, e.description] for e in registry.entries()]
        print(tabulate(rows, headers=["name", "what it is"], tablefmt="simple"))
    return EXIT_OK

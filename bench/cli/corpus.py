"""``python -m bench corpus stats|convert``: a corpus's Tables 1, 6 and 10 beside the
paper's, or the corpus written in another format."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from bench.cli.common import EXIT_OK, Parser, read_corpus
from bench.cli.options import corpus_options


def add_parser(sub: Any) -> None:
    corpus = sub.add_parser("corpus", help="corpus tools", description="Corpus tools.")
    corpus_sub = corpus.add_subparsers(
        dest="corpus_command", required=True, parser_class=Parser
    )
    stats = corpus_sub.add_parser(
        "stats",
        help="words per PHI category, ambiguous, not in a dictionary (Tables 1, 6, 10)",
        description="Tokens per PHI category, of them ambiguous and not in a dictionary, "
        "beside the paper's figures (Sibanda & Uzuner 2006, Tables 1, 6 and 10).",
    )
    stats.add_argument("corpus", metavar="CORPUS", help="an embedded corpus or KIND:PATH spec")
    corpus_options(stats)
    stats.set_defaults(handler=stats_command)
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
    corpus_options(convert)
    convert.set_defaults(handler=convert_command)


def stats_command(args: argparse.Namespace) -> int:
    from bench.reproduce.paper_figures import su06_corpus_columns
    from corpora.dictionaries import system_dictionaries
    from corpora.model import printable
    from corpora.stats import stats_markdown

    corpus = read_corpus(args.corpus, args)
    table = stats_markdown(corpus, su06_corpus_columns(), system_dictionaries(args.dictionaries))
    print(printable(table, keep="\n"))
    return EXIT_OK


def convert_command(args: argparse.Namespace) -> int:
    from bench.run.run_types import UsageError
    from corpora.model import printable
    from corpora.readers.brat import write_brat
    from corpora.readers.jsonl import write_jsonl

    out = Path(args.out)
    if out.exists():
        raise UsageError(f"{out}: already exists (convert never overwrites)")
    corpus = read_corpus(args.corpus, args)
    n = write_brat(corpus, out) if args.to == "brat" else write_jsonl(corpus, out, mode=0o600)
    print(printable(f"wrote {n} documents to {out} ({args.to})"))
    return EXIT_OK

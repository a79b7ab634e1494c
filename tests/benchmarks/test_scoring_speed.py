"""How long scoring one 5 MB note takes (docs/cli.md quotes the figure).

Entity matching used to compare every gold phrase with every predicted one, so a single
5 MB note ran for minutes; the sort-and-sweep (:func:`bench.score.metrics._match_entities`) is
linear after sorting.  Run with ``pytest tests/benchmarks/test_scoring_speed.py
--benchmark-enable``; the document's size and tokens are in ``extra_info``.
"""

from __future__ import annotations

from bench.score.metrics import entity_scores, token_scores
from corpora.model import Document, Span

LINE = "Pt Smith seen at Mercy on 3/14 by Dr Jones, stable, plan unchanged.\n"
PHI = (("Smith", "PATIENT"), ("Mercy", "HOSPITAL"), ("3/14", "DATE"), ("Jones", "DOCTOR"))


def five_megabyte_note() -> Document:
    repeats = 5_000_000 // len(LINE)
    spans = []
    for r in range(repeats):
        base = r * len(LINE)
        for phrase, category in PHI:
            start = base + LINE.index(phrase)
            spans.append(Span(start, start + len(phrase), category))
    return Document("big", LINE * repeats, tuple(spans))


def test_scoring_a_5_mb_note(benchmark) -> None:
    doc = five_megabyte_note()
    # a system that finds every other line's PHI and marks one word too many per line
    labels = []
    for tok in doc.tokens:
        line = tok.start // len(LINE)
        gold = tok.label
        labels.append(gold if line % 2 == 0 else ("PATIENT" if tok.text == "Pt" else "O"))

    def score() -> None:
        token_scores([doc], [labels])
        entity_scores([doc], [labels], match="strict")
        entity_scores([doc], [labels], match="overlap")

    benchmark.extra_info.update(
        megabytes=len(doc.text) / 1e6, tokens=len(doc.tokens), phrases=len(doc.spans)
    )
    benchmark.pedantic(score, rounds=1, iterations=1)

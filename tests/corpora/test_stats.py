"""Tables 1, 6 and 10 of the paper as token counts for any corpus."""

from __future__ import annotations

from corpora.generator import GeneratorConfig, generate_corpus
from corpora.model import (
    FLAG_AMBIGUOUS,
    FLAG_NOT_IN_DICTIONARY,
    LABELS,
    Corpus,
    Document,
    Mark,
    Span,
)
from corpora.stats import NON_PHI, PHI_TOTAL, TOTAL, distribution_table, stats_markdown


def _corpus() -> Corpus:
    text = "Mr. Swan seen 7/22 by Dr. Ymfgk. Swan catheter out."
    #       0123456789012345678901234567890123456789012345678901
    doc = Document(
        "x",
        text,
        (Span(4, 8, "PATIENT"), Span(14, 18, "DATE"), Span(26, 31, "DOCTOR")),
        (
            Mark(4, 8, FLAG_AMBIGUOUS),
            Mark(33, 37, FLAG_AMBIGUOUS),
            Mark(26, 31, FLAG_NOT_IN_DICTIONARY),
        ),
    )
    return Corpus("tiny", (doc,))


def test_counts_on_a_hand_written_document() -> None:
    frame = distribution_table(_corpus())
    tokens = _corpus()[0].tokens
    assert frame.loc[TOTAL, "tokens"] == len(tokens)
    assert frame.loc["PATIENT", "tokens"] == 1
    assert frame.loc["DATE", "tokens"] == 1
    assert frame.loc["DOCTOR", "tokens"] == 1
    assert frame.loc[PHI_TOTAL, "tokens"] == 3
    assert frame.loc[NON_PHI, "tokens"] == len(tokens) - 3
    assert frame.loc["PATIENT", "ambiguous"] == 1
    assert frame.loc[NON_PHI, "ambiguous"] == 1
    assert frame.loc["DOCTOR", "not_in_dictionary"] == 1
    assert frame.loc[TOTAL, "not_in_dictionary"] == 1


def test_rows_sum_to_totals() -> None:
    corpus = generate_corpus(2, GeneratorConfig(n_documents=10))
    frame = distribution_table(corpus)
    for col in ("tokens", "ambiguous", "not_in_dictionary"):
        assert frame.loc[list(LABELS), col].sum() == frame.loc[PHI_TOTAL, col]
        assert frame.loc[NON_PHI, col] + frame.loc[PHI_TOTAL, col] == frame.loc[TOTAL, col]
    assert frame.loc[TOTAL, "tokens"] == corpus.n_tokens
    assert abs(frame.loc[[NON_PHI, *LABELS], "share"].sum() - 1.0) < 1e-9


def test_markdown_has_three_tables_and_no_phi_text() -> None:
    md = stats_markdown(_corpus())
    assert "Table 1" in md and "Table 6" in md and "Table 10" in md
    assert "| PATIENT" in md
    assert "Ymfgk" not in md and "Swan" not in md and "7/22" not in md


def test_paper_columns_beside_ours() -> None:
    from bench.paper_figures import su06_corpus_columns

    md = stats_markdown(_corpus(), su06_corpus_columns())
    # ours: 2 ambiguous tokens, 1 of them PHI; the paper's Table 6: 4,849 words, 1,068 PHI
    assert "2 tokens are uses of ambiguous words, 50.0% of them PHI" in md
    assert "(paper: 4,849 words, 22.0% PHI)" in md
    rows = {line.split(" | ")[0].strip("| "): line for line in md.splitlines() if "|" in line}
    assert "| 1,047 | 514 | 49.1% |" in [r for r in md.splitlines() if r.startswith("| PATIENT")][1]
    assert "| 376 | 376 | 100.0% |" in [r for r in md.splitlines() if r.startswith("| HOSPITAL")][2]
    assert rows["AGE"].endswith("| - | - | - |")  # not a class of the paper
    assert "Swan" not in md and "Ymfgk" not in md

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
    from bench.reproduce.paper_figures import su06_corpus_columns

    md = stats_markdown(_corpus(), su06_corpus_columns())
    # ours: 2 ambiguous tokens, 1 of them PHI; the paper's Table 6: 4,849 words, 1,068 PHI
    assert "2 tokens are uses of ambiguous words, 50.0% of them PHI" in md
    assert "(paper: 4,849 words, 22.0% PHI)" in md
    rows = {line.split(" | ")[0].strip("| "): line for line in md.splitlines() if "|" in line}
    assert "| 1,047 | 514 | 49.1% |" in [r for r in md.splitlines() if r.startswith("| PATIENT")][1]
    assert "| 376 | 376 | 100.0% |" in [r for r in md.splitlines() if r.startswith("| HOSPITAL")][2]
    assert rows["AGE"].endswith("| - | - | - |")  # not a class of the paper
    assert "Swan" not in md and "Ymfgk" not in md


def _toy_ambiguous() -> Corpus:
    """Twelve notes: "Brown" after "Dr." is a doctor, "brown" after "thin" is not."""
    docs = []
    for i in range(12):
        text = f"Seen by Dr. Brown. Thin brown stool. Thin brown urine {i}."
        docs.append(
            Document(
                f"t{i}",
                text,
                (Span(12, 17, "DOCTOR"),),
                (
                    Mark(12, 17, FLAG_AMBIGUOUS),
                    Mark(24, 29, FLAG_AMBIGUOUS),
                    Mark(42, 47, FLAG_AMBIGUOUS),
                ),
            )
        )
    return Corpus("toy", tuple(docs))


def test_ambiguity_shares_count_table9s_subset() -> None:
    from corpora.stats import ambiguity_shares

    shares = ambiguity_shares(_toy_ambiguous())
    assert (shares.ambiguous_phi, shares.ambiguous_non_phi) == (12, 24)
    assert shares.phi_tokens == 12 and shares.of_phi == 1.0
    assert abs(shares.phi_share - 1 / 3) < 1e-9
    assert shares.of_non_phi == 24 / shares.non_phi_tokens


def test_one_cue_alone_on_held_out_notes() -> None:
    from corpora.stats import cue_accuracy

    accuracy = cue_accuracy(_toy_ambiguous(), folds=3)
    assert abs(accuracy["base rate"] - 2 / 3) < 1e-9  # always non-PHI
    assert accuracy["the word itself"] == accuracy["base rate"]  # "brown" both ways
    assert accuracy["previous token"] == 1.0  # "dr." vs "thin"
    assert accuracy["capitalisation"] == 1.0  # "Brown" vs "brown"


def test_the_generated_ambiguous_corpus_reaches_table6_and_the_issue_targets(tmp_path, monkeypatch):
    """The shares are properties of the generator and the variant, so a small generated
    corpus shows what the default 475 notes show (issue 27: Table 9's subset at least 25 %
    of the PHI tokens and 12 % of the non-PHI tokens, 15-30 % of it PHI; Table 6's class
    shares)."""
    from corpora.ambiguity import CLASS_SHARES
    from corpora.load import get_variant
    from corpora.stats import ambiguity_shares

    monkeypatch.setenv("DEID_BENCH_CACHE", str(tmp_path))
    corpus = get_variant("ambiguous")(generate_corpus(1, GeneratorConfig(n_documents=120)), seed=0)
    shares = ambiguity_shares(corpus)
    assert shares.of_phi >= 0.25 and shares.of_non_phi >= 0.12
    assert 0.15 <= shares.phi_share <= 0.30
    frame = distribution_table(corpus)
    for category, share in CLASS_SHARES.items():
        ours = frame.loc[category, "ambiguous"] / frame.loc[category, "tokens"]
        assert abs(ours - share) < 0.02, (category, ours, share)

"""A re-implementation beside its original: agreement, kappa, recall per type, speed."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from bench.report.outputs import write_outputs
from bench.run.runner import RunConfig, run
from bench.score.peer_comparison import cohen_kappa
from corpora.model import Document
from systems.base import register, unregister
from systems.external import ExternalSystem, FoundSpan, NoteError
from tests.bench.toy import make_corpus


class CapitalsOriginal(ExternalSystem):
    """The 'original' of toy-capitals: capitalized words only (no dates)."""

    name = "toy-original"
    description = "test fixture: the original of toy-capitals"
    original_of = "toy-capitals"

    def __init__(self, labels=None, on_error: str = "redact") -> None:
        self.labels = labels
        self.on_error = on_error

    def find_spans(self, documents: Sequence[Document]) -> list[list[FoundSpan] | NoteError]:
        return [
            [
                FoundSpan(m.start(), m.end(), "NAME")
                for m in re.finditer(r"(?<=\s)[A-Z][a-z]+\b", doc.text)
            ]
            for doc in documents
        ]


@pytest.fixture
def original():
    register(CapitalsOriginal)
    yield
    unregister(CapitalsOriginal.name)


def _run(systems: str, corpus):
    """A three-fold run of ``systems`` on the toy corpus (few resamples: fast)."""
    return run(
        RunConfig(
            systems=[systems],
            corpora=["toy"],
            folds=3,
            show_progress=False,
            n_resamples=50,
            n_shuffles=50,
        ),
        {"toy": corpus},
    )


def test_kappa_matches_scikit_learn() -> None:
    rng = np.random.default_rng(0)
    a = rng.random(500) < 0.2
    b = np.where(rng.random(500) < 0.8, a, ~a)
    assert cohen_kappa(a, b) == pytest.approx(cohen_kappa_score(a, b))
    assert np.isnan(cohen_kappa(np.zeros(5, bool), np.zeros(5, bool)))


def test_the_report_compares_a_reimplementation_with_its_original(
    toy_systems, original, tmp_path
) -> None:
    corpus = make_corpus(9)
    result = _run("toy-capitals,toy-original", corpus)
    df = result.peer_comparison
    total = df[df.label == "ALL"].iloc[0]
    assert (total.original, total.reimplementation) == ("toy-original", "toy-capitals")
    # the two differ exactly on the dates, which only toy-capitals marks
    dates = sum(t.label == "DATE" for d in corpus.documents for t in d.tokens)
    assert total.agreement == pytest.approx(1 - dates / corpus.n_tokens)
    by_type = df[df.label != "ALL"].set_index("label")
    assert by_type.loc["DATE", "recall_original"] == 0.0
    assert by_type.loc["DATE", "recall_reimplementation"] == 1.0
    assert by_type.loc["PATIENT", "tokens"] == sum(
        t.label == "PATIENT" for d in corpus.documents for t in d.tokens
    )
    assert total.tokens_per_second_original > 0
    paths = write_outputs(result, tmp_path, ["test"])
    report = paths["report"].read_text()
    assert "### `toy-capitals` vs its original `toy-original` on `toy`" in report
    assert "## External tools: how they ran" in report
    assert paths["peer_comparison"].exists()
    # without the original in the run there is nothing to compare
    alone = run(
        RunConfig(systems=["toy-capitals"], corpora=["toy"], folds=3, show_progress=False),
        {"toy": corpus},
    )
    assert alone.peer_comparison is None


def test_an_alias_of_the_reimplementation_is_compared_with_the_original_too(
    toy_systems, original
) -> None:
    """``mimic-snomed=mimic`` beside ``deidpl``: the alias is the same re-implementation with
    other parameters, so the report pairs it with the original as it pairs ``mimic``."""
    corpus = make_corpus(9)
    result = _run("toy-capitals,toy-again=toy-capitals,toy-original", corpus)
    df = result.peer_comparison
    totals = df[df.label == "ALL"]
    assert sorted(zip(totals.original, totals.reimplementation, strict=True)) == [
        ("toy-original", "toy-again"),
        ("toy-original", "toy-capitals"),
    ]
    assert totals.agreement.nunique() == 1  # the same system under two names

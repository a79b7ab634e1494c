"""--test-variant: the foreign variant kept out of training, the report saying when a
variant recall is no generalization estimate, and recall per PHI category with its test."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bench.report.outputs import write_outputs
from bench.run.runner import RunConfig, UsageError, run
from bench.score.generalization import (
    CATEGORY_COLUMNS,
    category_counts,
    estimate_note,
    spec_variants,
    training_transforms,
)
from corpora.foreign import foreign
from corpora.model import Corpus
from corpora.variants import unseen
from tests.bench.toy import make_corpus

FAST = dict(folds=3, show_progress=False, n_resamples=0, n_shuffles=200)


def _run(variant: str, **kw):
    corpus = make_corpus(12)
    transform = {"foreign": foreign, "unseen": unseen}[variant]
    twin = Corpus(f"{variant}:toy", transform(corpus, seed=0).documents)
    config = RunConfig(
        systems=["toy-memory,toy-capitals"],
        corpora=["toy"],
        test_variant=variant,
        **{**FAST, **kw},
    )
    return run(config, {"toy": corpus, f"{variant}:toy": twin})


@pytest.mark.parametrize(
    "kw",
    [
        {"augment": ("unseen", "foreign")},
        {"system_params": {"toy-memory": {"augment": "foreign:2"}}},
    ],
)
def test_foreign_is_refused_in_every_augmentation(toy_systems, kw) -> None:
    config = RunConfig(systems=["toy-memory"], corpora=["toy"], **{**FAST, **kw})
    with pytest.raises(UsageError, match="reserved for testing generalization"):
        run(config, {"toy": make_corpus(9)})


def test_spec_variants_and_training_transforms() -> None:
    assert spec_variants("unseen:surrogate:physionet:/x") == ["unseen", "surrogate"]
    assert spec_variants("authentic") == [] and spec_variants("jsonl:unseen.jsonl") == []
    info = {
        "augment": ["unseen", "unseen"],
        "extra_training": "surrogate:physionet:/x",
        "test_variant": "unseen",
        "systems": {
            "svm": {"requires_training": True, "augment": ["unseen", "unseen"]},
            "mega": {"requires_training": True, "augment": ["surrogate"]},
            "mimic": {"requires_training": False, "augment": []},
        },
    }
    assert training_transforms(info, "svm", "toy") == {
        "unseen": ["--augment"],
        "surrogate": ["--extra-training surrogate:physionet:/x"],
    }
    assert training_transforms(info, "mega", "unseen:toy") == {
        "surrogate": ["--param mega.augment", "--extra-training surrogate:physionet:/x"],
        "unseen": ["training corpus unseen:toy"],
    }
    assert training_transforms(info, "mimic", "unseen:toy") == {}
    assert "**not**" in estimate_note(info, "svm", "toy")
    assert estimate_note(info, "mega", "toy") == "a generalization estimate"
    assert estimate_note(info, "mimic", "toy") == "a generalization estimate"


def test_report_says_a_variant_seen_in_training_is_no_generalization_estimate(
    toy_systems, tmp_path
) -> None:
    result = _run("unseen", augment=("unseen",))
    paths = write_outputs(result, tmp_path / "out", ["python", "-m", "bench", "run"])
    report = paths["report"].read_text()
    section = report.split("## Trained on authentic notes, tested on a variant")[1]
    memory = next(line for line in section.splitlines() if line.startswith("| toy-memory "))
    capitals = next(line for line in section.splitlines() if line.startswith("| toy-capitals "))
    assert "**not** a generalization estimate: training used `unseen` (--augment)" in memory
    assert "| a generalization estimate" in capitals  # not trained: nothing seen
    assert "## Generalization" not in report


def test_recall_per_category_with_paired_tests_and_holm(toy_systems, tmp_path) -> None:
    result = _run("foreign")
    frame = result.variant_categories
    assert list(frame.columns) == list(CATEGORY_COLUMNS)
    memory = frame[frame.system == "toy-memory"].set_index("category")
    # the memorizer knew the training notes' names; names of other countries escape it
    for category in ("PATIENT", "DOCTOR", "HOSPITAL"):
        row = memory.loc[category]
        assert row.recall_variant < row.recall_authentic
        assert row.difference == pytest.approx(row.recall_variant - row.recall_authentic)
        assert row.p_value <= row.p_holm <= 1
    assert memory.loc["PATIENT", "p_holm"] < 0.05
    # dates are kept by the transform: the same recall, nothing to test
    assert memory.loc["DATE", "recall_variant"] == memory.loc["DATE", "recall_authentic"]
    assert memory.loc["DATE", "p_value"] == 1.0
    paths = write_outputs(result, tmp_path / "out", ["python", "-m", "bench", "run"])
    written = pd.read_csv(paths["variant_categories"])
    assert len(written) == len(frame)
    report = paths["report"].read_text()
    assert "### Recall per PHI category, authentic vs `foreign`" in report
    assert "| toy-memory   | PATIENT" in report


def test_category_counts_are_found_and_missed_gold_tokens() -> None:
    docs = make_corpus(3).documents
    labels = [["PHI" if t.label == "PATIENT" else "O" for t in d.tokens] for d in docs]
    counts = category_counts(docs, labels, ("PATIENT", "DATE"))
    n_patient = [sum(t.label == "PATIENT" for t in d.tokens) for d in docs]
    n_date = [sum(t.label == "DATE" for t in d.tokens) for d in docs]
    assert np.array_equal(counts["PATIENT"][:, 0], n_patient)
    assert not counts["PATIENT"][:, 1:].any()
    assert np.array_equal(counts["DATE"][:, 2], n_date) and not counts["DATE"][:, 0].any()

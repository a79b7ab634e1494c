"""``--extra-training``: documents that join every training set and are never scored."""

from __future__ import annotations

import json

import pytest

from bench.report.outputs import write_outputs
from bench.run.runner import RunConfig, UsageError, run
from bench.training.extra_training import ExtraTraining, extra_corpus
from bench.training.tuning import Tuned
from corpora.readers.jsonl import write_jsonl
from tests.bench.toy import RecordingSystem, make_corpus, make_document


@pytest.fixture
def recorded():
    RecordingSystem.LOG.clear()
    extra_corpus.cache_clear()
    yield RecordingSystem.LOG
    RecordingSystem.LOG.clear()
    extra_corpus.cache_clear()


def _extra(tmp_path, patients: list[str]) -> tuple[str, set[str]]:
    """A JSON-lines corpus of notes numbered from 100, one per patient named."""
    docs = [make_document(100 + i, patient=p) for i, p in enumerate(patients)]
    path = tmp_path / "extra.jsonl"
    write_jsonl(docs, path)
    return f"jsonl:{path}", {d.id for d in docs}


def test_extra_documents_join_every_fit_and_are_never_labelled(recorded, tmp_path) -> None:
    spec, extra_ids = _extra(tmp_path, ["x1", "x2", "x3"])
    docs = list(make_corpus(12, notes_per_patient=3).documents)
    model = Tuned(ExtraTraining(RecordingSystem(), corpus=spec), seed=0).fit(docs)
    fits = [set(ids) for what, ids in recorded if what == "fit"]
    labelled = set().union(*(set(ids) for what, ids in recorded if what == "label"))
    assert len(fits) == 2 * 2 + 1  # two candidates x two inner folds, then the final fit
    assert all(extra_ids <= fitted for fitted in fits)
    assert fits[-1] == extra_ids | {d.id for d in docs}
    assert labelled and labelled.isdisjoint(extra_ids)  # selection judges held-out notes only
    assert model.fitted_.fitted_info()["extra_documents"] == 3


def test_a_changed_extra_corpus_is_refused(recorded, tmp_path) -> None:
    spec, _ = _extra(tmp_path, ["x1"])
    with pytest.raises(RuntimeError, match="changed since the run was planned"):
        ExtraTraining(RecordingSystem(), corpus=spec, fingerprint="0" * 32).fit([])
    with pytest.raises(ValueError, match="corpus spec"):
        ExtraTraining(RecordingSystem()).fit([])


def _config(spec: str) -> RunConfig:
    return RunConfig(
        systems=["toy-recording"],
        corpora=["toy"],
        folds=3,
        show_progress=False,
        n_resamples=0,
        n_shuffles=20,
        extra_training=spec,
    )


def test_run_trains_on_extra_documents_and_scores_only_the_corpus(
    recorded, toy_systems, tmp_path
) -> None:
    spec, extra_ids = _extra(tmp_path, ["x1", "x2"])
    corpus = make_corpus(12, notes_per_patient=2)
    result = run(_config(spec), {"toy": corpus})
    fits = [set(ids) for what, ids in recorded if what == "fit"]
    labelled = set().union(*(set(ids) for what, ids in recorded if what == "label"))
    assert len(fits) == 3 and all(extra_ids <= f for f in fits)
    assert labelled == {d.id for d in corpus.documents}  # every scored note, no extra one
    write_outputs(result, tmp_path / "out", ["python", "-m", "bench", "run"])
    assert json.loads((tmp_path / "out" / "run.json").read_text())["extra_training"] == spec
    assert "`--extra-training`" in (tmp_path / "out" / "report.md").read_text()


def test_run_refuses_extra_training_that_shares_a_patient_with_the_scored_corpus(
    recorded, toy_systems, tmp_path
) -> None:
    spec, _ = _extra(tmp_path, ["x1", "p0"])  # p0 is the toy corpus's first patient
    with pytest.raises(UsageError, match="shares 1 patient"):
        run(_config(spec), {"toy": make_corpus(12, notes_per_patient=2)})
    with pytest.raises(UsageError, match="--extra-training"):
        run(_config(f"jsonl:{tmp_path / 'missing.jsonl'}"), {"toy": make_corpus(6)})

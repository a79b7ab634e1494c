"""The Mega SVM: the union of the other systems' feature-class objects (Tafvizi 2011, §1.2)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import pytest

from bench.score.metrics import token_counts
from corpora.model import PHI, Document, gold_labels
from systems.base import get_system
from systems.features.common import PosWindow
from systems.mega import DEFAULT_SOURCES, MEGA_SOURCES, MegaSVM
from systems.svm import FEATURE_SPACE, unique_features
from tests.conftest import requires_nltk
from tests.systems.test_svm import notes


def test_sources_are_tafvizis_five_systems_plus_an_opt_in_one() -> None:
    assert DEFAULT_SOURCES == ("statdeid", "stanford", "mist", "illinois", "mimic")
    assert list(MEGA_SOURCES) == [*DEFAULT_SOURCES, "dates"]
    default = {f.key() for f in MegaSVM()._features()}
    assert not any(k.startswith("date_forms") for k in default)  # not Tafvizi's: off
    wider = MegaSVM(sources="statdeid, mimic,dates")._features()  # CLI form: a string
    assert {f.name for f in wider} >= {"date_forms", "mimic"}
    assert "date_forms" not in {f.name for f in MegaSVM(sources=("statdeid",))._features()}


def test_union_reuses_the_other_systems_objects_without_duplicates() -> None:
    from systems.features.illinois import ILLINOIS_FEATURES
    from systems.features.stanford import STANFORD_FEATURES

    classes = MegaSVM()._features()
    keys = [f.key() for f in classes]
    assert len(keys) == len(set(keys))
    # the very objects the CRF systems use (or an identical-key object shared with another
    # source), not copies of their features
    assert all(g.key() in keys for g in STANFORD_FEATURES)
    assert any(f is STANFORD_FEATURES[-1] for f in classes)  # Stanford's disjunctive window
    # Orthography is in Stat De-id, MIST and Illinois: it appears once
    assert sum(f.name == "orthography" for f in classes) == 1
    assert sum(isinstance(f, PosWindow) for f in classes) == 1
    assert any(g.key() == f.key() for g in ILLINOIS_FEATURES for f in classes)
    names = {f.name for f in classes}
    assert {"mimic", "mist_regex", "disjunctive", "medical_vocabulary", "affixes"} <= names


def test_single_source_and_unknown_source() -> None:
    only = MegaSVM(sources=("mimic",))._features()
    assert [f.name for f in only] == ["mimic"]
    with pytest.raises(ValueError, match="unknown mega sources"):
        MegaSVM(sources=("stanford", "watson")).feature_classes()
    assert len(unique_features(MegaSVM(sources=("mist", "illinois"))._features())) < len(
        MegaSVM(sources=("mist",))._features()
    ) + len(MegaSVM(sources=("illinois",))._features())


def test_shared_indicators_are_one_binary_column() -> None:
    docs = notes(2, seed=21)
    classes = MegaSVM(sources=("stanford", "illinois"))._features()
    classes = [f for f in classes if not isinstance(f, PosWindow)]
    x = FEATURE_SPACE.matrix(classes, docs, binary=True)
    assert x.max() == 1.0
    # "w0=..." comes from both Stanford's and Illinois' word windows
    col = FEATURE_SPACE.vocabulary["w0=dr."]
    assert x[:, col].sum() == sum(t.text == "Dr." for d in docs for t in d.tokens)


@requires_nltk
def test_mega_learns_categories_from_the_union() -> None:
    train, test = notes(40, seed=22), notes(12, seed=23)
    model = get_system("mega").fit(train)
    pred = model.predict(test)
    gold = gold_labels(test)
    assert PHI not in {lab for doc in pred for lab in doc}
    assert token_counts(gold, pred).f1 > 0.9
    for label in ("PATIENT", "DOCTOR", "PHONE"):
        assert token_counts(gold, pred, label=label).f1 > 0.8, label


def test_binary_mega_without_nltk_sources() -> None:
    train, test = notes(20, seed=24), notes(6, seed=25)
    model = MegaSVM(sources=("mist", "mimic"), mode="binary").fit(train)
    pred = model.predict(test)
    assert {lab for doc in pred for lab in doc} <= {PHI, "O"}
    assert token_counts(gold_labels(test), pred).recall > 0.8


class _RecordingMega(MegaSVM):
    """Mega that records which documents every fit (first stage or not) trained on."""

    fits: ClassVar[list[tuple[bool, tuple[str, ...]]]] = []

    def fit(self, documents: Sequence[Document]) -> _RecordingMega:
        documents = list(documents)
        self.fits.append((self.two_stage, tuple(d.id for d in documents)))
        return super().fit(documents)


def _with_patients(docs: list[Document], patients: int) -> list[Document]:
    return [
        Document(d.id, d.text, d.spans, d.marks, {"patient": str(i % patients)})
        for i, d in enumerate(docs)
    ]


def test_two_stage_mega_learns_from_out_of_fold_first_stage_labels() -> None:
    """Tafvizi §7.2.3's two-stage Mega: the second SVM's training notes get first-stage
    labels from SVMs that never saw their patient, and it learns to use those labels."""
    train = _with_patients(notes(24, seed=26), patients=6)
    test = notes(6, seed=27)
    _RecordingMega.fits.clear()
    model = _RecordingMega(sources=("mist", "mimic"), two_stage=True).fit(train)
    stages = _RecordingMega.fits
    assert stages[0] == (True, tuple(d.id for d in train))
    firsts = [ids for two, ids in stages[1:]]
    assert not any(two for two, _ in stages[1:]) and len(firsts) == 3  # 2 jackknife + full
    patient = {d.id: d.metadata["patient"] for d in train}
    for trained in firsts[:2]:  # each jackknife model labels the patients it did not see
        held = {patient[d.id] for d in train if d.id not in trained}
        assert held and not held & {patient[i] for i in trained}
    assert set(firsts[0]) | set(firsts[1]) == set(patient) and firsts[2] == stages[0][1]

    names = model.feature_names()
    stage1 = [n for n in names if n.startswith("stage1:")]
    assert "stage1:p0=DOCTOR" in stage1 and len(names) == model.model_.coef_.shape[1]
    row = list(model.model_.classes_).index("DOCTOR")
    assert model.model_.coef_[row, names.index("stage1:p0=DOCTOR")] > 0
    labels, scores = model.predict_scored(test)
    assert token_counts(gold_labels(test), labels).f1 > 0.8
    # the final threshold moves decisions over the same scores (the first stage keeps its
    # own boundary), so tuning it needs no refit
    model.set_params(threshold=-0.5)
    lower_labels, lower_scores = model.predict_scored(test)
    assert all((a == b).all() for a, b in zip(scores, lower_scores, strict=True))
    assert (
        token_counts(gold_labels(test), lower_labels).recall
        >= token_counts(gold_labels(test), labels).recall
    )


def test_two_stage_jackknife_follows_the_runs_grouping() -> None:
    """One folder per patient and no patient key (a brat project): with ``group_by`` the
    jackknife holds out whole folders, not single notes."""
    train = [
        Document(d.id, d.text, d.spans, d.marks, {"directory": f"p{i % 4}"})
        for i, d in enumerate(notes(16, seed=28))
    ]
    _RecordingMega.fits.clear()
    _RecordingMega(sources=("mist",), two_stage=True, group_by="directory").fit(train)
    folder = {d.id: d.metadata["directory"] for d in train}
    for _, trained in _RecordingMega.fits[1:3]:
        held = {folder[d.id] for d in train if d.id not in trained}
        assert held and not held & {folder[i] for i in trained}


def test_two_stage_needs_the_linear_svm() -> None:
    from systems.svm import LocalContextSVM

    svm = LocalContextSVM(kernel="rbf")
    svm.two_stage = True
    with pytest.raises(ValueError, match="two_stage"):
        svm.check_params()


def test_search_declares_sources_and_two_stage_as_choices_for_tune() -> None:
    """Which sources and whether to add the second stage are choices ``--tune`` can make
    inside the training folds (``search``), not only by comparing runs on reported notes."""
    plain = MegaSVM(sources="mist,mimic,dates")
    assert set(plain.search_space()) == {"C", "class_weight"}  # the default grid is unchanged
    both = MegaSVM(sources="mist,mimic,dates", search="sources,two_stage")
    space = both.search_space()
    assert space["sources"] == ["mist,mimic,dates", "mimic,dates", "mist,dates", "mist,mimic"]
    assert space["two_stage"] == [False, True]
    assert MegaSVM(sources=("mimic",), search=("sources",)).search_space()["sources"] == ["mimic"]
    with pytest.raises(ValueError, match="search: unknown kernel"):
        MegaSVM(search="sources,kernel").check_params()


def test_tuned_mega_chooses_its_sources_inside_the_training_documents() -> None:
    from bench.training.tuning import Tuned

    train, test = notes(24, seed=26), notes(6, seed=27)
    mega = MegaSVM(sources="mist,mimic", mode="binary", search="sources")
    tuned = Tuned(mega, seed=0, inner_folds=2).fit(train)
    chosen = tuned.fitted_info()["chosen"]
    assert chosen["sources"] in {"mist,mimic", "mimic", "mist"}
    refitted = tuned._fitted()
    assert refitted.sources == chosen["sources"]
    assert token_counts(gold_labels(test), tuned.predict(test)).recall > 0.5

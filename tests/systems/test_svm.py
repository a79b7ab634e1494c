"""The local-context SVM: modes, kernels, operating point, feature space, registry."""

from __future__ import annotations

import logging
import random

import numpy as np
import pytest
import scipy.sparse as sp

from bench.score.metrics import token_counts
from corpora.model import OUTSIDE, PHI, Document, Span, gold_labels
from systems.base import get_system
from systems.features.base import FeatureClass, TokenFeatures
from systems.svm import FEATURE_SPACE, FeatureSpace, LocalContextSVM, project, unique_features
from tests.conftest import requires_nltk

FIRST = ["John", "Mary", "Oscar", "Wendy", "Pavel", "Ingrid", "Tomas", "Greta", "Hugo", "Lena"]
LAST = ["Kowalski", "Brandt", "Okafor", "Lindqvist", "Moreau", "Tanaka", "Quist", "Varga"]
HOSPITALS = ["Riverside Medical Center", "Lakeview Hospital", "Saint Brigid Clinic"]
FILLER = [
    "Lungs clear to auscultation bilaterally.",
    "Continue lasix and monitor urine output.",
    "Heart rate regular, no murmurs.",
    "Plan to wean sedation as tolerated.",
    "Abdomen soft, nontender.",
]


def note(i: int, rng: random.Random, doctors: list[str] = LAST) -> Document:
    """A small ICU-style note with a patient, a doctor, a date, a hospital and a phone."""
    parts: list[tuple[str, str | None]] = []

    def add(text: str, category: str | None = None) -> None:
        parts.append((text, category))

    add("HPI: Pt ")
    add(f"{rng.choice(FIRST)} {rng.choice(LAST)}", "PATIENT")
    add(" was admitted on ")
    add(f"{rng.randint(1, 12)}/{rng.randint(1, 28)}", "DATE")
    add(" to ")
    add(rng.choice(HOSPITALS), "HOSPITAL")
    add(". " + rng.choice(FILLER) + "\n")
    add("Plan: seen by Dr. ")
    add(rng.choice(doctors), "DOCTOR")
    add(". " + rng.choice(FILLER) + " Call ")
    add(f"617-{rng.randint(200, 999)}-{rng.randint(1000, 9999)}", "PHONE")
    add(" with questions.\n")
    text, spans, pos = "", [], 0
    for chunk, category in parts:
        if category:
            spans.append(Span(pos, pos + len(chunk), category))
        text += chunk
        pos += len(chunk)
    return Document(f"note{i}-{rng.random():.6f}", text, tuple(spans))


def notes(n: int, seed: int = 0, doctors: list[str] = LAST) -> list[Document]:
    rng = random.Random(seed)
    return [note(i, rng, doctors) for i in range(n)]


NO_NLTK = ("orthography", "dictionaries", "section")


@requires_nltk
def test_binary_svm_learns_phi_from_local_context() -> None:
    train, test = notes(40, seed=1), notes(15, seed=2)
    model = LocalContextSVM().fit(train)
    pred = model.predict(test)
    assert {lab for doc in pred for lab in doc} == {PHI, OUTSIDE}
    counts = token_counts(gold_labels(test), pred)
    assert counts.recall > 0.9 and counts.precision > 0.9
    names = model.feature_names()  # one name per fitted column, for error analysis
    assert len(names) == len(model.columns_) and len(set(names)) == len(names)


@requires_nltk
def test_multiclass_svm_predicts_categories() -> None:
    train, test = notes(40, seed=1), notes(15, seed=2)
    model = get_system("svm", mode="multiclass").fit(train)
    assert model.tags().predicts_categories
    pred = model.predict(test)
    gold = gold_labels(test)
    for label in ("PATIENT", "DOCTOR", "PHONE", "HOSPITAL"):
        assert token_counts(gold, pred, label=label).f1 > 0.8, label
    assert PHI not in {lab for doc in pred for lab in doc}


def test_threshold_moves_the_operating_point() -> None:
    train, test = notes(30, seed=3), notes(10, seed=4)
    model = LocalContextSVM(features=NO_NLTK).fit(train)
    scores = model.score_tokens(test)
    assert [len(s) for s in scores] == [len(d.tokens) for d in test]
    default = model.predict(test)
    for doc, s, labels in zip(test, scores, default, strict=True):
        assert [lab == PHI for lab in labels] == list(s > 0.0), doc.id
    model.threshold = float(min(s.min() for s in scores)) - 1.0
    assert all(lab == PHI for doc in model.predict(test) for lab in doc)
    model.threshold = float(max(s.max() for s in scores)) + 1.0
    assert all(lab == OUTSIDE for doc in model.predict(test) for lab in doc)


def test_heavier_phi_weight_never_lowers_recall() -> None:
    train, test = notes(30, seed=5), notes(10, seed=6)
    gold = gold_labels(test)
    recall = [
        token_counts(
            gold, LocalContextSVM(features=NO_NLTK, class_weight=w).fit(train).predict(test)
        ).recall
        for w in (0.2, 1.0, 10.0)
    ]
    assert recall == sorted(recall)
    assert recall[-1] > recall[0]


@pytest.mark.parametrize("kernel", ["poly", "rbf"])
def test_libsvm_kernels_train_and_predict(kernel: str) -> None:
    train, test = notes(12, seed=7), notes(4, seed=8)
    model = LocalContextSVM(features=NO_NLTK, kernel=kernel).fit(train)
    from sklearn.svm import SVC

    assert isinstance(model.model_, SVC) and model.model_.kernel == kernel
    pred = model.predict(test)
    assert [len(p) for p in pred] == [len(d.tokens) for d in test]
    assert token_counts(gold_labels(test), pred).recall > 0.5


def test_linear_kernel_is_liblinear() -> None:
    from sklearn.svm import LinearSVC

    model = LocalContextSVM(features=NO_NLTK).fit(notes(5))
    assert isinstance(model.model_, LinearSVC)


def test_training_without_phi_predicts_nothing() -> None:
    docs = [Document(f"n{i}", "Lungs clear. Continue lasix.") for i in range(3)]
    model = LocalContextSVM(features=NO_NLTK).fit(docs)
    assert model.predict(notes(2)) == [[OUTSIDE] * len(d.tokens) for d in notes(2)]
    multi = LocalContextSVM(features=NO_NLTK, mode="multiclass").fit(docs)
    assert all(lab == OUTSIDE for doc in multi.predict(notes(2)) for lab in doc)


def test_bad_parameters_fail_at_fit() -> None:
    with pytest.raises(ValueError, match="mode"):
        LocalContextSVM(mode="ternary").fit(notes(2))
    with pytest.raises(ValueError, match="kernel"):
        LocalContextSVM(kernel="sigmoid").fit(notes(2))
    with pytest.raises(ValueError, match="unknown feature class"):
        LocalContextSVM(features=("telepathy",)).fit(notes(2))


def test_registry_params_and_clone() -> None:
    model = get_system("svm", C=0.25, features=NO_NLTK)
    assert model.get_params()["C"] == 0.25
    clone = model.clone()
    assert clone.get_params() == model.get_params() and clone is not model
    assert not model.tags().predicts_categories  # binary by default
    assert len(model._features()) == 3
    model.set_params(features=("section",))
    assert [f.name for f in model._features()] == ["section"]


def test_unavailable_optional_feature_is_skipped_with_a_reason(monkeypatch, caplog) -> None:
    from systems.features import linkgrammar

    monkeypatch.setenv("DEID_BENCH_NO_LINKGRAMMAR", "1")
    linkgrammar._module.cache_clear()
    try:
        with caplog.at_level(logging.WARNING, logger="systems.svm"):
            classes = LocalContextSVM(features=("section", "syntactic_bigrams")).feature_classes()
        assert [f.name for f in classes] == ["section"]
        assert "syntactic_bigrams" in caplog.text and "DEID_BENCH_NO_LINKGRAMMAR" in caplog.text
    finally:
        linkgrammar._module.cache_clear()


class Counting(FeatureClass):
    """Emits the lower-cased word and counts how often it is asked to extract."""

    name = "counting"
    calls = 0

    def extract(self, document: Document) -> list[TokenFeatures]:
        Counting.calls += 1
        return [{f"c={t.text.lower()}": 1.0} for t in document.tokens]


def test_feature_space_encodes_each_document_once() -> None:
    space = FeatureSpace()
    docs = notes(3, seed=9)
    Counting.calls = 0
    a = space.matrix([Counting()], docs)
    b = space.matrix([Counting()], docs[:2])
    assert Counting.calls == 3
    assert a.shape[0] == sum(len(d.tokens) for d in docs)
    assert (a[: b.shape[0], : b.shape[1]] != b).nnz == 0
    smith = space.vocabulary["c=dr."]
    row = next(i for i, t in enumerate(docs[0].tokens) if t.text == "Dr.")
    assert a[row, smith] == 1.0 and a[row].nnz == 1


def test_duplicate_names_across_classes_stay_binary() -> None:
    space = FeatureSpace()
    docs = notes(1)
    summed = space.matrix([Counting(), Counting()], docs)
    assert summed.max() == 2.0
    assert space.matrix([Counting(), Counting()], docs, binary=True).max() == 1.0
    assert len(unique_features([Counting(), Counting()])) == 1


def test_project_keeps_training_columns_and_drops_unseen() -> None:
    x = sp.csr_matrix(np.array([[1, 0, 2, 0], [0, 0, 0, 0], [0, 3, 0, 4]], dtype=np.float32))
    out = project(x, np.array([2, 3]))
    assert out.toarray().tolist() == [[2, 0], [0, 0], [0, 4]]
    assert project(x, np.array([1])).toarray().tolist() == [[0], [0], [3]]


def test_feature_space_holds_int32_ids_and_restarts_when_released() -> None:
    from infra import memo

    space = FeatureSpace()
    docs = notes(2, seed=11)
    indptr, indices = space.encode(Counting(), docs[0])
    assert indptr.dtype == indices.dtype == np.int32 and not indices.flags.writeable
    x = space.matrix([Counting(), Counting()], docs, binary=True)
    assert x.indices.dtype == np.int32 and x.has_canonical_format
    rows = space.rows([Counting()], docs[0])
    assert rows == Counting().extract(docs[0])
    memo.release({docs[1].fingerprint}, idle=True)  # docs[1] still needed: no restart
    assert len(space._encoded) == 1 and len(space) > 0
    memo.release(idle=False)  # a task still running: the vocabulary stays
    assert len(space) > 0
    space.restart_if_empty()
    assert len(space) == 0 and space.generation == 1


def test_a_model_refuses_features_of_a_released_vocabulary() -> None:
    from infra import memo

    docs = notes(6, seed=12)
    model = LocalContextSVM(features=NO_NLTK).fit(docs[:4])
    memo.release()  # what a worker does between corpora: no features held, a new vocabulary
    with pytest.raises(RuntimeError, match="released"):
        model.predict(docs[4:])


def test_feature_values_must_be_indicators() -> None:
    class Weighted(FeatureClass):
        name = "weighted"

        def extract(self, document: Document) -> list[TokenFeatures]:
            return [{"len": float(len(t.text))} for t in document.tokens]

    with pytest.raises(ValueError, match="indicators"):
        FeatureSpace().encode(Weighted(), notes(1)[0])


def test_shared_feature_space_is_reused_by_svm_fits() -> None:
    docs = notes(6, seed=10)
    LocalContextSVM(features=NO_NLTK).fit(docs)
    size = len(FEATURE_SPACE)
    encoded = len(FEATURE_SPACE._encoded)
    LocalContextSVM(features=NO_NLTK, C=2.0).fit(docs[:4])
    assert len(FEATURE_SPACE) == size and len(FEATURE_SPACE._encoded) == encoded


#: Made-up surnames in none of the training notes or the shipped dictionaries.
UNSEEN_LAST = ["Qorvath", "Bexlund", "Tzimrak", "Ulvenko", "Jorrit", "Nekvasil"]


def test_word_form_classes_are_opt_in_and_left_to_tuning() -> None:
    paper = [f.name for f in LocalContextSVM(features=NO_NLTK)._features()]
    extended = [f.name for f in LocalContextSVM(features=NO_NLTK, word_form=True)._features()]
    assert "shape" not in paper and "char_ngrams" not in paper
    assert extended == [*paper, "shape", "char_ngrams"]
    assert LocalContextSVM().search_space()["word_form"] == [False, True]


def test_word_form_recognises_names_no_training_note_held() -> None:
    """Trained on one set of surnames, tested on surnames it never saw: without the word
    itself to go on, word shapes (of the name and of "Dr." before it) and affixes find them."""
    train, test = notes(40, seed=1), notes(15, seed=2, doctors=UNSEEN_LAST)

    def doctor_recall(model: LocalContextSVM) -> float:
        pred = model.fit(train).predict(test)
        hits = [
            lab != OUTSIDE
            for doc, labs in zip(test, pred, strict=True)
            for tok, lab in zip(doc.tokens, labs, strict=True)
            if tok.label == "DOCTOR"
        ]
        return sum(hits) / len(hits)

    paper = doctor_recall(LocalContextSVM(features=NO_NLTK))
    extended = doctor_recall(LocalContextSVM(features=NO_NLTK, word_form=True))
    assert extended >= 0.9 and extended > paper


def test_candidates_share_one_training_matrix_during_model_selection(monkeypatch) -> None:
    """While candidates are selected, C and the class weights change the solver, not the
    matrix: it is built once, the models are those built without sharing, and nothing
    is kept afterwards."""
    from systems import svm as svm_module
    from systems.base import model_selection

    docs = notes(12, seed=5)
    features = ("orthography", "dictionaries")  # no POS tags needed
    built = []
    real = svm_module.distinct_rows
    monkeypatch.setattr(
        svm_module, "distinct_rows", lambda *a, **k: built.append(1) or real(*a, **k)
    )
    alone = [
        get_system("svm", features=features, C=c).fit(docs).model_.coef_ for c in (0.1, 1.0)
    ]
    assert len(built) == 2
    with model_selection():
        shared = [
            get_system("svm", features=features, C=c).fit(docs).model_.coef_
            for c in (0.1, 1.0)
        ]
        assert len(svm_module._DESIGNS) == 1
    assert len(built) == 3
    assert all((a == b).all() for a, b in zip(alone, shared, strict=True))
    assert len(svm_module._DESIGNS) == 0


def test_encodings_that_outgrow_their_memo_are_dropped_before_liblinear(monkeypatch) -> None:
    """A training set whose encoded features do not fit the memo leaves it holding only
    their tail, which the next pass would evict unread: the fit empties it before
    liblinear copies the matrix (its peak), and the model is the same."""
    train, test = notes(30, seed=7), notes(5, seed=8)
    plain = LocalContextSVM(features=NO_NLTK).fit(train).predict(test)
    FEATURE_SPACE.forget_encodings()
    monkeypatch.setattr(FEATURE_SPACE._encoded, "budget", 20_000)
    monkeypatch.setattr(FEATURE_SPACE._binary, "budget", 20_000)
    evicted = FEATURE_SPACE.evictions
    model = LocalContextSVM(features=NO_NLTK).fit(train)
    assert FEATURE_SPACE.evictions > evicted and len(FEATURE_SPACE._encoded) == 0
    assert len(FEATURE_SPACE._binary) == 0
    assert model.predict(test) == plain


@requires_nltk
def test_two_stage_svm_jackknife_models_are_fitted_once_over_the_outer_folds(
    monkeypatch,
) -> None:
    """The two-stage SVM (``mega``'s option) shares its jackknife models between outer
    folds and labels its test notes with those that later outer folds ask for them, so
    with every fitted model forgotten between outer folds each is still fitted once."""
    from systems.svm import FeatureSVM
    from tests.systems.forgetful_folds import forgetful_cross_validation, with_patients

    monkeypatch.setenv("DEID_BENCH_NO_CACHE", "1")
    fitted: list[tuple[bool, frozenset[str]]] = []
    fit = FeatureSVM.fit

    def counting(self, documents, context=None):
        fitted.append((self.two_stage, frozenset(d.id for d in documents)))
        return fit(self, documents, context)

    monkeypatch.setattr(FeatureSVM, "fit", counting)
    outer = forgetful_cross_validation(
        lambda: get_system("mega", sources="mist", two_stage=True),
        with_patients(notes(36, seed=9)),
    )
    assert sorted(fitted.count((True, o)) for o in outer) == [1] * 6
    jackknife = [f for two, f in fitted if not two and f not in outer]
    assert len(jackknife) == len(set(jackknife)) == 6


@pytest.mark.parametrize(
    "params",
    [
        {"features": NO_NLTK},
        {"features": NO_NLTK, "mode": "multiclass"},
        {"sources": "mist", "two_stage": True},
    ],
    ids=["binary", "multiclass", "two-stage"],
)
def test_test_notes_are_labelled_in_batches_with_the_scores_of_one_matrix(
    monkeypatch, params
) -> None:
    """Labelling builds the test matrix a batch of notes at a time, to bound its memory;
    the scores and labels are exactly those of the whole test set in one matrix (the
    second stage's context included: it is read per note)."""
    import systems.svm as svm_module

    train, test = notes(30, seed=11), notes(12, seed=12)
    name = "mega" if "sources" in params else "svm"
    model = get_system(name, **params).fit(train)
    whole_scores, whole_cats = model._scores(model.transform(test))
    whole = model.predict_scored(test)
    monkeypatch.setattr(svm_module, "PREDICT_BATCH_TOKENS", 1)
    assert len(svm_module._batches(test)) == len(test)  # every note its own batch
    batched = model.predict_scored(test)
    assert batched[0] == whole[0]
    assert all(np.array_equal(a, b) for a, b in zip(batched[1], whole[1], strict=True))
    assert np.array_equal(np.concatenate(batched[1]), whole_scores)
    score, cats = model._decide(test)
    assert np.array_equal(score, whole_scores)
    assert (cats is None) == (whole_cats is None)
    if cats is not None:
        assert list(cats) == list(whole_cats)
    assert model._decide([])[0].shape == (0,)


def test_batches_keep_notes_whole_and_in_order(monkeypatch) -> None:
    import systems.svm as svm_module

    docs = notes(7, seed=13)
    size = len(docs[0].tokens)
    monkeypatch.setattr(svm_module, "PREDICT_BATCH_TOKENS", 2 * size)
    batches = svm_module._batches(docs)
    assert [d for b in batches for d in b] == docs
    assert all(sum(len(d.tokens) for d in b[:-1]) < 2 * size for b in batches)
    assert svm_module._batches([]) == []

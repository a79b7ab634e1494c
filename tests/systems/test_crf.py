"""The Stanford-NER-style ``crf`` system: its features, BIO handling and learned behaviour."""

from __future__ import annotations

import random

import pytest

from corpora.model import OUTSIDE, Document, Span, check_predictions, gold_labels
from systems.base import available_systems, get_system
from systems.crf import CrfLearner, bio_tags, encoded_rows, from_bio, sequence_bounds, to_bio
from systems.features.base import combine
from systems.features.common import CharNgrams, PosWindow, ShapeWindow, WordWindow
from systems.features.stanford import STANFORD_FEATURES, DisjunctiveWindow
from tests.conftest import requires_nltk

FIRST = ["John", "Mary", "Alice", "Robert", "Linda", "James", "Karen", "Peter", "Susan"]
LAST = ["Smith", "Jones", "Garcia", "Miller", "Davis", "Wilson", "Moore", "Taylor", "Clark"]
HOSPITALS = ["Mercy General", "Bayview", "Lakeside Memorial", "Riverside"]


def note(i: int, rng: random.Random) -> Document:
    """A short hand-written ICU-style note with a doctor, date, patient, hospital, phone."""
    parts: list[str] = []
    spans: list[Span] = []

    def add(text: str, category: str | None = None) -> None:
        start = sum(len(p) for p in parts)
        parts.append(text)
        if category:
            spans.append(Span(start, start + len(text), category))

    add("Pt seen by Dr. ")
    add(rng.choice(LAST), "DOCTOR")
    add(" on ")
    add(f"{rng.randint(1, 12)}/{rng.randint(1, 28)}", "DATE")
    add(". BP 120/80, HR 88.\nPatient ")
    add(f"{rng.choice(FIRST)} {rng.choice(LAST)}", "PATIENT")
    add(" transferred from ")
    add(rng.choice(HOSPITALS), "HOSPITAL")
    add(" today.\nCall wife at ")
    add(f"{rng.randint(200, 999)}-{rng.randint(1000, 9999)}", "PHONE")
    add(" if sats drop below 90.\nNeuro: a&ox3, MAE. Lasix 20mg given.\n")
    return Document(f"note{i}", "".join(parts), tuple(spans))


def notes(n: int, seed: int = 0) -> list[Document]:
    rng = random.Random(seed)
    return [note(i, rng) for i in range(n)]


def _row(rows: list[dict[str, float]], doc: Document, word: str) -> dict[str, float]:
    return rows[next(t.index for t in doc.tokens if t.text == word)]


DOC = Document("d", "Seen at noon today by Dr. Smith in ICU.\nHR 80.")


def test_disjunctive_window_is_a_positionless_bag_within_the_sentence() -> None:
    rows = DisjunctiveWindow(size=4).extract(DOC)
    smith = _row(rows, DOC, "Smith")
    assert {"dl=noon", "dl=today", "dl=by", "dl=dr."} == {k for k in smith if k[:3] == "dl="}
    assert "dl=at" not in smith  # five tokens to the left: outside the window
    assert {"dr=in", "dr=icu", "dr=."} == {k for k in smith if k[:3] == "dr="}
    # the next sentence ("HR 80.") is not context; the same cue at another distance is
    # the same feature (Stanford's useDisjunctive)
    assert "dl=dr." in _row(rows, DOC, "in")


def test_stanford_features_are_the_shared_primitives_plus_the_window() -> None:
    kinds = [type(f) for f in STANFORD_FEATURES]
    assert kinds == [WordWindow, CharNgrams, PosWindow, ShapeWindow, DisjunctiveWindow]
    no_pos = [f for f in STANFORD_FEATURES if not isinstance(f, PosWindow)]  # no NLTK needed
    row = _row(combine(no_pos, [DOC])[0], DOC, "Smith")
    # target word, neighbours, an n-gram, the shapes of target and neighbours, the bag
    assert {"w0=smith", "w-1=dr.", "w+1=in", "ng=<smi", "ng=mith>", "shape0=Xx"} <= set(row)
    assert {"shape-1=Xx.", "shape+1=x", "dl=dr."} <= set(row)


@requires_nltk
def test_stanford_features_include_pos_of_target_and_neighbours() -> None:
    row = _row(combine(STANFORD_FEATURES, [DOC])[0], DOC, "Smith")
    assert "pos0=NNP" in row
    assert any(k.startswith("pos-1=") for k in row) and any(k.startswith("pos+1=") for k in row)


def test_bio_tags_keep_adjacent_entities_apart() -> None:
    doc = Document(
        "bio",
        "Dr. Ann Lee Bob Roe saw him",
        (Span(4, 11, "DOCTOR"), Span(12, 19, "DOCTOR")),
    )
    assert bio_tags(doc) == ["O", "B-DOCTOR", "I-DOCTOR", "B-DOCTOR", "I-DOCTOR", "O", "O"]
    assert from_bio(bio_tags(doc)) == gold_labels([doc])[0]
    assert to_bio(["O", "DATE", "DATE", "O", "AGE"]) == ["O", "B-DATE", "I-DATE", "O", "B-AGE"]


def test_sequences_are_sentences_or_the_whole_note() -> None:
    doc = Document("s", "Seen by Dr. Smith.\nHR 80.\nStable")
    sentences = sequence_bounds(doc, "sentence")
    assert sentences[0] == (0, 5) and sentences[-1][1] == len(doc.tokens)
    assert len(sentences) == 3
    assert sequence_bounds(doc, "document") == [(0, len(doc.tokens))]
    with pytest.raises(ValueError):
        sequence_bounds(doc, "paragraph")


def test_crf_learner_learns_a_context_cue() -> None:
    """'after dr.' is a DOCTOR cue the CRF learns from the words around the target."""
    features = (WordWindow(offsets=(-1, 0, 1)), ShapeWindow(offsets=(0,)))
    train = notes(30)
    learner = CrfLearner(max_iterations=30)
    learner.fit(train, combine(features, train), [bio_tags(d) for d in train])
    test = Document("t", "Pt seen by Dr. Okonkwo on 3/4.")
    labels = learner.predict([test], combine(features, [test]))[0]
    by_word = {t.text: lab for t, lab in zip(test.tokens, labels, strict=True)}
    assert by_word["Okonkwo"] == "DOCTOR"  # never seen in training
    assert by_word["3/4"] == "DATE"
    assert by_word["seen"] == OUTSIDE


def test_averaged_perceptron_learns_the_same_cue_and_bad_algorithms_fail_at_fit() -> None:
    """``algorithm="ap"`` (the Illinois tagger's learner) trains the same chain."""
    features = (WordWindow(offsets=(-1, 0, 1)), ShapeWindow(offsets=(0,)))
    train = notes(30)
    learner = CrfLearner(max_iterations=10, algorithm="ap")
    learner.fit(train, combine(features, train), [bio_tags(d) for d in train])
    test = Document("t", "Pt seen by Dr. Okonkwo on 3/4.")
    labels = learner.predict([test], combine(features, [test]))[0]
    by_word = {t.text: lab for t, lab in zip(test.tokens, labels, strict=True)}
    assert by_word["Okonkwo"] == "DOCTOR" and by_word["seen"] == OUTSIDE
    bad = CrfLearner(algorithm="sgd")  # the constructor only stores, as in scikit-learn
    with pytest.raises(ValueError, match="algorithm must be one of"):
        bad.fit(train, combine(features, train), [bio_tags(d) for d in train])
    assert get_system("crf", algorithm="ap").get_params()["algorithm"] == "ap"
    assert get_system("mist", algorithm="ap")._make_learner().algorithm == "ap"


def test_sgd_training_is_reproducible_within_a_process() -> None:
    """CRFsuite shuffles with the C rand(); unseeded, a second identical fit differed."""
    features = (WordWindow(offsets=(-1, 0, 1)), ShapeWindow(offsets=(0,)))
    train = notes(20)
    rows = combine(features, train)
    tags = [bio_tags(d) for d in train]
    models = []
    for _ in range(2):
        learner = CrfLearner(max_iterations=3, algorithm="l2sgd")
        learner.fit(train, rows, tags)
        models.append(learner.model.training_log_.last_iteration["loss"])
    assert models[0] == models[1]


def test_encoded_rows_give_the_same_model_as_feature_dicts() -> None:
    features = (WordWindow(offsets=(-1, 0, 1)), ShapeWindow(offsets=(0,)))
    train, test = notes(20, seed=5), notes(4, seed=6)
    tags = [bio_tags(d) for d in train]
    by_dicts = CrfLearner(max_iterations=5).fit(train, combine(features, train), tags)
    encoded = encoded_rows(features, train, "sentence")
    assert encoded_rows(features, train, "sentence")[0] is encoded[0]  # converted once
    by_items = CrfLearner(max_iterations=5).fit(train, encoded, tags)
    assert by_dicts.predict(test, combine(features, test)) == by_items.predict(
        test, encoded_rows(features, test, "sentence")
    )


def test_crf_is_registered_with_sklearn_like_params() -> None:
    assert "crf" in available_systems()
    system = get_system("crf", max_iterations=7, two_stage=True)
    assert system.get_params()["max_iterations"] == 7
    clone = system.clone()
    assert clone.get_params() == system.get_params() and clone is not system
    with pytest.raises(RuntimeError):
        system.predict([DOC])
    with pytest.raises(ValueError):
        get_system("crf", feature_set="bogus").feature_classes()


@requires_nltk
def test_crf_system_tags_unseen_phi_by_category() -> None:
    train, test = notes(40, seed=1), notes(5, seed=2)
    system = get_system("crf", max_iterations=40)
    predictions = system.fit_predict(train, test)
    check_predictions(test, predictions, "crf")
    gold = gold_labels(test)
    pairs = [
        (t, g, p)
        for d, gd, pd in zip(test, gold, predictions, strict=True)
        for t, g, p in zip(d.tokens, gd, pd, strict=True)
    ]
    assert sum(g == p for _, g, p in pairs) / len(pairs) > 0.97
    phones = [p for t, _, p in pairs if "-" in t.text]
    assert phones and all(p == "PHONE" for p in phones)


@requires_nltk
def test_crf_illinois_feature_set_and_two_stage_run() -> None:
    train, test = notes(24, seed=3), notes(3, seed=4)
    for params in ({"two_stage": True, "inner_folds": 2}, {"feature_set": "illinois"}):
        system = get_system("crf", max_iterations=25, **params)
        predictions = system.fit_predict(train, test)
        assert sum(p != OUTSIDE for pd in predictions for p in pd) > 0


@pytest.mark.slow
@requires_nltk
def test_crf_on_physionet_split(physionet_dir) -> None:
    """End to end on real notes: a train/test split of the PhysioNet development corpus."""
    from bench.score.metrics import token_counts
    from corpora.load import load_corpus

    corpus, _ = load_corpus(f"physionet:{physionet_dir}")
    docs = list(corpus.documents)
    cut = len(docs) * 4 // 5
    train, test = docs[:cut], docs[cut:]
    predictions = get_system("crf").fit_predict(train, test)
    counts = token_counts(gold_labels(test), predictions)
    # measured: P 0.95, R 0.61 (lower-case nursing shorthand, no dictionaries)
    assert counts.precision > 0.85 and counts.recall > 0.5


@requires_nltk
def test_two_stage_jackknife_models_are_fitted_once_over_the_outer_folds(monkeypatch) -> None:
    """Under cross-validation a two-stage CRF's jackknife models are shared between outer
    folds and label this fold's test notes when the system labels them, so with every
    fitted model forgotten between outer folds each is still fitted once: two fits per
    outer fold (the stages) and one per block."""
    from tests.systems.forgetful_folds import forgetful_cross_validation, with_patients

    monkeypatch.setenv("DEID_BENCH_NO_CACHE", "1")
    fitted: list[frozenset[str]] = []
    fit = CrfLearner.fit

    def counting(self, documents, rows, labels):
        fitted.append(frozenset(d.id for d in documents))
        return fit(self, documents, rows, labels)

    monkeypatch.setattr(CrfLearner, "fit", counting)
    outer = forgetful_cross_validation(
        lambda: get_system("crf", two_stage=True, max_iterations=3),
        with_patients(notes(36, seed=5)),
    )
    assert sorted(fitted.count(o) for o in outer) == [2] * 6
    jackknife = [f for f in fitted if f not in outer]
    assert len(jackknife) == len(set(jackknife)) == 6

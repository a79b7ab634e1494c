"""The SNoW-style recognizer (2006 paper §4.2; Roth & Yih 2002) on hand-written notes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import sparse

from corpora.model import PEOPLE_LOCATIONS_ORGANIZATIONS, Document, Span, check_predictions
from systems.base import get_system
from systems.features.base import extract_cached
from systems.snow import (
    SNOW_LABELS,
    Affixes,
    SnowNER,
    WinnowNetwork,
    WordTagNgrams,
    gold_phrases,
    phrase_features,
    sentence_inference,
    token_features,
)
from tests.conftest import requires_nltk

NAMES = ["Smith", "Jones", "Brown", "Miller", "Davis", "Wilson", "Moore", "Taylor"]
HOSPITALS = ["Mercy", "Lakeside", "Riverside", "Bayview"]
CITIES = ["Boston", "Salem", "Quincy", "Lowell"]


def note(i: int, text: str, phi: list[tuple[str, str]]) -> Document:
    spans = []
    for phrase, category in phi:
        start = text.index(phrase)
        spans.append(Span(start, start + len(phrase), category))
    return Document(f"n{i}", text, tuple(spans))


def training_notes(n: int = 32) -> list[Document]:
    docs = []
    for i in range(n):
        pt, dr = NAMES[i % 8], NAMES[(i + 3) % 8]
        hosp, city = HOSPITALS[i % 4], CITIES[(i + 1) % 4]
        date = f"7/{i % 28 + 1}/2006"
        text = (
            f"Patient {pt} was seen by Dr. {dr} on {date}. "
            f"Transferred from {hosp} Hospital in {city}. BP stable, afebrile."
        )
        phi = [
            (pt, "PATIENT"),
            (dr, "DOCTOR"),
            (date, "DATE"),
            (hosp, "HOSPITAL"),
            (city, "LOCATION"),
        ]
        docs.append(note(i, text, phi))
    return docs


@pytest.fixture(scope="module")
def model() -> SnowNER:
    return SnowNER(use_pos=False).fit(training_notes())


def test_affixes_feature_present() -> None:
    doc = Document("t", "Seen by Dr. Kowalski")
    rows = Affixes(max_len=3).extract(doc)
    assert {"ng=<k", "ng=<ko", "ng=<kow", "ng=i>", "ng=ki>", "ng=ski>"} <= set(rows[3])
    assert "ng=<dr." in rows[2] and "ng=r.>" in rows[2]


def test_word_ngrams_without_tagger() -> None:
    doc = Document("t", "Seen by Dr. Kowalski. Then home.")
    rows = WordTagNgrams(use_pos=False).extract(doc)
    k = [t.text for t in doc.tokens].index("Kowalski")
    assert "wb-=dr._kowalski" in rows[k]
    assert "wt=dr._kowalski_." in rows[k]
    assert "wt=<s>_then_home" in rows[k + 2]  # bigrams stop at the sentence boundary
    assert not any(f.startswith("w|t") for f in rows[k])


@requires_nltk
def test_word_tag_conjunctions_with_tagger() -> None:
    doc = Document("t", "The patient was seen by Dr. Kowalski today.")
    rows = WordTagNgrams(use_pos=True).extract(doc)
    k = [t.text for t in doc.tokens].index("Kowalski")
    assert "w|t0=kowalski|NNP" in rows[k]
    assert any(f.startswith("tt=") for f in rows[k])


def test_dictionary_presence_and_miss(tmp_path: Path) -> None:
    (tmp_path / "last_names.txt").write_text("zqxwvik\n")
    doc = Document("t", "Seen by Dr. Zqxwvik and Dr. Qqqzzz.")
    window = token_features(use_pos=False, dictionaries=str(tmp_path))[-1]
    rows = extract_cached(window, doc)
    words = [t.text for t in doc.tokens]
    assert "dict0=last_name" in rows[words.index("Zqxwvik")]
    assert "dict-1=last_name" in rows[words.index("Zqxwvik") + 1]
    assert not any(f.startswith("dict0") for f in rows[words.index("Qqqzzz")])


def test_winnow_learns_and_network_is_sparse() -> None:
    # Feature 0 marks class 1, feature 1 marks class 0, feature 2 is always on, feature 3
    # never occurs with class 1.
    X = sparse.csr_matrix(
        np.array([[1, 0, 1, 0], [0, 1, 1, 1], [1, 0, 1, 0], [0, 1, 1, 0]] * 10, dtype=float)
    )
    y = np.array([1, 0, 1, 0] * 10)
    net = WinnowNetwork(2, epochs=10, seed=0).fit(X, y)
    assert (net.activations(X).argmax(1) == y).all()
    assert net.weights_[1, 1] == net.weights_[3, 1] == 0.0  # never linked to target 1
    assert net.weights_[0, 0] == 0.0  # never linked to target 0
    # The feature shared by both classes is demoted by target 0's mistakes on class 1 ...
    assert net.weights_[2, 0] < net.weights_[1, 0]
    # ... and the discriminating one carries target 1.
    assert net.weights_[0, 1] >= net.weights_[2, 1]
    beliefs = net.beliefs(X)
    assert np.allclose(beliefs.sum(1), 1.0)


def test_single_entity_sentence_gets_no_global_help() -> None:
    compat = np.array([[-5.0, 2.0], [2.0, -5.0]])
    beliefs = np.array([[0.6, 0.4]])
    assert sentence_inference(beliefs, compat, 10.0).tolist() == [0]


def test_sentence_inference_revises_a_weak_hypothesis() -> None:
    # Types 0 and 1 co-occur (a patient seen by a doctor); two entities of type 0 rarely do.
    compat = np.array([[-2.0, 1.0], [1.0, -2.0]])
    beliefs = np.array([[0.9, 0.1], [0.55, 0.45]])
    assert sentence_inference(beliefs, compat, 0.0).tolist() == [0, 0]
    assert sentence_inference(beliefs, compat, 1.0).tolist() == [0, 1]


def test_sentence_inference_many_entities_uses_icm() -> None:
    compat = np.zeros((4, 4))
    beliefs = np.tile([0.1, 0.7, 0.1, 0.1], (9, 1))
    assert sentence_inference(beliefs, compat, 1.0).tolist() == [1] * 9


def test_gold_phrases_and_phrase_features() -> None:
    doc = training_notes(1)[0]
    phrases = gold_phrases(doc)
    assert [label for *_, label in phrases] == ["PATIENT", "DOCTOR", "HOSPITAL", "LOCATION"]
    s, e, _ = phrases[2]
    feats = phrase_features(doc, s, e, None, [set() for _ in doc.tokens])
    assert {"len=1", "pw=mercy", "L1=from", "R1=hospital", "init_cap"} <= set(feats)


def test_learned_compatibility(model: SnowNER) -> None:
    p, d = SNOW_LABELS.index("PATIENT"), SNOW_LABELS.index("DOCTOR")
    assert model.compat_[p, d] > model.compat_[p, p]
    assert model.sentences_with_entities_ == {2: 64}


def test_recognizes_unseen_entities_by_context(model: SnowNER) -> None:
    doc = Document(
        "t",
        "Patient Garcia was seen by Dr. Lopez on 8/3/2006. "
        "Transferred from Mercy Hospital in Worcester.",
    )
    labels = dict(zip((t.text for t in doc.tokens), model.predict([doc])[0], strict=True))
    assert labels["Garcia"] == "PATIENT"
    assert labels["Lopez"] == "DOCTOR"
    assert labels["Mercy"] == "HOSPITAL"
    assert labels["Worcester"] == "LOCATION"
    assert labels["8/3/2006"] == "O"  # dates are outside what SNoW recognizes


def test_predicts_only_people_locations_organizations(model: SnowNER) -> None:
    docs = [Document("e", "  "), *training_notes(36)[32:]]
    preds = model.predict(docs)
    check_predictions(docs, preds, "snow")
    assert set().union(*map(set, preds)) <= {"O", *SNOW_LABELS}
    assert SnowNER.evaluated_labels == PEOPLE_LOCATIONS_ORGANIZATIONS


def test_deterministic_given_seed_and_registered() -> None:
    train, test = training_notes(16), training_notes(20)[16:]
    a = get_system("snow", use_pos=False, seed=1).fit(train).predict(test)
    b = get_system("snow", use_pos=False, seed=1).fit(train).predict(test)
    assert a == b
    m = SnowNER(epochs=2)
    assert m.clone().get_params()["epochs"] == 2


@requires_nltk
def test_with_pos_tags() -> None:
    m = SnowNER().fit(training_notes(16))
    doc = Document("t", "Patient Garcia was seen by Dr. Lopez on 8/3/2006.")
    labels = m.predict([doc])[0]
    assert labels[1] == "PATIENT" and labels[6] == "DOCTOR"

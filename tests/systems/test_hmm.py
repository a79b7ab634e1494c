"""The IdentiFinder-style HMM (2006 paper §4.3; Bikel et al. 1999) on hand-written notes."""

from __future__ import annotations

import numpy as np
import pytest

from corpora.model import Document, Span, check_predictions
from systems.base import get_system
from systems.hmm import UNK, WORD_FEATURES, IdentiFinderHMM, word_feature

PATIENTS = ["Smith", "Jones", "Brown", "Miller", "Davis", "Wilson", "Moore", "Taylor"]
HOSPITALS = ["Mercy", "Lakeside", "Riverside", "Bayview"]
#: One-off lower-case words: they teach the O class what an unknown lower-case word is.
FINDINGS = (
    "nausea cough edema rash fever chills emesis pain wheeze stridor rales ascites jaundice "
    "pallor syncope vertigo tremor ataxia dysuria hematuria melena diarrhea anorexia malaise "
    "myalgia arthralgia dyspnea orthopnea palpitations diaphoresis pruritus hiccups"
).split()


def note(i: int, text: str, phi: list[tuple[str, str]]) -> Document:
    spans = []
    for phrase, category in phi:
        start = text.index(phrase)
        spans.append(Span(start, start + len(phrase), category))
    return Document(f"n{i}", text, tuple(spans))


def training_notes(n: int = 32) -> list[Document]:
    docs = []
    for i in range(n):
        pt, dr, hosp = PATIENTS[i % 8], PATIENTS[(i + 3) % 8], HOSPITALS[i % 4]
        date = f"7/{i % 28 + 1}/2006"
        text = (
            f"Patient {pt} was seen by Dr. {dr} on {date}. Transferred from {hosp} Hospital. "
            f"BP stable, afebrile, no {FINDINGS[i]}."
        )
        docs.append(
            note(i, text, [(pt, "PATIENT"), (dr, "DOCTOR"), (date, "DATE"), (hosp, "HOSPITAL")])
        )
    return docs


@pytest.fixture(scope="module")
def model() -> IdentiFinderHMM:
    return IdentiFinderHMM().fit(training_notes())


@pytest.mark.parametrize(
    ("word", "first", "feature"),
    [
        ("90", False, "twoDigitNum"),
        ("1997", False, "fourDigitNum"),
        ("57yo", False, "containsDigitAndAlpha"),
        ("07-22", False, "containsDigitAndDash"),
        ("7/22", False, "containsDigitAndSlash"),
        ("1,000", False, "containsDigitAndComma"),
        ("3.9", False, "containsDigitAndPeriod"),
        ("123456", False, "otherNum"),
        ("ICU", False, "allCaps"),
        ("M.", False, "capPeriod"),
        ("Patient", True, "firstWord"),
        ("Smith", False, "initCap"),
        ("stable", False, "lowerCase"),
        ("||||", False, "other"),
    ],
)
def test_word_features_follow_bikel_table(word: str, first: bool, feature: str) -> None:
    assert word_feature(word, first) == feature
    assert feature in WORD_FEATURES


def test_first_word_feature_only_at_sentence_start() -> None:
    assert word_feature("Smith", first=True) == "firstWord"
    assert word_feature("Smith", first=False) == "initCap"
    assert word_feature("ICU", first=True) == "allCaps"  # allCaps takes precedence


def test_unseen_name_is_found_from_word_feature_and_context(model: IdentiFinderHMM) -> None:
    # "Garcia" and "Lopez" never occur in training: both map to _UNK_ with feature initCap,
    # and the class models for PATIENT/DOCTOR explain them better than NOT-A-NAME.
    doc = Document("t", "Patient Garcia was seen by Dr. Lopez on 8/3/2006.")
    labels = dict(zip((t.text for t in doc.tokens), model.predict([doc])[0], strict=True))
    assert "garcia" not in model.vocab_ and "lopez" not in model.vocab_
    assert labels["Garcia"] == "PATIENT"
    assert labels["Lopez"] == "DOCTOR"
    assert labels["8/3/2006"] == "DATE"
    assert labels["Patient"] == labels["seen"] == labels["Dr."] == "O"


def test_lowercase_unknown_word_stays_outside(model: IdentiFinderHMM) -> None:
    # The same unseen word, lower-cased, has the lowerCase feature, which names never had.
    doc = Document("t", "Patient garcia was seen by Dr. lopez today.")
    labels = model.predict([doc])[0]
    assert set(labels) == {"O"}


def test_rare_words_become_unknown() -> None:
    m = IdentiFinderHMM(min_count=2).fit(training_notes(8))
    assert UNK in m.vocab_
    assert "afebrile" in m.vocab_  # seen in every note
    m_all = IdentiFinderHMM(min_count=100).fit(training_notes(8))
    assert "afebrile" not in m_all.vocab_


def test_states_are_the_trained_labels(model: IdentiFinderHMM) -> None:
    assert model.states_ == ("O", "PATIENT", "DOCTOR", "HOSPITAL", "DATE")


def test_global_context_class_transitions(model: IdentiFinderHMM) -> None:
    # The transition model P(NC | NC-1, w-1) has learned that "Dr." is followed by a DOCTOR
    # and "Patient" by a PATIENT, so the same unseen word gets different classes.
    a = Document("a", "Patient Kowalski was seen.")
    b = Document("b", "Seen by Dr. Kowalski on 8/3/2006.")
    la, lb = model.predict([a, b])
    assert la[1] == "PATIENT"
    assert lb[3] == "DOCTOR"


def test_multi_token_name_uses_within_class_bigram() -> None:
    docs = [
        note(i, f"Transferred from {h} General Hospital today.", [(f"{h} General", "HOSPITAL")])
        for i, h in enumerate(HOSPITALS * 3)
    ]
    m = IdentiFinderHMM().fit(docs)
    doc = Document("t", "Transferred from Bayview General Hospital today.")
    assert m.predict([doc])[0][2:5] == ["HOSPITAL", "HOSPITAL", "O"]


def test_viterbi_over_sentences_and_documents(model: IdentiFinderHMM) -> None:
    docs = [Document("e", "   "), *training_notes(3)]
    preds = model.predict(docs)
    check_predictions(docs, preds, "hmm")
    assert preds[0] == []


def test_deterministic_and_registered() -> None:
    docs = training_notes(12)
    test = training_notes(16)[12:]
    a = get_system("hmm").fit(docs).predict(test)
    b = get_system("hmm", seed=3).fit(docs).predict(test)
    assert a == b
    m = IdentiFinderHMM(min_count=3)
    assert m.clone().get_params() == {"min_count": 3, "seed": 0, "threshold": None}


def test_probabilities_are_normalized(model: IdentiFinderHMM) -> None:
    # Each back-off chain mixes proper distributions, so the smoothed class transition
    # distributions sum to one.
    for row in np.exp(model.log_trans_default_):
        assert row.sum() == pytest.approx(1.0)
    assert model.p_word_.sum(0) == pytest.approx(np.ones(len(model.states_)))


def test_lockstep_viterbi_matches_brute_force(model: IdentiFinderHMM) -> None:
    import itertools

    docs = [Document("a", "Dr. Kowalski saw Taylor. Patient ok."), Document("b", "Mercy Hospital.")]
    init, steps, final, lengths = model._scores(docs)
    path = model._viterbi(init, steps, final, lengths)
    K = len(model.states_)
    start = 0
    for s, length in enumerate(lengths.tolist()):

        def score(seq: tuple[int, ...], s: int = s, start: int = start) -> float:
            total = init[s, seq[0]] + final[s, seq[-1]]
            for t in range(1, len(seq)):
                total += steps[start + t, seq[t - 1], seq[t]]
            return float(total)

        best = max(itertools.product(range(K), repeat=length), key=score)
        assert path[start : start + length].tolist() == list(best)
        start += length

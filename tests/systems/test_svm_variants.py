"""The SVM's multiclass formulations and training on some categories only."""

from __future__ import annotations

import numpy as np
import pytest

from corpora.model import OUTSIDE, PEOPLE_LOCATIONS_ORGANIZATIONS, PHI
from systems.base import get_system
from systems.mega import MegaSVM
from systems.svm import LocalContextSVM
from tests.conftest import requires_nltk
from tests.systems.test_svm import NO_NLTK, notes

PLO = tuple(sorted(PEOPLE_LOCATIONS_ORGANIZATIONS))


def test_parameters_are_checked() -> None:
    with pytest.raises(ValueError, match="multi_class"):
        LocalContextSVM(multi_class="ovo").check_params()
    with pytest.raises(ValueError, match="kernel='linear'"):
        LocalContextSVM(multi_class="crammer_singer", kernel="rbf").check_params()
    with pytest.raises(ValueError, match="unknown: NAME"):
        LocalContextSVM(train_categories=("PATIENT", "NAME")).check_params()
    with pytest.raises(ValueError, match="non-empty"):
        LocalContextSVM(train_categories=()).check_params()
    LocalContextSVM(train_categories=PLO, multi_class="crammer_singer").check_params()


def test_training_categories_decide_the_scored_categories() -> None:
    assert LocalContextSVM().tags().evaluated_labels is None
    tags = get_system("svm", train_categories=list(PLO)).tags()
    assert tags.evaluated_labels == PEOPLE_LOCATIONS_ORGANIZATIONS
    assert get_system("svm", train_categories=list(PLO)).get_params()["train_categories"] == PLO


def test_other_categories_are_outside_when_training() -> None:
    docs = notes(4)
    y = LocalContextSVM(train_categories=PLO)._targets(docs)
    gold = [t.label for d in docs for t in d.tokens]
    assert y.tolist() == [int(g in PEOPLE_LOCATIONS_ORGANIZATIONS) for g in gold]
    assert any(g in ("DATE", "PHONE") for g in gold)
    multi = LocalContextSVM(mode="multiclass", train_categories=PLO)._targets(docs)
    assert set(multi) == {OUTSIDE, *(g for g in gold if g in PEOPLE_LOCATIONS_ORGANIZATIONS)}


def test_model_trained_on_people_and_places_leaves_dates_and_phones() -> None:
    train, test = notes(40, seed=1), notes(10, seed=2)
    model = LocalContextSVM(features=NO_NLTK, train_categories=PLO).fit(train)
    pred = [lab for doc in model.predict(test) for lab in doc]
    gold = [t.label for d in test for t in d.tokens]
    on_dates = [p for p, g in zip(pred, gold, strict=True) if g in ("DATE", "PHONE")]
    on_people = [p for p, g in zip(pred, gold, strict=True) if g in PEOPLE_LOCATIONS_ORGANIZATIONS]
    assert on_dates.count(PHI) < len(on_dates) / 4
    assert on_people.count(PHI) > len(on_people) / 2


@requires_nltk
def test_crammer_singer_is_a_different_joint_model() -> None:
    train, test = notes(40, seed=1), notes(10, seed=2)
    ovr = LocalContextSVM(mode="multiclass").fit(train)
    cs = LocalContextSVM(mode="multiclass", multi_class="crammer_singer").fit(train)
    assert cs.model_.multi_class == "crammer_singer" and ovr.model_.multi_class == "ovr"
    assert not np.allclose(cs.model_.coef_, ovr.model_.coef_)
    pred = cs.predict(test)
    gold = [t.label for d in test for t in d.tokens]
    flat = [lab for doc in pred for lab in doc]
    assert np.mean([p == g for p, g in zip(flat, gold, strict=True)]) > 0.9
    assert {"PATIENT", "DATE"} <= set(flat)


def test_mega_offers_the_same_formulations() -> None:
    assert MegaSVM().get_params()["multi_class"] == "ovr"
    with pytest.raises(ValueError, match="multi_class"):
        MegaSVM(multi_class="weston").check_params()

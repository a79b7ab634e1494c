"""A cross-validation in which every fitted model is forgotten between outer folds: what
the shared cross-fitting must survive without fitting any model twice."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from corpora.folds import kfold
from corpora.model import Document, check_predictions
from systems import prediction_cache
from systems.base import FitContext, System, fit_with_context


def with_patients(documents: Sequence[Document], per_patient: int = 2) -> list[Document]:
    """``documents`` with a patient key, ``per_patient`` notes each (in order)."""
    return [
        dataclasses.replace(d, metadata={**d.metadata, "patient": f"p{i // per_patient}"})
        for i, d in enumerate(documents)
    ]


def forgetful_cross_validation(
    make_system: Callable[[], System], documents: Sequence[Document], k: int = 6
) -> list[frozenset[str]]:
    """Fit a new system on each outer fold's training notes (told the outer folds, as the
    runner tells them), label its test notes, then forget every kept model; returns each
    outer fold's training notes by id."""
    groups = [d.metadata["patient"] for d in documents]
    folds = kfold(len(documents), k, 0, groups)
    context = FitContext(tuple(tuple(sorted({groups[i] for i in t})) for _, t in folds))
    outer = []
    for train_idx, test_idx in folds:
        system = make_system()
        fit_with_context(system, [documents[i] for i in train_idx], context)
        outer.append(frozenset(documents[i].id for i in train_idx))
        test = [documents[i] for i in test_idx]
        check_predictions(test, system.predict(test), system.name)
        prediction_cache._MODELS.clear()
    return outer

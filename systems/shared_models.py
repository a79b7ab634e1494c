"""Fitted block models handed between the workers that share a corpus, through the cache.

A block model of a shared cross-fitting (:mod:`systems.cross_fitting`) serves several outer
folds.  When two workers compute two outer folds of one corpus at once, as in any
single-corpus run on two cores, both need the models of the blocks that hold both folds,
and each needs them to label the notes of the *other's* outer fold: the other's test
notes, which the other labels with the model only when it labels its test notes
(:class:`systems.cross_fitting.LeftOut`), so the labels shared through the cache
(:mod:`systems.shared_labels`) come too late and both fitted the model.  ``multi`` on one
default corpus fitted 4 of the 6 block models of each CRF base in both workers.

Here, where the run says workers share the corpus (:func:`infra.cache.shared_work`), a
worker that fits a kept model whose system can hand it on (``Tags.portable_model``: a
CRFsuite model is attribute names and weights, nothing of the process) holds the model's
claim (an exclusive ``flock``) while it fits, and stores the fitted model; a worker that
needs the same model waits for the claim and loads it instead of fitting.  To wait as
little as possible, a worker first fits the block models no other worker is fitting
(:func:`busy`) and comes back to the others.  The model loaded is the model fitted, so
every label is the same whoever fitted it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from infra import cache

NAMESPACE = "fitted-models"


def _claim(key: str, wait: bool) -> contextlib.AbstractContextManager[bool]:
    """The exclusive claim of the model ``key`` (:func:`infra.cache.claimed`)."""
    return cache.claimed(NAMESPACE, f"{key}.lock", wait)


def busy(key: str) -> bool:
    """Whether another worker is fitting the model ``key`` now."""
    if not cache.shared_work():
        return False
    with _claim(key, wait=False) as mine:
        return not mine


def _load(key: str) -> Any:
    value = cache.load(NAMESPACE, key)
    return None if value is cache.MISSING else value


#: Claims this process holds now: while it holds one it never waits for another's, so two
#: workers can never wait for each other.
_HELD: list[str] = []


def fitted(key: str, fit: Callable[[], Any]) -> Any:
    """The model ``key``: loaded where another worker stored it (after waiting for one that
    is fitting it), else ``fit()`` here under the model's claim and stored for the others."""
    if not cache.shared_work():
        return fit()
    found = _load(key)
    if found is not None:
        return found
    if _HELD:  # a model fitted inside another's fit: no waiting while holding a claim
        return fit()
    with _claim(key, wait=True) as mine:
        found = _load(key)
        if found is not None:
            return found
        _HELD.append(key)
        try:
            model = fit()
        finally:
            _HELD.pop()
        if mine:
            cache.store(NAMESPACE, key, model)
        return model

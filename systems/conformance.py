"""The adapter contract of :mod:`systems.base`, checked on any system.

What scikit-learn's ``check_estimator`` is to estimators: a system written anywhere -- a
file dropped into ``systems/``, an installed plug-in, a preset of a ``--peers`` file --
proves here that the runner can use it without surprises, on a few short generated notes
and in seconds.  ``python -m bench check NAME`` (or ``MODULE:CLASS``) runs it from the
command line; the test suite runs it on every registered system.

Each check is one function of :data:`CHECKS` and says, when it fails, which promise was
broken:

* *facts*: a name, a one-line description; a system that cites a source states its
  departures from it (the report prints them);
* *params*: ``get_params`` / ``set_params`` round-trip, and the constructor only stores its
  parameters (cache keys, ``--param`` and ``run.json`` depend on it);
* *clone*: an unfitted copy with the same parameters (one per fold);
* *fit* and *predict*: ``fit`` returns the system itself; one label of the label set per
  token of every note, nothing but ``PHI``/``O`` where the tags say it predicts no
  categories, nothing outside the categories it is scored on;
* *determinism*: the same notes twice, or to a second fit, give the same labels (the
  prediction cache and paired significance tests assume it);
* *pickle*: unfitted and fitted systems survive pickling (worker processes);
* *tags*: what :meth:`System.tags` declares matches what the system does: a rule system's
  ``fit`` changes nothing, a system that scores tokens gives one finite score per token
  and its own ``threshold`` on them gives its PHI decisions, one that takes a fit context
  accepts it;
* *info*: ``fitted_info`` is JSON, ``tool_fingerprint`` a string.

A system that cannot run on this machine (:class:`systems.base.SystemUnavailable`, NLTK
data not installed) is not checked: :class:`NotCheckable` says why.  Systems choose cheap
parameters for these checks through :attr:`System.conformance_params`.
"""

from __future__ import annotations

import importlib
import inspect
import json
import pickle
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from corpora.model import OUTSIDE, PHI, Document, check_predictions
from systems.base import (
    SYSTEMS,
    FitContext,
    System,
    SystemEntry,
    SystemUnavailable,
    check_scores,
    params_from_mapping,
)

#: How many generated notes the checks use: the first ones to train, the others to label.
N_TRAIN, N_TEST = 4, 2


class ConformanceError(AssertionError):
    """A system broke the adapter contract: the message names the check and the promise."""


class NotCheckable(Exception):
    """The system cannot run on this machine (a tool or data missing): not checked."""


@dataclass(frozen=True)
class CheckResult:
    """One check of one system: passed, or failed with the reason."""

    check: str
    passed: bool
    message: str = ""


def sample_notes(seed: int = 0) -> tuple[list[Document], list[Document]]:
    """A few short generated notes with gold PHI: (training notes, notes to label)."""
    from corpora.generator import GeneratorConfig, generate_corpus

    corpus = generate_corpus(seed, GeneratorConfig(n_documents=N_TRAIN + N_TEST))
    documents = list(corpus.documents)
    return documents[:N_TRAIN], documents[N_TRAIN:]


def resolve(target: str | type[System] | SystemEntry) -> SystemEntry:
    """A registered name, ``module:Class`` (a class or entry not registered anywhere), a
    class or an entry -> the entry to check."""
    if isinstance(target, str) and ":" in target:
        module, _, attribute = target.partition(":")
        obj: Any = importlib.import_module(module)
        for part in attribute.split("."):
            obj = getattr(obj, part)
        return SystemEntry.of(obj)
    if isinstance(target, str):
        return SYSTEMS.get(target)
    return SystemEntry.of(target)


@dataclass
class Subject:
    """A system under check: builds fresh instances, and fits one once for every check."""

    entry: SystemEntry
    train: list[Document]
    test: list[Document]
    params: dict[str, Any] = field(init=False)

    def __post_init__(self) -> None:
        # the entry's own parameters win: a preset is checked as it is configured
        cls = self.entry.cls
        self.params = {**dict(cls.conformance_params), **dict(self.entry.params)}

    @property
    def name(self) -> str:
        return self.entry.name

    def make(self) -> System:
        """A fresh, unfitted instance."""
        return self.entry.cls(**self.params)

    @cached_property
    def fitted(self) -> System:
        """An instance fitted as the runner fits it (with a fit context where it takes
        one)."""
        system = self.make()
        if system.tags().fit_context:
            returned = system.fit(self.train, context=FitContext())  # type: ignore[call-arg]
        else:
            returned = system.fit(self.train)
        _require(returned is system, "fit returns the system itself (scikit-learn style)")
        return system

    @cached_property
    def labels(self) -> list[list[str]]:
        return self.fitted.predict(self.test)


def _require(condition: bool, promise: str) -> None:
    if not condition:
        raise ConformanceError(promise)


# --------------------------------------------------------------------------- the checks


def check_facts(s: Subject) -> None:
    """A name, a one-line description, departures wherever a source is cited."""
    cls, entry = s.entry.cls, s.entry
    _require(bool(cls.name) and isinstance(cls.name, str), "the class sets `name`")
    _require(_one_line(entry.description), "`description` is one non-empty line")
    _require(isinstance(cls.citation, str), "`citation` is a string")
    if cls.citation:
        _require(
            _one_line(entry.departures),
            f"cites {cls.citation!r}, so `departures` says in one line what could not be "
            "reproduced from it and what stands in (or that nothing differs)",
        )
    elif entry.departures:
        _require(_one_line(entry.departures), "`departures` is one line")
    _require(
        isinstance(cls.compared_on, tuple) and all(isinstance(x, str) for x in cls.compared_on),
        "`compared_on` is a tuple of subset names",
    )
    try:
        params_from_mapping(cls, cls.conformance_params)
    except ValueError as exc:
        raise ConformanceError(f"`conformance_params`: {exc}") from None


def check_params(s: Subject) -> None:
    """``get_params``/``set_params`` round-trip; the constructor only stores parameters."""
    system = s.make()
    params = system.get_params()
    _require(
        list(params) == system._param_names(),
        "get_params() gives every constructor parameter (store each under its own name)",
    )
    for name, value in s.params.items():
        _require(
            repr(params[name]) == repr(value) or params[name] == value,
            f"the constructor stores parameter {name!r} as given ({value!r}, not "
            f"{params[name]!r}): validate in check_params(), not in __init__",
        )
    rebuilt = type(system)(**params)
    _require(repr(rebuilt.get_params()) == repr(params), "cls(**get_params()) rebuilds it")
    _require(system.set_params(**params) is system, "set_params returns the system itself")
    _require(repr(system.get_params()) == repr(params), "set_params(**get_params()) is a no-op")
    try:
        system.set_params(**{"no_such_parameter_": 1})
    except ValueError:
        pass
    else:
        raise ConformanceError("set_params refuses an unknown parameter with ValueError")
    system.check_params()  # its own parameters are valid
    repr(system)


def check_clone(s: Subject) -> None:
    """``clone`` is a new, unfitted instance with the same parameters."""
    fresh = s.make()
    copy = s.fitted.clone()
    _require(type(copy) is type(fresh) and copy is not s.fitted, "clone() builds a new instance")
    _require(repr(copy.get_params()) == repr(fresh.get_params()), "clone keeps the parameters")
    _require(
        set(vars(copy)) == set(vars(fresh)),
        "clone() of a fitted system is unfitted (no attributes fitting set: "
        f"{sorted(set(vars(copy)) - set(vars(fresh)))})",
    )


def check_predict(s: Subject) -> None:
    """One label of the label set per token of each note, as the tags promise."""
    try:
        check_predictions(s.test, s.labels, s.name)
    except ValueError as exc:
        raise ConformanceError(str(exc)) from None
    _require(
        all(isinstance(lab, str) for doc in s.labels for lab in doc),
        "labels are strings (list[list[str]])",
    )
    tags = s.fitted.tags()
    predicted = {lab for doc in s.labels for lab in doc} - {OUTSIDE, PHI}
    if not tags.predicts_categories:
        _require(not predicted, f"tags say no categories, yet it predicted {sorted(predicted)}")
    if tags.evaluated_labels is not None:
        extra = predicted - set(tags.evaluated_labels)
        _require(not extra, f"predicted {sorted(extra)}, outside the categories it is scored on")


def check_determinism(s: Subject) -> None:
    """The same notes twice, and a second fit on the same notes, give the same labels."""
    _require(s.fitted.predict(s.test) == s.labels, "predicting the same notes twice agrees")
    if not s.fitted.tags().requires_training:
        return  # a second, unfitted instance is compared by check_training_tag
    again = s.make().fit(s.train)
    _require(
        again.predict(s.test) == s.labels,
        "a second fit on the same notes gives the same labels (seed any randomness)",
    )


def check_pickle(s: Subject) -> None:
    """Unfitted and fitted systems survive pickling (worker processes receive them)."""
    try:
        unfitted = pickle.loads(pickle.dumps(s.make()))
        fitted = pickle.loads(pickle.dumps(s.fitted))
    except (pickle.PicklingError, TypeError, AttributeError) as exc:
        raise ConformanceError(f"cannot be pickled: {type(exc).__name__}: {exc}") from None
    _require(
        repr(unfitted.get_params()) == repr(s.make().get_params()),
        "an unpickled system keeps its parameters",
    )
    _require(fitted.predict(s.test) == s.labels, "an unpickled fitted system labels the same")


def check_training_tag(s: Subject) -> None:
    """``requires_training=False``: ``fit`` changes nothing (the runner never calls it)."""
    if s.fitted.tags().requires_training:
        return
    unfitted = s.make()
    _require(
        unfitted.predict(s.test) == s.labels,
        "tags say requires_training=False, yet fitting changed its labels",
    )


def check_scores_tag(s: Subject) -> None:
    """``scores_tokens``: a finite score per token, consistent with the labels."""
    system = s.fitted
    labels, scores = system.predict_scored(s.test)
    _require(labels == s.labels, "predict_scored's labels are predict's")
    if not system.tags().scores_tokens:
        _require(scores is None, "tags say it scores no tokens, yet predict_scored gave scores")
        return
    direct = system.score_tokens(s.test)
    try:
        check_scores(s.test, direct, s.name)
    except ValueError as exc:
        raise ConformanceError(str(exc)) from None
    _require(scores is not None, "predict_scored gives scores where the tags say so")
    assert scores is not None
    for a, b in zip(direct, scores, strict=True):
        _require(np.array_equal(np.asarray(a), np.asarray(b)), "predict_scored's scores agree")
        _require(bool(np.all(np.isfinite(np.asarray(a, dtype=float)))), "scores are finite")
    threshold = system.get_params().get("threshold")
    if isinstance(threshold, int | float) and not isinstance(threshold, bool):
        for doc, score in zip(labels, direct, strict=True):
            phi = np.asarray([lab != OUTSIDE for lab in doc])
            _require(
                np.array_equal(phi, np.asarray(score) > threshold),
                f"a token is PHI exactly where its score exceeds `threshold` ({threshold}): "
                "tuning moves the threshold on these scores",
            )


def check_context_tag(s: Subject) -> None:
    """``fit_context``: ``fit`` takes the keyword ``context``."""
    system = s.make()
    if not system.tags().fit_context:
        return
    accepted = inspect.signature(system.fit).parameters
    _require("context" in accepted, "tags say fit_context, so fit(documents, context=...)")


def check_info(s: Subject) -> None:
    """What fitting chose is JSON (run.json); the tool fingerprint is a string."""
    try:
        json.dumps(s.fitted.fitted_info())
    except (TypeError, ValueError) as exc:
        raise ConformanceError(f"fitted_info() is not JSON-serialisable: {exc}") from None
    _require(isinstance(s.fitted.tool_fingerprint(), str), "tool_fingerprint() is a string")
    modules = s.fitted.base_modules()
    _require(all(isinstance(m, str) for m in modules), "base_modules() is a set of names")


#: Every check, in the order they run (cheap ones first).
CHECKS: tuple[Callable[[Subject], None], ...] = (
    check_facts,
    check_params,
    check_predict,
    check_clone,
    check_determinism,
    check_pickle,
    check_training_tag,
    check_scores_tag,
    check_context_tag,
    check_info,
)


# --------------------------------------------------------------------------- running them


def run_checks(
    target: str | type[System] | SystemEntry,
    notes: tuple[Sequence[Document], Sequence[Document]] | None = None,
) -> list[CheckResult]:
    """Every check of :data:`CHECKS` on ``target``; :class:`NotCheckable` when it cannot
    run here.  ``notes``: (training, test) notes instead of :func:`sample_notes`."""
    from corpora.nlp import MissingResourceError

    entry = resolve(target)
    train, test = notes if notes is not None else sample_notes()
    subject = Subject(entry, list(train), list(test))
    _check_available(subject)
    results = []
    for check in CHECKS:
        name = check.__name__.removeprefix("check_")
        try:
            check(subject)
        except (SystemUnavailable, MissingResourceError) as exc:
            raise NotCheckable(f"{entry.name}: cannot run here: {exc}") from None
        except ConformanceError as exc:
            results.append(CheckResult(name, False, str(exc)))
        except Exception as exc:  # any other error is a broken promise too
            results.append(CheckResult(name, False, f"raised {type(exc).__name__}: {exc}"))
        else:
            results.append(CheckResult(name, True))
    return results


def check_system(
    target: str | type[System] | SystemEntry,
    notes: tuple[Sequence[Document], Sequence[Document]] | None = None,
) -> None:
    """Raise :class:`ConformanceError` listing every broken promise of ``target`` (a name,
    ``module:Class``, a class or an entry); :class:`NotCheckable` when it cannot run here."""
    failed = [r for r in run_checks(target, notes) if not r.passed]
    if failed:
        raise ConformanceError("; ".join(f"{r.check}: {r.message}" for r in failed))


def _check_available(subject: Subject) -> None:
    """An external tool that is not installed here is not checked (it says why)."""
    try:
        system = subject.make()
    except Exception:  # a broken constructor: the checks say how
        return
    check = getattr(system, "check_available", None)
    if check is None:
        return
    try:
        check()
    except SystemUnavailable as exc:
        raise NotCheckable(f"{subject.name}: cannot run here: {exc}") from None


def _one_line(text: object) -> bool:
    return isinstance(text, str) and bool(text.strip()) and "\n" not in text

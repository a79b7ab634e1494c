"""The adapter contract every de-identification system follows, and the registry.

Shaped like a scikit-learn estimator (the constructor only stores parameters;
``fit(documents)`` returns ``self``; ``predict(documents)`` returns one label per token of
each document's :attr:`~corpora.model.Document.tokens`), and registered by name the way
presidio-analyzer's recognizer registry finds recognizers, so that adding a system is:
write one class in ``systems/``, decorate it with :func:`register`, done.

Third-party packages can register systems without touching this repository through the
``deid_bench.systems`` entry-point group (``name = "package.module:ClassName"``).
"""

from __future__ import annotations

import importlib
import inspect
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from importlib.metadata import entry_points
from typing import Any, ClassVar, NamedTuple, TypeVar

from corpora.model import Document, check_predictions

ENTRY_POINT_GROUP = "deid_bench.systems"

#: Modules of the built-in systems, imported lazily so ``list`` stays fast.
BUILTIN_MODULES = (
    "systems.heuristic",
    "systems.mimic",
    "systems.svm",
    "systems.crf",
    "systems.mist",
    "systems.hmm",
    "systems.snow",
    "systems.mega",
    "systems.multi",
)


class OuterFolds(NamedTuple):
    """Where a cross-validation cell sits: the outer fold of each training document, and
    the test fold.

    The runner hands it to systems that set :attr:`System.uses_outer_folds`, so a stacked
    system can train its base systems once per half of the folds -- on folds that exclude
    the test fold -- and reuse them for every test fold of the other half, instead of
    training them anew in every cell.  It is information only: ignoring it is always
    correct.
    """

    train: tuple[int, ...]
    test: int


class System(ABC):
    """A de-identifier: learns from documents with gold spans, labels tokens of new ones.

    Subclasses set :attr:`name` and :attr:`description`, store their parameters in
    ``__init__`` under the same names (so :meth:`get_params` and caching keys work), and set
    :attr:`requires_training` to ``False`` when :meth:`fit` learns nothing (rule systems are
    then applied to each test fold directly).
    """

    #: Registry name, used by ``--systems NAME``.
    name: ClassVar[str] = ""
    #: One line for ``python -m bench list``.
    description: ClassVar[str] = ""
    #: ``False`` for systems that need no training data.
    requires_training: ClassVar[bool] = True
    #: ``True`` when the system predicts categories, not just PHI vs non-PHI.
    predicts_categories: ClassVar[bool] = True
    #: Rough cost per token relative to ``svm`` (training included), used only to start
    #: the costliest tasks first (:mod:`bench.schedule`); ``None``: guess from
    #: :attr:`requires_training`.  Never affects results.
    relative_cost: ClassVar[float | None] = None
    #: ``True`` for systems whose :meth:`fit_predict` accepts ``folds=`` (an
    #: :class:`OuterFolds`) under cross-validation; see :mod:`systems.multi`.
    uses_outer_folds: ClassVar[bool] = False

    @classmethod
    def _param_names(cls) -> list[str]:
        sig = inspect.signature(cls.__init__)
        return [
            p.name
            for p in sig.parameters.values()
            if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        ]

    def get_params(self) -> dict[str, Any]:
        """Constructor parameters, as in scikit-learn (used in cache keys and run.json)."""
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params: Any) -> System:
        valid = set(self._param_names())
        for key, value in params.items():
            if key not in valid:
                raise ValueError(f"{type(self).__name__} has no parameter {key!r}")
            setattr(self, key, value)
        return self

    def clone(self) -> System:
        """An unfitted copy with the same parameters (one per fold)."""
        return type(self)(**self.get_params())

    def fit(self, documents: Sequence[Document]) -> System:
        """Learn from ``documents`` (their gold spans); rule systems keep this no-op."""
        return self

    @abstractmethod
    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        """One label (a category of :data:`corpora.model.LABELS`, ``PHI`` or ``O``) per
        token of each document."""

    def fit_predict(self, train: Sequence[Document], test: Sequence[Document]) -> list[list[str]]:
        """Fit (when needed) and predict, checking the output against the token interface."""
        if self.requires_training:
            self.fit(train)
        predictions = self.predict(test)
        check_predictions(test, predictions, self.name)
        return predictions

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"


S = TypeVar("S", bound=type[System])

_REGISTRY: dict[str, type[System]] = {}
_loaded = False


def register(cls: S) -> S:
    """Class decorator: make ``cls`` available to ``--systems cls.name``."""
    if not cls.name:
        raise ValueError(f"{cls.__name__} must set a class attribute 'name'")
    existing = _REGISTRY.get(cls.name)
    if existing is not None and existing is not cls:
        if (existing.__module__, existing.__qualname__) != (cls.__module__, cls.__qualname__):
            raise ValueError(f"system name {cls.name!r} is already registered by {existing}")
    _REGISTRY[cls.name] = cls
    return cls


def unregister(name: str) -> None:
    """Remove a system (tests register throw-away fixtures)."""
    _REGISTRY.pop(name, None)


def _load_builtins() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for module in BUILTIN_MODULES:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:  # a real import error inside the module
                raise
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        register(ep.load())


def available_systems() -> dict[str, type[System]]:
    """All registered systems by name, built-ins first, in a stable order."""
    _load_builtins()
    return dict(sorted(_REGISTRY.items()))


def get_system(name: str, **params: Any) -> System:
    """Instantiate the registered system ``name`` with ``params``."""
    systems = available_systems()
    if name not in systems:
        known = ", ".join(systems) or "none"
        raise KeyError(f"unknown system {name!r}; known systems: {known}")
    return systems[name](**params)


SystemFactory = Callable[..., System]

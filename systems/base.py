"""The adapter contract every de-identification system follows, and the registry.

Shaped like a scikit-learn estimator: the constructor only stores parameters;
``fit(documents)`` returns ``self``; ``predict(documents)`` returns one label per token of
each document's :attr:`~corpora.model.Document.tokens`.  What a system can do is *declared*
by :meth:`System.tags` (like scikit-learn's estimator tags, computed from the instance, so
``svm`` with ``mode="multiclass"`` says it predicts categories and the binary one does not);
the runner reads the tags and never probes attributes.

Systems are found by name in :data:`SYSTEMS`, a :class:`infra.registry.Registry` that
imports every module of this package (drop ``systems/mine.py`` with a ``@register``-ed class
and ``--systems mine`` finds it) and the ``deid_bench.systems`` entry-point group (for
packages outside this repository: ``mine = "mypkg.module:MyDeid"``).  Every entry has one
shape, :class:`SystemEntry`: a class, the parameters it is built with, and what is said
about it.

A system carries its own facts -- :attr:`System.description`, :attr:`System.citation`,
:attr:`System.departures` from its source -- so reports read them from the class and a new
system needs no edit elsewhere; :mod:`systems.conformance` checks any system against this
contract (``python -m bench check NAME``).
"""

from __future__ import annotations

import contextlib
import contextvars
import inspect
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

import numpy as np

from corpora.model import Document, check_predictions
from infra.registry import Registry

ENTRY_POINT_GROUP = "deid_bench.systems"


@dataclass(frozen=True)
class Tags:
    """What a system declares about itself; the runner plans, scores and reports from these.

    ``requires_training``: ``False`` for rule systems (applied to each test fold as is).
    ``uses_nlp``: POS tags and lemmas are needed, so the runner tags corpora (once, cached)
    before the system runs.  ``predicts_categories``: labels are PHI categories, not just
    ``PHI``/``O``.  ``evaluated_labels``: the categories the system is scored on when it
    recognizes only some (SNoW: people, locations and organizations); ``None`` = all.
    ``scores_tokens``: :meth:`System.score_tokens` gives a PHI score per token, so the report
    can draw precision-recall curves and operating points, and tuning can pick a threshold.
    ``fit_context``: :meth:`System.fit` takes a keyword ``context`` (:class:`FitContext`),
    which the runner then passes.  ``item_sequences``: the system reads documents' CRFsuite
    item sequences (:data:`ITEM_SEQUENCES_MEMO`), the largest thing a process keeps per
    document, which a worker drops once no task left in its job reads them.
    ``portable_model``: a fitted model holds nothing of its process (no ids of the
    process's feature vocabulary), so another worker can load and use it as it is
    (:mod:`systems.shared_models`).
    """

    requires_training: bool = True
    uses_nlp: bool = True
    predicts_categories: bool = True
    evaluated_labels: frozenset[str] | None = None
    scores_tokens: bool = False
    fit_context: bool = False
    item_sequences: bool = False
    portable_model: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "requires_training": self.requires_training,
            "uses_nlp": self.uses_nlp,
            "predicts_categories": self.predicts_categories,
            "evaluated_labels": (
                sorted(self.evaluated_labels) if self.evaluated_labels is not None else None
            ),
            "scores_tokens": self.scores_tokens,
            "fit_context": self.fit_context,
            "item_sequences": self.item_sequences,
            "portable_model": self.portable_model,
        }


#: The memo of documents' CRFsuite item sequences (:func:`systems.crf.encoded_rows`): about
#: 400 MB for the three CRF-family bases of ``multi`` on a corpus of 475 notes.
ITEM_SEQUENCES_MEMO = "crf.encoded"


@dataclass(frozen=True)
class FitContext:
    """What the run knows about a fit beyond its training documents, for a system that
    declares it uses it (:attr:`Tags.fit_context`), as scikit-learn passes ``groups`` to
    ``fit``.

    ``outer_folds`` are the groups (:func:`corpora.folds.group_labels` under ``group_by``)
    of each outer cross-validation fold of the corpus the training documents come from:
    never documents, only which group sits in which fold, so a system can tell which fold
    its training documents leave out and share work between the outer folds (``multi``'s
    cross-fitting).  Empty outside cross-validation.
    """

    outer_folds: tuple[tuple[str, ...], ...] = ()
    group_by: str = "auto"

    @property
    def key(self) -> str:
        """A short hash: part of the prediction-cache key of a system that uses it."""
        import hashlib

        h = hashlib.blake2b(digest_size=12)
        h.update(self.group_by.encode())
        for fold in self.outer_folds:
            h.update(b"\1" + "\0".join(fold).encode("utf-8", "surrogatepass"))
        return h.hexdigest()


class HarnessError(RuntimeError):
    """An error whose message the harness (or a system's author) wrote from ids, counts
    and file names only, never from note text: reports show it as it is
    (:mod:`bench.run.scrub`), where any other exception shows only its type and location."""


class SystemUnavailable(HarnessError):
    """The system cannot run on this machine (an optional package or tool is missing).

    The runner reports such a system as *skipped* with this message (which must say how to
    install what is missing), not as failed.
    """


class CannotStart(HarnessError):
    """An external tool's program could not be started (missing, not executable): the
    system failed as a whole, and no note of it is scored."""


class System(ABC):
    """A de-identifier: learns from documents with gold spans, labels tokens of new ones.

    Subclasses set :attr:`name` and :attr:`description` (and, for a re-implementation,
    :attr:`citation` and :attr:`departures`) and store their parameters in ``__init__``
    under the same names (so :meth:`get_params`, cache keys and :meth:`clone` work).  The
    capability attributes below are the defaults of :meth:`tags`; a system whose
    capabilities depend on its parameters overrides :meth:`tags`.
    ``python -m bench check NAME`` (:mod:`systems.conformance`) checks all of this.
    """

    #: Registry name, used by ``--systems NAME``.
    name: ClassVar[str] = ""
    #: One line for ``python -m bench list``.
    description: ClassVar[str] = ""
    #: The source this system implements or runs (paper and section, or the tool's
    #: project); empty for a system of this harness's own.
    citation: ClassVar[str] = ""
    #: What could not be reproduced from :attr:`citation`, and what stands in for it: one
    #: line, printed in every report's systems table.  Required when there is a citation
    #: (:mod:`systems.conformance`).
    departures: ClassVar[str] = ""
    #: Scoring subsets (names of :data:`bench.score.metrics.SUBSETS`) its source compared it on
    #: besides the headline: the report adds a table of every system on each.
    compared_on: ClassVar[tuple[str, ...]] = ()
    #: Cheap parameters for checking the adapter contract on a few short notes
    #: (:mod:`systems.conformance`: fewer iterations, fewer base systems); never used in a
    #: run.  A system that needs a parameter to run at all (a command line) gives it here.
    conformance_params: ClassVar[Mapping[str, Any]] = {}
    #: Parameters that widen :meth:`search_space` with more choices for ``--tune`` (each
    #: multiplies the grid, so they are opt-in): ``python -m bench list`` shows what they
    #: add, so a system's whole configuration space is declared in one place.
    wider_search: ClassVar[Mapping[str, Any]] = {}
    #: ``False`` for systems that need no training data.
    requires_training: ClassVar[bool] = True
    #: ``None``: the same as :attr:`requires_training` (learned systems use POS tags).
    uses_nlp: ClassVar[bool | None] = None
    #: ``True`` when the system predicts categories, not just PHI vs non-PHI.
    predicts_categories: ClassVar[bool] = True
    #: The only categories the system is scored on, or ``None`` for all.
    evaluated_labels: ClassVar[frozenset[str] | None] = None
    #: Rough cost per token relative to ``svm`` (training included), used only to start
    #: the costliest tasks first (:mod:`bench.run.schedule`); ``None``: guess from
    #: :attr:`requires_training`.  Never affects results.
    relative_cost: ClassVar[float | None] = None
    #: ``True`` when :meth:`fit` takes a keyword ``context`` (:class:`FitContext`).
    fit_context: ClassVar[bool] = False
    #: ``True`` for a de-identifier that exists outside this harness and is run as it ships
    #: (:class:`systems.external.ExternalSystem`): ``--systems peers`` chooses these and
    #: ``--systems all`` leaves them out (:mod:`bench.run.plan`).
    external: ClassVar[bool] = False

    # -- capabilities ----------------------------------------------------------------------
    def tags(self) -> Tags:
        """The declared capabilities of this instance (see :class:`Tags`)."""
        cls = type(self)
        return Tags(
            requires_training=cls.requires_training,
            uses_nlp=cls.requires_training if cls.uses_nlp is None else cls.uses_nlp,
            predicts_categories=cls.predicts_categories,
            evaluated_labels=cls.evaluated_labels,
            scores_tokens=cls.score_tokens is not System.score_tokens,
            fit_context=cls.fit_context,
        )

    def check_params(self) -> None:  # noqa: B027 - an optional hook, not abstract
        """Raise ``ValueError`` naming a parameter value this system cannot use.

        The runner calls it while planning, so ``--param svm.mode=ternary`` is one line of
        error before any work starts instead of a failure in every fold.
        """

    def search_space(self) -> dict[str, list[Any]]:
        """Hyperparameter values worth trying for this system (``--tune``), by parameter.

        Selection happens inside the training folds only (:mod:`bench.training.tuning`).  A
        system that scores tokens also has its decision threshold chosen there, from the
        out-of-fold scores, without refitting.  Empty: nothing to tune.
        """
        return {}

    def selection_predictions(
        self,
        documents: Sequence[Document],
        candidates: Sequence[Mapping[str, Any]],
        folds: Sequence[tuple[Sequence[int], Sequence[int]]],
        context: FitContext | None = None,
    ) -> list[list[Any]] | None:
        """Each candidate's labels and scores of each inner fold's held-out documents
        (``[candidate][fold]``, :class:`systems.prediction_cache.Prediction` objects), made
        the system's own cheaper way, or ``None`` for the tuner to fit every candidate on
        every inner fold (the default).  A stacked system answers from the cross-fitted
        decisions its own fit needs anyway (``multi``); every prediction must still come
        from a model that never saw the document it labels."""
        return None

    # -- parameters ------------------------------------------------------------------------
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

    # -- learning and labelling ------------------------------------------------------------
    def fit(self, documents: Sequence[Document]) -> System:
        """Learn from ``documents`` (their gold spans); rule systems keep this no-op."""
        return self

    @abstractmethod
    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        """One label (a category of :data:`corpora.model.LABELS`, ``PHI`` or ``O``) per
        token of each document."""

    def score_tokens(self, documents: Sequence[Document]) -> list[np.ndarray]:
        """Per document, a PHI score per token: higher means more likely PHI, and the
        system's own ``threshold`` parameter on this score gives its PHI decisions.

        Optional: implementing it makes :attr:`Tags.scores_tokens` true.
        """
        raise NotImplementedError(f"{self.name} does not score tokens")

    def predict_scored(
        self, documents: Sequence[Document]
    ) -> tuple[list[list[str]], list[np.ndarray] | None]:
        """Labels and, where the system scores tokens, the scores; override when both come
        from one pass (the default calls :meth:`predict` and :meth:`score_tokens`)."""
        labels = self.predict(documents)
        scores = self.score_tokens(documents) if self.tags().scores_tokens else None
        return labels, scores

    def fit_predict(self, train: Sequence[Document], test: Sequence[Document]) -> list[list[str]]:
        """Fit (when needed) and predict, checking the output against the token interface."""
        if self.tags().requires_training:
            self.fit(train)
        predictions = self.predict(test)
        check_predictions(test, predictions, self.name)
        return predictions

    def fitted_info(self) -> dict[str, Any]:
        """What fitting chose that a reader of run.json should see (tuned parameters, a
        stacked system's inner folds, ...); JSON-serialisable, never document text."""
        return {}

    def tool_fingerprint(self) -> str:
        """What this system's output depends on beyond its parameters and this package's
        code -- an external program's files and version -- as a short string; part of the
        prediction-cache key (:mod:`systems.prediction_cache`), so upgrading the tool
        recomputes its predictions.  Empty for systems written in this package."""
        return ""

    def base_modules(self) -> set[str]:
        """Modules of other systems this one's output depends on that are not among its
        parameters as :class:`System` objects (a stacked system naming its bases by
        string); their code is part of the prediction-cache key
        (:mod:`systems.prediction_cache`).  Empty for a system that stands alone."""
        return set()

    def shared_predictions(
        self,
        train: Sequence[Document],
        test: Sequence[Document],
        context: FitContext | None = None,
    ) -> list[str]:
        """Prediction-cache keys (:func:`systems.prediction_cache.prediction_key`) that
        fitting this system on ``train`` and labelling ``test`` also stores: a stacked
        system's bases trained on all of ``train``.  A cell of the run with one of these
        keys reads the stack's fit instead of fitting, which the run's time estimate says.
        Empty for a system that stands alone."""
        return []

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"


class Wrapper(System):
    """A system around another one, changing how it is trained but not what it is:
    model selection (:mod:`bench.training.tuning`) and training-set augmentation
    (:mod:`systems.augment`) are wrappers the runner applies at the run level.

    The wrapped system is the constructor parameter ``system``, so it is part of
    :meth:`get_params` (and of the prediction-cache key, by its ``repr``).  The wrapper
    declares what the wrapped system declares, takes its name, offers its search space,
    and passes any parameter it does not own on to it, so a wrapper around a wrapper is
    tuned like the system inside.  Subclasses implement :meth:`fit` and keep the fitted
    system in ``fitted_``.
    """

    system: System

    @property  # type: ignore[override]
    def name(self) -> str:  # the wrapped system's, for messages and checks
        return self.system.name

    def tags(self) -> Tags:
        return self.system.tags()

    def check_params(self) -> None:
        self.system.check_params()

    def search_space(self) -> dict[str, list[Any]]:
        return self.system.search_space()

    def set_params(self, **params: Any) -> System:
        own = set(self._param_names())
        mine = {k: v for k, v in params.items() if k in own}
        theirs = {k: v for k, v in params.items() if k not in own}
        super().set_params(**mine)
        if theirs:
            self.system.set_params(**theirs)
        return self

    def clone(self) -> System:
        """An unfitted copy whose wrapped system is a copy too (never shared)."""
        params = self.get_params()
        params["system"] = self.system.clone()
        return type(self)(**params)

    def _fitted(self) -> System:
        fitted = getattr(self, "fitted_", None)
        if fitted is None:
            raise RuntimeError(f"{type(self).__name__}({self.system.name}) used before fit")
        return fitted

    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        return self._fitted().predict(documents)

    def score_tokens(self, documents: Sequence[Document]) -> list[np.ndarray]:
        return self._fitted().score_tokens(documents)

    def predict_scored(
        self, documents: Sequence[Document]
    ) -> tuple[list[list[str]], list[np.ndarray] | None]:
        return self._fitted().predict_scored(documents)

    def fitted_info(self) -> dict[str, Any]:
        fitted = getattr(self, "fitted_", None)
        return fitted.fitted_info() if fitted is not None else {}

    def tool_fingerprint(self) -> str:
        return self.system.tool_fingerprint()

    def base_modules(self) -> set[str]:
        """The wrapped system's own declared modules (a stacked system's bases)."""
        return self.system.base_modules()


class ExtendedTraining(Wrapper):
    """A wrapper that trains the wrapped system on its training documents and more:
    transformed copies of them (:class:`systems.augment.Augmented`) or notes that are never
    scored (:class:`bench.training.extra_training.ExtraTraining`).  Subclasses say what to add
    (:meth:`added_documents`) and the :meth:`fitted_info` key that counts it."""

    added_key: ClassVar[str] = "added_documents"

    @abstractmethod
    def added_documents(self, documents: list[Document]) -> list[Document]:
        """What to train on besides ``documents`` (the training part of this fit)."""

    def fit(
        self, documents: Sequence[Document], context: FitContext | None = None
    ) -> ExtendedTraining:
        self.check_params()
        documents = list(documents)
        added = self.added_documents(documents)
        fitted = self.system.clone()
        fit_with_context(fitted, documents + added, context)
        self.fitted_ = fitted
        self.added_ = len(added)
        return self

    def fitted_info(self) -> dict[str, Any]:
        return {**super().fitted_info(), self.added_key: getattr(self, "added_", 0)}


_SELECTING: contextvars.ContextVar[bool] = contextvars.ContextVar("selecting", default=False)
_ON_SELECTION_END: list[Callable[[], None]] = []


@contextlib.contextmanager
def model_selection() -> Iterator[None]:
    """A block in which several candidates of one system are fitted on the same
    documents (model selection, :mod:`bench.training.tuning`): a system may keep for the next
    candidate what does not depend on its hyperparameters (:func:`selecting`), and it is
    dropped when the block ends (:func:`on_selection_end`)."""
    token = _SELECTING.set(True)
    try:
        yield
    finally:
        _SELECTING.reset(token)
        if not _SELECTING.get():
            for clear in list(_ON_SELECTION_END):
                clear()


def selecting() -> bool:
    """Whether a :func:`model_selection` block is running in this context."""
    return _SELECTING.get()


def on_selection_end(clear: Callable[[], None]) -> Callable[[], None]:
    """Register ``clear()`` to run when the outermost :func:`model_selection` block ends."""
    _ON_SELECTION_END.append(clear)
    return clear


def fit_with_context(
    system: System, documents: Sequence[Document], context: FitContext | None
) -> System:
    """``system.fit(documents)``, with ``context`` where the system declares it uses one."""
    if context is not None and system.tags().fit_context:
        return system.fit(documents, context=context)  # type: ignore[call-arg]
    return system.fit(documents)


S = TypeVar("S", bound=type[System])


@dataclass(frozen=True)
class SystemEntry:
    """What :data:`SYSTEMS` holds under a name: a system class, the parameters it is built
    with, and what is said about it -- one shape for every entry.

    A registered class is an entry with its own name and no parameters
    (:meth:`of`).  A *preset* is a class with fixed parameters under a name of its own:
    external tools configured in a TOML file (:mod:`systems.command`) and labelled
    configurations (``philter-lenient``): ``--systems NAME`` builds ``cls(**params)``,
    ``--param NAME.x=...`` overrides one of the params, and the report lists the preset's
    name, description and departures.  Calling an entry builds an instance, like calling a
    class.
    """

    name: str
    cls: type[System]
    params: Mapping[str, Any] = field(default_factory=dict)
    #: Empty: the class's own (a preset may say what it changes).
    description: str = ""
    departures: str = ""
    #: Configured by the user (a ``--peers`` file), not shipped: a run that chooses it
    #: with the ``peers`` group asked for it all the same, so one that cannot run is a
    #: usage error rather than a system skipped.
    configured: bool = False
    #: Registered by :func:`register_preset`, not as a class's own entry.
    preset: bool = False
    #: Its choices (the system's :meth:`System.search_space` and threshold) are always
    #: made inside the training folds, as ``--tune`` makes them, with or without it.
    tuned: bool = False
    #: The objective those choices maximize where the preset states its own (an operating
    #: point is part of what it promises, e.g. ``recall@precision=0.85``); empty: the run's
    #: ``--objective``.
    objective: str = ""
    #: The transformed training copies it always trains with, as ``--augment`` names them
    #: (a preset's own augmentation, which replaces the run's as ``--param NAME.augment``
    #: does); empty: the run's.
    augment: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "description", self.description or self.cls.description)
        object.__setattr__(self, "departures", self.departures or self.cls.departures)

    @classmethod
    def of(cls, obj: SystemEntry | type[System]) -> SystemEntry:
        """The entry of a system class (an entry stays as it is): what an entry point may
        name."""
        if isinstance(obj, SystemEntry):
            return obj
        if not (isinstance(obj, type) and issubclass(obj, System)):
            raise TypeError(f"{obj!r} is neither a System subclass nor a SystemEntry")
        return cls(obj.name, obj)

    @property
    def identity(self) -> Hashable:
        """What makes two registrations of a name the same entry: the same class (or the
        same class re-created by a module reload); any preset replaces a preset of the same
        name (a configuration file read again), never a class."""
        if self.preset:
            return ("preset",)
        return ("class", self.cls.__module__, self.cls.__qualname__)

    @property
    def citation(self) -> str:
        return self.cls.citation

    @property
    def requires_training(self) -> bool:
        return self.cls.requires_training

    @property
    def external(self) -> bool:
        return self.cls.external

    def __call__(self, **params: Any) -> System:
        return self.cls(**{**dict(self.params), **params})


#: Every system by name: ``systems/*.py`` modules and the entry-point group.
SYSTEMS: Registry[SystemEntry] = Registry(
    "system",
    package="systems",
    entry_point_group=ENTRY_POINT_GROUP,
    describe=lambda entry: entry.description,
    name_of=lambda entry: entry.name,
    load=SystemEntry.of,
    identity=lambda entry: entry.identity,
)


def register(cls: S) -> S:
    """Class decorator: make ``cls`` available to ``--systems cls.name``."""
    if not getattr(cls, "name", ""):
        raise ValueError(f"{cls.__name__} must set a class attribute 'name'")
    SYSTEMS.add(cls.name, SystemEntry.of(cls))
    return cls


def register_preset(
    name: str,
    cls: type[System],
    params: Mapping[str, Any],
    description: str,
    *,
    departures: str = "",
    configured: bool = False,
    tuned: bool = False,
    objective: str = "",
    augment: str = "",
) -> SystemEntry:
    """Register ``cls`` with ``params`` as the system ``name`` (a preset, see
    :class:`SystemEntry`); the parameters are checked against ``cls``'s constructor first."""
    preset = SystemEntry(
        name,
        cls,
        dict(params_from_mapping(cls, params)),
        description,
        departures=departures,
        configured=configured,
        preset=True,
        tuned=tuned,
        objective=objective,
        augment=augment,
    )
    # a preset replaces a preset of the same name (a configuration file read again); a
    # name taken by a system class is an error (SystemEntry.identity)
    SYSTEMS.add(name, preset)
    return preset


def unregister(name: str) -> None:
    """Remove a system (tests register throw-away fixtures)."""
    SYSTEMS.remove(name)


def available_systems() -> dict[str, SystemEntry]:
    """All registered systems by name, in a stable (sorted) order."""
    return SYSTEMS.as_dict()


def get_system(name: str, **params: Any) -> System:
    """Instantiate the registered system ``name`` with ``params``."""
    return SYSTEMS.get(name)(**params)


def check_scores(documents: Sequence[Document], scores: Sequence[np.ndarray], system: str) -> None:
    """Fail loudly when token scores do not line up with the documents' tokens."""
    if len(scores) != len(documents):
        raise ValueError(
            f"system {system!r} returned {len(scores)} score arrays for {len(documents)} documents"
        )
    for doc, s in zip(documents, scores, strict=True):
        if np.shape(s) != (len(doc.tokens),):
            raise ValueError(
                f"system {system!r} returned {np.shape(s)} scores for document {doc.id!r} "
                f"which has {len(doc.tokens)} tokens"
            )


def split_by_document(flat: np.ndarray, documents: Sequence[Document]) -> list[np.ndarray]:
    """A flat per-token array cut back into one array per document."""
    bounds = np.cumsum([len(d.tokens) for d in documents])[:-1]
    return list(np.split(np.asarray(flat), bounds)) if len(documents) else []


def params_from_mapping(cls: type[System], params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` checked against ``cls``'s constructor: an unknown name is an error that
    names the valid ones (so ``--param svm.c=1`` is caught before any work starts)."""
    valid = cls._param_names()
    unknown = [k for k in params if k not in valid]
    if unknown:
        raise ValueError(
            f"system {cls.name!r} has no parameter {', '.join(map(repr, unknown))}; "
            f"its parameters: {', '.join(valid) or 'none'}"
        )
    return dict(params)

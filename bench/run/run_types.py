"""The types a run hands from step to step: its configuration, its cells and what they
produced, the scored result, and the columns of its tables.

A run is a pipeline of small steps (:mod:`bench.run.plan` -> :mod:`bench.run.cells` ->
:mod:`bench.score.scoring` -> :mod:`bench.report.outputs`, driven by
:mod:`bench.run.runner`); each hands the next one of these dataclasses, never a positional
tuple.  Kept in one small module so
that the report, the outputs and the runner can all import them without importing each
other.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bench.run.protocols import LEARNING_CURVE_FRACTIONS, Split
from bench.score.significance import DEFAULT_RESAMPLES, DEFAULT_SHUFFLES
from corpora.variants import DOCUMENT_VARIANTS, PAPER_CORPORA
from systems.augment import RESERVED_FOR_TESTING

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from corpora.model import Corpus
    from systems.base import System, SystemEntry, Tags

#: The four embedded corpora ``--corpora all`` means.
DEFAULT_CORPORA = PAPER_CORPORA
#: Headline subset of a system that only recognizes people, locations and organizations.
PLO_SUBSET = "people_locations_organizations"
# DEFAULT_RESAMPLES and DEFAULT_SHUFFLES (bootstrap resamples per F1 interval,
# approximate-randomization shuffles per test) are defined once, in bench.score.significance.
#: Tuning objectives (``--objective``); F2 weighs recall twice: a missed PHI leaks, a false
#: alarm only redacts a word.
OBJECTIVES = ("f1", "f2", "precision@recall=0.95", "recall@precision=0.9")
DEFAULT_OBJECTIVE = "f2"
#: ``precision@recall=R`` with any recall level R a hospital requires (0 < R < 1).
RECALL_OBJECTIVE = "precision@recall="
#: ``recall@precision=P``: the most recall at a precision floor P (0 < P < 1), for a user
#: who can afford redacting one word in 1/P - 1 too many and wants every PHI it allows.
PRECISION_OBJECTIVE = "recall@precision="
#: Folds of ``--tune``'s inner cross-validation.  Two keep selection within about three
#: times a run's cost; each inner model then learns from half the outer training notes,
#: and scores PHI lower than the model refitted on all of them, so a threshold that
#: reaches a recall level on the inner folds reaches more than that level (at less
#: precision) on new notes.  More folds shrink that gap at the cost of more fits.
DEFAULT_INNER_FOLDS = 2


def tuning_objective(config: RunConfig) -> str:
    """The objective of the run's tuned systems that state none of their own."""
    return config.objective or DEFAULT_OBJECTIVE


def inner_fold_count(config: RunConfig) -> int:
    """The folds of the run's inner cross-validation (``--inner-folds``, else the default)."""
    return config.inner_folds if config.inner_folds is not None else DEFAULT_INNER_FOLDS


def check_objective(name: str) -> str:
    """``name`` if it is an objective :mod:`bench.training.tuning` knows, else a ``ValueError``
    naming them: one of :data:`OBJECTIVES`, ``precision@recall=R`` or ``recall@precision=P``
    for another level."""
    if name in OBJECTIVES:
        return name
    for prefix in (RECALL_OBJECTIVE, PRECISION_OBJECTIVE):
        if name.startswith(prefix):
            try:
                level = float(name[len(prefix) :])
            except ValueError:
                level = float("nan")
            if 0 < level < 1:
                return name
    raise ValueError(
        f"unknown objective {name!r}: use {', '.join(OBJECTIVES[:2])}, "
        f"{RECALL_OBJECTIVE}R with 0 < R < 1 (e.g. {OBJECTIVES[2]}) or "
        f"{PRECISION_OBJECTIVE}P with 0 < P < 1 (e.g. {OBJECTIVES[3]})"
    )


#: Variants ``--test-variant`` accepts, and those ``--augment`` can apply to one training
#: document at a time.
TEST_VARIANTS = ("surrogate", "ambiguous", "unseen", "foreign")
AUGMENTATIONS = DOCUMENT_VARIANTS
#: Test variants no training step may use: a transform the models never saw is what makes
#: their scores a generalization estimate (names and places of other countries,
#: :mod:`corpora.foreign`).


def check_not_reserved(variants: Sequence[str], option: str) -> None:
    """A :class:`UsageError` if ``variants`` (of ``--augment`` or ``--param NAME.augment``)
    names a variant kept for testing (:data:`RESERVED_FOR_TESTING`)."""
    reserved = [v for v in dict.fromkeys(variants) if v in RESERVED_FOR_TESTING]
    if reserved:
        raise UsageError(
            f"{option}: the {reserved[0]!r} variant is reserved for testing "
            f"generalization (--test-variant {reserved[0]}), so no training step may use it; "
            f"augment with {', '.join(AUGMENTATIONS)}"
        )


#: Columns of results.csv, in order.
RESULT_COLUMNS = (
    "system",
    "corpus",
    "protocol",
    "level",
    "subset",
    "label",
    "tp",
    "fp",
    "fn",
    "precision",
    "recall",
    "f1",
    "f1_ci_low",
    "f1_ci_high",
    "match",
)
#: Columns of significance.csv.
SIGNIFICANCE_COLUMNS = (
    "corpus",
    "system_a",
    "system_b",
    "test",
    "statistic",
    "p_value",
    "subset",
)


class UsageError(ValueError):
    """A bad option value (unknown system, too few documents for the folds, ...)."""


@dataclass
class RunConfig:
    """Everything that determines a run (recorded in run.json)."""

    systems: Sequence[str] = ("all",)
    corpora: Sequence[str] = ("all",)
    folds: int = 10
    seed: int = 0
    protocol: str = "auto"
    train_corpus: str | None = None
    fractions: tuple[float, ...] = LEARNING_CURVE_FRACTIONS
    #: ``auto`` (patients where every document has one), ``patient``, ``template``,
    #: ``document`` (:mod:`corpora.folds`).
    group_by: str = "auto"
    #: Train on the authentic training folds, test on this variant of the test fold.
    test_variant: str | None = None
    #: Choose each learned system's hyperparameters inside the training folds.
    tune: bool = False
    #: What tuning maximizes; ``None``: :data:`DEFAULT_OBJECTIVE`, and a preset that states
    #: its own (:attr:`systems.base.SystemEntry.objective`) keeps it.  A value given
    #: explicitly holds for every tuned system, so a preset of another objective refuses it.
    objective: str | None = None
    #: Folds of ``--tune``'s inner cross-validation; ``None``: :data:`DEFAULT_INNER_FOLDS`
    #: (:func:`inner_fold_count`).  A value given explicitly is refused by a run that tunes
    #: nothing, whose report would otherwise name folds no selection used.
    inner_folds: int | None = None
    #: Variant transforms whose copies of the training documents are added to training.
    augment: tuple[str, ...] = ()
    #: With a range of copies (``--augment unseen:1-3``): every augmentation ``--tune``
    #: chooses between, fewest copies first (``augment`` is the first); else empty.
    augment_choices: tuple[tuple[str, ...], ...] = ()
    #: Corpus whose documents join every training set and are never scored
    #: (:mod:`bench.training.extra_training`).
    extra_training: str | None = None
    #: Score notes that are near-duplicates of training notes (:mod:`bench.run.overlap`).
    allow_near_duplicates: bool = False
    lenient: bool = False
    n_documents: int | None = None
    phi_rate: float = 1.0
    category_weights: tuple[tuple[str, float], ...] = ()
    dictionaries: str | None = None
    jobs: int = 1
    backend: str | None = None
    scheduler: str | None = None
    show_progress: bool = True
    alpha: float = 0.05
    n_resamples: int = DEFAULT_RESAMPLES
    n_shuffles: int = DEFAULT_SHUFFLES
    system_params: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class SystemSpec:
    """A system as the run uses it: its name in the run, how to build it, and its tags.

    ``name`` is the registry name (``philter-lenient``, an external tool's name from a TOML
    file), or the alias it runs under (``svm-plo`` for ``svm-plo=svm``); ``cls(**params)``
    builds a fresh, unfitted instance in any process.  ``wrappers``
    are the run-level wrappers applied around it (tuning, augmentation), in order.
    """

    name: str
    cls: type[System]
    params: Mapping[str, Any]
    tags: Tags
    wrappers: tuple[tuple[type[System], Mapping[str, Any]], ...] = ()
    #: The registry entry it was built from: its description and departures (a preset's
    #: own: ``philter-lenient`` is not Philter as it ships); ``None``: the class's.
    entry: SystemEntry | None = None
    #: The transformed training copies it trains with (``--augment``, or its own
    #: ``--param NAME.augment``); empty for systems that are not trained.
    augment: tuple[str, ...] = ()
    #: The augmentations its tuning chooses between, when given a range of copies (else
    #: empty; ``augment`` is then the first of them).
    augment_choices: tuple[tuple[str, ...], ...] = ()

    def build(self) -> System:
        """A fresh instance, wrapped as the run asks."""
        system = self.cls(**dict(self.params))
        for wrapper, params in self.wrappers:
            system = wrapper(system, **dict(params))
        return system

    @property
    def description(self) -> str:
        return self.entry.description if self.entry is not None else self.cls.description

    @property
    def departures(self) -> str:
        return self.entry.departures if self.entry is not None else self.cls.departures


@dataclass(frozen=True)
class Cell:
    """One (system, corpus, split) unit of work and its prediction-cache key."""

    system: str
    split: Split
    key: str
    n_tokens: int

    @property
    def corpus(self) -> str:
        return self.split.test_corpus


@dataclass
class CellOutcome:
    """What one cell produced: labels (and token scores where the system scores tokens),
    what fitting chose, how long it took, or the error that stopped it."""

    system: str
    corpus: str
    train_corpus: str
    protocol: str
    fold: int
    fraction: float
    predictions: list[list[str]] | None
    seconds: float
    n_tokens: int
    cached: bool = False
    error: str | None = None
    key: str = ""
    scores: list[np.ndarray] | None = None
    info: dict[str, Any] = field(default_factory=dict)
    #: ``True`` when the system could not run here (missing optional tool), not a failure.
    skipped: bool = False
    #: Worker-seconds by stage (:data:`infra.stages.STAGES`); empty for a cache hit.
    stages: dict[str, float] = field(default_factory=dict)
    #: The unscrubbed message and traceback of a failure (``error`` has document text
    #: removed); written only to the owner-only ``--errors`` file, never to a report.
    error_detail: str | None = None
    #: The worker's peak memory after this cell (:func:`infra.memory.cell_memory`); empty
    #: for a cache hit.
    memory: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def tokens_per_second(self) -> float | None:
        return self.n_tokens / self.seconds if self.seconds > 0 and not self.cached else None


@dataclass
class RunResult:
    """The outcome of :func:`bench.run.runner.run`: scores as tidy tables plus everything
    run.json records."""

    config: RunConfig
    corpora: dict[str, Corpus]
    skipped: dict[str, int]
    splits: dict[str, list[Split]]
    systems: dict[str, dict[str, Any]]
    outcomes: list[CellOutcome]
    results: pd.DataFrame
    significance: pd.DataFrame
    learning_curve: pd.DataFrame | None
    failures: list[dict[str, Any]]
    started: str
    wall_seconds: float
    #: Precision at fixed recall levels per system and corpus (systems that score tokens).
    operating_points: pd.DataFrame | None = None
    #: Authentic vs variant recall per system (``--test-variant``).
    variant_comparison: pd.DataFrame | None = None
    #: How documents were grouped into folds, per corpus (``patient``, ``document``, ...).
    grouping: dict[str, str] = field(default_factory=dict)
    #: Per corpus, per system that scores tokens: (recall, precision) along the threshold.
    curves: dict[str, dict[str, tuple[np.ndarray, np.ndarray]]] = field(default_factory=dict)
    #: Re-implementations beside their originals (:mod:`bench.score.peer_comparison`).
    peer_comparison: pd.DataFrame | None = None
    #: Wall seconds of the run's steps in this process: ``plan`` (loading and tokenizing
    #: corpora), ``execute`` (the cells, on every worker), ``score`` (tables and tests).
    phases: dict[str, float] = field(default_factory=dict)
    #: Training and scored notes compared by content (:meth:`bench.run.overlap.Overlap.as_dict`).
    overlap: dict[str, Any] = field(default_factory=dict)
    #: The run's id, in run.json and the report directory's marker (bench.report.outputs).
    run_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    #: Per corpus, the configurations scored on its notes before (:mod:`bench.report.ledger`).
    ledger: dict[str, Any] = field(default_factory=dict)
    #: Authentic vs variant recall per PHI category (:mod:`bench.score.generalization`).
    variant_categories: pd.DataFrame | None = None
    #: Does one system dominate another, per pair and corpus (:mod:`bench.score.dominance`).
    dominance: pd.DataFrame | None = None

    @property
    def failed(self) -> bool:
        return any(not f.get("skipped") for f in self.failures)

"""Plan a run: which systems, which corpora, which splits, and the cells to compute.

Everything here is checked before any expensive work starts, so a bad option value is one
line on stderr, not a failure after an hour: unknown systems or parameters, corpus specs,
the grouping, the protocol's needs.  The plan is a :class:`Plan` of typed tasks that
:mod:`bench.run.cells` executes.
"""

from __future__ import annotations

import os
from collections.abc import Container, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.run.execution import environment
from bench.run.overlap import Overlap, check_disjoint, check_splits, compare
from bench.run.protocols import Split, grouping_of, make_splits, variant_test
from bench.run.run_types import (
    AUGMENTATIONS,
    DEFAULT_CORPORA,
    TEST_VARIANTS,
    Cell,
    RunConfig,
    SystemSpec,
    UsageError,
    check_not_reserved,
    check_objective,
    inner_fold_count,
    tuning_objective,
)
from corpora.folds import GROUP_BY_CHOICES, group_labels
from corpora.model import Corpus, Document
from infra import cache
from systems import prediction_cache
from systems.base import FitContext, SystemEntry

#: ``--systems`` words that stand for several systems.
SYSTEM_GROUPS = {
    "all": "every system except the external tools and the named presets (the papers' "
    "systems and plug-ins)",
    "peers": "the external de-identifiers (deid.pl, Philter, Presidio, command-line tools)",
}


@dataclass
class Twin:
    """Further test documents labelled by the models of a task's cells: the variant of the
    test fold (``--test-variant``), or another test corpus trained on the same documents
    (``--train-corpus`` with several ``--corpora``).  ``cells[i]`` pairs with the task's
    ``cells[i]`` (same fold, same training documents)."""

    docs: tuple[Document, ...]
    cells: list[Cell]


@dataclass
class Task:
    """The cells of one system on one corpus, run together in one process so features and
    POS tags computed for one fold serve the next.

    Each cell may have twins (:class:`Twin`): the same fold's model labelling other test
    documents.  The model is fitted once for all of them, so a variant or a second test
    corpus costs labelling only (a system, its parameters and its training documents are
    fitted once per run).
    """

    spec: SystemSpec
    train_docs: tuple[Document, ...]
    test_docs: tuple[Document, ...]
    cells: list[Cell]
    env: dict[str, str]
    twins: list[Twin] = field(default_factory=list)
    #: The outer folds, for systems that use them (:class:`systems.base.FitContext`).
    context: FitContext | None = None

    @property
    def corpus(self) -> str:
        return self.cells[0].corpus if self.cells else ""

    def all_cells(self) -> list[Cell]:
        """The task's cells and their twins."""
        return [*self.cells, *self.twin_cells()]

    def twin_cells(self) -> list[Cell]:
        """The twins' cells: labelling by a model fitted for another cell."""
        return [c for twin in self.twins for c in twin.cells]

    def documents(self) -> list[Document]:
        """Every document the task trains on or labels (each once)."""
        seen = {
            id(d): d
            for d in (*self.train_docs, *self.test_docs, *(d for t in self.twins for d in t.docs))
        }
        return list(seen.values())

    def tests_of(self, i: int) -> list[tuple[Cell, list[Document]]]:
        """Cell ``i`` and its twins, each with the documents it labels."""
        cell = self.cells[i]
        out = [(cell, [self.test_docs[j] for j in cell.split.test])]
        for twin in self.twins:
            other = twin.cells[i]
            out.append((other, [twin.docs[j] for j in other.split.test]))
        return out

    def single_cells(self) -> list[Task]:
        """One task per cell (more, smaller tasks to keep many workers busy)."""
        return [
            Task(
                self.spec,
                self.train_docs,
                self.test_docs,
                [c],
                self.env,
                [Twin(t.docs, [t.cells[i]]) for t in self.twins],
                self.context,
            )
            for i, c in enumerate(self.cells)
        ]


@dataclass
class Plan:
    """What :func:`bench.run.runner.run` will compute."""

    systems: dict[str, SystemSpec]
    corpora: dict[str, Corpus]
    skipped: dict[str, int]
    splits: dict[str, list[Split]]
    tasks: list[Task] = field(default_factory=list)
    #: What comparing training and scored notes by content found (:mod:`bench.run.overlap`).
    overlap: Overlap = field(default_factory=Overlap)

    @property
    def grouping(self) -> dict[str, str]:
        return {name: grouping_of(s) for name, s in self.splits.items()}


# --------------------------------------------------------------------------- validation


def validate_config(config: RunConfig) -> None:
    """Reject option values that cannot work, before anything is loaded."""
    if config.folds < 2:
        raise UsageError("--folds must be at least 2")
    if config.group_by not in GROUP_BY_CHOICES:
        raise UsageError(f"--group-by {config.group_by!r}: use {', '.join(GROUP_BY_CHOICES)}")
    if config.objective is not None:
        try:
            check_objective(config.objective)
        except ValueError as exc:
            raise UsageError(f"--objective: {exc}") from None
    if config.inner_folds is not None and config.inner_folds < 2:
        raise UsageError(f"--inner-folds must be at least 2: {config.inner_folds}")
    if config.test_variant is not None and config.test_variant not in TEST_VARIANTS:
        raise UsageError(f"--test-variant {config.test_variant!r}: use {', '.join(TEST_VARIANTS)}")
    check_not_reserved(config.augment, "--augment")
    bad = list(dict.fromkeys(a for a in config.augment if a not in AUGMENTATIONS))
    if bad:
        raise UsageError(f"--augment {','.join(bad)}: use {', '.join(AUGMENTATIONS)}")
    if config.augment_choices and not config.tune:
        raise UsageError(
            "--augment: a range of copies is a choice, made inside the training folds by "
            "--tune; add --tune, or give one number of copies"
        )
    if config.test_variant and (config.train_corpus or config.protocol not in ("auto", "cv")):
        raise UsageError("--test-variant works with cross-validation only")
    if config.extra_training and (config.train_corpus or config.protocol not in ("auto", "cv")):
        raise UsageError("--extra-training works with cross-validation only")
    if not 0 < config.alpha < 1:
        raise UsageError(f"--alpha {config.alpha}: must be between 0 and 1")
    if config.n_shuffles < 1:
        raise UsageError(f"--shuffles {config.n_shuffles}: must be at least 1")
    if config.n_resamples < 0:
        raise UsageError(f"--resamples {config.n_resamples}: must be 0 or more")


def _check_generator_options_apply(config: RunConfig, preloaded: Mapping[str, Corpus]) -> None:
    """The run's generator options shape a corpus it uses (:func:`check_generator_options_used`).
    A corpus handed in already loaded (a reproduction's selection of the embedded notes)
    may have been made with them."""
    specs = [*resolve_corpora(config.corpora), config.train_corpus, config.extra_training]
    check_generator_options_used(
        config.n_documents,
        config.phi_rate,
        config.category_weights,
        [s for s in specs if s],
        also_embedded=preloaded,
    )


def check_generator_options_used(
    n_documents: int | None,
    phi_rate: float,
    category_weights: Sequence[tuple[str, float]],
    specs: Sequence[str],
    also_embedded: Container[str] = (),
) -> None:
    """``--n-documents``, ``--phi-rate`` and ``--category-weight`` shape the embedded
    corpus only; given with none of its corpora among ``specs`` they would change nothing
    while the command recorded in a report says they did: a usage error."""
    from corpora.load import LoadOptions, uses_generator

    default = LoadOptions()
    given = [
        f"{option} {shown}"
        for option, value, unset, shown in (
            ("--n-documents", n_documents, default.n_documents, n_documents),
            ("--phi-rate", phi_rate, default.phi_rate, phi_rate),
            (
                "--category-weight",
                tuple(category_weights),
                default.category_weights,
                ",".join(f"{c}={w:g}" for c, w in category_weights),
            ),
        )
        if value != unset
    ]
    if given and not any(s in also_embedded or uses_generator(s) for s in specs):
        raise UsageError(
            f"{'; '.join(given)}: {'shapes' if len(given) == 1 else 'shape'} the embedded "
            f"corpora, and none is chosen ({', '.join(specs)}); leave it out"
        )


# --------------------------------------------------------------------------- systems


def resolve_systems(names: Sequence[str], config: RunConfig | None = None) -> dict[str, SystemSpec]:
    """``all``, ``peers`` or registered names -> {name: spec}; unknown names, unknown
    parameters and parameter values a system rejects are usage errors.

    ``ALIAS=NAME`` runs system ``NAME`` under the name ``ALIAS``, so one run can hold the
    same system twice with different parameters (``svm,svm-plo=svm`` with
    ``--param svm-plo.train_categories=...``); parameters are given to the alias.

    ``--param NAME.augment=unseen:2,surrogate`` (or ``=none``) replaces the run's
    ``--augment`` for one learned system, so two augmentations of the same system are
    scored on the same folds in one run, with paired tests between them.
    """
    from systems.base import SYSTEMS

    config = config or RunConfig()
    known = SYSTEMS.as_dict()
    wanted, explicit, registry_name = _wanted_systems(names, known)
    if not wanted:
        raise UsageError("no systems chosen (use --systems all or NAME,...)")
    unused = sorted(set(config.system_params) - set(wanted))
    if unused:
        raise UsageError(
            f"--param {unused[0]}.…: {unused[0]!r} is not among the chosen systems "
            f"({', '.join(dict.fromkeys(wanted))})"
        )
    specs: dict[str, SystemSpec] = {}
    for name in dict.fromkeys(wanted):
        entry = known[registry_name.get(name, name)]
        asked = name in explicit or name in config.system_params or entry.configured
        specs[name] = _system_spec(name, entry, config, asked)
    return specs


def _wanted_systems(
    names: Sequence[str], known: Mapping[str, SystemEntry]
) -> tuple[list[str], set[str], dict[str, str]]:
    """The ``--systems`` words read: the run's system names in order (repeats included),
    those named on their own rather than through ``all`` or ``peers`` (an external tool
    that cannot run is then an error), and each alias's registry name.  Apart, so the
    word syntax is read in one place and the specs are built from its result."""
    wanted: list[str] = []
    explicit: set[str] = set()
    registry_name: dict[str, str] = {}
    for name in names:
        for part in str(name).split(","):
            part = part.strip()
            alias, eq, target = part.partition("=")
            alias, target = alias.strip(), target.strip()
            if eq and alias and target in known and alias not in ("all", "peers"):
                if registry_name.get(alias, target) != target or (
                    alias in known and alias != target
                ):
                    raise UsageError(f"system alias {alias!r} is already a system's name")
                registry_name[alias] = target
                wanted.append(alias)
                explicit.add(alias)
                continue
            if not part:
                continue
            if part == "all":  # a preset is a configuration of a system already in "all"
                wanted.extend(n for n, e in known.items() if not e.external and not e.preset)
            elif part == "peers":
                wanted.extend(n for n, e in known.items() if e.external)
            elif part in known:
                wanted.append(part)
                explicit.add(part)
            else:
                raise UsageError(
                    f"unknown system {part!r}; known systems: {', '.join(known) or 'none'}"
                    + (" (use ALIAS=NAME to run a system under another name)" if eq else "")
                )
    return wanted, explicit, registry_name


def _system_spec(name: str, entry: SystemEntry, config: RunConfig, asked: bool) -> SystemSpec:
    """The spec of system ``name`` built from its registry entry and the run's options: its
    parameters checked by building it once, its own augmentation, its wrappers.  Built
    while planning, so a parameter it rejects is a usage error before the expensive work
    starts; ``asked``: the user named it, gave it a parameter or configured it."""
    from systems.base import System, params_from_mapping

    cls = entry.cls
    params = {**entry.params, **dict(config.system_params.get(name, {}))}
    choices = tuple(config.augment_choices) or (tuple(config.augment),)
    if entry.augment:  # a preset's own copies, unless --param NAME.augment says otherwise
        params.setdefault(AUGMENT_PARAM, entry.augment)
    if AUGMENT_PARAM in params and AUGMENT_PARAM not in cls._param_names():
        choices = _system_augment(name, params.pop(AUGMENT_PARAM))
        if len(choices) > 1 and not (config.tune or entry.tuned):
            raise UsageError(
                f"--param {name}.augment: a range of copies is a choice, made inside the "
                "training folds by --tune; add --tune, or give one number of copies"
            )
    augment = choices[0]
    if "group_by" in cls._param_names() and "group_by" not in params:
        params["group_by"] = config.group_by  # stacked systems' inner folds follow the run's
    try:
        instance: System = cls(**params_from_mapping(cls, params))
        instance.check_params()
        params = instance.get_params()
        tags = instance.tags()
    except (TypeError, ValueError, KeyError) as exc:
        reason = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        raise UsageError(f"system {name!r}: {reason}") from None
    run_level = tuple(config.augment_choices) or (tuple(config.augment),)
    if choices != run_level and not tags.requires_training:
        raise UsageError(f"--param {name}.augment: {name!r} is not trained")
    _check_available(name, instance, asked)
    wrappers = _wrappers(instance, config, choices, _objective(name, entry, config), entry.tuned)
    return SystemSpec(
        name,
        cls,
        params,
        tags,
        wrappers,
        entry=entry,
        augment=augment if tags.requires_training else (),
        augment_choices=choices if tags.requires_training and len(choices) > 1 else (),
    )


def _check_options_apply(systems: Mapping[str, SystemSpec], config: RunConfig) -> None:
    """Refuse a training option that no chosen system would honour, before any work.

    Left alone, the run would finish with exit 0 and a report saying it tuned, augmented or
    added training notes (or naming an objective and inner folds) when nothing was: rules
    learn nothing, and ``--objective``/``--inner-folds`` only steer tuning."""
    names = ", ".join(systems)
    learned = [n for n, s in systems.items() if s.tags.requires_training]
    if not learned:
        given = [
            option
            for option, value in (
                ("--tune", config.tune),
                ("--augment", config.augment or config.augment_choices),
                ("--extra-training", config.extra_training),
            )
            if value
        ]
        if given:
            raise UsageError(
                f"{', '.join(given)}: none of the chosen systems ({names}) learns from "
                "training notes, so there is nothing to apply it to"
            )
    from bench.training.tuning import Tuned

    if any(wrapper is Tuned for s in systems.values() for wrapper, _ in s.wrappers):
        return
    for option, value in (("--objective", config.objective), ("--inner-folds", config.inner_folds)):
        if value is not None:
            raise UsageError(
                f"{option} {value}: it steers --tune, and no chosen system is tuned "
                f"({names}); add --tune, or leave it out"
            )


def _objective(name: str, entry: SystemEntry, config: RunConfig) -> str:
    """What ``name``'s tuning maximizes: its preset's own objective, else the run's.  A
    preset's operating point is part of what it promises, so an ``--objective`` given for
    the run that differs from it cannot be honoured for it and is refused."""
    if not entry.objective:
        return tuning_objective(config)
    try:
        check_objective(entry.objective)
    except ValueError as exc:
        raise UsageError(f"system {name!r}: {exc}") from None
    if config.objective is not None and config.objective != entry.objective:
        raise UsageError(
            f"--objective {config.objective}: {name!r} chooses by its own objective "
            f"{entry.objective}; run it without --objective, or run {entry.cls.name!r} "
            "with --tune"
        )
    return entry.objective


def _check_available(name: str, system: Any, asked: bool) -> None:
    """An external tool that cannot run here is a usage error when the user asked for it
    (named it, gave it a parameter or configured it in a ``--peers`` file): a run without
    it is not the run asked for.  One the ``peers`` group brought in as shipped is left to
    be reported as not run."""
    from systems.base import SystemUnavailable

    check = getattr(system, "check_available", None)
    if check is None or not asked:
        return
    try:
        check()
    except SystemUnavailable as exc:
        raise UsageError(f"system {name!r} cannot run: {exc}") from None


#: The one run-level option a system's ``--param`` may override.
AUGMENT_PARAM = "augment"


def _system_augment(name: str, value: Any) -> tuple[tuple[str, ...], ...]:
    """``--param NAME.augment=...``: the augmentations a ``--augment`` value offers (one,
    or several for a range of copies), or ``none``/empty for none."""
    from bench.training.augment import parse_augment_choices

    text = "" if value is None else str(value).strip()
    if text.lower() in ("", "none"):
        return ((),)
    try:
        choices = parse_augment_choices(text)
    except ValueError as exc:
        raise UsageError(f"--param {name}.augment: {exc}") from None
    variants = choices[-1]  # the same variants in each, the most copies
    check_not_reserved(variants, f"--param {name}.augment")
    bad = list(dict.fromkeys(a for a in variants if a not in AUGMENTATIONS))
    if bad:
        raise UsageError(f"--param {name}.augment={text}: use {', '.join(AUGMENTATIONS)}")
    return choices


def _wrappers(
    system: Any,
    config: RunConfig,
    choices: tuple[tuple[str, ...], ...],
    objective: str,
    tuned: bool = False,
) -> tuple[tuple[type, Mapping[str, Any]], ...]:
    """The run-level wrappers of a learned system, innermost first: augmentation (the run's
    or the system's own ``augment``: the first of ``choices``, the others offered to
    tuning), then the extra training documents (augmented with the rest), then tuning, so
    each inner fold augments only its own training part and adds the extra documents to
    it."""
    if not system.tags().requires_training:
        return ()
    augment = choices[0] if choices else ()
    out: list[tuple[type, Mapping[str, Any]]] = []
    if augment:
        from bench.training.augment import Augmented

        out.append((Augmented, {"variants": augment, "seed": config.seed}))
    if config.extra_training:
        from bench.training.extra_training import ExtraTraining, extra_corpus

        fingerprint = extra_corpus(config.extra_training).fingerprint
        out.append((ExtraTraining, {"corpus": config.extra_training, "fingerprint": fingerprint}))
    if config.tune or tuned:  # a preset whose choices are always made inside the folds
        from bench.training.tuning import Tuned

        out.append(
            (
                Tuned,
                {
                    "objective": objective,
                    "inner_folds": inner_fold_count(config),
                    "group_by": config.group_by,
                    "seed": config.seed,
                    # one copy per variant: the held-out parts are judged, not trained on
                    "selection_variants": tuple(dict.fromkeys(augment)),
                    # a range of copies: one more axis of the grid (absent otherwise, so a
                    # fixed augmentation is the configuration it always was)
                    **({"variant_choices": choices} if len(choices) > 1 else {}),
                },
            )
        )
    return tuple(out)


# --------------------------------------------------------------------------- corpora


def resolve_corpora(names: Sequence[str]) -> list[str]:
    """``all`` (the four embedded corpora) or a list of corpus specs."""
    specs: list[str] = []
    for name in names:
        for part in str(name).split(","):
            part = part.strip()
            if part == "all":
                specs.extend(DEFAULT_CORPORA)
            elif part:
                specs.append(part)
    if not specs:
        raise UsageError("no corpora chosen (use --corpora all or CORPUS,...)")
    return list(dict.fromkeys(specs))


def variant_spec(spec: str, variant: str) -> str:
    """The spec of ``variant`` of corpus ``spec`` (``unseen`` for the embedded authentic)."""
    return variant if spec == "authentic" else f"{variant}:{spec}"


def load_corpora(
    specs: Sequence[str], config: RunConfig
) -> tuple[dict[str, Corpus], dict[str, int]]:
    """Load and tokenize every corpus (with progress bars); raise :class:`CorpusError`."""
    from bench.run.execution import progress
    from corpora.load import LoadOptions, load_corpus

    options = LoadOptions(
        seed=config.seed,
        lenient=config.lenient,
        n_documents=config.n_documents,
        phi_rate=config.phi_rate,
        category_weights=config.category_weights,
    )
    corpora: dict[str, Corpus] = {}
    skipped: dict[str, int] = {}
    for spec in progress(specs, desc="loading corpora", enabled=config.show_progress):
        corpus, errors = load_corpus(spec, options)
        corpora[spec] = corpus
        skipped[spec] = len(errors)
    all_docs = [d for c in corpora.values() for d in c.documents]
    for doc in progress(all_docs, desc="tokenizing", enabled=config.show_progress):
        _ = doc.tokens
    return corpora, skipped


# --------------------------------------------------------------------------- the plan


def _load_extra_training(spec: str) -> None:
    """Load the ``--extra-training`` corpus once, turning a bad spec or file into a usage
    error that names it (its fingerprint is part of every learned system's cache key)."""
    from bench.training.extra_training import extra_corpus

    try:
        corpus = extra_corpus(spec)
    except (OSError, ValueError) as exc:  # CorpusError is a ValueError
        raise UsageError(f"--extra-training {spec}: {exc}") from None
    if not corpus.documents:
        raise UsageError(f"--extra-training {spec}: no documents")


def make_plan(config: RunConfig, preloaded: Mapping[str, Corpus] | None = None) -> Plan:
    """Validate, resolve systems, load corpora, split them, and lay out the tasks."""
    validate_config(config)
    _check_generator_options_apply(config, preloaded or {})
    if config.extra_training:
        _load_extra_training(config.extra_training)
    systems = resolve_systems(config.systems, config)
    _check_options_apply(systems, config)
    preloaded = dict(preloaded or {})
    specs = resolve_corpora(config.corpora)
    protocol = "cross" if config.train_corpus else config.protocol
    test_specs = list(specs)
    if config.test_variant:
        test_specs += [variant_spec(s, config.test_variant) for s in specs]
    all_specs = [*test_specs, config.train_corpus] if config.train_corpus else test_specs
    to_load = [s for s in dict.fromkeys(all_specs) if s not in preloaded]
    corpora, skipped = load_corpora(to_load, config)
    for name in all_specs:
        if name in preloaded:
            corpora[name] = preloaded[name]
            skipped.setdefault(name, 0)

    overlap = Overlap(allowed=config.allow_near_duplicates)
    if config.extra_training:
        from bench.training.extra_training import extra_corpus

        extra = extra_corpus(config.extra_training)
        scored = {s: corpora[s] for s in test_specs}
        try:
            check_disjoint(extra, scored)
        except ValueError as exc:
            raise UsageError(f"--extra-training {config.extra_training}: {exc}") from None
        compare(
            f"--extra-training {config.extra_training}",
            extra.documents,
            [d for c in scored.values() for d in c.documents],
            overlap,
        )

    splits: dict[str, list[Split]] = {}
    for spec in specs:
        try:
            splits[spec] = make_splits(
                protocol,
                corpora[spec],
                k=config.folds,
                seed=config.seed,
                train_corpus=corpora[config.train_corpus] if config.train_corpus else None,
                fractions=config.fractions,
                group_by=config.group_by,
            )
            if config.test_variant:
                vspec = variant_spec(spec, config.test_variant)
                splits[vspec] = variant_test(
                    corpora[spec], corpora[vspec], config.folds, config.seed, config.group_by
                )
        except ValueError as exc:
            raise UsageError(f"corpus {spec}: {exc}") from exc

    if config.tune and any(spec.tags.requires_training for spec in systems.values()):
        _check_inner_folds(splits, corpora, config)
    check_splits(splits, corpora, overlap)
    plan = Plan(systems, corpora, skipped, splits, overlap=overlap)
    env = worker_environment(config)
    with environment(env):  # the keys see the dictionaries the workers will use
        plan.tasks = _tasks(systems, corpora, splits, env, config.group_by)
    return plan


def _check_inner_folds(
    splits: Mapping[str, list[Split]], corpora: Mapping[str, Corpus], config: RunConfig
) -> None:
    """``--inner-folds K`` can be made of every outer training set: as many documents (or
    patients, when grouped) as K in each, else a usage error now -- tuning would otherwise
    select nothing and report the defaults as chosen."""
    from corpora.folds import groups_of, resolve_group_key

    k = inner_fold_count(config)
    for name, corpus_splits in splits.items():
        for split in corpus_splits:
            if split.protocol == "variant":
                continue  # the same training documents as its authentic twin
            docs = corpora[split.train_corpus].documents
            train = [docs[i] for i in split.train]
            try:
                key = resolve_group_key(train, config.group_by)
            except ValueError as exc:
                raise UsageError(f"corpus {name}: {exc}") from None
            groups = groups_of(train, key)
            have = len(set(groups)) if groups is not None else len(train)
            if have < k:
                unit = f"{key} groups" if key else "documents"
                raise UsageError(
                    f"--inner-folds {k}: the training part of {split.label} of {name} has "
                    f"{have} {unit}, too few for {k} inner folds (use --inner-folds {have} "
                    "or fewer, or more documents)"
                )


def _tasks(
    systems: Mapping[str, SystemSpec],
    corpora: Mapping[str, Corpus],
    splits: Mapping[str, list[Split]],
    env: dict[str, str],
    group_by: str = "auto",
) -> list[Task]:
    """One task per system and trained model set: a corpus's cells with the variant twins
    of its folds; under ``cross``, every test corpus trained on the same corpus in one
    task, so each model is fitted once however many corpora it labels."""
    variant_of = {
        s[0].train_corpus: name for name, s in splits.items() if s and s[0].protocol == "variant"
    }
    primaries: dict[str, list[str]] = {}  # first test corpus -> the corpora it labels
    for corpus_name, corpus_splits in splits.items():
        if corpus_splits[0].protocol == "variant":
            continue
        if corpus_splits[0].protocol == "cross":
            train = (corpus_splits[0].train_corpus, corpus_splits[0].train)
            first = next(
                (p for p in primaries if p in splits and _cross_training(splits[p]) == train),
                None,
            )
            if first is not None:
                primaries[first].append(corpus_name)
                continue
        primaries[corpus_name] = [corpus_name]
        if corpus_name in variant_of:
            primaries[corpus_name].append(variant_of[corpus_name])
    tasks = []
    for corpus_name, labelled in primaries.items():
        corpus_splits = splits[corpus_name]
        test_docs = corpora[corpus_name].documents
        train_docs = corpora[corpus_splits[0].train_corpus].documents
        context = fit_context(corpus_splits, train_docs, group_by)
        for spec in systems.values():
            system = spec.build()
            cells = [
                _cell(spec.name, system, s, train_docs, test_docs, context) for s in corpus_splits
            ]
            task = Task(spec, train_docs, test_docs, cells, env, context=context)
            for other in labelled[1:]:
                docs = corpora[other].documents
                twin_cells = [
                    _cell(spec.name, system, s, train_docs, docs, context) for s in splits[other]
                ]
                if [(c.split.fold, c.split.train) for c in twin_cells] != [
                    (c.split.fold, c.split.train) for c in cells
                ]:
                    raise ValueError(f"{other}: folds do not pair with {corpus_name}'s")
                task.twins.append(Twin(docs, twin_cells))
            tasks.append(task)
    return tasks


def _cross_training(corpus_splits: list[Split]) -> tuple[str, tuple[int, ...]] | None:
    """The training corpus and documents of a ``cross`` corpus's single split."""
    s = corpus_splits[0]
    return (s.train_corpus, s.train) if s.protocol == "cross" and len(corpus_splits) == 1 else None


def fit_context(
    corpus_splits: Sequence[Split], documents: Sequence[Document], group_by: str
) -> FitContext | None:
    """The outer folds of a cross-validation as groups (:class:`FitContext`), or ``None``
    for another protocol: which groups each fold tests, so a system that shares work
    between outer folds knows which fold its training documents leave out."""
    if not corpus_splits or any(s.protocol != "cv" for s in corpus_splits):
        return None
    groups = group_labels(documents, group_by)
    folds = tuple(tuple(sorted({groups[i] for i in s.test})) for s in corpus_splits)
    return FitContext(folds, group_by)


def _cell(
    name: str,
    system: Any,
    split: Split,
    train_docs: Sequence[Document],
    test_docs: Sequence[Document],
    context: FitContext | None = None,
) -> Cell:
    test = [test_docs[i] for i in split.test]
    train = [train_docs[i] for i in split.train]
    key = prediction_cache.prediction_key(system, train, test, context)
    return Cell(name, split, key, sum(len(d.tokens) for d in test))


def worker_environment(config: RunConfig) -> dict[str, str]:
    """Environment variables every worker sets before running a cell."""
    env = {"DEID_BENCH_NO_CACHE": os.environ.get("DEID_BENCH_NO_CACHE", "")}
    if config.dictionaries:
        env["DEID_BENCH_DICTIONARIES"] = str(Path(config.dictionaries).resolve())
    for name in (
        "DEID_BENCH_DICTIONARIES",
        "NLTK_DATA",
        "DEID_BENCH_NO_DOWNLOAD",
        "DEID_BENCH_PEERS",  # external tools named in a TOML file (systems.command)
        "DEID_BENCH_DEIDPL",
        "DEID_BENCH_SHARED",
    ):
        if name not in env and os.environ.get(name):
            env[name] = os.environ[name]
    if config.backend != "dask":  # a remote worker keeps its own cache directory
        env[cache.ENV_CACHE] = str(
            cache.cache_dir() if cache.caching_enabled() else cache.cache_root()
        )
    return env

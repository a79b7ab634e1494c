"""The runner: every chosen system on every chosen corpus, under one protocol, scored.

``python -m bench run`` is a thin shell around :func:`run` and :func:`write_outputs`.

How work is laid out (issue 6, items 1, 5, 6, 8):

* corpora are loaded and tokenized once in this process (a progress bar each);
* the protocol (:mod:`bench.protocols`) turns each corpus into splits -- the same splits
  for every system, because they depend only on the corpus and the seed;
* a *task* is one (system, corpus) pair with all its splits, so features and POS tags
  computed for one fold are reused by the next in the same process; when there are fewer
  such pairs than twice the worker count, tasks are cut down to single folds so all
  workers stay busy;
* each (system, corpus, split) *cell* first looks in the on-disk cache (namespace
  ``predictions``) under a key of the system, its parameters, both corpus fingerprints, the
  split, the package version and a hash of the systems' and corpora's source code; a hit
  skips fitting and predicting, a miss stores the predictions as soon as the cell finishes,
  so a repeated run takes seconds and an interrupted run resumes where it stopped; a corrupt
  entry fails its checksum and is recomputed (:mod:`corpora.cache`);
* a system that raises is recorded as failed for that corpus, with its error, and the
  others finish; the run's exit code then says so.

Scores are computed from the pooled test-fold predictions: every document is tested exactly
once under cross-validation, so the counts are those of the whole corpus, as in the
paper's tables (Sibanda & Uzuner 2006, §6).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
import platform
import stat
import sys
import time
import traceback
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache, partial
from importlib import metadata
from pathlib import Path
from typing import Any

from bench import schedule
from bench.execution import execute, progress
from bench.protocols import LEARNING_CURVE_FRACTIONS, Split, make_splits
from corpora import cache
from corpora.model import OUTSIDE, PHI, Corpus, Document
from systems.base import OuterFolds

#: Package versions recorded in run.json.
VERSIONED_PACKAGES = (
    "deid-bench",
    "scikit-learn",
    "sklearn-crfsuite",
    "nltk",
    "numpy",
    "scipy",
    "pandas",
)
#: The four embedded corpora ``--corpora all`` means (Sibanda & Uzuner 2006, §3, §6.2-6.3).
DEFAULT_CORPORA = ("authentic", "surrogate", "ambiguous", "unseen")
#: Headline subset of a system that only recognizes people, locations and organizations.
PLO_SUBSET = "people_locations_organizations"
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
    n_resamples: int = 1000
    n_shuffles: int = 1000
    system_params: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


@dataclass
class CellOutcome:
    """What one (system, corpus, split) cell produced."""

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

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def tokens_per_second(self) -> float | None:
        return self.n_tokens / self.seconds if self.seconds > 0 and not self.cached else None


@dataclass
class RunResult:
    """The outcome of :func:`run`: scores as tidy tables plus everything run.json records."""

    config: RunConfig
    corpora: dict[str, Corpus]
    skipped: dict[str, int]
    splits: dict[str, list[Split]]
    systems: dict[str, dict[str, Any]]
    outcomes: list[CellOutcome]
    results: Any  # pandas.DataFrame with RESULT_COLUMNS
    significance: Any  # pandas.DataFrame with SIGNIFICANCE_COLUMNS
    learning_curve: Any  # pandas.DataFrame or None
    failures: list[dict[str, Any]]
    started: str
    wall_seconds: float

    @property
    def failed(self) -> bool:
        return bool(self.failures)


# --------------------------------------------------------------------------- selection


def resolve_systems(names: Sequence[str]) -> dict[str, type]:
    """``all`` or a list of registered names -> {name: class}; unknown names are usage errors."""
    from systems.base import available_systems

    known = available_systems()
    wanted: list[str] = []
    for name in names:
        for part in str(name).split(","):
            part = part.strip()
            if not part:
                continue
            if part == "all":
                wanted.extend(known)
            elif part in known:
                wanted.append(part)
            else:
                raise UsageError(
                    f"unknown system {part!r}; known systems: {', '.join(known) or 'none'}"
                )
    if not wanted:
        raise UsageError("no systems chosen (use --systems all or NAME,...)")
    return {n: known[n] for n in dict.fromkeys(wanted)}


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


def load_corpora(
    specs: Sequence[str], config: RunConfig
) -> tuple[dict[str, Corpus], dict[str, int]]:
    """Load and tokenize every corpus (with progress bars); raise :class:`CorpusError`."""
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


def _first_document(corpus: Corpus) -> Corpus:
    """A one-document corpus: enough to find out whether the NLP resources are there."""
    return Corpus(name=corpus.name, documents=corpus.documents[:1], metadata={})


def warm_nlp_cache(corpora: Sequence[Corpus], show_progress: bool) -> str | None:
    """POS-tag and lemmatize each corpus once, into the on-disk cache (corpora.nlp).

    Worker processes do not share this process's memory; :func:`run_task` loads the same
    per-corpus entries from disk, so ``--jobs N`` does not tag every corpus N times.
    Returns the error message when the NLTK resources are missing (the systems that need
    them then fail with that error, and the CLI turns it into one line and exit code 2).
    """
    from corpora import nlp

    warm = getattr(nlp, "warm_cache", None)
    if warm is None:
        return None
    for corpus in progress(list(corpora), desc="POS tagging", enabled=show_progress):
        try:
            warm(corpus.documents)
        except nlp.MissingResourceError as exc:
            return str(exc)
    return None


# --------------------------------------------------------------------------- cells


def package_version() -> str:
    try:
        return metadata.version("deid-bench")
    except metadata.PackageNotFoundError:
        return "unknown"


_LOCAL_PACKAGES = ("systems", "corpora")


def _module_file(module: str) -> Path | None:
    import importlib.util

    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    return Path(spec.origin) if spec and spec.origin and spec.origin.endswith(".py") else None


def _local_imports(path: Path) -> set[str]:
    """Names of ``systems.*`` / ``corpora.*`` modules a source file imports."""
    import ast

    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError):
        return set()
    found: set[str] = set()
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        found.update(n for n in names if n.split(".")[0] in _LOCAL_PACKAGES)
    return found


@lru_cache(maxsize=64)
def _source_fingerprint(module: str) -> str:
    """A hash of a system's module and every systems/corpora module it imports, transitively.

    Part of the prediction cache key, so editing a system (or a feature class, the tokenizer,
    a dictionary loader it uses) invalidates exactly the predictions that depend on it.
    """
    h = hashlib.blake2b(digest_size=12)
    seen: set[Path] = set()
    queue = [module]
    while queue:
        path = _module_file(queue.pop())
        if path is None or path in seen:
            continue
        seen.add(path)
        queue.extend(_local_imports(path))
    for path in sorted(seen):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def cell_key(
    system: str,
    params: Mapping[str, Any],
    split: Split,
    train_fp: str,
    test_fp: str,
    code: str,
    dictionaries: str | None,
) -> str:
    """The prediction cache key of one cell (issue 6 item 5)."""
    return cache.make_key(
        "predictions",
        system,
        sorted((k, repr(v)) for k, v in params.items()),
        train_fp,
        test_fp,
        split.protocol,
        split.fold,
        split.scheme,
        split.fraction,
        hashlib.blake2b(repr((split.train, split.test)).encode(), digest_size=12).hexdigest(),
        package_version(),
        code,
        dictionaries or os.environ.get("DEID_BENCH_DICTIONARIES", ""),
    )


def run_task(
    system_cls: type,
    params: Mapping[str, Any],
    train_docs: Sequence[Document],
    test_docs: Sequence[Document],
    cells: Sequence[tuple[Split, str]],
    env: Mapping[str, str],
) -> list[CellOutcome]:
    """Run the cells of one (system, corpus) pair; never raises for a system's failure.

    Module-level and argument-only so joblib and dask can ship it to another process.
    ``env`` carries the settings a worker must share with this process (cache directory,
    dictionaries, NLTK data): a reused worker process does not see later changes to ours.
    """
    with _environment(env):
        return _run_cells(system_cls, params, train_docs, test_docs, cells)


@contextlib.contextmanager
def _environment(env: Mapping[str, str]) -> Iterator[None]:
    """``env`` set in ``os.environ`` for the block, the previous values restored after."""
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def run_tasks(tasks: Sequence[tuple[Any, ...]]) -> list[list[CellOutcome]]:
    """:func:`run_task` for several tasks in one worker (a job of :func:`bench.schedule.plan`),
    so the corpus they share is shipped and featurized once."""
    return [run_task(*task) for task in tasks]


def _run_cells(
    system_cls: type,
    params: Mapping[str, Any],
    train_docs: Sequence[Document],
    test_docs: Sequence[Document],
    cells: Sequence[tuple[Split, str]],
) -> list[CellOutcome]:
    outcomes: list[CellOutcome] = []
    warmed = not _uses_nlp(system_cls)
    for split, key in cells:
        test = [test_docs[i] for i in split.test]
        base = dict(
            key=key,
            system=system_cls.name,
            corpus=split.test_corpus,
            train_corpus=split.train_corpus,
            protocol=split.protocol,
            fold=split.fold,
            fraction=split.fraction,
            n_tokens=sum(len(d.tokens) for d in test),
        )
        hit = cache.load("predictions", key)
        if hit is not cache.MISSING and _well_formed(hit, test):
            outcomes.append(CellOutcome(predictions=hit, seconds=0.0, cached=True, **base))
            continue
        if not warmed:  # POS tags from the disk cache, once per task, only when needed
            _warm_quietly(train_docs)
            _warm_quietly(test_docs)
            warmed = True
        start = time.perf_counter()
        try:
            system = system_cls(**params)
            train = [train_docs[i] for i in split.train]
            if split.train_folds and getattr(system_cls, "uses_outer_folds", False):
                folds = OuterFolds(split.train_folds, split.fold)
                predictions = [list(p) for p in system.fit_predict(train, test, folds=folds)]
            else:
                predictions = [list(p) for p in system.fit_predict(train, test)]
        except Exception as exc:  # a failing system is reported, the others go on
            outcomes.append(
                CellOutcome(
                    predictions=None,
                    seconds=time.perf_counter() - start,
                    error=_describe(exc),
                    **base,
                )
            )
            continue
        seconds = time.perf_counter() - start
        cache.store("predictions", key, predictions)
        outcomes.append(CellOutcome(predictions=predictions, seconds=seconds, **base))
    return outcomes


def _warm_quietly(documents: Sequence[Document]) -> None:
    """Load a corpus's POS tags from the disk cache in a worker (errors surface later)."""
    from corpora import nlp

    warm = getattr(nlp, "warm_cache", None)
    if warm is not None:
        with contextlib.suppress(Exception):  # the system itself will report the problem
            warm(documents)


def _well_formed(value: Any, test: Sequence[Document]) -> bool:
    """A cached value is trusted only if it lines up with the test documents."""
    return (
        isinstance(value, list)
        and len(value) == len(test)
        and all(len(p) == len(d.tokens) for p, d in zip(value, test, strict=True))
    )


def _describe(exc: BaseException) -> str:
    """Error type, message and the innermost frame (no locals, so no PHI from variables)."""
    tb = traceback.extract_tb(exc.__traceback__)
    where = f" at {Path(tb[-1].filename).name}:{tb[-1].lineno}" if tb else ""
    return f"{type(exc).__name__}: {exc}{where}"


# --------------------------------------------------------------------------- run


def run(config: RunConfig, preloaded: Mapping[str, Corpus] | None = None) -> RunResult:
    """Load, split, run every cell, score and test; the caller writes the outputs.

    ``preloaded`` maps corpus names to ready :class:`Corpus` objects (tests, notebooks);
    other names in ``config.corpora`` are loaded as corpus specs.
    """
    started = datetime.now(UTC).isoformat(timespec="seconds")
    t0 = time.perf_counter()
    if config.folds < 2:
        raise UsageError("--folds must be at least 2")
    systems = resolve_systems(config.systems)
    preloaded = dict(preloaded or {})
    specs = resolve_corpora(config.corpora)
    protocol = "cross" if config.train_corpus else config.protocol
    all_specs = [*specs, config.train_corpus] if config.train_corpus else specs
    to_load = [s for s in dict.fromkeys(all_specs) if s not in preloaded]
    corpora, skipped = load_corpora(to_load, config)
    for name in all_specs:
        if name in preloaded:
            corpora[name] = preloaded[name]
            skipped.setdefault(name, 0)

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
            )
        except ValueError as exc:
            raise UsageError(f"corpus {spec}: {exc}") from exc

    params = {
        name: {**cls(**dict(config.system_params.get(name, {}))).get_params()}
        for name, cls in systems.items()
    }
    worker_env = worker_environment(config)
    tasks: list[tuple[Any, ...]] = []
    for spec in specs:
        test_corpus = corpora[spec]
        for name, cls in systems.items():
            code = _source_fingerprint(cls.__module__)
            cells = []
            for split in splits[spec]:
                train_corpus = corpora[split.train_corpus]
                key = cell_key(
                    name,
                    params[name],
                    split,
                    train_corpus.fingerprint,
                    test_corpus.fingerprint,
                    code,
                    config.dictionaries,
                )
                cells.append((split, key))
            tasks.append(
                (
                    cls,
                    dict(config.system_params.get(name, {})),
                    corpora[splits[spec][0].train_corpus].documents,
                    test_corpus.documents,
                    cells,
                    worker_env,
                )
            )
    pending = [t for t in tasks if _uses_nlp(t[0]) and any(not _in_cache(k) for _, k in t[4])]
    workers = schedule.workers_for(config.jobs)
    if config.backend == "dask" or (workers > 1 and len(tasks) < 2 * workers):
        tasks = [(*t[:4], [c], t[5]) for t in tasks for c in t[4]]

    # Tasks whose every cell is in the prediction cache are read here: shipping a corpus to
    # a worker process only to read a pickle back costs more than the read.
    nested: list[list[CellOutcome]] = [[] for _ in tasks]
    local = {i for i, t in enumerate(tasks) if all(_in_cache(k) for _, k in t[4])}
    for i in sorted(local):
        nested[i] = run_task(*tasks[i])
    remote = [i for i in range(len(tasks)) if i not in local]
    # Costliest first, a corpus's tasks kept in one worker where that balances
    # (bench.schedule): only the order and placement change, never a result.
    timings = schedule.load_timings()
    costs = [_task_cost(tasks[i], params, timings) for i in remote]
    if workers > 1:
        corpora_of = [tasks[i][4][0][0].test_corpus if tasks[i][4] else "" for i in remote]
        jobs = [[remote[j] for j in job] for job in schedule.plan(costs, corpora_of, workers)]
    else:
        jobs = [[i] for i in remote]
    if pending:  # tag only when some trained system still has a cell to compute
        if all(len({tasks[i][4][0][0].test_corpus for i in job}) == 1 for job in jobs):
            # one job per corpus: each worker tags its own corpus, in parallel; here only
            # check that the tagger is installed, so a missing one is one clear error
            warm_nlp_cache([_first_document(c) for c in corpora.values()], False)
        else:
            warm_nlp_cache(list(corpora.values()), config.show_progress)
    ran = (
        execute(
            run_tasks,
            [([tasks[i] for i in job],) for job in jobs],
            backend=config.backend,
            jobs=config.jobs,
            scheduler=config.scheduler,
            show_progress=config.show_progress,
            desc="jobs",
            on_result=_log_job if config.show_progress and not sys.stderr.isatty() else None,
        )
        if jobs
        else []
    )
    for job, groups in zip(jobs, ran, strict=True):
        for i, group in zip(job, groups, strict=True):
            nested[i] = group
    outcomes = [o for group in nested for o in group]
    schedule.remember_timings(
        (schedule.timing_key(o.system, params.get(o.system, {})), o.seconds, o.n_tokens)
        for o in outcomes
        if o.ok and not o.cached
    )

    failures = [
        {
            "system": o.system,
            "corpus": o.corpus,
            "protocol": o.protocol,
            "fold": o.fold,
            "fraction": o.fraction,
            "error": o.error,
        }
        for o in outcomes
        if not o.ok
    ]
    fresh = any(not o.cached for o in outcomes)  # else the scores are cached too, mostly
    if fresh and workers > 1 and len(splits) > 1 and cache.caching_enabled():
        if config.backend != "dask":
            _prefetch_scores(outcomes, corpora, splits, systems, config, worker_env)
    results, learning = score_outcomes(outcomes, corpora, splits, systems, config)
    significance = significance_tests(outcomes, corpora, splits, systems, config)
    return RunResult(
        config=config,
        corpora=corpora,
        skipped=skipped,
        splits=splits,
        systems={
            n: {
                "description": c.description,
                "params": params[n],
                "requires_training": c.requires_training,
                "predicts_categories": c.predicts_categories,
                "headline_subset": headline_subset(c),
            }
            for n, c in systems.items()
        },
        outcomes=outcomes,
        results=results,
        significance=significance,
        learning_curve=learning,
        failures=failures,
        started=started,
        wall_seconds=time.perf_counter() - t0,
    )


def _task_cost(
    task: tuple[Any, ...], params: Mapping[str, Mapping[str, Any]], timings: Mapping[str, float]
) -> float:
    """Estimated seconds of a task: its uncached cells' test tokens x seconds per token."""
    system_cls, _, _, test_docs, cells, _ = task
    per_token = schedule.seconds_per_token(
        system_cls, schedule.timing_key(system_cls.name, params.get(system_cls.name, {})), timings
    )
    tokens = sum(
        len(test_docs[i].tokens) for split, key in cells if not _in_cache(key) for i in split.test
    )
    return tokens * per_token


def _uses_nlp(system_cls: type) -> bool:
    """Whether to POS-tag for this system first: trained systems do, unless they say
    ``uses_nlp = False`` (an optional class attribute; rule systems never need it)."""
    return bool(getattr(system_cls, "uses_nlp", system_cls.requires_training))


def _in_cache(key: str) -> bool:
    return cache.caching_enabled() and (cache.cache_dir() / "predictions" / f"{key}.pkl").exists()


def worker_environment(config: RunConfig) -> dict[str, str]:
    """Environment variables every worker sets before running a cell."""
    env = {"DEID_BENCH_NO_CACHE": os.environ.get("DEID_BENCH_NO_CACHE", "")}
    if config.dictionaries:
        env["DEID_BENCH_DICTIONARIES"] = str(Path(config.dictionaries).resolve())
    for name in ("DEID_BENCH_DICTIONARIES", "NLTK_DATA", "DEID_BENCH_NO_DOWNLOAD"):
        if name not in env and os.environ.get(name):
            env[name] = os.environ[name]
    if config.backend != "dask":  # a remote worker keeps its own cache directory
        env[cache.ENV_CACHE] = str(cache.cache_dir())
    return env


def _log_job(index: int, groups: list[list[CellOutcome]]) -> None:
    for outcomes in groups:
        _log_task(index, outcomes)


def _log_task(index: int, outcomes: list[CellOutcome]) -> None:
    """One line per finished task when stderr is not a terminal (logs, CI): no PHI."""
    if not outcomes:
        return
    first = outcomes[0]
    seconds = sum(o.seconds for o in outcomes)
    cached = sum(o.cached for o in outcomes)
    failed = sum(not o.ok for o in outcomes)
    folds = ",".join(str(o.fold) for o in outcomes)
    print(
        f"done {first.system} on {first.corpus} ({first.protocol} fold {folds}): "
        f"{seconds:.1f} s, {cached} cached, {failed} failed",
        file=sys.stderr,
        flush=True,
    )


def headline_subset(system_cls: type) -> str:
    """``all``, or the people/locations/organizations subset for SNoW-like systems."""
    labels = getattr(system_cls, "evaluated_labels", None)
    return PLO_SUBSET if labels else "all"


# --------------------------------------------------------------------------- scoring


def pooled(
    outcomes: Sequence[CellOutcome],
    corpora: Mapping[str, Corpus],
    splits: Mapping[str, list[Split]],
    system: str,
    corpus: str,
    fraction: float = 1.0,
) -> tuple[list[Document], list[list[str]]] | None:
    """The test documents and predictions of every fold of (system, corpus), in fold order;
    ``None`` when any fold failed (a system is scored on all folds or not at all)."""
    cells = {
        (o.fold, o.fraction): o
        for o in outcomes
        if o.system == system and o.corpus == corpus and o.fraction == fraction
    }
    docs: list[Document] = []
    preds: list[list[str]] = []
    for split in splits[corpus]:
        if split.fraction != fraction:
            continue
        o = cells.get((split.fold, split.fraction))
        if o is None or not o.ok or o.predictions is None:
            return None
        docs.extend(corpora[corpus].documents[i] for i in split.test)
        preds.extend(o.predictions)
    return docs, preds


def _cells_key(
    outcomes: Sequence[CellOutcome], system: str, corpus: str, fraction: float
) -> tuple[str, ...]:
    """The prediction keys of the cells pooled for (system, corpus, fraction)."""
    return tuple(
        sorted(
            o.key
            for o in outcomes
            if o.system == system and o.corpus == corpus and o.fraction == fraction
        )
    )


def _as_dict(row: Any) -> dict[str, Any]:
    if isinstance(row, Mapping):
        return dict(row)
    if dataclasses.is_dataclass(row):
        return dataclasses.asdict(row)  # type: ignore[arg-type]
    if hasattr(row, "_asdict"):
        return dict(row._asdict())
    raise TypeError(f"cannot read a score row of type {type(row).__name__}")


def score_predictions(
    documents: Sequence[Document],
    predictions: Sequence[Sequence[str]],
    *,
    seed: int,
    n_resamples: int,
    alpha: float,
) -> list[dict[str, Any]]:
    """Token rows on every subset and entity rows (strict and overlap), each with a
    percentile-bootstrap CI of F1 over documents (``n_resamples`` 0: no CI).

    The bootstrap resamples each row's per-document counts, which
    :func:`bench.metrics.token_scores_by_document` and
    :func:`~bench.metrics.entity_scores_by_document` return with the rows in one pass.
    """
    from bench import metrics, significance

    scored = [
        pair
        for subset in metrics.SUBSETS
        for pair in metrics.token_scores_by_document(documents, predictions, subset=subset)
    ]
    for match in ("strict", "overlap"):
        scored.extend(metrics.entity_scores_by_document(documents, predictions, match=match))
    rows = []
    for raw, counts in scored:
        row = _as_dict(raw)
        low = high = float("nan")
        if n_resamples > 0 and (row["tp"] + row["fn"] + row["fp"]) > 0:
            low, high = significance.bootstrap_f1_ci(
                counts, n_resamples=n_resamples, alpha=alpha, seed=seed
            )
        row["f1_ci_low"], row["f1_ci_high"] = low, high
        rows.append(row)
    return rows


def _scoring_code() -> str:
    """Hash of the scoring code, part of the score and significance cache keys."""
    return _source_fingerprint("bench.metrics") + _source_fingerprint("bench.significance")


def _prefetch_scores(
    outcomes: Sequence[CellOutcome],
    corpora: Mapping[str, Corpus],
    splits: Mapping[str, list[Split]],
    systems: Mapping[str, type],
    config: RunConfig,
    env: Mapping[str, str],
) -> None:
    """Score and test each corpus in a worker, in parallel, into the score cache; the
    scoring that follows in this process then only reads it.  Nothing is returned, so a
    failure here just leaves the work to that scoring (which reports it)."""
    tasks = [
        (
            [o for o in outcomes if o.corpus == name],
            {name: corpora[name]},
            {name: splits[name]},
            dict(systems),
            config,
            dict(env),
        )
        for name in splits
    ]
    with contextlib.suppress(Exception):
        execute(_score_corpus, tasks, backend="joblib", jobs=config.jobs, show_progress=False)


def _score_corpus(
    outcomes: Sequence[CellOutcome],
    corpora: Mapping[str, Corpus],
    splits: Mapping[str, list[Split]],
    systems: Mapping[str, type],
    config: RunConfig,
    env: Mapping[str, str],
) -> None:
    with _environment(env), contextlib.suppress(Exception):
        score_outcomes(outcomes, corpora, splits, systems, config)
        significance_tests(outcomes, corpora, splits, systems, config)


def score_outcomes(
    outcomes: Sequence[CellOutcome],
    corpora: Mapping[str, Corpus],
    splits: Mapping[str, list[Split]],
    systems: Mapping[str, type],
    config: RunConfig,
) -> tuple[Any, Any]:
    """results.csv rows (and learning-curve rows when the protocol makes them)."""
    import pandas as pd

    rows: list[dict[str, Any]] = []
    curve: list[dict[str, Any]] = []
    for corpus, corpus_splits in splits.items():
        protocol = corpus_splits[0].protocol
        fractions = sorted({s.fraction for s in corpus_splits})
        for system in systems:
            for fraction in fractions:
                got = pooled(outcomes, corpora, splits, system, corpus, fraction)
                if got is None:
                    continue
                docs, preds = got
                n_resamples = config.n_resamples if fraction == 1.0 else 0
                key = cache.make_key(
                    "scores",
                    _cells_key(outcomes, system, corpus, fraction),
                    n_resamples,
                    config.alpha,
                    config.seed,
                    _scoring_code(),
                )
                scored = cache.cached(
                    "scores",
                    key,
                    lambda docs=docs, preds=preds, n=n_resamples: score_predictions(
                        docs, preds, seed=config.seed, n_resamples=n, alpha=config.alpha
                    ),
                )
                scored = [dict(r) for r in scored]
                for row in scored:
                    row.update(system=system, corpus=corpus, protocol=protocol)
                    if protocol == "learning-curve":
                        row["train_fraction"] = fraction
                        curve.append(row)
                    if fraction == 1.0:
                        rows.append(row)
    results = pd.DataFrame(rows, columns=list(RESULT_COLUMNS))
    learning = None
    if curve:
        learning = pd.DataFrame(
            curve, columns=[*RESULT_COLUMNS[:3], "train_fraction", *RESULT_COLUMNS[3:]]
        )
    return results, learning


def significance_tests(
    outcomes: Sequence[CellOutcome],
    corpora: Mapping[str, Corpus],
    splits: Mapping[str, list[Split]],
    systems: Mapping[str, type],
    config: RunConfig,
) -> Any:
    """Pairwise tests of binary PHI between systems on each corpus (significance.csv).

    Systems are compared on the subset both are scored on (people/locations/organizations
    when either is SNoW-like), as the paper compares SNoW only on those (Tables 3, 5, 8, 12).
    """
    import pandas as pd

    rows: list[dict[str, Any]] = []
    for corpus in splits:
        got = {}
        for system in systems:
            p = pooled(outcomes, corpora, splits, system, corpus, 1.0)
            if p is not None:
                got[system] = p
        names = sorted(got)
        any_plo = any(headline_subset(systems[n]) == PLO_SUBSET for n in names)
        counts = _DocumentCounts(got)
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                subsets = []
                if headline_subset(systems[a]) == headline_subset(systems[b]) == "all":
                    subsets.append("all")
                if any_plo:
                    subsets.append(PLO_SUBSET)
                for subset in subsets:
                    key = cache.make_key(
                        "significance",
                        _cells_key(outcomes, a, corpus, 1.0),
                        _cells_key(outcomes, b, corpus, 1.0),
                        subset,
                        config.n_shuffles,
                        config.seed,
                        _scoring_code(),
                    )
                    rows.extend(
                        cache.cached(
                            "significance",
                            key,
                            partial(
                                _pair_tests,
                                corpus,
                                a,
                                b,
                                got[a][0],
                                got[a][1],
                                got[b][1],
                                subset,
                                config,
                                counts,
                            ),
                        )
                    )
    return pd.DataFrame(rows, columns=list(SIGNIFICANCE_COLUMNS))


class _DocumentCounts:
    """Per-document binary (tp, fp, fn) of each system on one corpus, computed once per
    (system, subset) however many pairs the system is in, and only when a pair's tests are
    not in the cache."""

    def __init__(self, pooled: Mapping[str, tuple[Sequence[Document], list[list[str]]]]) -> None:
        self.pooled = pooled
        self.memo: dict[tuple[str, str], Any] = {}

    def __call__(self, system: str, subset: str) -> Any:
        from bench import metrics

        key = (system, subset)
        if key not in self.memo:
            docs, preds = self.pooled[system]
            self.memo[key] = metrics.per_document_counts(docs, preds, None, subset)
        return self.memo[key]


def _pair_tests(
    corpus: str,
    a: str,
    b: str,
    docs: Sequence[Document],
    pred_a: Sequence[Sequence[str]],
    pred_b: Sequence[Sequence[str]],
    subset: str,
    config: RunConfig,
    counts: _DocumentCounts,
) -> list[dict[str, Any]]:
    from bench import metrics, significance

    tests = significance.pairwise_tests(
        counts(a, subset),
        counts(b, subset),
        metrics.token_correctness(docs, pred_a, subset=subset, other=pred_b),
        metrics.token_correctness(docs, pred_b, subset=subset, other=pred_a),
        n_shuffles=config.n_shuffles,
        seed=config.seed,
    )
    return [
        {
            "corpus": corpus,
            "system_a": a,
            "system_b": b,
            "test": row["test"],
            "statistic": row["statistic"],
            "p_value": row["p_value"],
            "subset": subset,
        }
        for row in tests
    ]


# --------------------------------------------------------------------------- outputs


def package_versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for name in VERSIONED_PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def run_info(result: RunResult, command: Sequence[str]) -> dict[str, Any]:
    """The content of run.json (no document text anywhere)."""
    cfg = result.config
    cells = [
        {
            "system": o.system,
            "corpus": o.corpus,
            "train_corpus": o.train_corpus,
            "protocol": o.protocol,
            "fold": o.fold,
            "fraction": o.fraction,
            "seconds": round(o.seconds, 4),
            "tokens": o.n_tokens,
            "tokens_per_second": (
                round(o.tokens_per_second, 1) if o.tokens_per_second is not None else None
            ),
            "cached": o.cached,
            "ok": o.ok,
        }
        for o in result.outcomes
    ]
    return {
        "command": list(command),
        "started": result.started,
        "wall_seconds": round(result.wall_seconds, 2),
        "seed": cfg.seed,
        "folds": cfg.folds,
        "protocol": cfg.protocol if not cfg.train_corpus else "cross",
        "train_corpus": cfg.train_corpus,
        "jobs": cfg.jobs,
        "backend": cfg.backend or ("sequential" if cfg.jobs == 1 else "joblib"),
        "alpha": cfg.alpha,
        "bootstrap_resamples": cfg.n_resamples,
        "randomization_shuffles": cfg.n_shuffles,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "packages": package_versions(),
        "corpora": {
            name: {
                "documents": len(c),
                "tokens": c.n_tokens,
                "fingerprint": c.fingerprint,
                "skipped_records": result.skipped.get(name, 0),
                "splits": len(result.splits.get(name, [])),
            }
            for name, c in result.corpora.items()
        },
        "systems": result.systems,
        "cells": cells,
        "failures": result.failures,
    }


def write_outputs(
    result: RunResult, out_dir: str | os.PathLike[str], command: Sequence[str]
) -> dict[str, Path]:
    """results.csv, significance.csv, run.json, report.md and plots, each written atomically."""
    import json

    from bench import report

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {
        "results": out / "results.csv",
        "significance": out / "significance.csv",
        "run": out / "run.json",
        "report": out / "report.md",
    }
    cache.atomic_write_text(paths["results"], result.results.to_csv(index=False))
    cache.atomic_write_text(paths["significance"], result.significance.to_csv(index=False))
    if result.learning_curve is not None:
        paths["learning_curve"] = out / "learning_curve.csv"
        cache.atomic_write_text(paths["learning_curve"], result.learning_curve.to_csv(index=False))
    info = run_info(result, command)
    cache.atomic_write_text(paths["run"], json.dumps(info, indent=2, default=str) + "\n")
    plots = report.write_plots(result, out)
    paths.update(plots)
    cache.atomic_write_text(
        paths["report"], report.render_report(result, info, {k: p.name for k, p in plots.items()})
    )
    return paths


def write_error_analysis(result: RunResult, path: str | os.PathLike[str], context: int = 5) -> int:
    """Missed and spurious PHI with ±``context`` tokens, in a 0600 file; returns the count.

    This file *does* contain PHI (that is its purpose), so it is created owner-only from the
    start (no window with wider permissions) and begins with a warning header.
    """
    lines = [
        "# WARNING: this file contains protected health information (PHI) from the corpus.",
        "# It was created with owner-only permissions (0600). Do not share, commit or upload",
        "# it; delete it when the error analysis is done.",
        "#",
        "# kind\tsystem\tcorpus\tdocument\ttoken\tgold\tpredicted\tcontext",
    ]
    count = 0
    for corpus in result.splits:
        for system in result.systems:
            got = pooled(result.outcomes, result.corpora, result.splits, system, corpus, 1.0)
            if got is None:
                continue
            for doc, labels in zip(*got, strict=True):
                tokens = doc.tokens
                for i, (tok, pred) in enumerate(zip(tokens, labels, strict=True)):
                    gold_phi, pred_phi = tok.label != OUTSIDE, pred != OUTSIDE
                    if gold_phi == pred_phi:
                        continue
                    kind = "missed" if gold_phi else "spurious"
                    left = " ".join(t.text for t in tokens[max(0, i - context) : i])
                    right = " ".join(t.text for t in tokens[i + 1 : i + 1 + context])
                    ctx = f"{left} [[{tok.text}]] {right}".strip().replace("\t", " ")
                    ctx = ctx.replace("\n", " ")
                    lines.append(
                        f"{kind}\t{system}\t{corpus}\t{doc.id}\t{i}\t{tok.label}\t{pred}\t{ctx}"
                    )
                    count += 1
    target = Path(path)
    cache.atomic_write_text(target, "\n".join(lines) + "\n", mode=stat.S_IRUSR | stat.S_IWUSR)
    return count


def summary_table(result: RunResult) -> str:
    """The one-screen summary printed at the end: headline PHI P/R/F per system and corpus."""
    from tabulate import tabulate

    df = result.results
    rows = []
    for corpus in result.splits:
        for system, info in result.systems.items():
            sub = df[
                (df.system == system)
                & (df.corpus == corpus)
                & (df.level == "token")
                & (df.subset == info["headline_subset"])
                & (df.label == PHI)
            ]
            if sub.empty:
                err = next(
                    (
                        f["error"]
                        for f in result.failures
                        if f["system"] == system and f["corpus"] == corpus
                    ),
                    "no result",
                )
                rows.append([corpus, system, "FAILED", "", "", err[:60]])
                continue
            r = sub.iloc[0]
            rows.append(
                [
                    corpus,
                    system,
                    f"{100 * r.precision:.1f}",
                    f"{100 * r.recall:.1f}",
                    f"{100 * r.f1:.1f}",
                    "" if info["headline_subset"] == "all" else info["headline_subset"],
                ]
            )
    return tabulate(rows, headers=["corpus", "system", "P", "R", "F", "note"], tablefmt="simple")


__all__ = [
    "DEFAULT_CORPORA",
    "RESULT_COLUMNS",
    "SIGNIFICANCE_COLUMNS",
    "CellOutcome",
    "RunConfig",
    "RunResult",
    "UsageError",
    "cell_key",
    "headline_subset",
    "load_corpora",
    "package_versions",
    "resolve_corpora",
    "resolve_systems",
    "run",
    "run_info",
    "run_task",
    "score_predictions",
    "significance_tests",
    "summary_table",
    "write_error_analysis",
    "write_outputs",
]

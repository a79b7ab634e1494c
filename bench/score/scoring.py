"""Score a run's cells: results.csv rows, significance tests, operating points, and the
authentic-vs-variant comparison, all over one :class:`Scorer`.

Scores are computed from the pooled test-fold predictions: every document is tested exactly
once under cross-validation, so the counts are those of the whole corpus, as in the paper's
tables (Sibanda & Uzuner 2006, §6).  Score rows and pairwise tests are cached on disk under
the cells' prediction keys, so a repeated run only reads them.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from bench.run.execution import environment, execute
from bench.run.protocols import Split
from bench.run.run_types import (
    PLO_SUBSET,
    RESULT_COLUMNS,
    SIGNIFICANCE_COLUMNS,
    CellOutcome,
    RunConfig,
    RunResult,
    SystemSpec,
)
from corpora.model import Corpus, Document
from infra import cache

#: Columns of operating_points.csv.
OPERATING_POINT_COLUMNS = (
    "system",
    "corpus",
    "recall_level",
    "precision",
    "recall",
    "threshold",
)
#: Columns of the authentic-vs-variant table.
VARIANT_COLUMNS = (
    "system",
    "corpus",
    "variant_corpus",
    "recall_authentic",
    "recall_variant",
    "difference",
    "p_value",
    "test",
)


def headline_subset(spec: SystemSpec) -> str:
    """``all``, or the people/locations/organizations subset for SNoW-like systems (those
    scored on some of PATIENT, DOCTOR, LOCATION, HOSPITAL only, such as ``snow`` or ``svm``
    trained on those categories)."""
    from corpora.model import PEOPLE_LOCATIONS_ORGANIZATIONS

    scored_on = spec.tags.evaluated_labels
    return PLO_SUBSET if scored_on and scored_on <= PEOPLE_LOCATIONS_ORGANIZATIONS else "all"


@dataclass
class Pooled:
    """The test documents of every fold of (system, corpus), in fold order, with the
    system's labels and (where it scores tokens) scores."""

    documents: list[Document]
    labels: list[list[str]]
    scores: list[np.ndarray] | None
    keys: tuple[str, ...]

    @cached_property
    def codes(self) -> list[np.ndarray]:
        """:attr:`labels` as label codes, made once (:func:`bench.score.metrics.label_codes`)."""
        from bench.score import metrics

        return metrics.label_codes(self.documents, self.labels)


class Scorer:
    """Everything scoring needs about a run, held once; each table is one method."""

    def __init__(
        self,
        outcomes: Sequence[CellOutcome],
        corpora: Mapping[str, Corpus],
        splits: Mapping[str, list[Split]],
        systems: Mapping[str, SystemSpec],
        config: RunConfig,
    ) -> None:
        self.outcomes = outcomes
        self.corpora = corpora
        self.splits = splits
        self.systems = systems
        self.config = config
        self._pooled: dict[tuple[str, str, float], Pooled | None] = {}

    # -- pooling -----------------------------------------------------------------------------
    def pooled(self, system: str, corpus: str, fraction: float = 1.0) -> Pooled | None:
        """``None`` when any fold failed (a system is scored on all folds or not at all)."""
        key = (system, corpus, fraction)
        if key not in self._pooled:
            self._pooled[key] = self._pool(system, corpus, fraction)
        return self._pooled[key]

    @cached_property
    def _by_cell(self) -> dict[tuple[str, str, int, float], CellOutcome]:
        return {(o.system, o.corpus, o.fold, o.fraction): o for o in self.outcomes}

    def _pool(self, system: str, corpus: str, fraction: float) -> Pooled | None:
        docs: list[Document] = []
        labels: list[list[str]] = []
        scores: list[np.ndarray] | None = []
        keys = []
        for split in self.splits[corpus]:
            if split.fraction != fraction:
                continue
            o = self._by_cell.get((system, corpus, split.fold, split.fraction))
            if o is None or not o.ok or o.predictions is None:
                return None
            docs.extend(self.corpora[corpus].documents[i] for i in split.test)
            labels.extend(o.predictions)
            keys.append(o.key)
            if scores is not None and o.scores is not None:
                scores.extend(o.scores)
            else:
                scores = None
        if not docs:
            return None
        return Pooled(docs, labels, scores, tuple(sorted(keys)))

    # -- results.csv -------------------------------------------------------------------------
    def results(self) -> tuple[Any, Any]:
        """results.csv rows, and learning-curve rows when the protocol makes them."""
        import pandas as pd

        rows: list[dict[str, Any]] = []
        curve: list[dict[str, Any]] = []
        for corpus, corpus_splits in self.splits.items():
            protocol = corpus_splits[0].protocol
            fractions = sorted({s.fraction for s in corpus_splits})
            for system in self.systems:
                for fraction in fractions:
                    got = self.pooled(system, corpus, fraction)
                    if got is None:
                        continue
                    for row in self._score_rows(got, full=fraction == 1.0):
                        row.update(system=system, corpus=corpus, protocol=protocol)
                        if protocol == "learning-curve":
                            curve.append({**row, "train_fraction": fraction})
                        if fraction == 1.0:
                            rows.append(row)
        results = pd.DataFrame(rows, columns=list(RESULT_COLUMNS))
        learning = None
        if curve:
            learning = pd.DataFrame(
                curve, columns=[*RESULT_COLUMNS[:3], "train_fraction", *RESULT_COLUMNS[3:]]
            )
        return results, learning

    def _score_rows(self, got: Pooled, *, full: bool) -> list[dict[str, Any]]:
        n_resamples = self.config.n_resamples if full else 0
        key = cache.make_key(
            "scores", got.keys, n_resamples, self.config.alpha, self.config.seed, scoring_code()
        )
        scored = cache.cached(
            "scores",
            key,
            lambda: score_predictions(
                got.documents,
                got.labels,
                seed=self.config.seed,
                n_resamples=n_resamples,
                alpha=self.config.alpha,
            ),
        )
        return [dict(r) for r in scored]

    # -- significance.csv --------------------------------------------------------------------
    def significance(self) -> Any:
        """Pairwise tests of binary PHI between systems on each corpus.

        Systems are compared on the subset both are scored on (people/locations/
        organizations when either is SNoW-like), as the paper compares SNoW only on those
        (Tables 3, 5, 8, 12).
        """
        import pandas as pd

        rows: list[dict[str, Any]] = []
        for corpus in self.splits:
            got = {s: p for s in self.systems if (p := self.pooled(s, corpus)) is not None}
            names = sorted(got)
            subset_of = {n: headline_subset(self.systems[n]) for n in names}
            any_plo = any(v == PLO_SUBSET for v in subset_of.values())
            counts = _DocumentCounts(got)
            for i, a in enumerate(names):
                for b in names[i + 1 :]:
                    subsets = ["all"] if subset_of[a] == subset_of[b] == "all" else []
                    if any_plo:
                        subsets.append(PLO_SUBSET)
                    for subset in subsets:
                        rows.extend(self._pair(corpus, a, b, got, subset, counts))
        return pd.DataFrame(rows, columns=list(SIGNIFICANCE_COLUMNS))

    def test_pair(self, corpus: str, a: str, b: str, subset: str) -> list[dict[str, Any]]:
        """Every pairwise test of systems ``a`` and ``b`` on one corpus and subset (rows as
        in significance.csv, cached like them), for comparisons :meth:`significance` does
        not make, such as the paper's IdentiFinder comparison on everything but IDs.
        ``[]`` when either system has no complete set of folds."""
        got = {s: p for s in (a, b) if (p := self.pooled(s, corpus)) is not None}
        if len(got) < 2:
            return []
        return self._pair(corpus, a, b, got, subset, _DocumentCounts(got))

    def _pair(
        self,
        corpus: str,
        a: str,
        b: str,
        got: Mapping[str, Pooled],
        subset: str,
        counts: _DocumentCounts,
    ) -> list[dict[str, Any]]:
        config = self.config
        key = cache.make_key(
            "significance",
            got[a].keys,
            got[b].keys,
            subset,
            config.n_shuffles,
            config.seed,
            scoring_code(),
        )

        def compute() -> list[dict[str, Any]]:
            from bench.score import metrics, significance

            docs = got[a].documents
            tests = significance.pairwise_tests(
                counts(a, subset),
                counts(b, subset),
                metrics.token_correctness(docs, got[a].codes, subset=subset, other=got[b].codes),
                metrics.token_correctness(docs, got[b].codes, subset=subset, other=got[a].codes),
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

        return cache.cached("significance", key, compute)

    # -- operating points --------------------------------------------------------------------
    def operating_points(self) -> Any:
        """Precision at recall 0.90 / 0.95 / 0.99 of every system that scores tokens,
        pooled over folds from out-of-fold scores (binary PHI, every token)."""
        import pandas as pd

        from bench.score import metrics

        rows = []
        for corpus in self.splits:
            for system in self.systems:
                got = self.pooled(system, corpus)
                if got is None or got.scores is None:
                    continue
                gold, scores = metrics.pooled_binary_scores(got.documents, got.scores)
                for point in metrics.precision_at_recall(gold, scores):
                    rows.append({"system": system, "corpus": corpus, **point})
        return pd.DataFrame(rows, columns=list(OPERATING_POINT_COLUMNS))

    def curves(self, corpus: str, points: int = 400) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Per system that scores tokens, (recall, precision) along its threshold, thinned
        to about ``points`` points evenly spaced in recall (for the plots)."""
        from bench.score import metrics

        out = {}
        for system in self.systems:
            got = self.pooled(system, corpus)
            if got is None or got.scores is None:
                continue
            gold, scores = metrics.pooled_binary_scores(got.documents, got.scores)
            precision, recall, _ = metrics.precision_recall_points(gold, scores)
            if len(recall) > points:
                keep = np.unique(
                    np.searchsorted(recall, np.linspace(recall[0], recall[-1], points))
                )
                keep = keep[keep < len(recall)]
                recall, precision = recall[keep], precision[keep]
            out[system] = (recall, precision)
        return out

    # -- authentic vs variant ----------------------------------------------------------------
    def variant_comparison(self) -> Any:
        """Per system, recall on the authentic test folds vs on their variant (the
        ``variant`` protocol), with a paired approximate-randomization test over documents
        (document ``i`` of both corpora is the same note before and after the transform)."""
        import pandas as pd

        from bench.score import metrics, significance

        rows = []
        for vcorpus, vsplits in self.splits.items():
            if vsplits[0].protocol != "variant":
                continue
            corpus = vsplits[0].train_corpus
            for system, spec in self.systems.items():
                a, b = self.pooled(system, corpus), self.pooled(system, vcorpus)
                if a is None or b is None:
                    continue
                subset = headline_subset(spec)
                ca = metrics.per_document_counts(a.documents, a.labels, None, subset)
                cb = metrics.per_document_counts(b.documents, b.labels, None, subset)
                diff, p = significance.approximate_randomization(
                    cb,
                    ca,
                    n_shuffles=self.config.n_shuffles,
                    seed=self.config.seed,
                    statistic="recall",
                )
                ra, rb = _recall(ca), _recall(cb)
                rows.append(
                    {
                        "system": system,
                        "corpus": corpus,
                        "variant_corpus": vcorpus,
                        "recall_authentic": ra,
                        "recall_variant": rb,
                        "difference": diff,
                        "p_value": p,
                        "test": "approximate_randomization_recall (paired documents)",
                    }
                )
        return pd.DataFrame(rows, columns=list(VARIANT_COLUMNS)) if rows else None

    # -- in parallel ---------------------------------------------------------------------------
    def prefetch(self, env: Mapping[str, str]) -> None:
        """Score and test each corpus in a worker, in parallel, into the score cache; the
        scoring that follows in this process then only reads it.  A failure here just leaves
        the work to that scoring (which reports it)."""
        tasks = [
            (
                [o for o in self.outcomes if o.corpus == name],
                {n: c for n, c in self.corpora.items() if n == name},
                {name: self.splits[name]},
                dict(self.systems),
                self.config,
                dict(env),
            )
            for name in self.splits
        ]
        with contextlib.suppress(Exception):
            execute(
                _score_corpus, tasks, backend="joblib", jobs=self.config.jobs, show_progress=False
            )


def _recall(counts: np.ndarray) -> float:
    tp, _, fn = counts.sum(axis=0)
    return float(tp / (tp + fn)) if tp + fn else 0.0


def _score_corpus(
    outcomes: Sequence[CellOutcome],
    corpora: Mapping[str, Corpus],
    splits: Mapping[str, list[Split]],
    systems: Mapping[str, SystemSpec],
    config: RunConfig,
    env: Mapping[str, str],
) -> None:
    with environment(env), contextlib.suppress(Exception):
        scorer = Scorer(outcomes, corpora, splits, systems, config)
        scorer.results()
        scorer.significance()


class _DocumentCounts:
    """Per-document binary (tp, fp, fn) of each system on one corpus, computed once per
    (system, subset) however many pairs the system is in, and only when a pair's tests are
    not in the cache."""

    def __init__(self, pooled: Mapping[str, Pooled]) -> None:
        self.pooled = pooled
        self.memo: dict[tuple[str, str], Any] = {}

    def __call__(self, system: str, subset: str) -> Any:
        from bench.score import metrics

        key = (system, subset)
        if key not in self.memo:
            got = self.pooled[system]
            self.memo[key] = metrics.per_document_counts(got.documents, got.codes, None, subset)
        return self.memo[key]


def pooled_predictions(result: RunResult) -> Iterator[tuple[str, str, Pooled]]:
    """(system, corpus, its pooled test-fold labels) of a finished run, corpus by corpus,
    for every system scored on all its folds: what the error file and ``documents.csv``
    read."""
    scorer = Scorer(result.outcomes, result.corpora, result.splits, {}, result.config)
    for corpus in result.splits:
        for system in result.systems:
            got = scorer.pooled(system, corpus)
            if got is not None:
                yield system, corpus, got


def scoring_code() -> str:
    """Hash of the scoring code, part of the score and significance cache keys."""
    return cache.source_fingerprint("bench.score.metrics") + cache.source_fingerprint(
        "bench.score.significance"
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
    :func:`bench.score.metrics.token_scores_by_document` and
    :func:`~bench.score.metrics.entity_scores_by_document` return with the rows in one pass.
    """
    from bench.score import metrics, significance

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

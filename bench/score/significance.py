"""Significance tests between two systems scored on the same corpus and folds.

Four tests, because the papers and current practice disagree on which one to trust:

* :func:`two_proportion_z_test` -- the test Tafvizi (2011, §3.5.4, eqs. 3.4-3.5) uses for
  every comparison table (|Z| > 1.96 is significant at 0.05): a pooled two-proportion
  z-test.  The harness applies it to *recall* (successes = tp, trials = tp + fn) and to
  *precision* (successes = tp, trials = tp + fp).  Tafvizi's appendix tables apply the
  same formula to F-measures; :func:`z_test_proportions` takes proportions directly for
  that use.  It treats tokens as independent draws, which they are not, so it overstates
  significance; Sibanda & Uzuner (2006, footnote 8) only say a 1 % difference is
  significant at 0.05 without naming the test.
* :func:`mcnemar` -- McNemar's test on the paired per-token decisions (was each token
  labelled right by system A, by system B?): exact binomial for few discordant pairs,
  chi-square with continuity correction otherwise.
* :func:`approximate_randomization` -- Yeh (2000) / Noreen (1989) approximate
  randomization on the F1 difference, shuffling whole documents (tokens of one note are not
  independent, so the document is the exchangeable unit).
* :func:`bootstrap_f1_ci` -- percentile bootstrap confidence interval of an F1, resampling
  documents.

Everything is vectorised with numpy so 10,000 shuffles over a few hundred documents take
well under a second; p-values come from scipy's distributions (imported on first use, so
that the command line, which reads :data:`DEFAULT_SHUFFLES` from here, starts quickly).

When one system is compared with several others (the report's marks against the best
system, a paper's claim tested on several corpora), :func:`holm` corrects the family of
p-values for multiple comparisons (Holm 1979), which controls the family-wise error rate
at ``alpha`` without assuming the tests are independent.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from bench.score.metrics import fbeta_from_counts
from infra.memo import memoize

#: Below this many discordant pairs :func:`mcnemar` uses the exact binomial test.
MCNEMAR_EXACT_BELOW = 25
#: Approximate-randomization shuffles per test: Yeh (2000) recommends 10,000 (p-values
#: resolve to 1e-4).  The one default of every caller (the runner, ``--shuffles``, the
#: ``reproduce`` commands).
DEFAULT_SHUFFLES = 10_000
#: Bootstrap resamples per confidence interval (the one default, as above).
DEFAULT_RESAMPLES = 1000


def z_test_proportions(p1: float, n1: float, p2: float, n2: float) -> tuple[float, float]:
    """Tafvizi (2011) eq. 3.4 with the pooled proportion of eq. 3.5, on proportions.

    Returns ``(Z, two-sided p)``.  ``Z`` is 0 (p = 1) when the pooled proportion is 0 or
    1 or a sample is empty -- the two results cannot differ then.
    """
    if n1 <= 0 or n2 <= 0:
        return 0.0, 1.0
    pooled = (n1 * p1 + n2 * p2) / (n1 + n2)
    var = pooled * (1.0 - pooled) * (1.0 / n1 + 1.0 / n2)
    if var <= 0.0:
        return 0.0, 1.0
    from scipy import stats

    z = (p1 - p2) / math.sqrt(var)
    return z, float(2.0 * stats.norm.sf(abs(z)))


def two_proportion_z_test(
    successes_a: int, n_a: int, successes_b: int, n_b: int
) -> tuple[float, float]:
    """Pooled two-proportion z-test (Tafvizi 2011, eqs. 3.4-3.5) on counts.

    For recall pass ``(tp_a, tp_a + fn_a, tp_b, tp_b + fn_b)``; for precision
    ``(tp_a, tp_a + fp_a, tp_b, tp_b + fp_b)``.  Returns ``(Z, two-sided p)``; ``Z > 0``
    when system A's proportion is higher.
    """
    p1 = successes_a / n_a if n_a else 0.0
    p2 = successes_b / n_b if n_b else 0.0
    return z_test_proportions(p1, n_a, p2, n_b)


def mcnemar(
    correct_a: np.ndarray, correct_b: np.ndarray, exact: bool | None = None
) -> tuple[float, float]:
    """McNemar's test on paired decisions; returns ``(statistic, two-sided p)``.

    ``b`` = tokens A got right and B wrong, ``c`` = the reverse.  Exact (``exact=True``,
    or ``None`` with ``b + c`` < 25): the statistic is ``min(b, c)`` and p the two-sided
    binomial test of ``b`` successes in ``b + c`` trials at 0.5.  Otherwise the statistic
    is ``(|b - c| - 1)^2 / (b + c)`` (Edwards' continuity correction) with p from
    chi-square on 1 degree of freedom.  These are statsmodels' ``mcnemar`` conventions.
    """
    from scipy import stats

    a = np.asarray(correct_a, dtype=bool)
    bb = np.asarray(correct_b, dtype=bool)
    if a.shape != bb.shape:
        raise ValueError(f"paired decisions differ in shape: {a.shape} vs {bb.shape}")
    b = int(np.count_nonzero(a & ~bb))
    c = int(np.count_nonzero(~a & bb))
    n = b + c
    if exact is None:
        exact = n < MCNEMAR_EXACT_BELOW
    if n == 0:
        return 0.0, 1.0
    if exact:
        p = stats.binomtest(b, n, 0.5, alternative="two-sided").pvalue
        return float(min(b, c)), float(min(1.0, p))
    stat = (abs(b - c) - 1.0) ** 2 / n
    return stat, float(stats.chi2.sf(stat, 1))


def _f1(sums: np.ndarray) -> np.ndarray:
    """F1 of each row of (..., 3) summed (tp, fp, fn) counts; 0 where undefined."""
    return np.asarray(fbeta_from_counts(sums[..., 0], sums[..., 1], sums[..., 2], 1.0))


def _recall(sums: np.ndarray) -> np.ndarray:
    """Recall of each row of (..., 3) summed (tp, fp, fn) counts; 0 where undefined."""
    tp, fn = sums[..., 0], sums[..., 2]
    denom = tp + fn
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denom > 0, tp / np.where(denom > 0, denom, 1.0), 0.0)


def _precision(sums: np.ndarray) -> np.ndarray:
    """Precision of each row of (..., 3) summed (tp, fp, fn) counts; 0 where undefined."""
    tp, fp = sums[..., 0], sums[..., 1]
    denom = tp + fp
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denom > 0, tp / np.where(denom > 0, denom, 1.0), 0.0)


#: Statistics of summed (tp, fp, fn) counts the resampling tests can compare.
STATISTICS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "f1": _f1,
    "recall": _recall,
    "precision": _precision,
}
_STATISTICS = STATISTICS


def _as_counts(counts: np.ndarray, name: str) -> np.ndarray:
    arr = np.asarray(counts, dtype=np.float64)
    if arr.ndim != 2 or arr.shape[1] != 3:
        raise ValueError(f"{name} must have shape (n_documents, 3) of tp, fp, fn")
    return arr


def approximate_randomization(
    counts_a: np.ndarray,
    counts_b: np.ndarray,
    *,
    n_shuffles: int = DEFAULT_SHUFFLES,
    seed: int = 0,
    chunk: int = 2_000,
    statistic: str = "f1",
) -> tuple[float, float]:
    """Approximate randomization test of the F1 (or recall) difference (Yeh 2000; Noreen
    1989).

    ``counts_a``/``counts_b`` are per-document (tp, fp, fn) of the two systems on the same
    documents (:func:`bench.score.metrics.per_document_counts`).  Each shuffle swaps every
    document's counts between the systems with probability 1/2; ``r`` counts shuffles whose
    absolute F1 difference is at least the observed one, and ``p = (r + 1) / (n + 1)``.
    Returns ``(F1_a - F1_b, p)`` (``statistic="recall"`` or ``"precision"``: that
    difference, used to compare a system on paired authentic and variant documents, or two
    kernels on the same test documents).
    """
    f = _STATISTICS[statistic]
    a = _as_counts(counts_a, "counts_a")
    b = _as_counts(counts_b, "counts_b")
    if a.shape != b.shape:
        raise ValueError(f"counts differ in shape: {a.shape} vs {b.shape}")
    total_a, total_b = a.sum(axis=0), b.sum(axis=0)
    observed = float(f(total_a) - f(total_b))
    delta = b - a  # what moves from A to B's column when a document is swapped
    rng = np.random.default_rng(seed)
    threshold = abs(observed) - 1e-12  # float noise must not turn ties into misses
    hits = 0
    done = 0
    while done < n_shuffles:
        m = min(chunk, n_shuffles - done)
        swap = rng.random((m, a.shape[0])) < 0.5
        moved = swap.astype(np.float64) @ delta
        diff = f(total_a + moved) - f(total_b - moved)
        hits += int(np.count_nonzero(np.abs(diff) >= threshold))
        done += m
    return observed, (hits + 1) / (n_shuffles + 1)


@memoize("significance.bootstrap", max_entries=8)
def _bootstrap_weights(n: int, n_resamples: int, seed: int) -> np.ndarray:
    """How often each document is drawn in each resample.  Drawn once per (n, resamples,
    seed): every row of a run's results resamples the same documents, and drawing the
    multinomial matrix was most of the cost of a confidence interval."""
    rng = np.random.default_rng(seed)
    weights = rng.multinomial(n, np.full(n, 1.0 / n), size=n_resamples).astype(np.float64)
    weights.flags.writeable = False
    return weights


def bootstrap_f1_ci(
    counts: np.ndarray,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    alpha: float = 0.05,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap ``(low, high)`` interval of the micro F1, resampling documents.

    Each resample draws ``n_documents`` documents with replacement and recomputes F1 from
    the summed counts; the bounds are the ``alpha/2`` and ``1 - alpha/2`` percentiles.
    """
    c = _as_counts(counts, "counts")
    n = c.shape[0]
    if n == 0:
        return 0.0, 0.0
    f1s = _f1(_bootstrap_weights(n, n_resamples, seed) @ c)
    low, high = np.percentile(f1s, [100 * alpha / 2, 100 * (1 - alpha / 2)])
    return float(low), float(high)


def pairwise_tests(
    counts_a: np.ndarray,
    counts_b: np.ndarray,
    correct_a: np.ndarray | None = None,
    correct_b: np.ndarray | None = None,
    *,
    n_shuffles: int = DEFAULT_SHUFFLES,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Every test for one pair of systems on the same documents.

    Rows ``{test, statistic, p_value}`` for ``z_recall`` and ``z_precision`` (Tafvizi
    2011 z-test on the summed counts), ``mcnemar`` (on the paired token decisions, omitted
    when they are not given) and ``approximate_randomization_f1`` (statistic = F1_a - F1_b).
    """
    a = _as_counts(counts_a, "counts_a").sum(axis=0)
    b = _as_counts(counts_b, "counts_b").sum(axis=0)
    tp_a, fp_a, fn_a = (int(x) for x in a)
    tp_b, fp_b, fn_b = (int(x) for x in b)
    rows: list[dict[str, Any]] = []
    z, p = two_proportion_z_test(tp_a, tp_a + fn_a, tp_b, tp_b + fn_b)
    rows.append({"test": "z_recall", "statistic": z, "p_value": p})
    z, p = two_proportion_z_test(tp_a, tp_a + fp_a, tp_b, tp_b + fp_b)
    rows.append({"test": "z_precision", "statistic": z, "p_value": p})
    if correct_a is not None and correct_b is not None:
        stat, p = mcnemar(correct_a, correct_b)
        rows.append({"test": "mcnemar", "statistic": stat, "p_value": p})
    diff, p = approximate_randomization(counts_a, counts_b, n_shuffles=n_shuffles, seed=seed)
    rows.append({"test": "approximate_randomization_f1", "statistic": diff, "p_value": p})
    return rows


def holm(p_values: Mapping[str, float], alpha: float = 0.05) -> dict[str, bool]:
    """Holm's step-down correction: which of a family of hypotheses are rejected at ``alpha``.

    The p-values are sorted ascending; the ``i``-th smallest (``i`` from 0) is rejected when
    it and every smaller one is below ``alpha / (m - i)``, ``m`` the family size.  It
    controls the chance of any false rejection in the family at ``alpha`` (Holm 1979), is
    uniformly more powerful than Bonferroni, and needs no independence between the tests.
    Ties are ordered by name, so the result does not depend on the mapping's order.
    """
    m = len(p_values)
    rejected = {name: False for name in p_values}
    for i, name in enumerate(sorted(p_values, key=lambda n: (p_values[n], n))):
        if not p_values[name] < alpha / (m - i):
            break
        rejected[name] = True
    return rejected


def holm_adjusted(p_values: Mapping[str, float]) -> dict[str, float]:
    """Holm-adjusted p-values: ``holm(p, alpha)[k]`` is exactly ``adjusted[k] < alpha``.

    The adjusted value of the ``i``-th smallest p is ``max_{j <= i} min(1, (m - j) p_(j))``
    (the step-down maximum keeps the adjusted values in the same order as the raw ones).
    """
    m = len(p_values)
    out: dict[str, float] = {}
    running = 0.0
    for i, name in enumerate(sorted(p_values, key=lambda n: (p_values[n], n))):
        running = max(running, min(1.0, (m - i) * p_values[name]))
        out[name] = running
    return out


def paired_bootstrap_ci(
    counts: Sequence[np.ndarray],
    combine: Callable[[list[np.ndarray]], np.ndarray],
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    alpha: float = 0.05,
    seed: int = 0,
) -> tuple[float, float, float]:
    """``(observed, low, high)``: a percentile bootstrap interval of any statistic of several
    systems' (or corpora's) per-document counts on the *same* documents.

    ``counts`` are ``(n_documents, 3)`` arrays of (tp, fp, fn) whose row ``i`` is the same
    document everywhere; every resample draws one set of documents for all of them, so the
    pairing is kept.  ``combine`` maps the list of summed counts (each of shape ``(..., 3)``)
    to the statistic, e.g. a difference of two F1 drops::

        lambda s: (f1(s[0]) - f1(s[1])) - (f1(s[2]) - f1(s[3]))

    with ``f1 = STATISTICS["f1"]``.
    """
    observed, values = paired_bootstrap(counts, combine, n_resamples=n_resamples, seed=seed)
    if not len(values):
        return observed, float("nan"), float("nan")
    low, high = np.percentile(values, [100 * alpha / 2, 100 * (1 - alpha / 2)])
    return observed, float(low), float(high)


def paired_bootstrap(
    counts: Sequence[np.ndarray],
    combine: Callable[[list[np.ndarray]], np.ndarray],
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> tuple[float, np.ndarray]:
    """``(observed, replicates)`` of a statistic of per-document counts on the same
    documents (see :func:`paired_bootstrap_ci`): the replicates are what tests on the
    statistic's size (:func:`share_at_most`) are read from."""
    arrays = [_as_counts(c, f"counts[{i}]") for i, c in enumerate(counts)]
    if not arrays:
        raise ValueError("no counts to resample")
    n = arrays[0].shape[0]
    if any(a.shape != arrays[0].shape for a in arrays):
        raise ValueError("paired counts must have the same shape (the same documents)")
    observed = float(combine([a.sum(axis=0) for a in arrays]))
    if n == 0 or n_resamples <= 0:
        return observed, np.empty(0)
    values = [
        np.asarray(combine([w @ a for a in arrays]), dtype=np.float64)
        for w in _weight_chunks(n, n_resamples, seed)
    ]
    return observed, np.concatenate(values)


def unpaired_bootstrap(
    counts_a: np.ndarray,
    counts_b: np.ndarray,
    combine: Callable[[np.ndarray, np.ndarray], np.ndarray],
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> tuple[float, np.ndarray]:
    """``(observed, replicates)`` of a statistic of two sets of *different* documents (two
    corpora, a cross-validation and a held-out part): each set is resampled on its own.
    ``combine(summed_a, summed_b)`` gives the statistic, e.g. ``f1(a) - f1(b)``."""
    a, b = _as_counts(counts_a, "counts_a"), _as_counts(counts_b, "counts_b")
    observed = float(combine(a.sum(axis=0), b.sum(axis=0)))
    if not len(a) or not len(b) or n_resamples <= 0:
        return observed, np.empty(0)
    values = [
        np.asarray(combine(wa @ a, wb @ b), dtype=np.float64)
        for wa, wb in zip(
            _weight_chunks(len(a), n_resamples, seed),
            _weight_chunks(len(b), n_resamples, seed + 1),
            strict=True,
        )
    ]
    return observed, np.concatenate(values)


def _weight_chunks(n: int, n_resamples: int, seed: int, chunk: int = 2_000) -> Iterator[np.ndarray]:
    """How often each of ``n`` documents is drawn in each resample, a chunk of resamples at a
    time (10,000 resamples of a few hundred documents need not sit in memory at once)."""
    rng = np.random.default_rng(seed)
    done = 0
    while done < n_resamples:
        m = min(chunk, n_resamples - done)
        yield rng.multinomial(n, np.full(n, 1.0 / n), size=m).astype(np.float64)
        done += m


def share_at_most(replicates: np.ndarray, bound: float) -> float:
    """``(1 + #replicates <= bound) / (1 + #replicates)``: the bootstrap p-value of "the
    statistic is above ``bound``" (small when almost no resample falls to ``bound``)."""
    values = np.asarray(replicates, dtype=np.float64)
    return float((1 + np.count_nonzero(values <= bound)) / (1 + len(values)))


def share_at_least(replicates: np.ndarray, bound: float) -> float:
    """The bootstrap p-value of "the statistic is below ``bound``" (see
    :func:`share_at_most`)."""
    values = np.asarray(replicates, dtype=np.float64)
    return float((1 + np.count_nonzero(values >= bound)) / (1 + len(values)))


def unpaired_randomization(
    counts_a: np.ndarray,
    counts_b: np.ndarray,
    *,
    n_shuffles: int = DEFAULT_SHUFFLES,
    seed: int = 0,
    statistic: str = "f1",
    chunk: int = 2_000,
) -> tuple[float, float]:
    """A randomization test of the difference of a statistic between two sets of *different*
    documents: whole documents are dealt again at random to the two sets (their sizes kept),
    ``p = (r + 1) / (n + 1)`` with ``r`` the deals whose absolute difference is at least the
    observed one.  The two-sample counterpart of :func:`approximate_randomization`: the
    document stays the exchangeable unit.  Returns ``(stat_a - stat_b, p)``."""
    f = STATISTICS[statistic]
    a, b = _as_counts(counts_a, "counts_a"), _as_counts(counts_b, "counts_b")
    pooled = np.concatenate([a, b])
    total = pooled.sum(axis=0)
    observed = float(f(a.sum(axis=0)) - f(b.sum(axis=0)))
    if not len(a) or not len(b):
        return observed, 1.0
    rng = np.random.default_rng(seed)
    threshold = abs(observed) - 1e-12
    hits = done = 0
    while done < n_shuffles:
        m = min(chunk, n_shuffles - done)
        keys = rng.random((m, len(pooled)))
        in_a = keys <= np.sort(keys, axis=1)[:, [len(a) - 1]]
        sums_a = in_a.astype(np.float64) @ pooled
        diff = f(sums_a) - f(total - sums_a)
        hits += int(np.count_nonzero(np.abs(diff) >= threshold))
        done += m
    return observed, (hits + 1) / (n_shuffles + 1)

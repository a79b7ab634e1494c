"""Significance tests checked against hand-computed and textbook values."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from bench.score.metrics import per_document_counts, token_correctness
from bench.score.significance import (
    approximate_randomization,
    bootstrap_f1_ci,
    mcnemar,
    pairwise_tests,
    two_proportion_z_test,
    z_test_proportions,
)
from tests.bench.test_metrics import BINARY_A, DOC_A, DOC_B, PRED_A, PRED_B


def f1(counts: np.ndarray) -> float:
    tp, fp, fn = counts.sum(axis=0)
    return 2 * tp / (2 * tp + fp + fn)


# --- Tafvizi (2011) eqs. 3.4-3.5 ---------------------------------------------------------


def test_z_test_by_hand() -> None:
    # 80/100 vs 60/100: pooled p = 0.7, Z = 0.2 / sqrt(0.7 * 0.3 * (1/100 + 1/100))
    z, p = two_proportion_z_test(80, 100, 60, 100)
    assert z == pytest.approx(0.2 / math.sqrt(0.0042))
    assert z == pytest.approx(3.0860669992)
    assert p == pytest.approx(math.erfc(z / math.sqrt(2)))
    # the pooled z-test is the uncorrected chi-square test of the 2x2 table
    chi2, p_chi2, _, _ = stats.chi2_contingency([[80, 20], [60, 40]], correction=False)
    assert z**2 == pytest.approx(chi2) and p == pytest.approx(p_chi2)
    assert two_proportion_z_test(60, 100, 80, 100)[0] == pytest.approx(-z)


def test_z_test_reproduces_tafvizi_table_b3_ages_row() -> None:
    # Appendix Table B.3, Ages: F = 0 vs 0.66667 gives Z = 1.73205 = sqrt(3), i.e. n = 3.
    z, _ = z_test_proportions(0.0, 3, 2 / 3, 3)
    assert abs(z) == pytest.approx(1.73205, abs=1e-5)


def test_z_test_degenerate_cases() -> None:
    assert two_proportion_z_test(10, 10, 5, 5) == (0.0, 1.0)  # pooled proportion 1
    assert two_proportion_z_test(0, 0, 3, 5) == (0.0, 1.0)  # empty sample
    assert two_proportion_z_test(0, 10, 0, 10) == (0.0, 1.0)


# --- McNemar -------------------------------------------------------------------------------


def paired(both: int, only_a: int, only_b: int, neither: int) -> tuple[np.ndarray, np.ndarray]:
    a = np.array([True] * both + [True] * only_a + [False] * only_b + [False] * neither)
    b = np.array([True] * both + [False] * only_a + [True] * only_b + [False] * neither)
    return a, b


def test_mcnemar_exact_small_discordance() -> None:
    a, b = paired(50, 2, 8, 5)
    stat, p = mcnemar(a, b)  # 10 discordant pairs < 25: exact
    assert stat == 2.0
    assert p == pytest.approx(2 * (1 + 10 + 45) / 1024)  # 2 * P(X <= 2), X ~ Bin(10, 1/2)
    assert p == pytest.approx(stats.binomtest(2, 10, 0.5).pvalue)
    assert mcnemar(b, a) == (stat, p)


def test_mcnemar_chi_square_textbook() -> None:
    # Agresti (2002), presidential approval: 794 / 150 / 86 / 570.
    a, b = paired(794, 150, 86, 570)
    stat, p = mcnemar(a, b)
    assert stat == pytest.approx(63**2 / 236)  # (|150 - 86| - 1)^2 / 236 = 16.818
    assert p == pytest.approx(math.erfc(math.sqrt(stat / 2)))  # chi-square, 1 df
    assert p == pytest.approx(4.1e-5, rel=0.01)
    exact_stat, exact_p = mcnemar(a, b, exact=True)
    assert exact_stat == 86 and exact_p == pytest.approx(stats.binomtest(150, 236).pvalue)


def test_mcnemar_identical_and_bad_shapes() -> None:
    a = np.array([True, False, True])
    assert mcnemar(a, a) == (0.0, 1.0)
    with pytest.raises(ValueError):
        mcnemar(a, a[:2])


# --- approximate randomization --------------------------------------------------------------


def two_systems(n_docs: int, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """A good system (F1 ~ 0.95) and a poor one (F1 ~ 0.6) on ``n_docs`` documents."""
    rng = np.random.default_rng(seed)
    phi = rng.integers(5, 15, n_docs)
    good_tp = rng.binomial(phi, 0.95)
    poor_tp = rng.binomial(phi, 0.6)
    good = np.column_stack([good_tp, rng.integers(0, 2, n_docs), phi - good_tp])
    poor = np.column_stack([poor_tp, rng.integers(0, 6, n_docs), phi - poor_tp])
    return good, poor


def test_ar_identical_systems_give_p_one() -> None:
    good, _ = two_systems(40)
    diff, p = approximate_randomization(good, good.copy(), n_shuffles=2000)
    assert diff == 0.0 and p == 1.0


def test_ar_clearly_different_systems() -> None:
    good, poor = two_systems(60)
    diff, p = approximate_randomization(good, poor, n_shuffles=10_000)
    assert diff == pytest.approx(f1(good) - f1(poor)) and diff > 0.2
    assert p == pytest.approx(1 / 10_001)  # no shuffle reaches the observed difference
    rdiff, rp = approximate_randomization(poor, good, n_shuffles=10_000)
    assert rdiff == pytest.approx(-diff) and rp == p


def test_ar_close_systems_not_significant() -> None:
    rng = np.random.default_rng(7)
    a = np.column_stack([rng.integers(8, 12, 50), rng.integers(0, 3, 50), rng.integers(0, 3, 50)])
    b = a.copy()
    b[0] = [a[0, 0] - 1, a[0, 1], a[0, 2] + 1]  # one missed token in one document
    _, p = approximate_randomization(a, b, n_shuffles=5000, seed=1)
    assert p > 0.3
    # deterministic for a seed
    assert approximate_randomization(a, b, n_shuffles=500, seed=2) == approximate_randomization(
        a, b, n_shuffles=500, seed=2
    )


def test_ar_rejects_mismatched_counts() -> None:
    with pytest.raises(ValueError):
        approximate_randomization(np.zeros((3, 3)), np.zeros((4, 3)))
    with pytest.raises(ValueError):
        approximate_randomization(np.zeros((3, 2)), np.zeros((3, 2)))


def test_ar_speed(benchmark) -> None:  # type: ignore[no-untyped-def]
    good, poor = two_systems(300)
    _, p = benchmark(approximate_randomization, good, poor, n_shuffles=10_000)
    assert p < 0.01


# --- bootstrap ------------------------------------------------------------------------------


def test_bootstrap_ci_contains_estimate_and_narrows() -> None:
    good, _ = two_systems(30)
    low, high = bootstrap_f1_ci(good, n_resamples=2000)
    assert low < f1(good) < high
    many = np.tile(good, (16, 1))  # 16x the documents, same F1
    low16, high16 = bootstrap_f1_ci(many, n_resamples=2000)
    assert low16 <= f1(many) <= high16
    assert (high16 - low16) < 0.5 * (high - low)  # ~ 1/sqrt(16) as wide
    assert bootstrap_f1_ci(good, seed=5) == bootstrap_f1_ci(good, seed=5)


def test_bootstrap_ci_degenerate() -> None:
    same = np.tile([[9, 1, 0]], (10, 1))  # every document alike: no spread
    low, high = bootstrap_f1_ci(same)
    assert low == pytest.approx(f1(same)) and high == pytest.approx(f1(same))
    assert bootstrap_f1_ci(np.zeros((0, 3))) == (0.0, 0.0)


# --- on real metric output -------------------------------------------------------------------


def test_pairwise_tests_rows_from_metrics() -> None:
    docs = [DOC_A, DOC_B]
    binary_b = ["O", "PHI", "O", "PHI"]
    counts_a = per_document_counts(docs, [PRED_A, PRED_B])
    counts_b = per_document_counts(docs, [BINARY_A, binary_b])
    correct_a = token_correctness(docs, [PRED_A, PRED_B])
    correct_b = token_correctness(docs, [BINARY_A, binary_b])
    rows = pairwise_tests(counts_a, counts_b, correct_a, correct_b, n_shuffles=1000)
    by_test = {r["test"]: r for r in rows}
    assert list(by_test) == ["z_recall", "z_precision", "mcnemar", "approximate_randomization_f1"]
    # A: tp 9 fp 2 fn 1; B: tp 9 fp 1 fn 1 (binary B is right on "ref")
    assert by_test["z_recall"]["statistic"] == pytest.approx(0.0)
    assert by_test["z_precision"]["statistic"] == pytest.approx(
        two_proportion_z_test(9, 11, 9, 10)[0]
    )
    assert by_test["mcnemar"]["statistic"] == 0.0  # discordant: only "ref", B right
    assert by_test["mcnemar"]["p_value"] == 1.0
    assert by_test["approximate_randomization_f1"]["statistic"] == pytest.approx(18 / 21 - 18 / 20)
    for r in rows:
        assert 0.0 <= r["p_value"] <= 1.0
    without = pairwise_tests(counts_a, counts_b, n_shuffles=100)
    assert [r["test"] for r in without] == [
        "z_recall",
        "z_precision",
        "approximate_randomization_f1",
    ]


# --- one default, Holm, resampling helpers ---------------------------------------------------


def test_one_shuffle_and_resample_default_everywhere() -> None:
    import inspect

    from bench.run import run_types
    from bench.score import significance

    assert run_types.RunConfig().n_shuffles == significance.DEFAULT_SHUFFLES == 10_000
    assert run_types.RunConfig().n_resamples == significance.DEFAULT_RESAMPLES
    for fn in (significance.approximate_randomization, significance.pairwise_tests):
        assert inspect.signature(fn).parameters["n_shuffles"].default == 10_000
    sig = inspect.signature(significance.bootstrap_f1_ci)
    assert sig.parameters["n_resamples"].default == significance.DEFAULT_RESAMPLES


def test_holm_step_down_by_hand() -> None:
    from bench.score.significance import holm, holm_adjusted

    # m = 3: 0.01 < 0.05/3 rejected; 0.02 < 0.05/2 rejected; 0.04 < 0.05/1 rejected
    assert holm({"a": 0.01, "b": 0.02, "c": 0.04}, 0.05) == {"a": True, "b": True, "c": True}
    # 0.03 is not below 0.05/2 = 0.025: it and every larger p stay
    assert holm({"a": 0.01, "b": 0.03, "c": 0.04}, 0.05) == {"a": True, "b": False, "c": False}
    # two p-values each below 0.05 but not below 0.05/2: uncorrected both would be marked
    assert holm({"x": 0.03, "y": 0.04}, 0.05) == {"x": False, "y": False}
    assert holm({}, 0.05) == {}
    p = {"a": 0.01, "b": 0.03, "c": 0.04, "d": 0.2}
    adjusted = holm_adjusted(p)
    assert adjusted == pytest.approx({"a": 0.04, "b": 0.09, "c": 0.09, "d": 0.2})
    for alpha in (0.01, 0.05, 0.1):
        assert holm(p, alpha) == {k: v < alpha for k, v in adjusted.items()}


def test_precision_statistic_and_paired_bootstrap() -> None:
    from bench.score.significance import STATISTICS, paired_bootstrap_ci

    a = np.array([[8, 2, 0], [9, 1, 1], [7, 3, 2]], dtype=float)
    b = np.array([[8, 0, 0], [9, 0, 1], [7, 1, 2]], dtype=float)
    assert STATISTICS["precision"](a.sum(axis=0)) == pytest.approx(24 / 30)
    diff, p = approximate_randomization(b, a, n_shuffles=500, seed=1, statistic="precision")
    assert diff == pytest.approx(24 / 25 - 24 / 30)
    assert 0 < p <= 1
    f1 = STATISTICS["f1"]
    observed, low, high = paired_bootstrap_ci(
        [a, b], lambda s: f1(s[1]) - f1(s[0]), n_resamples=300, seed=0
    )
    assert observed == pytest.approx(f1(b.sum(axis=0)) - f1(a.sum(axis=0)))
    assert low <= observed <= high
    # identical systems: every resample's difference is 0
    assert paired_bootstrap_ci([a, a], lambda s: f1(s[0]) - f1(s[1]), n_resamples=50)[1:] == (
        0.0,
        0.0,
    )
    with pytest.raises(ValueError, match="same shape"):
        paired_bootstrap_ci([a, b[:2]], lambda s: f1(s[0]))


def test_z_test_of_two_f_measures_reproduces_tafvizi_table_b8() -> None:
    # Table B.8 (Mega vs Multi, Authentic Challenge); n = test-set tokens of Table 5.1
    mega = {"Patients": 0.97517, "Doctors": 0.96467, "Non-PHI": 0.99726}
    multi = {"Patients": 0.0, "Doctors": 0.98332, "Non-PHI": 0.99883}
    n = {"Patients": 402, "Doctors": 2097, "Non-PHI": 133623}
    z = {c: z_test_proportions(mega[c], n[c], multi[c], n[c]) for c in mega}
    assert abs(z["Patients"][0]) == pytest.approx(27.65936, abs=1e-3)
    assert abs(z["Doctors"][0]) == pytest.approx(3.79451, abs=1e-3)
    assert abs(z["Non-PHI"][0]) == pytest.approx(9.18706, abs=2e-3)
    assert z["Patients"][1] < 1e-10


def test_randomization_and_bootstrap_of_two_sets_of_documents() -> None:
    from bench.score.significance import (
        STATISTICS,
        share_at_least,
        share_at_most,
        unpaired_bootstrap,
        unpaired_randomization,
    )

    good = np.tile([9.0, 1.0, 0.0], (40, 1))
    bad = np.tile([6.0, 1.0, 3.0], (25, 1))
    diff, p = unpaired_randomization(good, bad, n_shuffles=999, statistic="recall")
    assert diff == pytest.approx(1 - 6 / 9) and p == pytest.approx(1 / 1000)
    assert unpaired_randomization(good, good.copy(), n_shuffles=200)[1] == 1.0
    f1 = STATISTICS["f1"]
    observed, reps = unpaired_bootstrap(good, bad, lambda a, b: f1(a) - f1(b), n_resamples=300)
    assert observed == pytest.approx(f1(good.sum(0)) - f1(bad.sum(0))) and len(reps) == 300
    # identical notes: every resample gives the same difference
    assert np.allclose(reps, observed)
    assert share_at_most(reps, 0.0) == pytest.approx(1 / 301)
    assert share_at_least(reps, 0.0) == 1.0

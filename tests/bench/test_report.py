"""report.md pieces, plots, and the transcribed published figures."""

from __future__ import annotations

import math
import re

import pandas as pd
import pytest

from bench import paper_figures, report
from bench.outputs import run_info
from bench.runner import RunConfig, run
from corpora.model import Corpus
from tests.bench.toy import make_corpus


def _frame(rows):
    cols = ["system", "corpus", "protocol", "level", "subset", "label", "tp", "fp", "fn"]
    cols += ["precision", "recall", "f1", "f1_ci_low", "f1_ci_high", "match"]
    return pd.DataFrame([{**dict.fromkeys(cols, ""), **r} for r in rows], columns=cols)


def _score(system, label, p, r, f, subset="all"):
    return dict(
        system=system,
        corpus="c",
        level="token",
        subset=subset,
        label=label,
        tp=1,
        fp=0,
        fn=0,
        precision=p,
        recall=r,
        f1=f,
        f1_ci_low=f - 0.01,
        f1_ci_high=min(1.0, f + 0.01),
    )


def test_headline_table_bolds_best_and_marks_significant_differences() -> None:
    df = _frame(
        [
            _score("a", "PHI", 0.90, 0.80, 0.847),
            _score("b", "PHI", 0.95, 0.70, 0.806),
            _score("c", "PHI", 0.85, 0.84, 0.845),
            _score("a", "non-PHI", 0.99, 0.99, 0.99),
            _score("b", "non-PHI", 0.98, 0.995, 0.987),
            _score("c", "non-PHI", 0.97, 0.98, 0.975),
        ]
    )
    sig = pd.DataFrame(
        [
            dict(
                corpus="c",
                system_a="a",
                system_b="b",
                test=report.MARK_TEST,
                statistic=0.04,
                p_value=0.001,
                subset="all",
            ),
            dict(
                corpus="c",
                system_a="a",
                system_b="c",
                test=report.MARK_TEST,
                statistic=0.002,
                p_value=0.6,
                subset="all",
            ),
        ]
    )
    table = report.headline_table(df, sig, "c", ["a", "b", "c"], "all", 0.05)
    lines = {tuple(c.strip() for c in line.strip("|").split("|")) for line in table.splitlines()}
    assert ("a", "PHI", "90.0", "**80.0**"[:0] + "80.0", "**84.7**", "83.7–85.7") in lines
    assert ("b", "PHI", "**95.0**", "70.0", "80.6 *", "79.6–81.6") in lines
    assert ("c", "PHI", "85.0", "**84.0**", "84.5", "83.5–85.5") in lines
    assert any(r[:2] == ("b", "non-PHI") and r[3] == "**99.5**" for r in lines)


def test_published_figures_are_consistent_with_f_measure() -> None:
    """Transcription check: F = 2PR/(P+R) within rounding for every P/R/F row.

    One row is inconsistent in the paper itself (Table 7, IdentiFinder non-PHI: 95.0 / 86.5
    printed with F 90.1, where 2PR/(P+R) = 90.6); we keep the printed value.
    """
    for row in paper_figures.PUBLISHED:
        if row.precision is None or row.recall is None or row.f1 is None:
            continue
        if (row.table, row.paper_system, row.label) == ("Table 7", "IdentiFinder", "non-PHI"):
            continue
        p, r = row.precision, row.recall
        f = 0.0 if p + r == 0 else 2 * p * r / (p + r)
        assert math.isclose(f, row.f1, abs_tol=0.2), row


def test_published_rows_for_each_embedded_corpus() -> None:
    for corpus in ("authentic", "surrogate", "ambiguous", "unseen"):
        rows = paper_figures.published_for(corpus)
        assert {"svm", "heuristic", "hmm"} <= {r.our_system for r in rows}
    table4 = [r for r in paper_figures.published_for("authentic") if r.table == "Table 4"]
    svm_phi = next(r for r in table4 if r.our_system == "svm" and r.label == "PHI")
    assert (svm_phi.precision, svm_phi.recall, svm_phi.f1) == (97.5, 95.0, 96.2)
    assert paper_figures.published_for("ambiguous", "ambiguous")
    assert sum(paper_figures.SU06_TABLE1["surrogate"].values()) == 20656


def test_distribution_table_counts_words_per_class() -> None:
    table = report.distribution_table({"toy": make_corpus(4)})
    rows = {
        line.split("|")[1].strip(): line.split("|")[2].strip() for line in table.splitlines()[2:]
    }
    assert rows["PATIENT"] == "8" and rows["DATE"] == "4" and rows["Total"] == "104"


def test_full_report_and_plots(toy_systems, tmp_path) -> None:
    result = run(
        RunConfig(
            systems=["toy-capitals,toy-memory,toy-people"],
            corpora=["toy"],
            folds=3,
            show_progress=False,
            n_resamples=50,
            n_shuffles=50,
            protocol="learning-curve",
            fractions=(0.5, 1.0),
        ),
        {"toy": make_corpus(9)},
    )
    plots = report.write_plots(result, tmp_path)
    assert set(plots) == {"f1_ci", "learning_curve"}
    for path in plots.values():
        assert path.read_bytes().startswith(b"\x89PNG")
    info = run_info(result, ["python", "-m", "bench", "learning-curve"])
    text = report.render_report(result, info, {k: p.name for k, p in plots.items()})
    for heading in (
        "## How this was produced",
        "### PHI and non-PHI (all categories)",
        "### People, locations and organizations only",
        "### F-measure per category",
        "### Entity level",
        "## Learning curve",
        "## Corpora: words per class",
        "![Learning curve](learning_curve.png)",
    ):
        assert heading in text, heading
    assert "`python -m bench learning-curve`" in text and "Seed: 0" in text


def test_precision_recall_plots_are_named_by_corpus_not_by_its_path(toy_systems, tmp_path) -> None:
    relative, absolute = "physionet:../shared/corpora/deid", "physionet:/data/corpora/deid"
    result = run(
        RunConfig(
            systems=["toy-scoring"],
            corpora=[relative],
            folds=3,
            show_progress=False,
            n_resamples=50,
            n_shuffles=50,
        ),
        {relative: Corpus(relative, make_corpus(9).documents)},
    )
    plots = report.write_plots(result, tmp_path)
    assert plots[f"pr:{relative}"].name == "pr_physionet_deid.png"
    assert plots[f"pr:{relative}"].read_bytes().startswith(b"\x89PNG")
    info = run_info(result, ["python", "-m", "bench", "run"])
    text = report.render_report(result, info, {k: p.name for k, p in plots.items()})
    assert f"![Precision-recall curves on {relative}](pr_physionet_deid.png)" in text
    # the same corpus by another path: the same name; two corpora in one run never share one
    assert report.plot_stems([absolute]) == {absolute: "pr_physionet_deid"}
    stems = report.plot_stems([relative, absolute, f"unseen:{relative}"])
    assert stems[relative] == "pr_physionet_deid" and stems[absolute] == "pr_physionet_deid_2"
    assert stems[f"unseen:{relative}"] == "pr_unseen_physionet_deid"


@pytest.mark.parametrize("value", [float("nan"), None])
def test_missing_values_render_empty(value) -> None:
    assert report._pct(value) == ""


def test_every_builtin_system_states_its_departures_from_the_source() -> None:
    from bench.paper_figures import DEPARTURES
    from systems.base import available_systems

    builtin = {n for n, cls in available_systems().items() if cls.__module__.startswith("systems.")}
    assert builtin <= set(DEPARTURES), builtin - set(DEPARTURES)
    assert all(len(text) > 20 for text in DEPARTURES.values())


def _ar(a: str, b: str, p: float) -> dict:
    return dict(
        corpus="c",
        system_a=a,
        system_b=b,
        test=report.MARK_TEST,
        statistic=0.1,
        p_value=p,
        subset="all",
    )


def test_marks_against_the_best_are_holm_corrected() -> None:
    df = _frame(
        [
            _score("best", "PHI", 0.9, 0.9, 0.90),
            _score("b", "PHI", 0.9, 0.8, 0.85),
            _score("c", "PHI", 0.9, 0.7, 0.80),
        ]
    )
    # both below 0.05 uncorrected, neither below 0.05 / 2: Holm marks neither
    sig = pd.DataFrame([_ar("best", "b", 0.04), _ar("c", "best", 0.03)])
    table = report.headline_table(df, sig, "c", ["best", "b", "c"], "all", 0.05)
    assert not re.search(r"\d \*", table)
    # 0.01 < 0.025 and then 0.04 < 0.05: both marked
    sig = pd.DataFrame([_ar("best", "b", 0.04), _ar("c", "best", 0.01)])
    table = report.headline_table(df, sig, "c", ["best", "b", "c"], "all", 0.05)
    assert "85.0 *" in table and "80.0 *" in table
    marked = report.significant_vs_best(sig, "c", "all", "best", ["best", "b", "c"], 0.01)
    assert marked == {"b": False, "c": False}


def _quick_run(systems: str, n_documents: int, folds: int):
    """A cross-validated run of ``systems`` on the toy corpus, few resamples (fast)."""
    return run(
        RunConfig(
            systems=[systems],
            corpora=["toy"],
            folds=folds,
            show_progress=False,
            n_resamples=20,
            n_shuffles=20,
        ),
        {"toy": make_corpus(n_documents)},
    )


def test_a_partially_scored_system_is_left_out_of_other_categories(toy_systems) -> None:
    result = _quick_run("toy-capitals,toy-people", 9, 3)
    table = report.category_table(
        result.results,
        "toy",
        ["toy-capitals", "toy-people"],
        {"toy-people": ["PATIENT", "DOCTOR", "LOCATION", "HOSPITAL"]},
    )
    rows = {
        cells[0]: cells
        for line in table.splitlines()[2:]
        for cells in [[c.strip() for c in line.strip("|").split("|")]]
    }
    header = [c.strip() for c in table.splitlines()[0].strip("|").split("|")]
    date = header.index("DATE")
    assert rows["toy-capitals"][date] != "" and rows["toy-people"][date] == ""
    assert rows["toy-people"][header.index("PATIENT")] != ""
    info = run_info(result, ["python", "-m", "bench", "run"])
    text = report.render_report(result, info)
    entity = text.split("### Entity level (binary PHI)")[1].split("\n#")[0]
    assert "| toy-people" not in entity and "| toy-capitals" in entity
    assert "Holm" in text


def test_an_aliased_system_keeps_its_sources_departures() -> None:
    """``svm-mc=svm`` is the paper's SVM run with other parameters: the same departures."""
    from bench.paper_figures import DEPARTURES

    result = _quick_run("heuristic,rules=heuristic", 4, 2)
    assert result.systems["rules"]["registered"] == "heuristic"
    text = report.render_report(result, run_info(result, ["python", "-m", "bench", "run"]))
    rows = [line for line in text.splitlines() if line.startswith("| rules ")]
    assert rows and DEPARTURES["heuristic"] in rows[0]


def test_thesis_figures_are_rounded_once_when_shown() -> None:
    """Issue 27's display slips: each came from rounding to two decimals, then to one."""
    t = paper_figures.t11_table
    assert f"{t('Table A.15')['ID'][2]:.1f}" == "99.3"  # B.8, Multi's IDs: 0.99252
    assert f"{t('Table A.13')['LOCATION'][1]:.1f}" == "16.7"  # A.13 recall: 0.16748
    assert f"{t('Table A.11')['HOSPITAL'][2]:.1f}" == "95.3"  # B.5, B.6: 0.95253
    mega_ids = [p for p in paper_figures.PUBLISHED if p.table == "Table A.1" and p.label == "ID"]
    assert mega_ids[0].f1 == pytest.approx(99.582)  # stored unrounded

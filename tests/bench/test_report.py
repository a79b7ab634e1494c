"""report.md pieces, plots, and the transcribed published figures."""

from __future__ import annotations

import math
import re

import pandas as pd
import pytest

from bench.report import render as report
from bench.report.markdown import pct
from bench.report.outputs import run_info
from bench.report.render import PLO
from bench.reproduce import paper_figures
from bench.run.runner import RunConfig, run
from corpora.model import LABELS, Corpus
from systems.base import register, unregister
from tests.bench import toy
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
    assert pct(value) == ""


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
    from systems.heuristic import HeuristicDeidentifier

    result = _quick_run("heuristic,rules=heuristic", 4, 2)
    assert result.systems["rules"]["registered"] == "heuristic"
    text = report.render_report(result, run_info(result, ["python", "-m", "bench", "run"]))
    rows = [line for line in _systems_table(text) if line.startswith("| rules ")]
    assert rows and HeuristicDeidentifier.departures in rows[0]


def _systems_table(text: str) -> list[str]:
    """The lines of the report's *Systems* section (the summary above names systems too)."""
    return text.split("\n## Systems\n")[1].split("\n## ")[0].splitlines()


def _render(result) -> str:
    return report.render_report(result, run_info(result, ["python", "-m", "bench", "run"]))


class _Compared(toy.CapitalizedSystem):
    """A system of some paper that compared it on everything but IDs, with departures."""

    name = "toy-compared"
    description = "test fixture: compared without IDs"
    citation = "Nobody et al. 1999"
    departures = "the toy stands in for nobody's program, which is lost"
    compared_on = ("no_id",)


def test_the_report_reads_each_systems_facts_from_the_system(toy_systems) -> None:
    """Departures and the subsets a source compared its system on are declared on the
    class: a new system needs no edit of the report or of a table of names."""
    title = "### Everything but IDs (the IdentiFinder comparison)"
    without = _render(_quick_run("toy-capitals,toy-memory", 6, 2))
    assert title not in without
    register(_Compared)
    try:
        result = _quick_run("toy-capitals,c=toy-compared", 6, 2)
    finally:
        unregister(_Compared.name)
    assert result.systems["c"]["departures"] == _Compared.departures
    assert result.systems["c"]["citation"] == "Nobody et al. 1999"
    text = _render(result)
    rows = [line for line in _systems_table(text) if line.startswith("| c ")]
    assert rows and _Compared.departures in rows[0]
    section = text.split(title)[1].split("\n#")[0]  # every system, on the declared subset
    assert "| toy-capitals" in section and "| c " in section


# --------------------------------------------------------------------------- the summary


def _summary(text: str) -> str:
    """The report's summary: from its heading to the first detail section."""
    start = text.index("## Summary\n")
    return text[start : text.index("\n## How this was produced")]


def _table_rows(markdown: str) -> dict[str, list[str]]:
    """The first Markdown table of ``markdown``, by the text of each row's first cell."""
    lines = [line for line in markdown.splitlines() if line.startswith("|")]
    cells = [[c.strip() for c in line.strip("|").split("|")] for line in lines]
    return {row[0]: row[1:] for row in [cells[0], *cells[2:]]}


def test_the_report_opens_with_a_summary_of_the_run(toy_systems) -> None:
    result = _quick_run("toy-capitals,toy-memory,toy-people,toy-broken,toy-unavailable", 9, 3)
    text = _render(result)
    assert text.startswith("# deid-bench report\n\n## Summary\n")
    summary = _summary(text)
    assert len(summary.splitlines()) <= 50  # one screen

    # the table: every scored system's PHI P / R / F on its headline subset, marked as the
    # detailed tables mark it
    rows = _table_rows(summary)
    assert rows["System"] == ["`toy`"]
    assert set(rows) == {"System", "toy-capitals", "toy-memory", "toy-people"}
    df = result.results
    details = text.split("## Corpus `toy`")[1]
    for system in ("toy-capitals", "toy-memory", "toy-people"):
        subset = result.systems[system]["headline_subset"]
        r = df[
            (df.system == system)
            & (df.level == "token")
            & (df.subset == subset)
            & (df.label == "PHI")
        ].iloc[0]
        prf = " / ".join(pct(r[m]) for m in ("precision", "recall", "f1"))
        table = details.split("### People" if subset == PLO else "### PHI and non-PHI")[1]
        marked = re.search(rf"\| {system}\s+\| PHI[^\n]*\d \*", table) is not None
        assert rows[system] == [prf + (" *" if marked else "")], system

    # which differences hold: the best system of the headline table, named with its F
    best = max(("toy-capitals", "toy-memory"), key=lambda s: _phi_f1(df, s))
    assert f"`{best}` has the highest PHI F ({pct(_phi_f1(df, best))})" in summary

    # where each system fails most: its lowest-F category among those with gold tokens
    # (enough of them where some category has; ties: the lower recall, then label order)
    cats = df[
        (df.system == "toy-capitals")
        & (df.level == "token")
        & (df.subset == "all")
        & df.label.isin(LABELS)
        & ((df.tp + df.fn) > 0)
    ]
    if ((cats.tp + cats.fn) >= report.MIN_GOLD_TOKENS).any():
        cats = cats[(cats.tp + cats.fn) >= report.MIN_GOLD_TOKENS]
    w = min(cats.itertuples(), key=lambda r: (r.f1, r.recall, LABELS.index(r.label)))
    line = f"- `toy-capitals`: {w.label} (F {pct(w.f1)}, R {pct(w.recall)})"
    assert line in summary.splitlines()
    assert "- `toy-people`: " in summary  # only its own categories
    people = next(x for x in summary.splitlines() if x.startswith("- `toy-people`: "))
    assert people.split(": ")[1].split(" ")[0] in toy.PeopleOnlySystem.evaluated_labels

    # a failed and a not-run system are named, with links to why
    assert "Failed: `toy-broken` ([Failures](#failures))" in summary
    assert "Not run: `toy-unavailable` ([Not run here](#not-run-here))" in summary

    # links: every anchor is a heading of the report, each corpus and each detail section
    # is linked, and the details are all there below
    anchors = {h.anchor for h in report.headings(text.splitlines())}
    links = re.findall(r"\]\(#([^)]+)\)", summary)
    assert links and set(links) <= anchors
    assert "[`toy`](#corpus-toy)" in summary and "[`toy`](#f-measure-per-category)" in summary
    for heading in re.findall(r"^## (.+)$", text.split("\n## How this was produced")[1], re.M):
        assert f"[{heading}](#" in summary, heading
    for heading in ("## How this was produced", "## Systems", "## Corpus `toy`", "## Time"):
        assert text.index(heading) > text.index("## Summary"), heading


def _phi_f1(df: pd.DataFrame, system: str) -> float:
    sel = df[(df.system == system) & (df.level == "token") & (df.subset == "all")]
    return float(sel[sel.label == "PHI"].iloc[0].f1)


def test_anchors_are_the_ones_a_markdown_viewer_makes() -> None:
    found = report.headings(
        [
            "## Corpus `evaluation:physionet:../x/physionet-deid`",
            "### F-measure per category",
            "| not # a heading |",
            "## Corpus `unseen`",
            "### F-measure per category",
            "## Chosen inside the training folds (`--tune`)",
            "#not a heading either",
        ],
        taken=["deid-bench report", "Summary"],
    )
    assert [h.anchor for h in found] == [
        "corpus-evaluationphysionetxphysionet-deid",
        "f-measure-per-category",
        "corpus-unseen",
        "f-measure-per-category-1",
        "chosen-inside-the-training-folds---tune",
    ]
    assert report.headings(["## Summary"], taken=["Summary"])[0].anchor == "summary-1"


@pytest.mark.parametrize(
    ("marked", "says"),
    [
        (
            {"b": True, "c": True},
            "`a` has the highest PHI F (90.0), significantly above the runner-up `b` (85.0)"
            " and every other system.",
        ),
        (
            {"b": False, "c": True},
            "`a` has the highest PHI F (90.0), not significantly above the runner-up `b`"
            " (85.0); significantly above the other 1 system.",
        ),
        (
            {"b": True, "c": False},
            "`a` has the highest PHI F (90.0), significantly above the runner-up `b` (85.0);"
            " not significantly above `c` (80.0).",
        ),
        (
            {"b": True},
            "`a` has the highest PHI F (90.0), significantly above the runner-up `b` (85.0);"
            " not tested against `c` (80.0).",
        ),
    ],
)
def test_which_differences_hold_is_said_from_the_marks(marked, says) -> None:
    ranking = report.Ranking("a", {"a": 0.9, "c": 0.8, "b": 0.85}, marked)
    assert report.difference_sentence(ranking) == says
    alone = report.Ranking("a", {"a": 0.9}, {})
    assert report.difference_sentence(alone).endswith("; no other system has scores.")


def test_the_weakest_category_has_gold_tokens_and_is_scored() -> None:
    def category(label: str, f: float, gold: int) -> dict:
        return {**_score("s", label, f, f, f), "corpus": "c", "tp": gold, "fn": 0, "fp": 1}

    df = _frame(
        [
            category("PATIENT", 0.8, 5),
            category("DATE", 0.6, 5),
            category("ID", 0.4, 5),
            category("OTHER", 0.0, 0),  # predicted, but no gold OTHER: not a weakness
        ]
    )
    assert report.weakest_category(df, "c", "s").label == "ID"
    assert report.weakest_category(df, "c", "s", ["PATIENT", "DATE"]).label == "DATE"
    assert report.weakest_category(df, "c", "t") is None
    # with categories of some size, one of a single gold token is not named
    df = _frame(
        [
            category("PATIENT", 0.8, 50),
            category("DATE", 0.6, 40),
            category("OTHER", 0.0, 1),
        ]
    )
    assert report.weakest_category(df, "c", "s").label == "DATE"


def test_thesis_figures_are_rounded_once_when_shown() -> None:
    """Issue 27's display slips: each came from rounding to two decimals, then to one."""
    t = paper_figures.t11_table
    assert f"{t('Table A.15')['ID'][2]:.1f}" == "99.3"  # B.8, Multi's IDs: 0.99252
    assert f"{t('Table A.13')['LOCATION'][1]:.1f}" == "16.7"  # A.13 recall: 0.16748
    assert f"{t('Table A.11')['HOSPITAL'][2]:.1f}" == "95.3"  # B.5, B.6: 0.95253
    mega_ids = [p for p in paper_figures.PUBLISHED if p.table == "Table A.1" and p.label == "ID"]
    assert mega_ids[0].f1 == pytest.approx(99.582)  # stored unrounded

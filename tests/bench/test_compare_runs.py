"""``documents.csv`` (each scored note's counts, no PHI) and ``python -m bench compare``:
the paired test of two runs on the notes both scored."""

from __future__ import annotations

import pandas as pd
import pytest

from bench.cli import main
from bench.report.documents import compare, read_counts, render
from bench.report.outputs import write_outputs
from bench.run.runner import RunConfig, run
from tests.bench.toy import make_corpus


def _run(tmp_path, name: str, systems: str, n: int = 12) -> pd.DataFrame:
    config = RunConfig(
        systems=[systems],
        corpora=["toy"],
        folds=3,
        show_progress=False,
        n_resamples=0,
        n_shuffles=100,
    )
    result = run(config, {"toy": make_corpus(n)})
    paths = write_outputs(result, tmp_path / name, ["python", "-m", "bench", "run"])
    counts = read_counts(paths["documents"].parent)
    results = result.results
    for system in ("toy-memory", "toy-capitals"):
        if system not in set(counts.system):
            continue
        row = results[
            (results.system == system)
            & (results.level == "token")
            & (results.subset == "all")
            & (results.label == "PHI")
        ].iloc[0]
        sums = counts[counts.system == system][["tp", "fp", "fn"]].sum()
        assert (sums.tp, sums.fp, sums.fn) == (row.tp, row.fp, row.fn)  # the report's F
    return counts


def test_documents_csv_holds_each_notes_counts_and_no_text(toy_systems, tmp_path) -> None:
    counts = _run(tmp_path, "a", "toy-memory,toy-capitals")
    assert list(counts.columns) == ["system", "corpus", "note", "tp", "fp", "fn"]
    assert len(counts) == 2 * 12
    corpus = make_corpus(12)
    written = (tmp_path / "a" / "documents.csv").read_text()
    for doc in corpus.documents:
        assert doc.id not in written
        assert not any(len(w) > 3 and w in written for w in doc.text.split())


def test_compare_pairs_the_notes_and_tests_each_system(toy_systems, tmp_path) -> None:
    """The same run twice: no difference (p = 1); one system swapped for another under the
    same name: a paired difference, starred when significant."""
    a = _run(tmp_path, "a", "toy-memory,toy-capitals")
    b = _run(tmp_path, "b", "toy-memory,toy-capitals")
    same = compare(a, b, n_shuffles=200)
    assert (same.difference == 0).all() and (same.p_value == 1).all()
    assert (same.notes == 12).all() and (same.only_before == 0).all()
    swapped = b.copy()
    caps = swapped.system == "toy-capitals"
    swapped.loc[caps, ["tp", "fp", "fn"]] = b.loc[
        swapped.system == "toy-memory", ["tp", "fp", "fn"]
    ].to_numpy()
    table = compare(a, swapped, n_shuffles=200).set_index("system")
    mem = a[a.system == "toy-memory"][["tp", "fp", "fn"]].sum()
    cap = a[a.system == "toy-capitals"][["tp", "fp", "fn"]].sum()
    f = lambda c: 2 * c.tp / (2 * c.tp + c.fp + c.fn)  # noqa: E731
    assert table.loc["toy-capitals", "difference"] == pytest.approx(f(mem) - f(cap))
    assert table.loc["toy-memory", "difference"] == 0
    assert "paired notes" in render(table.reset_index(), "a", "b")


def test_notes_only_one_run_scored_are_counted_not_paired(toy_systems, tmp_path) -> None:
    a = _run(tmp_path, "a", "toy-memory", n=12)
    b = _run(tmp_path, "b", "toy-memory", n=9)
    row = compare(a, b, n_shuffles=50).iloc[0]
    assert (row.notes, row.only_before, row.only_after) == (9, 3, 0)


def test_compare_cli_refuses_a_report_without_counts(toy_systems, tmp_path, capsys) -> None:
    _run(tmp_path, "a", "toy-memory")
    (tmp_path / "old").mkdir()
    code = main(["compare", str(tmp_path / "old"), str(tmp_path / "a")])
    assert code == 2 and "no documents.csv" in capsys.readouterr().err
    assert main(["compare", str(tmp_path / "a"), str(tmp_path / "a"), "--shuffles", "50"]) == 0
    assert "toy-memory" in capsys.readouterr().out


def test_compare_cli_refuses_two_reports_with_nothing_in_common(
    toy_systems, tmp_path, capsys
) -> None:
    """A comparison with no paired note is no comparison: exit 2, not a table of nothing
    with exit 0 that a script would read as "no difference"."""
    _run(tmp_path, "a", "toy-memory")
    _run(tmp_path, "b", "toy-capitals")
    assert main(["compare", str(tmp_path / "a"), str(tmp_path / "b"), "--shuffles", "50"]) == 2
    assert "share no (system, corpus)" in capsys.readouterr().err
    other = read_counts(tmp_path / "a")
    other["note"] = other["note"] + "-elsewhere"
    other.to_csv(tmp_path / "elsewhere.csv", index=False)
    code = main(["compare", str(tmp_path / "a"), str(tmp_path / "elsewhere.csv")])
    assert code == 2 and "but no scored note" in capsys.readouterr().err

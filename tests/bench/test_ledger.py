"""The selection ledger: every (configuration, test notes) pair scored, counted before each
run, identified by texts, owner-only, safe under concurrent runs, shown by `bench ledger`."""

from __future__ import annotations

import json
import multiprocessing
import os
import stat

import pytest

from bench.cli import main
from bench.report import ledger
from bench.report.outputs import write_outputs
from bench.run.runner import RunConfig, run
from corpora.model import Corpus, Document
from tests.bench.toy import make_corpus

FAST = dict(folds=3, show_progress=False, n_resamples=0, n_shuffles=50)


def _run(corpus: Corpus, systems: str = "toy-memory,toy-capitals", **kw):
    config = RunConfig(systems=[systems], corpora=["toy"], **{**FAST, **kw})
    return run(config, {"toy": corpus})


def _counts(result) -> dict:
    return result.ledger["corpora"]["toy"]


def test_configurations_scored_before_are_counted(toy_systems) -> None:
    corpus = make_corpus(12)
    first = _counts(_run(corpus))
    assert first["before"] == 0 and first["n_notes"] == 12
    assert [t["scored_before"] for t in first["this_run"]] == [False, False]
    # what does not change the scores is not another configuration
    again = _counts(_run(corpus, n_shuffles=20, alpha=0.01, jobs=2, backend="sequential"))
    assert again["before"] == 2 and again["runs_before"] == 1
    assert [t["scored_before"] for t in again["this_run"]] == [True, True]
    assert {c["times"] for c in again["configurations"]} == {1}
    # a parameter, or a seed that moves notes between folds, is another configuration
    other = _run(corpus, system_params={"toy-memory": {"min_count": 2}})
    assert _counts(other)["before"] == 2
    assert [t["scored_before"] for t in _counts(other)["this_run"]] == [False, True]
    reseeded = _counts(_run(corpus, seed=5, folds=4))
    assert reseeded["before"] == 3
    # the learned system is another configuration; the rules label each note alone
    assert [t["scored_before"] for t in reseeded["this_run"]] == [False, True]
    described = {c["description"] for c in reseeded["configurations"]}
    assert any(d.startswith("toy-memory; min_count=2;") for d in described)


def test_notes_are_known_by_their_texts_not_their_ids(toy_systems) -> None:
    corpus = make_corpus(9)
    _run(corpus)
    renamed = Corpus(
        "copy",
        tuple(
            Document(f"renamed-{i}", "  " + d.text.upper(), (), d.marks, {})
            for i, d in enumerate(corpus.documents)
        ),
    )
    keys = ledger.note_keys(renamed.documents)
    assert ledger.notes_fingerprint(keys) == ledger.notes_fingerprint(
        ledger.note_keys(corpus.documents)
    )
    again = _counts(_run(Corpus("toy", corpus.documents[::-1])))
    assert again["before"] == 2  # the same notes, in another order


def test_sets_sharing_notes_are_counted_apart(toy_systems) -> None:
    corpus = make_corpus(12)
    _run(corpus)
    part = _counts(_run(Corpus("toy", corpus.documents[:9]), systems="toy-capitals"))
    assert part["before"] == 0 and part["on_sets_sharing_notes"] == 2  # both, on 12 notes
    elsewhere = _counts(_run(Corpus("toy", make_corpus(24).documents[12:])))
    assert elsewhere["on_sets_sharing_notes"] == 0


def test_owner_only_files_and_no_note_text(toy_systems) -> None:
    corpus = make_corpus(9)
    old = os.umask(0)
    try:
        result = _run(corpus)
    finally:
        os.umask(old)
    path = ledger.ledger_path()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    sets = list((path.parent / ledger.SETS_DIR).iterdir())
    assert sets and all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in sets)
    text = path.read_text() + "".join(p.read_text() for p in sets)
    words = {w for d in corpus for s in d.spans for w in d.span_text(s).split()}
    assert not [w for w in words if w in text]
    entries, bad = ledger.read_entries()
    assert bad == 0 and {e["run_id"] for e in entries} == {result.run_id}
    assert {e["system"] for e in entries} == {"toy-memory", "toy-capitals"}


def test_an_unwritable_ledger_leaves_the_run_and_says_so(toy_systems, tmp_path) -> None:
    ledger.ledger_path().mkdir(parents=True)  # a directory where the file should be
    result = _run(make_corpus(9))
    assert result.ledger["recorded"] is False and result.ledger["not_recorded"]
    assert result.ledger["read_error"]
    assert not result.results.empty
    paths = write_outputs(result, tmp_path / "out", ["python", "-m", "bench", "run"])
    report = paths["report"].read_text()
    assert "**This run was not recorded**" in report
    assert "not a measured 0" in report
    assert json.loads(paths["run"].read_text())["ledger"]["recorded"] is False


def test_no_cache_still_records(toy_systems, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("DEID_BENCH_NO_CACHE", "1")
    corpus = make_corpus(9)
    _run(corpus)
    result = _run(corpus)
    assert result.ledger["recorded"] and _counts(result)["before"] == 2
    paths = write_outputs(result, tmp_path / "out", ["python", "-m", "bench", "run"])
    report = paths["report"].read_text()
    assert "`--no-cache` recomputes results; it does not skip the ledger" in report
    row = next(line for line in report.splitlines() if line.startswith("| toy "))
    assert [c.strip() for c in row.split("|")[1:4]] == ["toy", "9", "2"]


def _append_many(args: tuple[str, int]) -> None:
    tag, n = args
    for i in range(n):
        line = {"notes": "n", "configuration": f"{tag}-{i}", "padding": "x" * 20_000}
        ledger.append_entries([line], {})


def test_concurrent_runs_never_interleave_lines() -> None:
    ledger.append_entries([], {})
    with multiprocessing.get_context("fork").Pool(4) as pool:
        pool.map(_append_many, [(f"p{k}", 25) for k in range(4)])
    entries, bad = ledger.read_entries()
    assert bad == 0 and len(entries) == 100
    assert len({e["configuration"] for e in entries}) == 100


def test_a_broken_line_is_skipped_and_counted(toy_systems) -> None:
    _run(make_corpus(9))
    with ledger.ledger_path().open("a") as fh:
        fh.write('{"notes": "half a line\n[1, 2]\n')
    entries, bad = ledger.read_entries()
    assert len(entries) == 2 and bad == 2
    assert _run(make_corpus(9)).ledger["unreadable_lines"] == 2


def test_the_ledger_command_prints_the_history(toy_systems, capsys) -> None:
    corpus = make_corpus(9)
    _run(corpus)
    _run(corpus, system_params={"toy-memory": {"min_count": 2}})
    capsys.readouterr()
    assert main(["ledger"]) == 0
    out = capsys.readouterr().out
    assert "9 notes" in out and "scored as toy: 3 configurations in 2 runs" in out
    assert "toy-memory; min_count=2" in out
    assert main(["ledger", "--json"]) == 0
    history = json.loads(capsys.readouterr().out)
    assert len(history) == 1 and len(history[0]["configurations"]) == 3
    assert main(["ledger", "--corpus", "no-such-corpus", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []


@pytest.mark.parametrize("value", [{"b": 1, "a": {2, 1}}, [1.0, float("nan")], Corpus])
def test_plain_is_stable_json(value) -> None:
    text = json.dumps(ledger._plain(value), sort_keys=True)
    assert text == json.dumps(ledger._plain(value), sort_keys=True)
    assert "0x" not in text

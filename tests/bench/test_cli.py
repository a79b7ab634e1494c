"""The command line: help everywhere, listing, Table 1, runs, exit codes, one-line errors."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from bench.cli import build_parser, main
from corpora.readers.jsonl import write_jsonl
from tests.bench.toy import make_corpus

ROOT = Path(__file__).resolve().parents[2]
FAST = ["--folds", "3", "--quiet", "--resamples", "50", "--shuffles", "50"]


@pytest.fixture
def toy_jsonl(tmp_path) -> Path:
    path = tmp_path / "toy.jsonl"
    write_jsonl(make_corpus(9), path)
    return path


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["list"],
        ["corpus"],
        ["corpus", "stats"],
        ["run"],
        ["learning-curve"],
        ["ablation"],
        ["infogain"],
        ["kernels"],
        ["ledger"],
    ],
)
def test_help_on_every_subcommand(argv, capsys) -> None:
    assert main([*argv, "--help"]) == 0
    assert "usage:" in capsys.readouterr().out


def test_run_options_are_the_contract() -> None:
    run = build_parser()._subparsers._group_actions[0].choices["run"]  # type: ignore[union-attr]
    options = {o for a in run._actions for o in a.option_strings}
    assert {
        "--systems",
        "--corpora",
        "--folds",
        "--seed",
        "--out",
        "--lenient",
        "--dictionaries",
        "--n-documents",
        "--jobs",
        "--backend",
        "--scheduler",
        "--errors",
        "--quiet",
    } <= options


def test_list_names_systems_and_corpora_but_not_test_fixtures(capsys) -> None:
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for corpus in ("authentic", "surrogate", "ambiguous", "unseen", "physionet:PATH"):
        assert corpus in out
    assert "toy-" not in out


def test_list_reads_every_description_from_its_registry(capsys) -> None:
    from corpora.load import READERS, VARIANTS
    from systems.features.statdeid import ALL_FEATURES
    from systems.mega import MEGA_SOURCES

    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for registry in (READERS, VARIANTS, ALL_FEATURES, MEGA_SOURCES):
        for entry in registry.entries():
            assert entry.description in out, entry.name


def test_list_declares_what_tune_chooses_for_every_trained_system() -> None:
    """Each trained system's configuration space in one table: the grid at its defaults
    (read from ``search_space``, not restated), a preset's range of copies, and the choices
    an opt-in parameter adds; rule systems have none."""
    from bench.cli.listing import search_rows
    from systems.base import get_system

    rows = dict(search_rows())
    assert "heuristic" not in rows and "mimic" not in rows
    assert rows["svm"] == "C: 0.1, 0.5; class_weight: 2, 10, balanced; word_form: False, True"
    assert set(get_system("crf").search_space()) == {"c2", "max_iterations"}
    assert rows["crf"].startswith("c2: 0.001, 0.01, 0.1; max_iterations:")
    assert rows["mega"].endswith("--param mega.search=sources,two_stage: also sources, two_stage")
    assert "copies: unseen:1-3,surrogate" in rows["recommended"]
    assert rows["multi"].endswith("also stack_on, meta_features, bases")
    assert "bases: mega+mega-2+mimic, mega-2+mimic" in rows["mega-rules-stack"]


def test_corpus_stats_prints_a_markdown_table(toy_jsonl, capsys) -> None:
    assert main(["corpus", "stats", f"jsonl:{toy_jsonl}"]) == 0
    out = capsys.readouterr().out
    assert "|" in out and "PATIENT" in out and "DATE" in out
    # the paper's figures beside ours: Table 6's 4,849 ambiguous words, 22.0 % of them PHI
    assert "paper: 4,849 words, 22.0% PHI" in out and "| paper: re-identified |" in out


def test_run_writes_outputs_and_exit_code_reports_failure(toy_systems, toy_jsonl, tmp_path, capsys):
    out = tmp_path / "report"
    errors = tmp_path / "errors.tsv"
    argv = ["run", "--systems", "toy-capitals,toy-memory", "--corpora", f"jsonl:{toy_jsonl}"]
    argv += [*FAST, "--out", str(out), "--errors", str(errors)]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "toy-capitals" in captured.out and "report:" in captured.out
    for name in ("results.csv", "significance.csv", "run.json", "report.md", "f1_ci.png"):
        assert (out / name).exists(), name
    info = json.loads((out / "run.json").read_text())
    assert info["command"] == ["python", "-m", "bench", *argv]
    assert stat.S_IMODE(os.stat(errors).st_mode) == 0o600

    argv = ["run", "--systems", "toy-capitals,toy-broken", "--corpora", f"jsonl:{toy_jsonl}"]
    assert main([*argv, *FAST, "--out", str(tmp_path / "failed")]) == 1
    captured = capsys.readouterr()
    assert "FAILED" in captured.out and "failed: toy-broken" in captured.err
    assert "Traceback" not in captured.err


def test_tuned_run_records_its_inner_folds(toy_systems, toy_jsonl, tmp_path) -> None:
    out = tmp_path / "tuned"
    argv = ["run", "--systems", "toy-recording", "--corpora", f"jsonl:{toy_jsonl}", *FAST]
    assert main([*argv, "--tune", "--inner-folds", "3", "--out", str(out)]) == 0
    info = json.loads((out / "run.json").read_text())
    assert (info["objective"], info["inner_folds"]) == ("f2", 3)
    assert "3 inner folds" in (out / "report.md").read_text()


def test_lenient_skips_bad_records_and_counts_them(toy_systems, toy_jsonl, tmp_path, capsys):
    with toy_jsonl.open("a") as fh:
        fh.write("{not json\n")
    argv = ["run", "--systems", "toy-capitals", "--corpora", f"jsonl:{toy_jsonl}", *FAST]
    assert main([*argv, "--out", str(tmp_path / "strict")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "line 10" in err
    assert main([*argv, "--lenient", "--out", str(tmp_path / "lenient")]) == 0
    assert "skipped 1 bad record" in capsys.readouterr().err
    info = json.loads((tmp_path / "lenient" / "run.json").read_text())
    assert info["corpora"][f"jsonl:{toy_jsonl}"]["skipped_records"] == 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "--systems", "no-such-system", "--corpora", "jsonl:X"], "unknown system"),
        (["run", "--systems", "toy-capitals", "--corpora", "nowhere"], "unknown corpus"),
        (["run", "--systems", "toy-capitals", "--corpora", "jsonl:/no/such/file"], "error:"),
        (["run", "--systems", "toy-capitals", "--dictionaries", "/no/such/dir"], "not a directory"),
        (["run", "--folds", "many"], "not a whole number"),
        (["corpus", "stats", "bogus:path"], "unknown corpus kind"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(toy_systems, argv, message, capsys) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err and err.count("\n") == 1


def test_dask_without_scheduler_is_a_usage_error(toy_systems, toy_jsonl, tmp_path, capsys):
    argv = ["run", "--systems", "toy-capitals", "--corpora", f"jsonl:{toy_jsonl}", *FAST]
    assert main([*argv, "--backend", "dask", "--out", str(tmp_path / "d")]) == 2
    assert "--scheduler" in capsys.readouterr().err


def test_python_dash_m_bench_runs_as_a_program() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "bench", "run", "--folds", "x"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr


def test_bad_category_weight_is_a_usage_error(capsys) -> None:
    from bench.cli import main

    assert main(["corpus", "stats", "authentic", "--category-weight", "NAME=2"]) == 2
    err = capsys.readouterr().err
    assert "--category-weight 'NAME=2'" in err and "Traceback" not in err

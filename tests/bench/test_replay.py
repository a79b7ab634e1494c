"""``--config FILE``: a saved run.json or a TOML file replayed (bench/cli/replay.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.cli import build_parser, main
from bench.cli.replay import ConfigError, expand


def _run_json(path: Path, command: list[str]) -> Path:
    path.write_text(json.dumps({"command": command}), encoding="utf-8")
    return path


def test_a_run_json_replays_its_command_without_its_out(tmp_path: Path) -> None:
    saved = ["python", "-m", "bench", "run", "--systems", "svm,hmm", "--folds", "3"]
    saved += ["--out", "reports/x", "--param", "svm.C=0.5", "--seed", "7"]
    path = _run_json(tmp_path / "run.json", saved)
    argv = expand(["run", "--config", str(path), "--seed", "8"])
    assert argv == [
        "run",
        *["--systems", "svm,hmm", "--folds", "3", "--param", "svm.C=0.5", "--seed", "7"],
        *["--seed", "8"],
    ]
    args = build_parser().parse_args(argv)
    assert (args.systems, args.folds, args.seed, args.out) == ("svm,hmm", 3, 8, None)
    assert args.param == ["svm.C=0.5"]


def test_a_toml_file_gives_options_flags_lists_and_params(tmp_path: Path) -> None:
    path = tmp_path / "run.toml"
    path.write_text(
        """
[run]
systems = ["svm", "mega"]
folds = 4
tune = true
quiet = false
out = "ignored"

[run.param.svm]
C = 0.25
mode = "multiclass"
""",
        encoding="utf-8",
    )
    argv = expand(["run", f"--config={path}"])
    args = build_parser().parse_args(argv)
    assert (args.systems, args.folds, args.tune, args.quiet) == ("svm,mega", 4, True, False)
    assert sorted(args.param) == ["svm.C=0.25", "svm.mode='multiclass'"]
    assert args.out is None


@pytest.mark.parametrize(
    "content, name, says",
    [
        ("{}", "run.json", "not a run.json"),
        (json.dumps({"command": ["python", "-m", "bench", "ledger"]}), "run.json", "not `run`"),
        ("[run\n", "x.toml", "not valid TOML"),
        ("folds = 3\n", "x.toml", "[run] table"),
    ],
)
def test_a_file_that_cannot_be_replayed_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, name: str, says: str
) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ConfigError, match="--config"):
        expand(["run", "--config", str(path)])
    assert main(["run", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --config") and says in err and "Traceback" not in err


def test_a_missing_file_and_other_commands(tmp_path: Path) -> None:
    assert main(["run", "--config", str(tmp_path / "nope.json")]) == 2
    assert expand(["ledger", "--json"]) == ["ledger", "--json"]  # not replayable: untouched


def test_replaying_a_report_gives_its_results(tmp_path: Path) -> None:
    first, again = tmp_path / "first", tmp_path / "again"
    command = ["run", "--systems", "heuristic", "--corpora", "authentic", "--n-documents", "12"]
    assert main([*command, "--folds", "2", "--seed", "3", "--quiet", "--out", str(first)]) == 0
    assert main(["run", "--config", str(first / "run.json"), "--out", str(again)]) == 0
    assert (first / "results.csv").read_bytes() == (again / "results.csv").read_bytes()
    replayed = json.loads((again / "run.json").read_text(encoding="utf-8"))["command"]
    assert "--config" not in replayed and replayed[-2:] == ["--out", str(again)]
    assert json.loads((again / "run.json").read_text(encoding="utf-8"))["seed"] == 3

"""The README is a front door that stays true: short, its examples run as printed, its test
command is CI's, its result tables are the committed reports' figures, and every report a
document links to is in the repository."""

from __future__ import annotations

import csv
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
#: The issue that shrank the README set this bound: a front door a newcomer reads in full.
MAX_README_LINES = 250


def _section(path: Path, heading: str) -> str:
    """The text under ``heading`` (a whole heading line) up to the next heading of its level."""
    text = path.read_text(encoding="utf-8")
    level = heading.split(" ", 1)[0]
    start = text.index(f"\n{heading}\n")
    end = text.find(f"\n{level} ", start + 1)
    return text[start : end if end != -1 else len(text)]


def test_readme_is_a_short_front_door() -> None:
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_README_LINES, f"README.md has {lines} lines; move detail to docs/"


def test_readme_test_command_is_what_ci_runs() -> None:
    """The quick start's test command and `.ci/run` are kept in step (CI only adds
    ``--quiet``)."""
    section = _section(README, "## Quick start (two commands, Python ≥ 3.11)")
    readme = re.search(r"\n    (pip install -e '\.\[test[^\n]*)\n", section)
    ci = re.search(r"^(pip install [^\n]*)$", (ROOT / ".ci" / "run").read_text(), re.M)
    assert readme and ci, "a test command is missing from the README or .ci/run"
    assert ci.group(1).replace(" --quiet", "") == readme.group(1)


def _adding_a_system() -> tuple[str, list[str]]:
    section = _section(README, "## Extending it")
    code = re.search(r"```python\n(.*?)```", section, re.S)
    commands = re.findall(r"\n    (python -m bench (?:check|run --systems) mine[^\n]*)", section)
    assert code and commands, "the README's worked example is missing"
    return code.group(1), commands


def _installed(code: str, where: Path) -> str:
    """``code`` (the README's ``systems/mine.py``) as a package installed in ``where``,
    found through the ``deid_bench.systems`` entry-point group as a dropped-in file is
    found by its folder, so the test never writes into the source tree; the PYTHONPATH
    that makes it importable."""
    package = where / "readme_example"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "mine.py").write_text(code, encoding="utf-8")
    cls = re.search(r"^class (\w+)\(", code, re.M)
    assert cls, "the README's system has no class"
    dist = where / "readme_example-0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: readme-example\nVersion: 0\n")
    (dist / "entry_points.txt").write_text(
        f"[deid_bench.systems]\nmine = readme_example.mine:{cls.group(1)}\n"
    )
    return os.pathsep.join(filter(None, [str(where), os.environ.get("PYTHONPATH")]))


def _bench(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    argv = shlex.split(command)
    assert argv[:3] == ["python", "-m", "bench"]
    return subprocess.run(
        [sys.executable, *argv[1:]],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.slow
def test_readme_worked_example_runs_as_printed(tmp_path) -> None:
    code, commands = _adding_a_system()
    env = {
        **os.environ,
        "DEID_BENCH_CACHE": str(tmp_path / "cache"),
        "PYTHONPATH": _installed(code, tmp_path / "site"),
    }
    assert any(c.startswith("python -m bench check mine") for c in commands), commands
    for command in commands:
        done = _bench(command, tmp_path, env)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert re.search(r"authentic\s+mine\s+\d", done.stdout), done.stdout
    reports = list((tmp_path / "reports").glob("*/report.md"))
    assert len(reports) == 1 and "mine" in reports[0].read_text()


def _adding_a_tool() -> tuple[str, str, str]:
    """The command-line example of docs/extending.md (the README links to it)."""
    section = _section(ROOT / "docs" / "extending.md", "## A command-line de-identifier")
    script = re.search(r"<!-- file: redact\.py -->\n```python\n(.*?)```", section, re.S)
    toml = re.search(r"<!-- file: peers\.toml -->\n```toml\n(.*?)```", section, re.S)
    command = re.search(r"^(python -m bench run --peers [^\n]*)$", section, re.M)
    assert script and toml and command, "the guide's command-line example is missing"
    return script.group(1), toml.group(1), command.group(1)


@pytest.mark.slow
def test_command_line_example_runs_as_printed(tmp_path) -> None:
    script, toml, command = _adding_a_tool()
    (tmp_path / "redact.py").write_text(script, encoding="utf-8")
    (tmp_path / "peers.toml").write_text(toml, encoding="utf-8")
    env = {**os.environ, "DEID_BENCH_CACHE": str(tmp_path / "cache")}
    env.pop("DEID_BENCH_PEERS", None)
    done = _bench(command, tmp_path, env)
    assert done.returncode == 0, done.stderr[-2000:]
    row = re.search(r"authentic\s+titles\s+([\d.]+)\s+([\d.]+)", done.stdout)
    assert row and float(row.group(2)) > 0, done.stdout  # it found some PHI
    # ... by running on every note: a note the tool fails on is withheld (every token PHI),
    # which would also "find" PHI, at the precision of redacting everything
    assert float(row.group(1)) > 50, done.stdout
    report = next((tmp_path / "reports").glob("*/report.md")).read_text()
    assert "| titles " in report and "once per note" in report
    assert re.search(r"\| titles\s+\|[^\n]*\|\s+0\s+\|", report), "titles failed on some notes"


# --------------------------------------------------------------------- the result tables


def _readme_table(report: str) -> list[list[str]]:
    """The cells of the README table marked ``<!-- table: reports/REPORT ... -->``, header
    row first, Markdown emphasis removed."""
    text = README.read_text(encoding="utf-8")
    match = re.search(rf"<!-- table: reports/{report}\b.*?-->\n(.*?)<!-- end table -->", text, re.S)
    assert match, f"no table of reports/{report} in the README"
    rows = [line for line in match.group(1).splitlines() if line.startswith("|")]
    cells = [[c.strip().replace("**", "") for c in r.strip("|").split("|")] for r in rows]
    return [cells[0], *cells[2:]]  # without the |---| line


def _phi_scores(report: str) -> dict[tuple[str, str], dict[str, str]]:
    """(system, corpus) -> PHI precision / recall / F of the system's headline subset, as
    the report prints them (percent, one decimal)."""
    run = json.loads((ROOT / "reports" / report / "run.json").read_text())
    subset = {name: s["headline_subset"] for name, s in run["systems"].items()}
    out = {}
    with open(ROOT / "reports" / report / "results.csv", newline="") as f:
        for r in csv.DictReader(f):
            if r["level"] == "token" and r["label"] == "PHI" and r["subset"] == subset[r["system"]]:
                out[r["system"], r["corpus"]] = {
                    m: f"{100 * float(r[m]):.1f}" for m in ("precision", "recall", "f1")
                }
    return out


def _differences(printed: dict[str, str], measured: dict[str, str]) -> list[str]:
    return [
        f"{k}: README {v}, report {measured.get(k)}"
        for k, v in printed.items()
        if v != measured.get(k)
    ]


def test_readme_default_table_is_the_example_reports() -> None:
    """Replacing the table after a new run: the failure lists every figure to change."""
    header, *rows = _readme_table("example")
    scores = _phi_scores("example")
    printed, measured = {}, {}
    for row in rows:
        for corpus, cell in zip(header[1:], row[1:], strict=True):
            printed[f"{row[0]} on {corpus}"] = cell
            s = scores.get((row[0], corpus), {})
            prf = (s.get(m, "?") for m in ("precision", "recall", "f1"))
            measured[f"{row[0]} on {corpus}"] = " / ".join(prf)
    assert len(rows) == len({s for s, _ in scores}), "a system of the report is missing"
    assert not _differences(printed, measured), _differences(printed, measured)


def test_readme_physionet_table_is_the_recommended_report() -> None:
    """The headline PhysioNet table: the preset beside deid.pl and the rules, and their
    recall on the variant no training step used."""
    report, variant = "physionet-recommended", "foreign"
    header, *rows = _readme_table(report)
    assert header[1:] == ["P", "R", "F", f"R on `{variant}`"], header
    scores = _phi_scores(report)
    scored = {c for _, c in scores if not c.startswith(f"{variant}:")}
    assert len(scored) == 1, scored
    corpus = scored.pop()
    printed, measured = {}, {}
    for row in rows:
        system = row[0].split(" ", 1)[0]
        own = scores.get((system, corpus), {})
        other = scores.get((system, f"{variant}:{corpus}"), {})
        for name, cell, value in zip(
            ("P", "R", "F", f"R {variant}"),
            row[1:],
            (own.get("precision"), own.get("recall"), own.get("f1"), other.get("recall")),
            strict=True,
        ):
            printed[f"{system} {name}"], measured[f"{system} {name}"] = cell, value
    assert len(rows) == len({s for s, c in scores if c == corpus}), "a system is missing"
    assert not _differences(printed, measured), _differences(printed, measured)


# --------------------------------------------------------------------------- the links


def _tracked_files() -> set[str] | None:
    """Paths git tracks, or None outside a checkout (an unpacked sdist)."""
    try:
        out = subprocess.run(
            ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return set(out.splitlines())


def _documents() -> list[Path]:
    """The Markdown a reader navigates: the front door, the design, the guides, the
    reports' index."""
    top = [README, ROOT / "DESIGN.md", ROOT / "reports" / "README.md"]
    return [*top, *sorted((ROOT / "docs").glob("*.md"))]


def test_every_linked_report_is_in_the_repository() -> None:
    # A report a document cites but the ignore rule keeps out of git is a figure no clone
    # can check; links are relative to the Markdown file that holds them.
    tracked = _tracked_files()
    missing = []
    for doc in _documents():
        for link in re.findall(r"\]\(([^)#\s]+)\)", doc.read_text(encoding="utf-8")):
            if "://" in link:
                continue
            path = (doc.parent / link).resolve()
            rel = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else link
            if not rel.startswith("reports/") or path.is_dir():
                continue
            if not path.is_file() or (tracked is not None and rel not in tracked):
                missing.append(f"{doc.relative_to(ROOT)} -> {link}")
    assert not missing, missing


def test_every_linked_document_exists() -> None:
    """The front door's and the guides' links to each other lead somewhere (a moved
    section leaves no dead link behind)."""
    missing = []
    for doc in _documents():
        for link in re.findall(r"\]\(([^)#\s]+)(?:#[^)\s]*)?\)", doc.read_text(encoding="utf-8")):
            if "://" not in link and not (doc.parent / link).exists():
                missing.append(f"{doc.relative_to(ROOT)} -> {link}")
    assert not missing, missing

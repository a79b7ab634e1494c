"""docs/extending.md works as printed: each example is written out of the document and
run -- the system and the feature class through the conformance suite, the reader and the
command-line tool through the command line -- so the guide cannot drift from the code.

The examples are put where the guide says (``systems/``, ``corpora/readers/``) by adding a
temporary directory to that package's search path: nothing is written into the source
tree.
"""

from __future__ import annotations

import importlib
import re
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from bench.cli import build_parser, main
from corpora.load import READERS, load_corpus
from corpora.model import CorpusError
from systems.base import SYSTEMS, unregister
from systems.conformance import check_system, sample_notes

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "extending.md"


def _files() -> dict[str, str]:
    """Every ``<!-- file: PATH -->`` code block of the guide, by PATH."""
    text = GUIDE.read_text(encoding="utf-8")
    blocks = re.findall(r"<!-- file: (\S+) -->\n```\w*\n(.*?)```", text, re.S)
    return dict(blocks)


def _commands() -> list[list[str]]:
    """Every ``python -m bench`` line of the guide's console blocks, as arguments."""
    text = GUIDE.read_text(encoding="utf-8")
    lines = [
        line
        for block in re.findall(r"```console\n(.*?)```", text, re.S)
        for line in block.splitlines()
    ]
    return [shlex.split(line)[3:] for line in lines if line.startswith("python -m bench ")]


FILES = _files()


@pytest.fixture
def scratch(tmp_path, monkeypatch) -> Iterator[Path]:
    """A working directory, a private cache, and no peers file from the environment."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DEID_BENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("DEID_BENCH_PEERS", "")  # restored afterwards, even when unset
    monkeypatch.delenv("DEID_BENCH_PEERS")  # `--peers` sets it for worker processes
    yield tmp_path


def _drop_in(path: str, where: Path, monkeypatch) -> ModuleType:
    """Import the guide's file ``path`` (``systems/x.py``) as the module it would be there,
    from ``where`` added to the package's search path."""
    package, _, filename = path.rpartition("/")
    directory = where / package
    directory.mkdir(parents=True, exist_ok=True)
    (directory / filename).write_text(FILES[path], encoding="utf-8")
    pkg = importlib.import_module(package.replace("/", "."))
    monkeypatch.setattr(pkg, "__path__", [*pkg.__path__, str(directory)])
    name = f"{package.replace('/', '.')}.{filename.removesuffix('.py')}"
    monkeypatch.delitem(sys.modules, name, raising=False)
    return importlib.import_module(name)


@pytest.fixture
def memorize(scratch, monkeypatch) -> Iterator[ModuleType]:
    module = _drop_in("systems/memorize.py", scratch / "dropped", monkeypatch)
    try:
        yield module
    finally:
        unregister("memorize")
        sys.modules.pop(module.__name__, None)


def test_the_guide_holds_every_example_it_promises() -> None:
    assert set(FILES) == {
        "systems/memorize.py",
        "corpora/readers/lines.py",
        "notes.txt",
        "redact.py",
        "peers.toml",
        "systems/suffix_svm.py",
    }
    parser = build_parser()
    for argv in _commands():  # every command of the guide is one the parser accepts
        parser.parse_args(argv)


def test_the_system_example_keeps_the_contract(memorize, capsys) -> None:
    assert SYSTEMS["memorize"].cls is memorize.Memorizer
    check_system("memorize")
    assert main(["check", "memorize"]) == 0
    assert "memorize: passes" in capsys.readouterr().out


def test_the_feature_class_example_keeps_the_contract(scratch, monkeypatch) -> None:
    module = _drop_in("systems/suffix_svm.py", scratch / "dropped", monkeypatch)
    try:
        check_system("svm-suffix")
        features = module.Suffixes(2).extract(sample_notes()[1][0])
        assert all(set(row.values()) == {1.0} and len(row) <= 2 for row in features)
    finally:
        unregister("svm-suffix")
        sys.modules.pop(module.__name__, None)


def test_the_reader_example_reads_and_runs(memorize, scratch, monkeypatch, capsys) -> None:
    module = _drop_in("corpora/readers/lines.py", scratch / "dropped", monkeypatch)
    try:
        (scratch / "notes.txt").write_text(FILES["notes.txt"], encoding="utf-8")
        corpus, _ = load_corpus("lines:notes.txt")
        first = corpus.documents[0]
        assert len(corpus.documents) == 6
        assert [first.text[s.start : s.end] for s in first.spans] == [
            "John Smith",
            "3/14/2012",
            "Mercy",
        ]
        with pytest.raises(CorpusError, match=r"file nope\.txt"):
            module.read("nope.txt")
        (scratch / "bad.txt").write_text("Seen by [[Lee|NURSE]].\nSeen by [[Lee|DOCTOR]].\n")
        with pytest.raises(CorpusError, match="record 1: unknown category NURSE"):
            module.read("bad.txt")
        lenient = module.read("bad.txt", lenient=True)
        assert len(lenient.documents) == len(lenient.skipped) == 1
        # the guide's run: its system on its reader's corpus, end to end
        run = ["run", "--systems", "memorize,mimic", "--corpora", "lines:notes.txt"]
        assert main([*run, "--folds", "2", "--out", "out", "--jobs", "1", "--quiet"]) == 0
        assert "| memorize " in (scratch / "out" / "report.md").read_text()
    finally:
        READERS.remove("lines")
        sys.modules.pop(module.__name__, None)


def test_the_command_line_example_keeps_the_contract(scratch, capsys) -> None:
    (scratch / "redact.py").write_text(FILES["redact.py"], encoding="utf-8")
    (scratch / "peers.toml").write_text(FILES["peers.toml"], encoding="utf-8")
    try:
        assert main(["check", "--peers", "peers.toml", "titles"]) == 0
    finally:
        unregister("titles")
    assert "titles: passes" in capsys.readouterr().out

"""The command-line adapter: any tool, spans or redacted text, failures named per note."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bench.run.run_types import UsageError
from bench.run.runner import RunConfig, resolve_systems, run
from corpora.model import Document, Span
from systems.base import SYSTEMS, SystemUnavailable, get_system, unregister
from systems.command import CommandSystem, PeerFileError, load_presets
from tests.bench.toy import make_corpus

TOOL = Path(__file__).parent / "peer_tools" / "fake_deid.py"
FAST = dict(folds=3, show_progress=False, n_resamples=50, n_shuffles=50)


def _cmd(mode: str, *extra: str) -> str:
    return " ".join(["{python}", str(TOOL), mode, *extra])


def _note(text: str, spans: tuple[Span, ...] = (), i: int = 0) -> Document:
    return Document(f"n{i}", text, spans)


NOTE = "pt John Smith admitted on 1/8/01 to Mercy hospital.\nseen by dr Clark. ok\n"


def _labels(system: CommandSystem, text: str = NOTE) -> dict[str, str]:
    doc = _note(text)
    (labels,) = system.predict([doc])
    return {t.text: lab for t, lab in zip(doc.tokens, labels, strict=True) if lab != "O"}


@pytest.mark.parametrize(
    ("mode", "files"),
    [("spans", False), ("json", True), ("array", False), ("tags", True), ("placeholders", False)],
)
def test_typed_output_gives_categories(mode: str, files: bool) -> None:
    extra = ("--in", "{input}", "--out", "{output}") if files else ()
    got = _labels(CommandSystem(cmd=_cmd(mode, *extra)))
    assert got == {
        "John": "PATIENT",
        "Smith": "PATIENT",
        "1/8/01": "DATE",
        "Mercy": "HOSPITAL",
        "Clark": "PATIENT",
    }


@pytest.mark.parametrize("mode", ["mask", "reflow"])
def test_masked_output_is_aligned_and_binary(mode: str) -> None:
    got = _labels(CommandSystem(cmd=_cmd(mode)))
    assert got == {t: "PHI" for t in ("John", "Smith", "1/8/01", "Mercy", "Clark")}


def test_byte_offsets_and_a_user_label_map() -> None:
    text = "café staff: pt Zoe Brown seen 2/3/04.\n"  # offsets shift after "é"
    system = CommandSystem(cmd=_cmd("bytes"), offsets="bytes", labels="NAME=DOCTOR")
    assert _labels(system, text) == {"Brown": "DOCTOR", "2/3/04": "DATE", "Zoe": "DOCTOR"}
    dropped = CommandSystem(cmd=_cmd("spans"), labels={"DATE": "O"})
    assert "1/8/01" not in _labels(dropped)


def test_a_failing_note_is_named_withheld_and_the_others_finish(capsys) -> None:
    docs = [
        _note(NOTE, i=0),
        _note("pt CRASH Lee seen today.\n", i=1),
        _note("GARBAGE " + "word " * 30, i=2),
        _note(NOTE, i=3),
    ]
    system = CommandSystem(cmd=_cmd("mask"))
    labels = system.predict(docs)
    assert labels[0] == labels[3] and "PHI" in labels[0] and "O" in labels[0]
    assert set(labels[1]) == {"PHI"} and set(labels[2]) == {"PHI"}  # withheld, not "no PHI"
    failures = system.fitted_info()["note_failures"]
    assert [f["document"] for f in failures] == ["n1", "n2"]
    assert "exited with code 3" in failures[0]["error"]
    assert "not the note redacted" in failures[1]["error"]
    err = capsys.readouterr().err
    assert "note n1" in err and "Lee" not in err and "Lee" not in failures[0]["error"]


def test_a_hanging_tool_times_out_and_fail_mode_fails_the_cell() -> None:
    docs = [_note(NOTE, i=0), _note("pt HANG Lee.\n", i=1)]
    system = CommandSystem(cmd=_cmd("spans"), timeout=1.0, on_error="fail")
    with pytest.raises(
        RuntimeError, match=r"failed on 1 note\(s\): n1: timed out after 4 s of wall-clock time"
    ):
        system.predict(docs)


def test_a_tool_that_works_past_its_cpu_seconds_is_stopped_by_them() -> None:
    docs = [_note("pt SPIN Lee.\n", i=0)]
    system = CommandSystem(cmd=_cmd("spans"), timeout=1.0, on_error="fail")
    with pytest.raises(RuntimeError, match=r"n0: timed out after 1 s of CPU time"):
        system.predict(docs)


def test_bad_parameters_are_caught_while_planning() -> None:
    for params, message in [
        ({"cmd": "tool 'unclosed"}, "quotation"),
        ({"cmd": "tool", "output": "xml"}, "output 'xml'"),
        ({"cmd": "tool", "on_error": "ignore"}, "on_error"),
        ({"cmd": "tool", "labels": "NAME=FRIEND"}, "not one of"),
    ]:
        with pytest.raises(ValueError, match=message):
            CommandSystem(**params).check_params()
    # a missing program fails the system as a whole: no note of it is scored as withheld
    system = CommandSystem(cmd="/nonexistent/tool {input}")
    with pytest.raises(SystemUnavailable, match="cannot start tool"):
        system.predict([_note(NOTE)])


def test_editing_the_tools_script_changes_the_cache_key(tmp_path) -> None:
    script = tmp_path / "tool.py"
    script.write_text("print('')\n")
    system = CommandSystem(cmd=f"{sys.executable} {script}")
    before = system.tool_fingerprint()
    script.write_text("print('0 1')\n")
    assert system.tool_fingerprint() != before


@pytest.fixture
def peer_file(tmp_path):
    path = tmp_path / "peers.toml"
    path.write_text(
        f"""
[systems.tool-spans]
description = "the fake tool, span output"
cmd = "{{python}} {TOOL} spans"

[systems.tool-masks]
cmd = "{{python}} {TOOL} mask"
output = "redacted"
timeout = 20
""",
        encoding="utf-8",
    )
    yield path
    for name in ("tool-spans", "tool-masks"):
        unregister(name)


def test_toml_file_registers_presets_that_run_with_the_others(peer_file) -> None:
    presets = load_presets(peer_file)
    assert [p.name for p in presets] == ["tool-spans", "tool-masks"]
    assert SYSTEMS.get("tool-masks").params["tool"] == "tool-masks"
    assert get_system("tool-spans").cmd.endswith("spans")
    peers = resolve_systems(["peers"])
    assert {"tool-spans", "tool-masks", "command", "deidpl"} <= set(peers)
    assert "svm" not in peers and "tool-spans" not in resolve_systems(["all"])
    corpus = make_corpus(9)
    result = run(
        RunConfig(systems=["tool-spans,tool-masks"], corpora=["toy"], **FAST),
        {"toy": corpus},
    )
    ran = result.systems["tool-spans"]
    assert "once per note" in ran["runs_as"] and ran["failed_notes"] == 0
    phi = result.results[
        (result.results.level == "token")
        & (result.results.subset == "all")
        & (result.results.label == "PHI")
    ].set_index("system")
    assert phi.loc["tool-spans", "recall"] > 0.5
    assert not result.failed
    # named, `command` without a command line is refused before any work; brought in by
    # the `peers` group it is reported as not run, saying how to give one
    with pytest.raises(UsageError, match="'command' cannot run: command: no command given"):
        run(RunConfig(systems=["tool-spans,command"], corpora=["toy"], **FAST), {"toy": corpus})
    assert "command" in resolve_systems(["peers"])
    with pytest.raises(SystemUnavailable, match="command: no command given"):
        CommandSystem().predict([_note(NOTE)])


def test_a_bad_toml_file_is_one_line(tmp_path) -> None:
    bad = tmp_path / "bad.toml"
    for content, message in [
        ("[systems.x\n", "not valid TOML"),
        ("[other]\n", r"no \[systems.NAME\] tables"),
        ("[systems.x]\nsystem = 'svm'\n", "not a registered external system"),
        ("[systems.x]\ncmd = 'tool'\ncolour = 'red'\n", "no parameter 'colour'"),
        ("[systems.mimic]\ncmd = 'tool'\n", "already registered"),
    ]:
        bad.write_text(content, encoding="utf-8")
        with pytest.raises(PeerFileError, match=message) as info:
            load_presets(bad)
        assert "\n" not in str(info.value) and str(bad) in str(info.value)

"""Hostile inputs that used to give wrong numbers with exit 0, lose a file or leak a word.

One test (or more) per case: each asserts the refusal (exit 2, one line) or the correct
result, and that nothing else happened (no file deleted, no note word printed).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from bench.cli import main
from bench.report.outputs import MARKER, OutputLock
from corpora.model import Corpus, Document, Span
from corpora.readers.jsonl import write_jsonl
from tests.bench import fault_toys
from tests.bench.toy import make_corpus

FAST = ["--folds", "2", "--quiet", "--resamples", "0", "--shuffles", "20"]
PY = sys.executable


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["run", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _one_line_usage_error(code: int, err: str) -> None:
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("error: ") and "Traceback" not in err


def _renamed(corpus: Corpus, prefix: str = "copy") -> Corpus:
    """The same notes under other ids (and no patient key)."""
    docs = tuple(
        Document(f"{prefix}-{i}", d.text, d.spans, d.marks, {}) for i, d in enumerate(corpus)
    )
    return Corpus(prefix, docs)


def _other_names(corpus: Corpus) -> Corpus:
    """The same notes with every PHI phrase replaced by another of another length (what a
    surrogate or unseen variant of them is)."""
    docs = []
    for i, d in enumerate(corpus):
        text, spans, shift = d.text, [], 0
        for s in d.spans:
            new = f"Zq{i}x{s.start}"
            start = s.start + shift
            text = text[:start] + new + text[start + s.end - s.start :]
            spans.append(Span(start, start + len(new), s.category))
            shift += len(new) - (s.end - s.start)
        docs.append(Document(f"other-{i}", text, tuple(spans)))
    return Corpus("other", tuple(docs))


def _long_corpus(n: int = 12) -> Corpus:
    """Toy notes each with a sentence of its own: long enough that the same note with other
    names is a copy, not another note of one short template (bench.run.overlap)."""
    docs = []
    for d in make_corpus(n).documents:
        own = " ".join(f"{d.id}w{j}" for j in range(40))
        docs.append(Document(d.id, d.text + own + ".\n", d.spans, d.marks, d.metadata))
    return Corpus("long", tuple(docs))


@pytest.fixture
def long_file(tmp_path: Path) -> Path:
    path = tmp_path / "long.jsonl"
    write_jsonl(_long_corpus(), path)
    return path


@pytest.fixture
def toy_file(tmp_path: Path) -> Path:
    path = tmp_path / "toy.jsonl"
    write_jsonl(make_corpus(12), path)
    return path


# ------------------------------------------------------------------ 1, 2: overlap by content


def test_extra_training_holding_the_scored_notes_under_new_ids_is_refused(
    toy_systems, toy_file, tmp_path, capsys
) -> None:
    extra = tmp_path / "extra.jsonl"
    write_jsonl(_renamed(make_corpus(12)), extra)
    out = tmp_path / "out"
    code, _, err = _run(
        capsys, "--systems", "toy-memory", "--corpora", f"jsonl:{toy_file}", *FAST,
        "--extra-training", f"jsonl:{extra}", "--out", str(out),
    )  # fmt: skip
    _one_line_usage_error(code, err)
    assert "identical to training notes" in err and not out.exists()


def test_near_duplicates_are_refused_unless_allowed_and_then_reported(
    toy_systems, long_file, tmp_path, capsys
) -> None:
    extra = tmp_path / "extra.jsonl"
    write_jsonl(_other_names(_long_corpus()), extra)
    argv = ["--systems", "toy-memory", "--corpora", f"jsonl:{long_file}", *FAST]
    argv += ["--extra-training", f"jsonl:{extra}"]
    code, _, err = _run(capsys, *argv, "--out", str(tmp_path / "refused"))
    _one_line_usage_error(code, err)
    assert "with other PHI" in err and "--allow-near-duplicates" in err
    out = tmp_path / "allowed"
    code, _, err = _run(capsys, *argv, "--allow-near-duplicates", "--out", str(out))
    assert code == 0, err
    overlap = json.loads((out / "run.json").read_text())["overlap"]
    assert overlap["near_duplicates"] == 12 and overlap["near_duplicates_allowed"] is True
    assert "**Near-duplicates scored**" in (out / "report.md").read_text()


def test_train_corpus_equal_to_the_scored_corpus_is_refused(
    toy_systems, toy_file, tmp_path, capsys
) -> None:
    spec = f"jsonl:{toy_file}"
    code, _, err = _run(
        capsys, "--systems", "toy-memory", "--train-corpus", spec, "--corpora", spec, *FAST,
        "--out", str(tmp_path / "out"),
    )  # fmt: skip
    _one_line_usage_error(code, err)
    assert f"--train-corpus {spec}: 12 scored note(s) are identical" in err


def test_train_corpus_with_the_scored_notes_under_other_names_is_refused(
    toy_systems, long_file, toy_file, tmp_path, capsys
) -> None:
    other = tmp_path / "other.jsonl"
    write_jsonl(_other_names(_long_corpus()), other)
    argv = ["--systems", "toy-memory", "--train-corpus", f"jsonl:{long_file}"]
    argv += ["--corpora", f"jsonl:{other}", *FAST]
    code, _, err = _run(capsys, *argv, "--out", str(tmp_path / "a"))
    _one_line_usage_error(code, err)
    assert "same notes as training notes with other PHI" in err
    short = tmp_path / "short.jsonl"  # notes of one short form: not copies of each other
    write_jsonl(_other_names(make_corpus(12)), short)
    argv = ["--systems", "toy-memory", "--train-corpus", f"jsonl:{toy_file}"]
    code, _, err = _run(
        capsys, *argv, "--corpora", f"jsonl:{short}", *FAST, "--out", str(tmp_path / "b")
    )
    assert code == 0, err


def test_the_report_states_the_measured_overlap(toy_systems, toy_file, tmp_path, capsys) -> None:
    out = tmp_path / "out"
    code, _, err = _run(
        capsys, "--systems", "toy-memory", "--corpora", f"jsonl:{toy_file}", *FAST,
        "--out", str(out),
    )  # fmt: skip
    assert code == 0, err
    overlap = json.loads((out / "run.json").read_text())["overlap"]
    assert overlap["sources"] == {
        f"training folds of jsonl:{toy_file}": {"scored": 12, "near_duplicates": 0}
    }
    assert "compared by text: none identical" in (out / "report.md").read_text()


def test_duplicate_notes_inside_one_corpus_are_refused_under_cross_validation(
    toy_systems, tmp_path, capsys
) -> None:
    """The same note twice under two ids lands in a training and a test fold."""
    docs = list(make_corpus(12).documents)
    path = tmp_path / "dup.jsonl"
    write_jsonl([*docs, *_renamed(Corpus("x", tuple(docs[:6]))).documents], path)
    code, _, err = _run(
        capsys, "--systems", "toy-memory", "--corpora", f"jsonl:{path}", *FAST,
        "--out", str(tmp_path / "out"),
    )  # fmt: skip
    _one_line_usage_error(code, err)
    assert "training folds of" in err and "identical" in err


def test_test_variant_and_augmentation_runs_are_not_refused(toy_systems, tmp_path, capsys):
    """A variant of the test notes is labelled by a model trained on the other folds;
    augmented copies are of training notes: neither is an overlap."""
    out = tmp_path / "out"
    code, _, err = _run(
        capsys, "--systems", "toy-memory", "--corpora", "authentic", "--n-documents", "24",
        "--test-variant", "surrogate", "--augment", "unseen", *FAST, "--out", str(out),
    )  # fmt: skip
    assert code == 0, err
    overlap = json.loads((out / "run.json").read_text())["overlap"]
    assert overlap["near_duplicates"] == 0 and len(overlap["sources"]) == 2


# ------------------------------------------------------------------ 3: inner folds


def test_more_inner_folds_than_training_notes_is_refused(
    toy_systems, toy_file, tmp_path, capsys
) -> None:
    code, _, err = _run(
        capsys, "--systems", "toy-recording", "--corpora", f"jsonl:{toy_file}", *FAST,
        "--tune", "--inner-folds", "50", "--out", str(tmp_path / "out"),
    )  # fmt: skip
    _one_line_usage_error(code, err)
    assert "--inner-folds 50" in err and "6 documents" in err


def test_more_inner_folds_than_training_patients_is_refused(toy_systems, tmp_path, capsys):
    path = tmp_path / "patients.jsonl"
    write_jsonl(make_corpus(12, notes_per_patient=3), path)  # 4 patients, 2 per outer fold
    code, _, err = _run(
        capsys, "--systems", "toy-recording", "--corpora", f"jsonl:{path}", *FAST,
        "--tune", "--inner-folds", "3", "--out", str(tmp_path / "out"),
    )  # fmt: skip
    _one_line_usage_error(code, err)
    assert "2 patient groups" in err


def test_tuning_never_reports_defaults_as_a_selection() -> None:
    from bench.training.tuning import Tuned
    from tests.bench.toy import RecordingSystem

    with pytest.raises(ValueError, match="cannot make 5 folds"):
        Tuned(RecordingSystem(), inner_folds=5).fit(list(make_corpus(3).documents))


# ------------------------------------------------------------------ 4, 12: peers that cannot run


@pytest.fixture(autouse=True)
def _forget_peers(monkeypatch):
    """A --peers file registers its tools in this process and names itself in the
    environment: forget both after each test."""
    from systems.base import SYSTEMS, unregister
    from systems.command import ENV_PEERS

    monkeypatch.setenv(ENV_PEERS, "")  # recorded, so the value main() sets is undone too
    monkeypatch.delenv(ENV_PEERS)
    before = set(SYSTEMS.as_dict())
    yield
    for name in set(SYSTEMS.as_dict()) - before:
        unregister(name)


def _peers(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "peers.toml"
    path.write_text(body, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("cmd", "message"),
    [
        ("/nonexistent/deid-tool {input}", "cannot start deid-tool"),
        ("no-such-deid-program-here {input}", "cannot start no-such-deid-program-here"),
        ("{python} missing_script.py", "names missing_script.py, which does not exist"),
        ("", "no command given"),
    ],
)
def test_a_peer_that_cannot_start_is_a_usage_error_before_any_work(
    toy_systems, toy_file, tmp_path, capsys, cmd, message
) -> None:
    peers = _peers(tmp_path, f'[systems.ghost]\ncmd = "{cmd}"\n')
    for systems in ("ghost", "peers", "ghost,toy-capitals"):
        out = tmp_path / f"out-{systems}"
        code, _, err = _run(
            capsys, "--peers", str(peers), "--systems", systems, "--corpora", f"jsonl:{toy_file}",
            *FAST, "--out", str(out),
        )  # fmt: skip
        _one_line_usage_error(code, err)
        assert "'ghost' cannot run" in err and message in err and not out.exists()


def test_deidpl_at_a_home_that_does_not_exist_is_a_usage_error(
    toy_file, tmp_path, capsys
) -> None:
    code, _, err = _run(
        capsys, "--systems", "deidpl", "--param", "deidpl.home='/nonexistent'",
        "--corpora", f"jsonl:{toy_file}", *FAST, "--out", str(tmp_path / "out"),
    )  # fmt: skip
    _one_line_usage_error(code, err)
    assert "'deidpl' cannot run: deid.pl not found at /nonexistent" in err


def test_a_peer_that_fails_on_every_note_gets_no_score_row(
    toy_systems, toy_file, tmp_path, capsys
) -> None:
    script = tmp_path / "crash.py"
    script.write_text("import sys\nsys.exit(3)\n")
    peers = _peers(tmp_path, f'[systems.crasher]\ncmd = "{{python}} {script}"\n')
    out = tmp_path / "out"
    code, stdout, err = _run(
        capsys, "--peers", str(peers), "--systems", "crasher,toy-capitals",
        "--corpora", f"jsonl:{toy_file}", *FAST, "--out", str(out),
    )  # fmt: skip
    assert code == 1 and "failed: crasher" in err
    results = (out / "results.csv").read_text()
    assert "crasher" not in results and "toy-capitals" in results
    info = json.loads((out / "run.json").read_text())
    assert {f["system"] for f in info["failures"]} == {"crasher"}
    assert "failed on every note" in info["failures"][0]["error"]
    assert "FAILED" in stdout


# ------------------------------------------------------------------ 5: short note words


def test_a_failing_systems_message_reaches_only_the_errors_file(
    toy_systems, toy_file, tmp_path, capsys
) -> None:
    from systems.base import register, unregister

    register(fault_toys.ShortLeakySystem)
    try:
        out, errors = tmp_path / "out", tmp_path / "errors.tsv"
        code, stdout, err = _run(
            capsys, "--systems", "toy-short-leaky,toy-capitals", "--corpora",
            f"jsonl:{toy_file}", *FAST, "--out", str(out), "--errors", str(errors),
        )  # fmt: skip
    finally:
        unregister(fault_toys.ShortLeakySystem.name)
    assert code == 1
    info = json.loads((out / "run.json").read_text())
    (error,) = {f["error"] for f in info["failures"]}
    assert error.startswith("KeyError at fault_toys.py:")
    report = (out / "report.md").read_text()
    # the run prints its paths, and pytest numbers its temporary directories ("pytest-93")
    stdout, err = (text.replace(str(tmp_path), "<tmp>") for text in (stdout, err))
    for word in fault_toys.SHORT_WORDS:
        assert word not in error and word not in stdout and word not in err
    for word in ("Joe", "李小龍"):
        assert word not in report and word not in json.dumps(info, ensure_ascii=False)
    assert all(w in errors.read_text() for w in fault_toys.SHORT_WORDS)


# ------------------------------------------------------------------ 6: reader errors


def _physionet(tmp_path: Path, phrase: str, text_prefix: bytes = b"") -> Path:
    d = tmp_path / "pn"
    d.mkdir()
    note = "Pt Nicholson seen at VAMC on 3/14.\n"
    (d / "id.text").write_bytes(
        text_prefix + f"START_OF_RECORD=1||||1||||\n{note}||||END_OF_RECORD\n".encode()
    )
    (d / "id-phi.phrase").write_text(phrase, encoding="utf-8")
    return d


@pytest.mark.parametrize(
    "phrase",
    [
        "1 1 HCPName 3 12 Nicholson\n",  # type before the offsets
        "1 1 Nicholson VAMC 3 12\n",  # phrase first
        "Nicholson VAMC 1 1 3 12 Location\n",  # the words where the ids go
        "1 1 3 12 Nicholson VAMC\n",  # the phrase where the type goes
    ],
)
def test_physionet_phrase_file_in_another_layout_quotes_no_word(tmp_path, capsys, phrase):
    d = _physionet(tmp_path, phrase)
    code = main(["corpus", "stats", f"physionet:{d}"])
    err = capsys.readouterr().err
    _one_line_usage_error(code, err)
    assert "Nicholson" not in err and "VAMC" not in err and "line 1" in err


def test_brat_and_i2b2_2014_errors_quote_no_annotation_value(tmp_path, capsys) -> None:
    brat = tmp_path / "brat"
    brat.mkdir()
    (brat / "n.txt").write_text("Smith was seen.\n")
    (brat / "n.ann").write_text("T1\tSmith 0 5\tSmith\n")
    xml = tmp_path / "i2b2"
    xml.mkdir()
    (xml / "110-01.xml").write_text(
        '<?xml version="1.0"?><deIdi2b2><TEXT><![CDATA[Smith was seen.]]></TEXT><TAGS>'
        '<NAME id="Smith" start="0" end="5" text="Smith" TYPE="Smith"/></TAGS></deIdi2b2>'
    )
    for spec in (f"brat:{brat}", f"i2b2-2014:{xml}"):
        code = main(["corpus", "stats", spec])
        err = capsys.readouterr().err
        _one_line_usage_error(code, err)
        assert "Smith" not in err and "unknown" in err


def test_control_characters_from_a_file_are_escaped_on_the_terminal(tmp_path, capsys) -> None:
    """A record id crafted to clear the screen and retitle the window."""
    d = tmp_path / "pn"
    d.mkdir()
    (d / "id.text").write_bytes(b"START_OF_RECORD=1\x1b[2J\x1b]0;pwned\x07||||1||||\nPt ok.\n")
    (d / "id-phi.phrase").write_text("")
    code = main(["corpus", "stats", f"physionet:{d}"])
    err = capsys.readouterr().err
    _one_line_usage_error(code, err)
    assert "\x1b" not in err and "\x07" not in err and "\\x1b[2J" in err


def test_a_byte_order_mark_is_named(tmp_path, capsys) -> None:
    d = _physionet(tmp_path, "", text_prefix=b"\xef\xbb\xbf")
    code = main(["corpus", "stats", f"physionet:{d}"])
    err = capsys.readouterr().err
    _one_line_usage_error(code, err)
    assert "byte-order mark" in err


# ------------------------------------------------------------------ 7, 8: the report directory


def test_a_directory_with_a_run_json_of_another_tool_is_not_replaced(
    toy_systems, toy_file, tmp_path, capsys
) -> None:
    sacred = tmp_path / "sacred-run"
    sacred.mkdir()
    for name, content in (("run.json", '{"status": "COMPLETED"}'), ("metrics.json", "{}")):
        (sacred / name).write_text(content)
    (sacred / "cout.txt").write_text("training log\n")
    code, _, err = _run(
        capsys, "--systems", "toy-capitals", "--corpora", f"jsonl:{toy_file}", *FAST,
        "--out", str(sacred),
    )  # fmt: skip
    _one_line_usage_error(code, err)
    assert "did not write" in err
    assert sorted(p.name for p in sacred.iterdir()) == ["cout.txt", "metrics.json", "run.json"]


def test_an_out_holding_the_runs_input_is_refused(toy_systems, tmp_path, capsys) -> None:
    out = tmp_path / "report"
    corpus = tmp_path / "toy.jsonl"
    write_jsonl(make_corpus(12), corpus)
    argv = ["--systems", "toy-capitals", *FAST, "--out", str(out)]
    assert _run(capsys, "--corpora", f"jsonl:{corpus}", *argv)[0] == 0
    inside = out / "toy.jsonl"
    shutil.copy(corpus, inside)  # the previous report now holds the input
    code, _, err = _run(capsys, "--corpora", f"jsonl:{inside}", *argv)
    _one_line_usage_error(code, err)
    assert "an input of this run" in err and inside.is_file()


def test_only_a_marked_report_is_replaced_and_a_users_file_in_it_is_kept(
    toy_systems, toy_file, tmp_path, capsys
) -> None:
    out = tmp_path / "report"
    argv = ["--systems", "toy-capitals", "--corpora", f"jsonl:{toy_file}", *FAST]
    assert _run(capsys, *argv, "--out", str(out))[0] == 0
    marker = json.loads((out / MARKER).read_text())
    assert marker["run_id"] == json.loads((out / "run.json").read_text())["run_id"]
    assert "results.csv" in marker["files"]
    assert _run(capsys, *argv, "--out", str(out))[0] == 0  # its own report: replaced
    (out / "notes.md").write_text("my notes\n")
    code, _, err = _run(capsys, *argv, "--out", str(out))
    _one_line_usage_error(code, err)
    assert (out / "notes.md").read_text() == "my notes\n"


def test_a_report_from_before_the_marker_is_replaced_only_if_it_is_all_ours(
    toy_systems, toy_file, tmp_path, capsys
) -> None:
    old = Path(__file__).resolve().parents[2] / "reports" / "example"
    legacy = tmp_path / "legacy"
    shutil.copytree(old, legacy)
    argv = ["--systems", "toy-capitals", "--corpora", f"jsonl:{toy_file}", *FAST]
    assert _run(capsys, *argv, "--out", str(legacy))[0] == 0
    assert (legacy / MARKER).is_file()
    other = tmp_path / "other"
    shutil.copytree(old, other)
    (other / "extra.txt").write_text("x")
    code, _, err = _run(capsys, *argv, "--out", str(other))
    _one_line_usage_error(code, err)
    assert (other / "extra.txt").exists() and (other / "report.md").exists()


def test_a_second_run_on_the_same_out_is_refused_while_the_first_holds_it(
    toy_systems, toy_file, tmp_path, capsys
) -> None:
    out = tmp_path / "report"
    lock = OutputLock(out).acquire()
    try:
        code, _, err = _run(
            capsys, "--systems", "toy-capitals", "--corpora", f"jsonl:{toy_file}", *FAST,
            "--out", str(out),
        )  # fmt: skip
    finally:
        lock.release()
    _one_line_usage_error(code, err)
    assert "another run is writing its report there" in err and not out.exists()
    assert not lock.path.exists()  # released: the lock file goes with it


# ------------------------------------------------------------------ 9, 11: external tools bounded


def _script(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text(body)
    return str(path)


def test_a_detached_child_holding_stdout_neither_hangs_the_run_nor_costs_the_answer(
    tmp_path,
) -> None:
    import time

    from systems.command import CommandSystem

    for detached in (True, False):
        script = _script(
            tmp_path,
            f"detach{detached}.py",
            "import subprocess, sys\n"
            f"subprocess.Popen(['sleep', '60'], start_new_session={detached}, stdout=sys.stdout)\n"
            "print('3 7')\nsys.stdout.flush()\n",
        )
        system = CommandSystem(cmd=f"{PY} {script}", timeout=5.0, output="spans")
        doc = Document("n0", "pt Smith seen today.\n", (Span(3, 8, "PATIENT"),))
        start = time.monotonic()
        (labels,) = system.predict([doc])
        assert time.monotonic() - start < 15  # not the 20 s wall limit, not for ever
        assert labels[1] == "PHI" and not system.fitted_info().get("note_failures")


def test_an_answer_past_the_output_cap_fails_the_note(tmp_path) -> None:
    from systems.command import CommandSystem
    from systems.external import OUTPUT_FLOOR

    flood = _script(tmp_path, "flood.py", "import sys\nsys.stdout.write('0 1\\n' * 2_000_000)\n")
    to_file = _script(
        tmp_path, "flood_file.py", "import sys\nopen(sys.argv[1], 'w').write('x' * 9_000_000)\n"
    )
    docs = [Document("n0", "pt Smith seen.\n"), Document("n1", "pt Jones seen.\n")]
    for cmd in (f"{PY} {flood}", f"{PY} {to_file} {{output}}"):
        system = CommandSystem(cmd=cmd, timeout=20.0, max_output=1)
        with pytest.raises(RuntimeError, match="failed on every note"):
            system.predict(docs)
        failures = system.fitted_info()["note_failures"]
        limit = OUTPUT_FLOOR + len(docs[0].text.encode())
        assert failures[0]["error"] == f"wrote more than {limit:,} bytes of output for the note"


# ------------------------------------------------------------------ smaller things


def test_corpus_stats_quiet_keeps_the_skipped_records_line(tmp_path, capsys) -> None:
    path = tmp_path / "c.jsonl"
    write_jsonl(make_corpus(3), path)
    with path.open("a") as fh:
        fh.write("{not json\n")
    assert main(["corpus", "stats", f"jsonl:{path}", "--lenient", "--quiet"]) == 0
    assert "skipped 1 bad record(s)" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("value", "message"),
    [("", "give at least one"), (" , ", "give at least one"), ("unseen:1000", "at most")],
)
def test_augment_values_that_mean_nothing_or_too_much_are_refused(
    toy_systems, toy_file, tmp_path, capsys, value, message
) -> None:
    code, _, err = _run(
        capsys, "--systems", "toy-memory", "--corpora", f"jsonl:{toy_file}", *FAST,
        "--augment", value, "--out", str(tmp_path / "out"),
    )  # fmt: skip
    _one_line_usage_error(code, err)
    assert message in err


def test_a_killed_writers_temporary_file_is_swept_from_the_cache(tmp_path, monkeypatch):
    from infra import cache

    monkeypatch.setenv(cache.ENV_CACHE, str(tmp_path / "c"))
    assert cache.write_entry("ns/a.pkl", b"one")
    dead = 2**22 + 12345  # above the default pid_max: never a live process
    stale = tmp_path / "c" / "ns" / f".b.pkl.{dead}.x1.tmp"
    stale.write_bytes(b"half")
    os.utime(stale, (1, 1))
    live = tmp_path / "c" / "ns" / f".c.pkl.{os.getpid()}.x2.tmp"
    live.write_bytes(b"being written")
    cache._SWEPT.clear()
    assert cache.write_entry("ns/d.pkl", b"two")
    assert not stale.exists() and live.exists()


# ------------------------------------------------------------------ more of the same spirit


def test_a_peers_file_cannot_drive_the_terminal_through_list(tmp_path, capsys) -> None:
    peers = _peers(
        tmp_path, '[systems.clear]\ncmd = "true"\ndescription = "\\u001b[2Jcleared"\n'
    )
    assert main(["list", "--peers", str(peers)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\\x1b[2Jcleared" in out


def test_an_out_that_is_the_corpus_directory_is_refused(toy_systems, tmp_path, capsys) -> None:
    brat = tmp_path / "brat"
    brat.mkdir()
    (brat / "n.txt").write_text("pt Smith seen.\n")
    (brat / "n.ann").write_text("T1\tPATIENT 3 8\tSmith\n")
    code, _, err = _run(
        capsys, "--systems", "toy-capitals", "--corpora", f"brat:{brat}", *FAST, "--out", str(brat)
    )
    _one_line_usage_error(code, err)
    assert sorted(p.name for p in brat.iterdir()) == ["n.ann", "n.txt"]


def test_a_note_id_with_control_characters_is_escaped_in_a_tools_failure_line(capsys):
    from systems.command import CommandSystem

    system = CommandSystem(cmd=f"{PY} -c 'import sys; sys.exit(sys.stdin.read().count(\"x\"))'")
    docs = [Document("ok", "pt seen.\n"), Document("bad\x1b[2J", "x pt seen.\n")]
    system.predict(docs)
    err = capsys.readouterr().err
    assert "\x1b" not in err and "bad\\x1b[2J" in err


def test_the_same_notes_recased_and_rewrapped_are_still_identical(
    toy_systems, toy_file, tmp_path, capsys
) -> None:
    """Case and white space do not make another note (an export that upper-cases or
    re-wraps lines is the same note)."""
    docs = []
    for i, d in enumerate(make_corpus(12)):
        docs.append(Document(f"re-{i}", d.text.upper().replace(" ", "\n  "), ()))
    extra = tmp_path / "extra.jsonl"
    write_jsonl(docs, extra)
    code, _, err = _run(
        capsys, "--systems", "toy-memory", "--corpora", f"jsonl:{toy_file}", *FAST,
        "--extra-training", f"jsonl:{extra}", "--out", str(tmp_path / "out"),
    )  # fmt: skip
    _one_line_usage_error(code, err)
    assert "12 scored note(s) are identical" in err


def test_an_out_that_is_a_symlink_to_someone_elses_directory_is_refused(
    toy_systems, toy_file, tmp_path, capsys
) -> None:
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "run.json").write_text("{}")
    link = tmp_path / "link"
    link.symlink_to(theirs)
    code, _, err = _run(
        capsys, "--systems", "toy-capitals", "--corpora", f"jsonl:{toy_file}", *FAST,
        "--out", str(link),
    )  # fmt: skip
    _one_line_usage_error(code, err)
    assert [p.name for p in theirs.iterdir()] == ["run.json"] and link.is_symlink()


def test_a_peer_program_that_is_not_executable_is_refused(
    toy_systems, toy_file, tmp_path, capsys
) -> None:
    script = tmp_path / "tool.sh"
    script.write_text("#!/bin/sh\ncat\n")
    script.chmod(0o644)
    peers = _peers(tmp_path, f'[systems.noexec]\ncmd = "{script} {{input}}"\n')
    code, _, err = _run(
        capsys, "--peers", str(peers), "--systems", "noexec", "--corpora", f"jsonl:{toy_file}",
        *FAST, "--out", str(tmp_path / "out"),
    )  # fmt: skip
    _one_line_usage_error(code, err)
    assert "cannot start tool.sh" in err

"""Looks counted from saved reports (bench/report/saved_looks.py, ``bench ledger --reports``)."""

from __future__ import annotations

import json
from pathlib import Path

from bench.report.saved_looks import looks, scored_before


def _run(path: Path, started: str, systems: dict, corpora: dict, **options: object) -> None:
    path.mkdir(parents=True)
    run = {
        "started": started,
        "command": ["python", "-m", "bench", "run", "--dictionaries", "/x/deid-1.1"],
        "systems": systems,
        "corpora": corpora,
        "seed": 0,
        "folds": 5,
        **options,
    }
    (path / "run.json").write_text(json.dumps(run), encoding="utf-8")


def _system(registered: str, trained: bool = True, **params: object) -> dict:
    return {
        "registered": registered,
        "params": params,
        "wrappers": [],
        "requires_training": trained,
    }


EVAL = {"evaluation:physionet:x": {"fingerprint": "e" * 32}}


def test_counts_distinct_configurations_before_each_report_in_run_order(tmp_path: Path) -> None:
    # written out of order: the count follows "started", not the file names
    _run(tmp_path / "b", "2026-01-02", {"svm": _system("svm"), "mega": _system("mega")}, EVAL)
    _run(
        tmp_path / "a",
        "2026-01-01",
        {"svm": _system("svm"), "rules": _system("mimic", False)},
        EVAL,
    )
    # the same svm under another name is no new look; with another C it is one; rules
    # ignore the protocol (they are not trained), the learners do not
    _run(
        tmp_path / "c",
        "2026-01-03",
        {
            "svm-again": _system("svm"),
            "svm-c": _system("svm", C=2),
            "rules": _system("mimic", False),
        },
        EVAL,
    )
    _run(
        tmp_path / "d",
        "2026-01-04",
        {"svm": _system("svm"), "rules": _system("mimic", False)},
        EVAL,
        tune=True,
    )
    (group,) = looks([tmp_path])
    assert [r["report"].rsplit("/", 1)[-1] for r in group["reports"]] == ["a", "b", "c", "d"]
    assert [(r["configurations"], r["new"], r["before"]) for r in group["reports"]] == [
        (2, 2, 0),
        (2, 1, 2),
        (3, 1, 3),
        (2, 1, 4),
    ]
    assert group["distinct"] == 5


def test_a_training_corpus_is_not_a_look_and_own_augmentation_counts(tmp_path: Path) -> None:
    corpora = {**EVAL, "tuning:physionet:x": {"fingerprint": "t" * 32}}
    a = _system("mega")
    b = {**_system("mega"), "augment": ["unseen", "unseen"]}
    # a range of copies for tuning to choose from is another configuration than its first
    c = {**_system("mega"), "augment": ["unseen"], "augment_choices": [["unseen"], ["unseen"] * 2]}
    d = {**_system("mega"), "augment": ["unseen"]}
    _run(
        tmp_path / "r",
        "2026-01-01",
        {"a": a, "b": b, "c": c, "d": d},
        corpora,
        train_corpus="evaluation:physionet:x",
    )
    (group,) = looks([tmp_path / "r" / "run.json"])
    assert group["corpora"] == ["tuning:physionet:x"]
    assert group["reports"][0]["configurations"] == 4


def test_a_broken_run_json_is_named(tmp_path: Path) -> None:
    (tmp_path / "run.json").write_text("{not json", encoding="utf-8")
    try:
        looks([tmp_path])
    except ValueError as exc:
        assert "run.json" in str(exc)
    else:
        raise AssertionError("a broken run.json must be refused")


def test_the_reports_looks_table_is_what_the_command_counts() -> None:
    """reports/README.md's table of looks at the evaluation patients is the output of
    ``python -m bench ledger --reports reports --corpus evaluation`` for the committed
    reports: a report added or removed changes it, and this says what to write."""
    import re

    root = Path(__file__).resolve().parents[2]
    text = (root / "reports" / "README.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- looks: [^\n]*-->\n(.*?)<!-- end looks -->", text, re.S)
    assert block, "no table of looks in reports/README.md"
    printed = [
        [c.strip() for c in line.strip("|").split("|")]
        for line in block.group(1).splitlines()[2:]
        if line.startswith("|")
    ]
    (group,) = [
        g
        for g in looks([root / "reports"])
        if any(c.startswith("evaluation:") for c in g["corpora"])
    ]
    counted = [
        [
            f"[`{Path(r['report']).name}`]({Path(r['report']).name}/report.md)",
            str(r["configurations"]),
            str(r["new"]),
            str(r["before"]),
        ]
        for r in group["reports"]
    ]
    assert printed == counted, "\n".join(" | ".join(r) for r in counted)


def test_a_run_counts_the_looks_of_the_reports_saved_beside_it(tmp_path: Path) -> None:
    """A new cache's ledger knows nothing of the committed reports: a run also counts the
    configurations that the reports in its ``--out`` directory's parent (one or two levels
    down) had scored on the same notes, by corpus fingerprint, before it started."""
    other = {"other:x": {"fingerprint": "f" * 32}}
    _run(tmp_path / "a", "2026-01-01", {"svm": _system("svm"), "m": _system("mimic", False)}, EVAL)
    _run(tmp_path / "dev" / "b", "2026-01-02", {"svm": _system("svm", C=2)}, EVAL)
    _run(tmp_path / "c", "2026-01-02", {"mega": _system("mega")}, other)  # other notes
    _run(tmp_path / "later", "2026-02-01", {"crf": _system("crf")}, EVAL)  # after the run
    _run(tmp_path / "x" / "y" / "z", "2026-01-01", {"hmm": _system("hmm")}, EVAL)  # too deep
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "run.json").write_text("{", encoding="utf-8")
    fingerprints = {"evaluation:physionet:x": "e" * 32, "foreign:x": "9" * 32}
    got = scored_before(tmp_path, fingerprints, "2026-01-15")
    assert got["corpora"] == {
        "evaluation:physionet:x": {"configurations": 3, "reports": 2},
        "foreign:x": {"configurations": 0, "reports": 0},
    }
    assert got["unreadable"] == 1
    assert scored_before(tmp_path / "missing", fingerprints, "2026-01-15")["corpora"][
        "evaluation:physionet:x"
    ] == {"configurations": 0, "reports": 0}


def test_the_report_states_the_saved_reports_count_beside_the_ledger() -> None:
    from bench.report.ledger import report_section

    corpus = {
        "n_notes": 1170,
        "before": 0,
        "this_run": [{"scored_before": False}],
        "before_counting_code_versions": 0,
        "on_sets_sharing_notes": 0,
    }
    ledger = {"recorded": True, "corpora": {"evaluation": corpus}}
    plain = "\n".join(report_section({"ledger": ledger}))
    assert "saved reports" not in plain
    saved = {
        "directory": "/r/reports",
        "unreadable": 0,
        "corpora": {"evaluation": {"configurations": 42, "reports": 17}},
    }
    text = "\n".join(report_section({"ledger": {**ledger, "saved_reports": saved}}))
    assert "In saved reports before it (`reports/`)" in text
    assert "42 (in 17 reports)" in text and "starts empty on a new machine" in text


def test_a_command_run_counts_the_reports_beside_its_output(tmp_path: Path) -> None:
    """End to end: the second run into the same directory of reports says, in run.json
    and its report, that a saved report had scored its configuration on these notes."""
    from bench.cli import main

    reports = tmp_path / "reports"
    command = ["run", "--systems", "heuristic", "--corpora", "authentic", "--n-documents", "12"]
    command += ["--folds", "2", "--seed", "3", "--quiet", "--out"]
    assert main([*command, str(reports / "first")]) == 0
    first = json.loads((reports / "first" / "run.json").read_text(encoding="utf-8"))
    assert first["ledger"]["saved_reports"]["corpora"] == {
        "authentic": {"configurations": 0, "reports": 0}
    }
    assert main([*command, str(reports / "second")]) == 0
    second = json.loads((reports / "second" / "run.json").read_text(encoding="utf-8"))
    assert second["ledger"]["saved_reports"]["corpora"] == {
        "authentic": {"configurations": 1, "reports": 1}
    }
    text = (reports / "second" / "report.md").read_text(encoding="utf-8")
    assert "In saved reports before it (`reports/`)" in text and "1 (in 1 report)" in text


def test_the_same_texts_under_new_annotation_flags_are_the_same_notes(tmp_path: Path) -> None:
    """A corpus fingerprint covers the notes' flags as well as their texts: when the rule
    for "not found in dictionaries" changes, the same foreign notes get a new one.  The
    fingerprint of the texts the ledger records links the reports made before and after,
    and through a report that recorded both, the older reports that kept no ledger."""
    old_flags, new_flags, texts = "1" * 32, "2" * 32, "t" * 32
    foreign = "foreign:evaluation:x"
    with_ledger = {"ledger": {"corpora": {foreign: {"notes": texts}}}}
    before = {foreign: {"fingerprint": old_flags}}
    _run(tmp_path / "a", "2026-01-01", {"svm": _system("svm")}, before)
    _run(tmp_path / "b", "2026-01-02", {"mega": _system("mega")}, before, **with_ledger)
    other_notes = {foreign: {"fingerprint": "3" * 32}}
    _run(tmp_path / "other", "2026-01-02", {"crf": _system("crf")}, other_notes)
    got = scored_before(tmp_path, {foreign: new_flags}, "2026-01-15", {foreign: texts})
    assert got["corpora"][foreign] == {"configurations": 2, "reports": 2}
    # without the texts' fingerprint the new flags are other notes, as before
    assert scored_before(tmp_path, {foreign: new_flags}, "2026-01-15")["corpora"][foreign] == {
        "configurations": 0,
        "reports": 0,
    }
    _run(
        tmp_path / "c",
        "2026-01-03",
        {"mega-2": _system("mega", C=2)},
        {foreign: {"fingerprint": new_flags}},
        **with_ledger,
    )
    groups = {
        tuple(Path(r["report"]).name for r in g["reports"]): g["notes"] for g in looks([tmp_path])
    }
    # named by the identifier first met: the oldest report's corpus fingerprint
    assert groups == {("a", "b", "c"): old_flags, ("other",): "3" * 32}

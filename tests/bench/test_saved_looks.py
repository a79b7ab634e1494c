"""Looks counted from saved reports (bench/report/saved_looks.py, ``bench ledger --reports``)."""

from __future__ import annotations

import json
from pathlib import Path

from bench.report.saved_looks import looks


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

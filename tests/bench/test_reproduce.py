"""``python -m bench reproduce``: the verdict rules on numbers chosen by hand, the commands
on tiny corpora with throw-away systems, and (slow) each command end to end."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bench import cli
from bench.reproduce import common, sibanda2006, tafvizi2011, verdicts
from bench.reproduce.common import (
    NOT_SUPPORTED,
    NOT_TESTED,
    PARTLY,
    SUPPORTED,
    Options,
    Role,
)
from bench.reproduce.sibanda2006 import claims as sibanda_claims
from bench.reproduce.statdeid import claims as statdeid_claims
from bench.reproduce.tafvizi2011 import claims as tafvizi_claims
from bench.reproduce.verdicts import Part, judge
from tests.conftest import requires_nltk

TINY = dict(n_documents=12, folds=3, n_shuffles=200, n_resamples=50, jobs=1, show_progress=False)


def _part(label: str, holds: bool | None, p: float) -> Part:
    return Part(label, holds, p, "x vs y")


# --------------------------------------------------------------------------- the one rule


def test_judge_applies_the_rule_with_holm_over_the_claims_parts() -> None:
    strong = [_part("a", True, 0.001), _part("b", True, 0.002)]
    assert judge(strong, 0.05)[0] == SUPPORTED
    # 0.03 alone would pass; Holm over two (0.03 > 0.025) does not: partly, both named
    verdict, evidence = judge([_part("a", True, 0.03), _part("b", True, 0.04)], 0.05)
    assert verdict == PARTLY and "hold, not significant: a (x vs y, p 0.060); b" in evidence
    verdict, evidence = judge([*strong, _part("c", False, 0.001)], 0.05)
    assert verdict == PARTLY and "reversed, significantly: c (x vs y, p" in evidence
    verdict, evidence = judge([*strong, _part("c", False, 0.3)], 0.05)
    assert verdict == PARTLY and "do not hold, not significantly: c (x vs y, p" in evidence
    assert "2 of 3 parts hold significantly" in evidence
    assert judge([_part("a", False, 0.001), _part("b", False, 0.5)], 0.05)[0] == NOT_SUPPORTED
    assert judge([_part("a", None, float("nan"))], 0.05)[0] == NOT_TESTED
    # a part not measured keeps a claim from being supported
    verdict, evidence = judge([*strong, _part("c", None, float("nan"))], 0.05)
    assert verdict == PARTLY and "not measured: c" in evidence
    assert judge([_part("a", True, 0.001)], 0.05)[1] == "a: holds, significant (x vs y, p 0.0010)"


def _by_doc(rows: list[list[float]], prefix: str = "d") -> dict[str, np.ndarray]:
    return {f"{prefix}{i}": np.array(r, dtype=float) for i, r in enumerate(rows)}


def test_part_tests_run_on_documents() -> None:
    options = Options(n_shuffles=2000, seed=0)
    a = _by_doc([[9, 1, 0]] * 30)  # recall 1.0
    b = _by_doc([[5, 1, 4]] * 30)  # recall 5/9
    part = verdicts.higher("a > b", a, b, options, "recall")
    assert part.holds and part.p < 0.01 and part.detail == "100.0 vs 55.6"
    lower = verdicts.higher("a < b", a, b, options, "recall", lower=True)
    assert not lower.holds
    other = _by_doc([[5, 1, 4]] * 30, prefix="e")  # different notes: the two-sample test
    assert verdicts.higher("a > other", a, other, options, "recall").p < 0.01
    same = _by_doc([[9, 1, 0]] * 15 + [[8, 1, 1]] * 15)
    eq = verdicts.within("a ≈ same", a, same, options, 10.0, statistic="recall")
    assert eq.holds and eq.p < 0.01  # 100 vs 94.4: within 10 points, firmly
    far = verdicts.within("a ≈ b", a, b, options, 5.0, statistic="recall")
    assert not far.holds and far.p > 0.5
    assert (
        verdicts.within("b ≥ a - 5", b, a, options, 5.0, side="not lower", statistic="recall").holds
        is False
    )
    above = verdicts.beyond("recall > 81 %", a, 0.81, options, "recall")
    assert above.holds and above.p < 0.01
    assert verdicts.beyond("recall < 1 %", a, 0.01, options, "recall", below=True).holds is False
    either = verdicts.either("P or R", [lower, part])
    assert either.holds and either.p == min(1.0, part.p * 2)
    assert verdicts.higher("empty", {}, b, options).holds is None


@pytest.mark.parametrize(
    "claim", [*sibanda_claims.CLAIMS, *statdeid_claims.CLAIMS, *tafvizi_claims.CLAIMS]
)
def test_every_claim_is_the_rule_on_its_parts(claim) -> None:
    good = [_part(f"p{i}", True, 0.0001) for i in range(3)]
    mixed = [*good[:2], _part("p9", False, 0.0001)]
    bad = [_part(f"p{i}", False, 0.0001) for i in range(3)]
    supported, partly, not_supported = (claim(parts, 0.05) for parts in (good, mixed, bad))
    assert (supported.verdict, partly.verdict, not_supported.verdict) == (
        SUPPORTED,
        PARTLY,
        NOT_SUPPORTED,
    )
    assert supported.claim and supported.source and supported.parts
    assert "Holm over 3" in supported.test and "α = 0.05" in supported.test
    assert "reversed, significantly: p9" in partly.evidence


def test_paper_figure_inside_our_interval() -> None:
    from bench.reproduce.paper_figures import Published

    r = pd.Series(
        {"precision": 0.9, "recall": 0.9, "f1": 0.9, "f1_ci_low": 0.88, "f1_ci_high": 0.92}
    )
    pub = Published("s", "Table 2", "surrogate", "svm", "SVM", "PHI", "all", 90.0, 90.0, 91.9)
    far = Published("s", "Table 2", "surrogate", "svm", "SVM", "PHI", "all", 90.0, 90.0, 97.2)
    table = common.side_by_side([(pub, "svm", r), (far, "svm", r)], {"svm": 0.01})
    assert "| yes" in table and "**no**" in table
    bullets = common.disagreements(
        [("Table 2", pub, "svm", r), ("Table 2", far, "svm", r)], lambda s, up: f"why {up}"
    )
    assert bullets == ["- `svm` below the paper (Table 2 PHI 97.2 → 90.0): why False"]


def test_options_quick_and_run_config_aliases() -> None:
    options = Options(folds=10, n_shuffles=10_000).quick()
    assert (options.n_documents, options.folds, options.n_shuffles) == (60, 3, 1000)
    # a corpus read from files keeps its size: the generator's size would be refused
    on_file = Options(base="i2b2-2006:notes.xml", folds=10).quick()
    assert (on_file.n_documents, on_file.folds) == (None, 3)
    config = options.run_config(
        [Role("svm", "svm"), Role("svm-plo", "svm", {"train_categories": ("PATIENT",)})],
        ["authentic"],
    )
    assert config.systems == ["svm,svm-plo=svm"]
    assert config.system_params == {"svm-plo": {"train_categories": ("PATIENT",)}}


# --------------------------------------------------------------------------- commands, tiny


TOY_SIBANDA = {
    "svm": Role("mem", "toy-memory"),
    "identifinder": Role("caps", "toy-capitals"),
    "dictionary": Role("caps-doctor", "toy-capitals", {"label": "DOCTOR"}),
    "snow": Role("people", "toy-people"),
    "svm_plo": Role("mem-2", "toy-memory", {"min_count": 2}),
    "snow_local": Role("people-doctor", "toy-people", {"label": "DOCTOR"}),
}


def test_sibanda2006_on_a_tiny_corpus(toy_systems, tmp_path) -> None:
    # no feature ranking (it needs the NLTK tagger and WordNet; the slow test runs it)
    options = Options(out=tmp_path, systems=TOY_SIBANDA, ranked_features=(), **TINY)
    report = sibanda2006.reproduce(options)
    path = report.write(tmp_path)
    text = path.read_text()
    assert path.name == "sibanda2006.md"
    for heading in (
        "## Claims and verdicts",
        "### Table 2:",
        "### Table 3:",
        "### Table 9:",
        "### Table 13:",
        "## Where we disagree",
        "## Global context",
        "## §6.4 Feature ranking",
        "## The ambiguous corpus",
        "### Table 9's subset",
        "## Corpora: words per class",
    ):
        assert heading in text, heading
    assert len(report.verdicts) == len(sibanda_claims.CLAIMS)
    assert all(v.verdict in common.VERDICTS for v in report.verdicts)
    assert report.verdicts[-1].verdict == NOT_TESTED  # the ranking was not asked for
    # the toy "SVM" memorizes names: it cannot find unseen ones, which the rule must see
    finds = next(v for v in report.verdicts if "not found in dictionaries" in v.claim)
    assert finds.verdict in (NOT_SUPPORTED, PARTLY)
    assert "Seed: 0; folds: 3" in text and "(called from Python)" in text


def test_tafvizi2011_on_a_tiny_corpus(toy_systems, tmp_path) -> None:
    roles = {
        name: Role(name.replace("mega", "memo"), "toy-memory", {"min_count": 1 + i % 2})
        for i, name in enumerate(tafvizi2011.ROLES)
    }
    roles["multi"] = Role("capitals", "toy-capitals")
    options = Options(out=tmp_path, systems=roles, **TINY)
    report = tafvizi2011.reproduce(options)
    text = report.markdown
    for heading in (
        "Hypothesis 1 on `surrogate[discharge]`",
        "### Table B.3",
        "### Table B.6",
        "### Table A.13",
        "### Table B.7",
        "### Table B.8",
        "Crammer-Singer",
    ):
        assert heading in text, heading
    assert [v.source.split(",")[0] for v in report.verdicts] == [
        "Hypothesis 1",
        "Hypothesis 1",
        "Hypothesis 2",
        "Hypothesis 2",
        "Hypothesis 2",
        "Hypothesis 3",
        "Hypothesis 4",
        "§6.2",
    ]
    assert all(v.verdict != NOT_TESTED for v in report.verdicts)
    assert "Z (her test) / p" in text and "|Z| > 1.96 is her significance level" in text


def test_tafvizi2011_on_one_corpus_file_leaves_the_cross_corpus_tests_out(
    toy_systems, tmp_path
) -> None:
    from corpora.readers.jsonl import write_jsonl
    from tests.bench.toy import make_corpus

    path = tmp_path / "notes.jsonl"
    write_jsonl(make_corpus(16), path)
    roles = {name: Role(name.replace("mega", "memo"), "toy-memory") for name in tafvizi2011.ROLES}
    roles["multi"] = Role("capitals", "toy-capitals")
    options = Options(base=f"jsonl:{path}", out=tmp_path, systems=roles, **TINY)
    report = tafvizi2011.reproduce(options)
    by_source = {v.source: v.verdict for v in report.verdicts}
    assert by_source["Hypothesis 2, §6.1.2, Table A.13"] == NOT_TESTED
    assert by_source["Hypothesis 2, §6.1.2, Tables B.4, B.6"] == NOT_TESTED
    assert "give `--other SPEC`" in report.markdown and "### Table B.4" not in report.markdown
    assert "not the papers' Partners discharge summaries" in report.markdown


def test_held_out_split_is_grouped_seeded_and_declared() -> None:
    from tests.bench.toy import make_corpus

    corpus = make_corpus(16)
    train, whole = tafvizi2011.held_out_split(corpus, Options(seed=3))
    test = [d for d in whole.documents if d.metadata["split"] == "test"]
    assert len(test) == 4 and len(train) == 12
    assert {d.id for d in train.documents}.isdisjoint({d.id for d in test})
    again, _ = tafvizi2011.held_out_split(corpus, Options(seed=3))
    assert [d.id for d in again.documents] == [d.id for d in train.documents]


def test_cli_reproduce_usage_errors(capsys, tmp_path) -> None:
    assert cli.main(["reproduce", "nosuchpaper"]) == cli.EXIT_USAGE
    assert "invalid choice" in capsys.readouterr().err
    assert cli.main(["reproduce", "statdeid", "--folds", "1"]) == cli.EXIT_USAGE
    assert "at least 2" in capsys.readouterr().err
    assert cli.main(["reproduce", "statdeid", "--alpha", "2"]) == cli.EXIT_USAGE
    assert "between 0 and 1" in capsys.readouterr().err
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("x")
    assert cli.main(["reproduce", "statdeid", "--out", str(not_a_dir)]) == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a directory" in err


# --------------------------------------------------------------------------- end to end


@pytest.mark.slow
@requires_nltk
@pytest.mark.parametrize("paper", ["sibanda2006", "tafvizi2011", "statdeid"])
def test_reproduce_command_end_to_end(paper: str, tmp_path: Path, capsys) -> None:
    argv = [
        "reproduce",
        paper,
        "--quick",
        "--n-documents",
        "24",
        "--folds",
        "2",
        "--jobs",
        "1",
        "--shuffles",
        "100",
        "--resamples",
        "30",
        "--out",
        str(tmp_path),
        "--quiet",
    ]
    assert cli.main(argv) == cli.EXIT_OK
    out = capsys.readouterr().out
    text = (tmp_path / f"{paper}.md").read_text()
    assert f"`python -m bench {' '.join(argv)}`" in text
    assert "## Claims and verdicts" in text and f"report: {tmp_path}" in out
    verdict_lines = [
        line for line in out.splitlines() if line.strip().split("  ")[0] in common.VERDICTS
    ]
    assert verdict_lines
    if paper == "statdeid":
        for png in ("statdeid-ablation.png", "statdeid-learning-curve.png"):
            assert (tmp_path / png).read_bytes().startswith(b"\x89PNG")

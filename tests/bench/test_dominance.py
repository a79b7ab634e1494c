"""Dominance: each pair's precision and recall with a paired test of each, the verdict, and
the answer to "is any configuration better than the rule-based peer on both?"."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pandas as pd
import pytest

from bench.report.outputs import write_outputs
from bench.run.runner import RunConfig, run
from bench.score.dominance import COLUMNS, EQUAL, NEITHER, answer, rule_based_peers, verdict
from corpora.model import OUTSIDE, Document
from systems.base import register, unregister
from tests.bench.toy import CapitalizedSystem, make_corpus


class NoisyPeer(CapitalizedSystem):
    """An external rule-based tool: capitalized words, no dates, and "stable" as PHI."""

    name = "toy-peer"
    description = "test fixture: a rule-based external tool"
    external = True

    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        out = []
        for doc, labels in zip(documents, super().predict(documents), strict=True):
            fixed = [OUTSIDE if lab == "DATE" else lab for lab in labels]
            pairs = zip(doc.tokens, fixed, strict=True)
            out.append(["PATIENT" if t.text == "stable" else lab for t, lab in pairs])
        return out


@pytest.fixture
def peer(toy_systems) -> Iterator[None]:
    register(NoisyPeer)
    try:
        yield
    finally:
        unregister(NoisyPeer.name)


def test_verdict() -> None:
    assert verdict(0.9, 0.9, 0.8, 0.9) == "a"
    assert verdict(0.8, 0.9, 0.8, 0.95) == "b"
    assert verdict(0.9, 0.8, 0.8, 0.9) == NEITHER
    assert verdict(0.5, 0.5, 0.5, 0.5) == EQUAL


def test_pairs_tests_and_the_answer_for_the_rule_based_peer(peer, tmp_path) -> None:
    config = RunConfig(
        systems=["toy-memory,toy-capitals,toy-peer"],
        corpora=["toy"],
        folds=3,
        show_progress=False,
        n_resamples=0,
        n_shuffles=500,
    )
    result = run(config, {"toy": make_corpus(12)})
    frame = result.dominance
    assert list(frame.columns) == list(COLUMNS) and len(frame) == 3
    by = {(r.system_a, r.system_b): r for r in frame.itertuples()}
    caps_peer = by[("toy-capitals", "toy-peer")]
    assert caps_peer.dominant == "toy-capitals" and caps_peer.significant
    assert caps_peer.precision_a == 1.0 and caps_peer.precision_b < 1.0
    assert caps_peer.precision_difference > 0 and caps_peer.recall_difference > 0
    assert caps_peer.precision_p < 0.05 and caps_peer.recall_p < 0.05
    assert by[("toy-memory", "toy-peer")].dominant == NEITHER  # higher P, lower R
    assert rule_based_peers(result.systems) == ["toy-peer"]
    paths = write_outputs(result, tmp_path / "out", ["python", "-m", "bench", "run"])
    assert pd.read_csv(paths["dominance"]).shape == (3, len(COLUMNS))
    report = paths["report"].read_text()
    assert "## Dominance: at least as good in precision and recall" in report
    line = next(x for x in report.splitlines() if x.startswith("**Is any configuration"))
    assert "better than `toy-peer` on both" in line and "Yes, significantly" in line
    assert "`toy-capitals` (P 100.0" in line and "toy-memory" not in line


def _frame(**rows: tuple[float, float, float, float, str, bool]) -> pd.DataFrame:
    out = []
    for other, (pa, ra, pb, rb, dominant, significant) in rows.items():
        out.append(
            {
                "corpus": "c",
                "subset": "all",
                "system_a": other,
                "system_b": "deidpl",
                "precision_a": pa,
                "precision_b": pb,
                "precision_difference": pa - pb,
                "precision_p": 0.01,
                "recall_a": ra,
                "recall_b": rb,
                "recall_difference": ra - rb,
                "recall_p": 0.3,
                "dominant": dominant,
                "significant": significant,
            }
        )
    return pd.DataFrame(out, columns=list(COLUMNS))


def test_answers_no_and_not_significantly() -> None:
    trade = _frame(mega=(0.87, 0.95, 0.69, 0.975, NEITHER, False))
    line = answer(trade, "c", "deidpl", 0.05)
    assert line.endswith("No: every other system is worse on at least one of them.")
    weak = _frame(mega=(0.87, 0.98, 0.69, 0.975, "mega", False))
    line = answer(weak, "c", "deidpl", 0.05)
    assert "Not significantly" in line and "`mega` (P 87.0, +18.0, p = 0.01; R 98.0" in line
    assert "Not measured" in answer(trade, "other", "deidpl", 0.05)

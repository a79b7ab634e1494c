"""Tagging throughput of the rule-based baselines ``heuristic`` and ``mimic``.

pytest-benchmark measures ``predict`` over hand-written ICU-style notes whose tokens are
computed beforehand (the runner tokenizes a corpus once per run); tokens per second go to
``extra_info``.  Target: >= 100,000 tokens/s for rule-based systems.  Runs with the packaged
default dictionaries, and with the deid-1.1 lists when ``../shared`` is present.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpora.model import Document
from systems.heuristic import HeuristicDeidentifier
from systems.mimic import MimicDeidentifier

SURNAMES = ["Quennell", "Zanetti", "Kowalczyk", "Tavish", "Orlov", "Brannigan"]
FIRST = ["Philomena", "Radomir", "Irene", "Marek"]


def _note(i: int) -> Document:
    dr, rel, nurse = SURNAMES[i % 6], FIRST[i % 4], SURNAMES[(i + 2) % 6]
    text = (
        f"Nursing progress note 7a-7p {i % 12 + 1}/{i % 28 + 1}\n"
        f"NEURO: a&ox3, MAE, follows commands. PERRL. Dr. {dr} aware of episode.\n"
        "CV: HR 80-90 NSR no VEA, BP 110-130/60-70. K+ 3.9 repleted with 40 meq KCL.\n"
        "RESP: LS coarse, sats 95-97% on 4L NC, psv 10/5 overnight, abg 7.41/38/92.\n"
        "GI/GU: abd soft, +BS, foley draining clear yellow urine 40-60cc/hr.\n"
        f"SOCIAL: daughter {rel} called, updated; lives in Springfield, cell 617-555-{1000 + i}.\n"
        f"PMH: cabg '84, mi 1992. A/P: continue to monitor, wean as tolerated.\n{nurse}, RN\n"
    )
    return Document(f"r{i}", text)


#: ~12,000 tokens in 100 notes.
DOCS = [_note(i) for i in range(100)]
N_TOKENS = sum(len(d.tokens) for d in DOCS)  # tokenizes once, outside the benchmark


def _run(benchmark, system) -> list[list[str]]:
    system.predict(DOCS[:1])  # build the lexicon outside the measurement
    result = benchmark(system.predict, DOCS)
    stats = getattr(benchmark, "stats", None)
    if stats is not None and getattr(stats, "stats", None) is not None:
        benchmark.extra_info["tokens_per_second"] = N_TOKENS / stats.stats.mean
    benchmark.extra_info["tokens"] = N_TOKENS
    return result


@pytest.mark.benchmark(group="rule-based tagging")
def test_mimic_throughput(benchmark) -> None:
    out = _run(benchmark, MimicDeidentifier())
    assert any("DATE" in labels for labels in out)


@pytest.mark.benchmark(group="rule-based tagging")
def test_heuristic_throughput(benchmark) -> None:
    out = _run(benchmark, HeuristicDeidentifier())
    assert any("DATE" in labels for labels in out)


@pytest.mark.benchmark(group="rule-based tagging")
def test_mimic_throughput_deid_lists(benchmark, deid_dictionaries_dir: Path) -> None:
    out = _run(benchmark, MimicDeidentifier(dictionaries=str(deid_dictionaries_dir)))
    assert any("DOCTOR" in labels for labels in out)


@pytest.mark.benchmark(group="rule-based tagging")
def test_heuristic_throughput_deid_lists(benchmark, deid_dictionaries_dir: Path) -> None:
    out = _run(benchmark, HeuristicDeidentifier(dictionaries=str(deid_dictionaries_dir)))
    assert any("LOCATION" in labels for labels in out)

"""Tagging throughput of the global-context baselines ``hmm`` and ``snow``.

pytest-benchmark measures ``predict`` on a few thousand tokens of hand-written notes; the
tokens-per-second figure is stored in ``extra_info``.  Targets: >= 50,000 tokens/s for
``hmm`` and >= 20,000 for ``snow`` once a document's features are cached (the runner
featurizes a corpus once per run; POS tagging dominates a cold first pass).
"""

from __future__ import annotations

import pytest

from corpora import nlp
from corpora.model import Document, Span
from systems.hmm import IdentiFinderHMM
from systems.snow import SnowNER

NAMES = ["Smith", "Jones", "Brown", "Miller", "Davis", "Wilson", "Moore", "Taylor"]
HOSPITALS = ["Mercy", "Lakeside", "Riverside", "Bayview"]
CITIES = ["Boston", "Salem", "Quincy", "Lowell"]


def _note(i: int) -> Document:
    pt, dr = NAMES[i % 8], NAMES[(i + 3) % 8]
    hosp, city, date = HOSPITALS[i % 4], CITIES[(i + 1) % 4], f"7/{i % 28 + 1}/2006"
    text = (
        f"Patient {pt} was seen by Dr. {dr} on {date}. "
        f"Transferred from {hosp} Hospital in {city}. BP 120/80, HR 88, afebrile.\n"
        "Neuro: a&ox3, MAE. Resp: LS clear, sats 97% on 2L NC.\n"
        "Plan: continue to monitor, f/u with team in am.\n"
    )
    spans = []
    for phrase, category in (
        (pt, "PATIENT"),
        (dr, "DOCTOR"),
        (date, "DATE"),
        (hosp, "HOSPITAL"),
        (city, "LOCATION"),
    ):
        start = text.index(phrase)
        spans.append(Span(start, start + len(phrase), category))
    return Document(f"s{i}", text, tuple(spans))


TRAIN = [_note(i) for i in range(40)]
#: ~6,000 tokens in 100 notes.
TEST = [_note(i) for i in range(40, 140)]
N_TOKENS = sum(len(d.tokens) for d in TEST)


def _run(benchmark, system, docs) -> list[list[str]]:
    result = benchmark(system.predict, docs)
    stats = getattr(benchmark, "stats", None)
    if stats is not None and getattr(stats, "stats", None) is not None:
        benchmark.extra_info["tokens_per_second"] = N_TOKENS / stats.stats.mean
    benchmark.extra_info["tokens"] = N_TOKENS
    return result


@pytest.mark.benchmark(group="global-context tagging")
def test_hmm_throughput(benchmark) -> None:
    system = IdentiFinderHMM().fit(TRAIN)
    preds = _run(benchmark, system, TEST)
    assert sum(len(p) for p in preds) == N_TOKENS
    assert any(label == "PATIENT" for p in preds for label in p)


@pytest.mark.benchmark(group="global-context tagging")
def test_snow_throughput(benchmark) -> None:
    use_pos = nlp.available("averaged_perceptron_tagger_eng")
    system = SnowNER(use_pos=use_pos).fit(TRAIN)
    system.predict(TEST)  # warm the per-document feature cache, as a run does
    preds = _run(benchmark, system, TEST)
    assert sum(len(p) for p in preds) == N_TOKENS
    assert set().union(*map(set, preds)) <= {"O", "PATIENT", "DOCTOR", "LOCATION", "HOSPITAL"}

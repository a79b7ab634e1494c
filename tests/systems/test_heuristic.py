"""The heuristic + dictionary baseline (Douglass 2005; Sibanda & Uzuner 2006, §4.1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.score.metrics import token_counts
from corpora.dictionaries import Dictionaries
from corpora.model import OUTSIDE, Document, gold_labels
from systems.base import get_system
from systems.heuristic import HeuristicDeidentifier, annotate, edits1


@pytest.fixture(scope="module")
def dicts() -> Dictionaries:
    d = Dictionaries(sources=["test"])
    d.add("female_first_names", ["philomena", "grace"])
    d.add("male_first_names", ["radomir"])
    d.add("last_names", ["zanetti", "kowalczyk", "price", "berg"])
    d.add("last_name_prefixes", ["van"])
    d.add("locations", ["springfield", "comfort"])
    d.add("us_states", ["ohio"])
    d.add("hospitals", ["gh", "sacred heart"])
    d.add(
        "common_words",
        """grace price comfort the to in and with was seen by today said before lunch called
        twice patient titrated from lives moved spoke proxy daughter with is her sister
        years old she admitted call transferred then visited at""".split(),
    )
    return d


def tag(text: str, dicts: Dictionaries, **kw) -> dict[str, tuple[str, str]]:
    doc = Document("t", text)
    labels, rules = annotate(doc, dicts, **kw)
    return {t.text: (lab, r) for t, lab, r in zip(doc.tokens, labels, rules, strict=True)}


def test_edit_distance_one_neighbourhood() -> None:
    near = edits1("berg")
    assert {"brg", "breg", "bert", "bergs", "aberg"} <= near
    assert "berg" not in near and "bxrx" not in near


def test_table_words_not_in_common_words_are_phi(dicts: Dictionaries) -> None:
    got = tag("Kowalczyk seen today; moved to Springfield; said grace; titrated to comfort.", dicts)
    assert got["Kowalczyk"] == ("PATIENT", "table.name")
    assert got["Springfield"] == ("LOCATION", "table.location")
    assert got["grace"][0] == OUTSIDE  # a table word that is a common word: never PHI
    assert got["comfort"][0] == OUTSIDE


def test_context_clues(dicts: Dictionaries) -> None:
    got = tag("Seen by Dr. Quennell and Mrs. Price.\nSpoke with proxy Tavish.", dicts)
    assert got["Quennell"] == ("DOCTOR", "context.title")
    assert got["Price"] == ("PATIENT", "context.title")  # a common table word after a title
    assert got["Tavish"] == ("PATIENT", "context.name_indicator")
    got = tag("Her sister lives in Wexford.", dicts)
    assert got["Wexford"] == ("LOCATION", "context.location_indicator")
    got = tag("Seen by van Berg today.", dicts)
    assert got["van"] == got["Berg"] == ("PATIENT", "context.prefix")


def test_approximate_matching_of_misspelled_names(dicts: Dictionaries) -> None:
    assert tag("Zanettti called twice.", dicts)["Zanettti"] == ("PATIENT", "approx")
    assert tag("Springfeild is far.", dicts)["Springfeild"] == ("LOCATION", "approx")
    # all capitals (shorthand), too short, or switched off: no approximate match
    assert tag("ZANETTTI called twice.", dicts)["ZANETTTI"][0] == OUTSIDE
    assert tag("Bergs called.", dicts, min_length=6)["Bergs"][0] == OUTSIDE
    assert tag("Zanettti called.", dicts, approximate=False)["Zanettti"][0] == OUTSIDE


def test_hospitals_and_patterns(dicts: Dictionaries) -> None:
    got = tag(
        "Transferred from GH to Sacred Heart 8/23. Call 617-555-1234. MRN: 4431872. "
        "She is 95 years old.",
        dicts,
    )
    assert got["GH"] == ("HOSPITAL", "table.hospital")
    assert got["Sacred"][0] == got["Heart"][0] == "HOSPITAL"
    assert got["8/23"][0] == "DATE"
    assert got["617-555-1234"][0] == "PHONE"
    assert got["4431872"] == ("ID", "id.record")
    assert got["95"][0] == OUTSIDE  # §4.1 lists no age patterns for this system


def test_system_contract() -> None:
    system = get_system("heuristic")
    assert isinstance(system, HeuristicDeidentifier)
    assert not system.requires_training and system.predicts_categories
    assert system.get_params() == {"dictionaries": None, "approximate": True, "min_length": 5}
    docs = [Document("a", "Dr. Quennell saw pt 8/23."), Document("b", "")]
    out = system.fit_predict([], docs)
    assert [len(x) for x in out] == [len(d.tokens) for d in docs]
    assert "DATE" in out[0] and "DOCTOR" in out[0]


@pytest.mark.slow
def test_physionet_scores(physionet_dir: Path, deid_dictionaries_dir: Path) -> None:
    """Measured: recall 0.839, precision 0.351 -- the dictionary approach finds most PHI but
    marks every census name that is an ICU abbreviation (the paper's §6.2 point)."""
    from corpora.load import load_corpus

    corpus, _ = load_corpus(f"physionet:{physionet_dir}")
    docs = list(corpus)
    pred = HeuristicDeidentifier(dictionaries=str(deid_dictionaries_dir)).predict(docs)
    counts = token_counts(gold_labels(docs), pred)
    assert counts.recall >= 0.82
    assert counts.precision >= 0.30

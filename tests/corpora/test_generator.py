"""The embedded default corpus: deterministic, realistic, with every PHI category."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from corpora import templates
from corpora.generator import (
    DEFAULT_N_DOCUMENTS,
    GENERATOR_VERSION,
    GeneratorConfig,
    default_corpus,
    generate_corpus,
)
from corpora.model import LABELS, OUTSIDE


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("DEID_BENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("DEID_BENCH_NO_CACHE", raising=False)


@pytest.fixture(scope="module")
def small():
    return generate_corpus(7, GeneratorConfig(n_documents=60))


def test_same_seed_same_corpus_other_seed_differs() -> None:
    a = generate_corpus(3, GeneratorConfig(n_documents=12))
    b = generate_corpus(3, GeneratorConfig(n_documents=12))
    c = generate_corpus(4, GeneratorConfig(n_documents=12))
    assert a.fingerprint == b.fingerprint
    assert a.fingerprint != c.fingerprint
    # a prefix of a bigger corpus is the same corpus (documents are seeded by index)
    big = generate_corpus(3, GeneratorConfig(n_documents=15))
    assert [d.fingerprint for d in big.documents[:12]] == [d.fingerprint for d in a]


def test_default_corpus_is_cached_on_disk(tmp_path) -> None:
    first = default_corpus(seed=5, n_documents=6)
    files = list((tmp_path / "cache" / "corpus-generated").glob("*.pkl"))
    assert len(files) == 1
    second = default_corpus(seed=5, n_documents=6)
    assert first.fingerprint == second.fingerprint
    assert second.metadata["generator_version"] == GENERATOR_VERSION
    assert default_corpus(seed=6, n_documents=6).fingerprint != first.fingerprint


def test_documents_are_valid_and_spans_hold_text(small) -> None:
    for doc in small:
        doc.validate()
        assert doc.metadata["kind"] in ("discharge", "nursing")
        for span in doc.spans:
            text = doc.span_text(span)
            assert text == text.strip() and text
            assert "{" not in text


def test_no_unfilled_slots(small) -> None:
    for doc in small:
        assert not re.search(r"\{[A-Z0-9]+\}", doc.text), doc.id


def test_every_category_is_covered(small) -> None:
    labels = Counter(t.label for d in small for t in d.tokens)
    for category in LABELS:
        if category != "OTHER":
            assert labels[category] > 0, category
    phi = sum(v for k, v in labels.items() if k != OUTSIDE)
    assert 0.06 < phi / sum(labels.values()) < 0.25
    # the paper's Table 1 ordering: patients are the largest class, locations tiny
    assert labels["PATIENT"] > labels["DOCTOR"] > labels["LOCATION"]
    assert labels["DATE"] > labels["ID"]


def test_pattern_inventory_and_ids(small) -> None:
    inventory = templates.pattern_ids()
    assert len(inventory) >= 150
    used = {p for d in small for p in d.metadata["patterns"]}
    assert used <= set(inventory)
    assert len(used) >= 100
    # Several PHI patterns have no cue word at all: the PHI opens the sentence.
    bare = [
        t
        for t in inventory.values()
        if re.match(r"\{(PAT|PATF|PATL|REL|HOSP|HOSPA|DOC|DOCL|DATES)\}", t)
    ]
    assert len(bare) >= 15


def test_realism_features(small) -> None:
    text = "\n".join(d.text for d in small)
    low = text.lower()
    for shorthand in ("q.o.d.", "b.i.d.", "s/p", "r/o", "prn"):
        assert shorthand in low, shorthand
    kinds = Counter(d.metadata["case"] for d in small)
    assert kinds["upper"] and kinds["lower"] and kinds["mixed"]
    headings = {t.section for d in small for t in d.tokens}
    assert "HISTORY OF PRESENT ILLNESS:" in headings or "HPI:" in headings
    # hard negatives are present and never PHI
    hard = Counter()
    for doc in small:
        for tok in doc.tokens:
            w = tok.text.lower()
            if w.startswith(("swan", "foley", "parkinson", "bell's", "huntington")):
                hard[tok.label] += 1
            if re.fullmatch(r"\d{2,3}/\d{2,3}", w) and tok.label == OUTSIDE:
                hard["bp-like"] += 1
    assert hard[OUTSIDE] > 0 and hard["bp-like"] > 0
    # lower-case names occur (nursing notes), and some names are misspelled or unusual
    lower_names = [
        d.span_text(s)
        for d in small
        for s in d.spans
        if s.category == "PATIENT" and d.span_text(s).islower()
    ]
    assert lower_names


def test_invalid_size() -> None:
    with pytest.raises(ValueError):
        default_corpus(0, n_documents=0)


@pytest.mark.slow
def test_default_size_corpus() -> None:
    corpus = default_corpus(seed=0)
    assert len(corpus) == DEFAULT_N_DOCUMENTS >= 300
    assert corpus.n_tokens >= 150_000
    used = {p for d in corpus for p in d.metadata["patterns"]}
    assert len(used) >= 150
    labels = Counter(t.label for d in corpus for t in d.tokens)
    phi = sum(v for k, v in labels.items() if k != OUTSIDE)
    assert 0.08 < phi / corpus.n_tokens < 0.2


def test_generation_benchmark(benchmark) -> None:
    corpus = benchmark(lambda: generate_corpus(11, GeneratorConfig(n_documents=20)))
    assert len(corpus) == 20


def test_phi_share_and_category_mix_are_adjustable(tmp_path, monkeypatch) -> None:
    from corpora.generator import default_corpus

    monkeypatch.setenv("DEID_BENCH_CACHE", str(tmp_path))

    def share(corpus) -> float:
        toks = [t for d in corpus.documents for t in d.tokens]
        return sum(t.label != "O" for t in toks) / len(toks)

    less = default_corpus(seed=3, n_documents=30, phi_rate=0.05)
    base = default_corpus(seed=3, n_documents=30)
    more = default_corpus(seed=3, n_documents=30, phi_rate=5.0)
    assert share(less) + 0.02 < share(base) < share(more)

    def dates(corpus) -> int:
        return sum(s.category == "DATE" for d in corpus.documents for s in d.spans)

    # DATE=0 removes dates from the weighted sentence templates; fixed headers
    # ("Admission Date: ...") keep theirs
    few_dates = default_corpus(seed=3, n_documents=30, category_weights=(("DATE", 0.0),))
    assert dates(few_dates) < dates(base) / 2
    with pytest.raises(ValueError, match="unknown category"):
        default_corpus(seed=3, n_documents=30, category_weights=(("NAME", 1.0),))


def _pool(pattern: str) -> str:
    return pattern.rsplit(":", 1)[0]


def test_template_families_share_phrasing_within_and_differ_between(small) -> None:
    from corpora.generator import TEMPLATE_FAMILIES

    assert [d.metadata["template"] for d in small] == [
        f"family-{i % TEMPLATE_FAMILIES}" for i in range(len(small))
    ]
    inventory = templates.pattern_ids()
    per_pool = Counter(_pool(p) for p in inventory)
    big = {pool for pool, n in per_pool.items() if n >= TEMPLATE_FAMILIES}
    assert len(big) >= 8
    families: dict[str, set[str]] = {}
    for doc in small:
        used = {p for p in doc.metadata["patterns"] if _pool(p) in big and p != "d:header:0"}
        families.setdefault(doc.metadata["template"], set()).update(used)
    assert len(families) == TEMPLATE_FAMILIES
    # different families: no PHI context pattern of a large pool in common
    names = sorted(families)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            assert not families[a] & families[b], (a, b)
    # one family: its notes draw on a small share of the inventory, so they share phrasing
    for used in families.values():
        assert 0 < len(used) <= 2 * sum(per_pool[p] for p in big) / TEMPLATE_FAMILIES
    docs_of = Counter(d.metadata["template"] for d in small)
    shared = Counter(
        p
        for fam in names
        for p in families[fam]
        if sum(p in d.metadata["patterns"] for d in small if d.metadata["template"] == fam) > 1
    )
    assert all(docs_of[f] >= 2 for f in names) and len(shared) >= 20

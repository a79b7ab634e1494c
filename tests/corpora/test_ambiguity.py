"""The ambiguous corpus's vocabulary and placement (Sibanda & Uzuner 2006, §6.2)."""

from __future__ import annotations

import pytest

from corpora.ambiguity import (
    FIRST,
    LAST,
    PLACE,
    SECTION_CONTEXTS,
    TABLE6_AMBIGUOUS_WORDS,
    candidates,
    headings,
    insertion_points,
    parse_uses,
    uses,
)
from corpora.model import Document, Mark, Span
from corpora.surrogates import insert_text


def test_candidates_are_names_or_places_that_are_also_words() -> None:
    words = candidates()
    assert len(words) > 1000
    assert LAST in words["brown"] and LAST in words["swan"] and LAST in words["hall"]
    assert FIRST in words["will"] and FIRST in words["hope"]
    assert PLACE in words["reading"] and PLACE in words["mobile"]
    for not_a_candidate in ("to", "her", "son", "husband", "doctor", "center", "general"):
        assert not_a_candidate not in words, not_a_candidate  # function, cue, hospital words
    assert "zyxwv" not in words and "smithson" not in words  # names that are not words
    assert all(w.isalpha() and len(w) >= 3 for w in words)


def test_every_use_is_a_candidate_in_a_known_section() -> None:
    table = uses()
    words = {u.word for u in table}
    assert len(words) >= 150  # hundreds of distinct ambiguous words
    assert words <= set(candidates()), sorted(words - set(candidates()))
    for use in table:
        assert use.contexts <= set(SECTION_CONTEXTS)
        rendered = use.render()
        assert "{" not in rendered and use.word in rendered.lower()
        assert rendered[:1].isupper() and rendered.endswith(".")


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("GI | brown", "expected 'CONTEXTS | WORDS | PHRASE'"),
        ("BELLY | brown | {W} stool.", "unknown contexts ['BELLY']"),
        ("GI | brown | Stool.", "no {W} or {w} slot"),
    ],
)
def test_bad_use_lines_name_their_line(line: str, reason: str) -> None:
    with pytest.raises(ValueError, match=rf"x line 2: .*{reason[:12]}"):
        parse_uses(["# comment", line], source="x")


def test_table6_targets_match_the_published_figures() -> None:
    from bench.paper_figures import SU06_TABLE1, SU06_TABLE6_AMBIGUOUS

    for category, (ambiguous, total) in TABLE6_AMBIGUOUS_WORDS.items():
        assert SU06_TABLE6_AMBIGUOUS[category] == ambiguous
        assert SU06_TABLE1["ambiguous"][category] == total


NOTE = (
    "Pt seen by Dr. Lambert today.\n"
    "GI- Abd soft. Tolerating TF.\n"
    "Social: Wife Ann called.\n"
    "Plan: Will d/c Dr. Ho in am.\n"
)


def test_sentences_go_after_sentence_ends_inside_matching_sections() -> None:
    assert [h for _, h in headings(NOTE)] == ["GI", "SOCIAL", "PLAN"]
    spans = [(15, 22), (53, 56), (79, 81)]  # Lambert, Ann, Ho
    points = insertion_points(NOTE, spans)
    assert set(points) == {"GI", "SOCIAL", "PLAN"}
    ends = {c: [NOTE[p - 4 : p] for ps in d.values() for p in ps] for c, d in points.items()}
    # after "soft." and "TF." in GI; never after "Dr." (a title), the first line has no
    # section, and nothing goes inside or right before a span
    assert ends == {"GI": ["oft.", " TF."], "SOCIAL": ["led."], "PLAN": [" am."]}


def test_insert_text_moves_spans_and_marks_exactly() -> None:
    doc = Document(
        "d",
        "Seen by Dr. Swan. Plan: d/c.",
        (Span(12, 16, "DOCTOR"),),
        (Mark(12, 16, "ambiguous"), Mark(24, 27, "x")),
        {"kind": "note"},
    )
    new = insert_text(
        doc, [(17, " Brown stool."), (28, " Will f/u."), (0, "NPN. ")], metadata_key="k"
    )
    assert new.text == "NPN. Seen by Dr. Swan. Brown stool. Plan: d/c. Will f/u."
    assert [new.span_text(s) for s in new.spans] == ["Swan"]
    assert [new.span_text(m) for m in new.marks] == ["Swan", "d/c"]
    assert [new.text[a:b] for a, b in new.metadata["k"]] == ["NPN. ", " Brown stool.", " Will f/u."]
    assert new.metadata["kind"] == "note"
    with pytest.raises(ValueError, match="inside span"):
        insert_text(doc, [(14, "x")])


def test_a_base_with_little_phi_uses_its_own_words_and_inserts_nothing(tmp_path, monkeypatch):
    from collections import Counter

    from corpora.ambiguity import INSERTED_KEY
    from corpora.load import get_variant
    from corpora.model import FLAG_AMBIGUOUS, OUTSIDE, Corpus

    monkeypatch.setenv("DEID_BENCH_CACHE", str(tmp_path))
    text = "GI: Brown stool. Will cont. Good UO, foley draining.\nPlan: call Dr. Smith."
    start = text.index("Smith")
    docs = tuple(Document(f"n{i}", text, (Span(start, start + 5, "DOCTOR"),)) for i in range(40))
    out = get_variant("ambiguous")(Corpus("few-phi", docs), seed=0)
    assert not any(d.metadata.get(INSERTED_KEY) for d in out)
    flagged = Counter(
        tok.label != OUTSIDE for d in out for tok in d.tokens if FLAG_AMBIGUOUS in tok.flags
    )
    assert flagged[True] and 0.1 < flagged[True] / sum(flagged.values()) < 0.4

"""The ambiguous corpus's words, ordinary uses and shares (Sibanda & Uzuner 2006, §6.2)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from corpora.ambiguity import (
    CLASS_SHARES,
    DAY_MONTH,
    FIRST,
    LAST,
    MONTH,
    PHI_SHARE,
    PLACE,
    SUBSTITUTED_KEY,
    TABLE6_AMBIGUOUS_WORDS,
    _Draws,
    is_date_word,
    name_words,
    parse_substitutions,
    phi_target,
    plan_ordinary_uses,
    roles_of,
    substitution_sites,
    substitutions,
    word_of,
)
from corpora.model import FLAG_AMBIGUOUS, OUTSIDE, Corpus, Document, Mark, Span
from corpora.surrogates import edit_text


def test_name_words_are_names_and_places_but_not_function_or_cue_words() -> None:
    words = name_words()
    assert LAST in words["brown"] and LAST in words["ng"] and LAST in words["pain"]
    assert FIRST in words["will"] and FIRST in words["hope"]
    assert PLACE in words["post"] and PLACE in words["mobile"]
    for never in ("to", "he", "son", "husband", "doctor", "patient", "memorial", "hospital"):
        assert never not in words, never
    assert "zyxwv" not in words
    assert all(w.isalpha() and len(w) >= 2 for w in words)


@pytest.mark.parametrize(
    ("word", "roles"),
    [
        ("5/5", {DAY_MONTH}),
        ("6/10", {DAY_MONTH}),
        ("2/30", set()),  # no such day
        ("13/1", set()),
        ("120/80", set()),
        ("may", {FIRST, MONTH}),
        ("march", {LAST, MONTH}),
        ("the", set()),
    ],
)
def test_roles_of_words_and_dates(word: str, roles: set[str]) -> None:
    assert roles <= roles_of(word) and (bool(roles) == bool(roles_of(word)))
    assert is_date_word(word) == (roles == {DAY_MONTH})


def test_word_of_a_token() -> None:
    assert [word_of(t) for t in ("Brown's", "Dr.", "PO", "5/5")] == ["brown", "dr", "po", "5/5"]


def test_every_full_form_writes_a_name_word_and_every_form_is_listed_once() -> None:
    forms: list[str] = []
    for sub in substitutions():
        words = [w for w in (word_of(t) for t in sub.full.split()) if roles_of(w)]
        assert words, sub.full
        forms += [f.lower() for f in sub.forms]
    assert len(forms) == len(set(forms)) and len(forms) > 50


@pytest.mark.parametrize(
    ("line", "reason"),
    [("qd daily", "expected 'FORMS | FULL FORM'"), ("qd | ", "expected 'FORMS | FULL FORM'")],
)
def test_bad_substitution_lines_name_their_line(line: str, reason: str) -> None:
    with pytest.raises(ValueError, match=rf"x line 2: {reason}"):
        parse_substitutions(["# comment", line], source="x")


def _sites(text: str, spans: tuple[Span, ...] = ()) -> list[str]:
    doc = Document("d", text, spans)
    return [f"{doc.text[a:b]}->{new}" for a, b, new in substitution_sites(doc)]


def test_shorthand_is_written_out_in_the_notes_capitalisation() -> None:
    assert _sites("BP 120/80. Lasix PO q.d. Pt s/p R TKR, RR 18, R 2") == [
        "BP->Blood pressure",  # starts the note
        "q.d.->daily",
        "s/p->status post",
        "R->right",  # a side before a word, not "R 2"
    ]
    assert _sites("Neuro: A&Ox3. HR 88") == ["A&Ox3->Alert and oriented x3", "HR->Heart rate"]
    assert _sites("BP 90S, LASIX PO QD") == ["BP->BLOOD PRESSURE", "QD->DAILY"]
    assert _sites("bp 90s, lasix po qd") == ["bp->blood pressure", "qd->daily"]
    # never inside PHI, never inside another token ("mg/hr", "units/hr")
    assert _sites("Dr. Qd 5 mg/hr", (Span(4, 6, "DOCTOR"),)) == []


def test_edit_text_moves_spans_and_marks_exactly() -> None:
    doc = Document(
        "d",
        "BP ok. Dr. Swan s/p CABG.",
        (Span(11, 15, "DOCTOR"),),
        (Mark(11, 15, "ambiguous"), Mark(16, 19, "x")),
        {"kind": "note"},
    )
    new = edit_text(
        doc, [(16, 19, "status post"), (0, 2, "Blood pressure"), (11, 11, "J. ")], metadata_key="k"
    )
    assert new.text == "Blood pressure ok. Dr. J. Swan status post CABG."
    assert [new.span_text(s) for s in new.spans] == ["Swan"]
    assert [new.span_text(m) for m in new.marks] == ["Swan"]  # the edited mark is gone
    assert [new.text[a:b] for a, b in new.metadata["k"]] == ["Blood pressure", "J. ", "status post"]
    assert new.metadata["kind"] == "note"
    with pytest.raises(ValueError, match="inside span"):
        edit_text(doc, [(12, 13, "x")])
    with pytest.raises(ValueError, match="overlaps"):
        edit_text(doc, [(0, 3, "x"), (2, 4, "y")])


def test_table6_targets_match_the_published_figures() -> None:
    from bench.reproduce.paper_figures import SU06_TABLE1, SU06_TABLE6_AMBIGUOUS

    for category, (ambiguous, total) in TABLE6_AMBIGUOUS_WORDS.items():
        assert SU06_TABLE6_AMBIGUOUS[category] == ambiguous
        assert SU06_TABLE1["ambiguous"][category] == total
        assert CLASS_SHARES[category] == ambiguous / total


def _note(i: int, extra: str) -> Document:
    text = f"Seen by Dr. Smith. BP 120/80, HR 88, Lasix PO qd.{extra}"
    return Document(f"n{i}", text, (Span(12, 17, "DOCTOR"),))


def test_shorthand_is_written_out_only_while_ordinary_uses_fall_short() -> None:
    notes = [_note(i, "") for i in range(10)]
    need = phi_target(notes) * (1 - PHI_SHARE) / PHI_SHARE
    short = plan_ordinary_uses(notes, random.Random(0))
    edits = [e for doc_edits in short.edits for e in doc_edits]
    assert 0 < len(edits) < 30  # "BP", "HR" and "qd" in every note: not all needed
    assert {new.lower() for _, _, new in edits} <= {"blood pressure", "heart rate", "daily"}
    assert sum(short.counts.values()) >= need > sum(short.counts.values()) - 2
    plenty = " Pain good, will call, daily labs, blood sent, clear, stable." * 3
    rich = plan_ordinary_uses([_note(i, plenty) for i in range(10)], random.Random(0))
    assert not any(rich.edits)  # the notes' own words suffice: their text stays
    assert rich.usable < set(rich.counts)  # and a subset of the words carries the PHI


def test_draws_follow_the_class_share_and_balance_the_words() -> None:
    counts = Counter({"brown": 30, "walker": 10})
    draws = _Draws(counts, frozenset(counts), phi_total=10, rng=random.Random(0))
    assert draws.wanted("DOCTOR", 2, 0) and not draws.wanted("ID", 2, 0)
    draws.record("DOCTOR", 10, 8)  # 80 % > 79.4 %: enough for now
    assert not draws.wanted("DOCTOR", 0, 0) and draws.wanted("DOCTOR", 5, 0)
    picks = Counter(draws.draw(((LAST,),), 1) for _ in range(10))
    assert picks == {"brown": 7, "walker": 3} or abs(picks["brown"] - 7.5) <= 1.5
    assert draws.draw(((MONTH,),), 1) is None  # no month word to give


def test_a_base_with_little_phi_keeps_its_text_and_a_phi_share_near_table6(tmp_path, monkeypatch):
    from corpora.load import get_variant

    monkeypatch.setenv("DEID_BENCH_CACHE", str(tmp_path))
    text = "GI: Brown stool. Will cont. Good UO, foley draining, PO daily.\nPlan: call Dr. Smith."
    start = text.index("Smith")
    docs = tuple(Document(f"n{i}", text, (Span(start, start + 5, "DOCTOR"),)) for i in range(40))
    out = get_variant("ambiguous")(Corpus("few-phi", docs), seed=0)
    assert not any(d.metadata.get(SUBSTITUTED_KEY) for d in out)
    flagged = Counter(
        tok.label != OUTSIDE for d in out for tok in d.tokens if FLAG_AMBIGUOUS in tok.flags
    )
    assert flagged[True] and 0.1 < flagged[True] / sum(flagged.values()) < 0.4

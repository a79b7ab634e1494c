"""Token- and entity-level metrics on tiny hand-built notes, with every count worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from bench.score.metrics import (
    SUBSETS,
    Counts,
    ScoreRow,
    entities_from_labels,
    entity_scores,
    f1_from_counts,
    gold_entities,
    label_codes,
    merge_rows,
    per_document_counts,
    subset_mask,
    token_correctness,
    token_counts,
    token_scores,
)
from corpora.model import FLAG_AMBIGUOUS, FLAG_NOT_IN_DICTIONARY, Document, Mark, Span


def build(words: list[tuple[str, str, str]], doc_id: str = "d") -> Document:
    """A note from (word, gold category or "", flag or "") triples joined by spaces.

    Consecutive words with the same category form one gold span (as an annotator would
    mark "John Smith"); use "|" in the category to start a new span of the same kind.
    """
    text, spans, marks, pos = [], [], [], 0
    for word, cat, flag in words:
        start, end = pos, pos + len(word)
        text.append(word)
        pos = end + 1
        if cat:
            name = cat.lstrip("|")
            if (
                spans
                and spans[-1][2] == name
                and not cat.startswith("|")
                and spans[-1][1] == start - 1
            ):
                spans[-1][1] = end
            else:
                spans.append([start, end, name])
        if flag:
            marks.append(Mark(start, end, flag))
    doc = Document(doc_id, " ".join(text), tuple(Span(*s) for s in spans), tuple(marks))
    assert [t.text for t in doc.tokens] == [w for w, _, _ in words]
    return doc


AMB, NID = FLAG_AMBIGUOUS, FLAG_NOT_IN_DICTIONARY

# index: word         gold       flag   | system P
DOC_A = build(
    [
        ("Dr.", "", ""),  # 0          O
        ("Swan", "DOCTOR", AMB),  # 1   DOCTOR
        ("saw", "", ""),  # 2          O
        ("John", "PATIENT", NID),  # 3  PATIENT
        ("Smith", "PATIENT", NID),  # 4 DOCTOR   (wrong category)
        ("at", "", ""),  # 5          O
        ("Mercy", "HOSPITAL", ""),  # 6 LOCATION (wrong category)
        ("Hospital", "HOSPITAL", ""),  # 7 HOSPITAL
        ("on", "", ""),  # 8          O
        ("7/22", "DATE", AMB),  # 9     DATE     (ambiguous date: outside Table 9)
        ("MRN", "", NID),  # 10       O        (non-PHI: outside Table 13)
        ("12345", "ID", ""),  # 11     O        (missed)
        ("swan", "", AMB),  # 12       PATIENT  (ambiguous non-PHI, false positive)
        ("2005", "DATE", ""),  # 13     PATIENT  (a date called a person)
    ],
    "A",
)
PRED_A = [
    "O", "DOCTOR", "O", "PATIENT", "DOCTOR", "O", "LOCATION", "HOSPITAL",
    "O", "DATE", "O", "O", "PATIENT", "PATIENT",
]  # fmt: skip
# A binary system on the same note: finds every PHI token but the ID, and "swan".
BINARY_A = ["O", "PHI", "O", "PHI", "PHI", "O", "PHI", "PHI", "O", "PHI", "O", "O", "PHI", "PHI"]

DOC_B = build(
    [("Call", "", ""), ("555-1234", "PHONE", ""), ("ref", "", ""), ("98765", "ID", "")], "B"
)
PRED_B = ["O", "ID", "ID", "DATE"]


def table(rows: list[ScoreRow]) -> dict[str, tuple[int, int, int]]:
    return {r.label: (r.tp, r.fp, r.fn) for r in rows}


def test_counts_and_f1() -> None:
    c = Counts(6, 2, 4)
    assert c.precision == pytest.approx(0.75)
    assert c.recall == pytest.approx(0.6)
    assert c.f1 == pytest.approx(2 * 0.75 * 0.6 / 1.35)
    assert f1_from_counts(6, 2, 4) == pytest.approx(c.f1)
    assert Counts().f1 == 0.0 and f1_from_counts(0, 0, 0) == 0.0
    gold = [["O", "DATE", "PATIENT"]]
    assert token_counts(gold, [["DATE", "DATE", "O"]]) == Counts(1, 1, 1, 0)
    assert token_counts(gold, [["DATE", "DATE", "O"]], "DATE") == Counts(1, 1, 0, 1)


def test_token_scores_all() -> None:
    rows = token_scores([DOC_A], [PRED_A])
    assert [r.label for r in rows] == [
        "PHI", "non-PHI", "PATIENT", "DOCTOR", "LOCATION", "HOSPITAL", "DATE", "ID",
    ]  # fmt: skip
    assert table(rows) == {
        "PHI": (7, 1, 1),  # gold PHI 1,3,4,6,7,9,11,13; predicted 1,3,4,6,7,9,12,13
        "non-PHI": (5, 1, 1),  # O right on 0,2,5,8,10; 11 wrongly O; 12 wrongly PHI
        "PATIENT": (1, 2, 1),  # gold 3,4 vs predicted 3,12,13
        "DOCTOR": (1, 1, 0),  # gold 1 vs predicted 1,4
        "LOCATION": (0, 1, 0),  # predicted 6
        "HOSPITAL": (1, 0, 1),  # gold 6,7 vs predicted 7
        "DATE": (1, 0, 1),  # gold 9,13 vs predicted 9
        "ID": (0, 0, 1),
    }
    phi = rows[0]
    assert (phi.level, phi.subset, phi.match) == ("token", "all", "")
    assert phi.precision == phi.recall == phi.f1 == pytest.approx(7 / 8)
    patient = rows[2]
    assert patient.precision == pytest.approx(1 / 3) and patient.recall == pytest.approx(1 / 2)
    assert patient.f1 == pytest.approx(2 / 5)


def test_binary_system_gets_no_category_rows() -> None:
    rows = token_scores([DOC_A], [BINARY_A])
    assert table(rows) == {"PHI": (7, 1, 1), "non-PHI": (5, 1, 1)}
    assert [r.label for r in entity_scores([DOC_A], [BINARY_A])] == ["PHI"]


def test_ambiguous_subset_table9() -> None:
    # Flagged tokens 1 (DOCTOR), 9 (DATE: not a person/location/organization) and 12 (O).
    assert subset_mask([DOC_A], "ambiguous") == [[i in (1, 12) for i in range(14)]]
    assert table(token_scores([DOC_A], [PRED_A], subset="ambiguous")) == {
        "PHI": (1, 1, 0),
        "non-PHI": (0, 0, 1),
        "PATIENT": (0, 1, 0),
        "DOCTOR": (1, 0, 0),
    }


def test_not_in_dictionary_subset_table13() -> None:
    # Flagged 3, 4 (gold PHI) and 10 (non-PHI, excluded: Table 10 counts none).
    assert subset_mask([DOC_A], "not_in_dictionary") == [[i in (3, 4) for i in range(14)]]
    rows = token_scores([DOC_A], [PRED_A], subset="not_in_dictionary")
    assert table(rows) == {
        "PHI": (2, 0, 0),  # both found: the Table 13 figure is this recall, 100 %
        "non-PHI": (0, 0, 0),
        "PATIENT": (1, 0, 1),
        "DOCTOR": (0, 1, 0),
    }
    assert rows[0].recall == 1.0
    missed = ["O"] * 4 + ["PHI"] + ["O"] * 9
    assert token_scores([DOC_A], [missed], subset="not_in_dictionary")[0].recall == 0.5


def test_people_locations_organizations_subset() -> None:
    # Token 9 (gold DATE, predicted DATE) and 11 (gold ID, predicted O) are dropped; 13
    # (gold DATE predicted PATIENT) stays with gold read as O: a false positive.
    assert subset_mask([DOC_A], "people_locations_organizations", [PRED_A]) == [
        [i not in (9, 11) for i in range(14)]
    ]
    assert subset_mask([DOC_A], "people_locations_organizations") == [
        [i not in (9, 11, 13) for i in range(14)]
    ]
    assert table(token_scores([DOC_A], [PRED_A], subset="people_locations_organizations")) == {
        "PHI": (5, 2, 0),  # gold 1,3,4,6,7; predicted also 12 and 13
        "non-PHI": (5, 0, 2),  # gold O 0,2,5,8,10,12,13; predicted O 0,2,5,8,10
        "PATIENT": (1, 2, 1),
        "DOCTOR": (1, 1, 0),
        "LOCATION": (0, 1, 0),
        "HOSPITAL": (1, 0, 1),
    }
    # A binary system is not penalised for the dates it flags (9, 13 dropped), only for
    # the non-PHI "swan".
    rows = token_scores([DOC_A], [BINARY_A], subset="people_locations_organizations")
    assert table(rows) == {"PHI": (5, 1, 0), "non-PHI": (5, 0, 1)}


def test_no_id_subset() -> None:
    assert table(token_scores([DOC_A], [PRED_A], subset="no_id")) == {
        "PHI": (7, 1, 0),  # token 11 (the ID) dropped
        "non-PHI": (5, 0, 1),
        "PATIENT": (1, 2, 1),
        "DOCTOR": (1, 1, 0),
        "LOCATION": (0, 1, 0),
        "HOSPITAL": (1, 0, 1),
        "DATE": (1, 0, 1),
    }
    # Note B: all subset, then no_id (predicted ID read as O; gold ID predicted DATE kept).
    assert table(token_scores([DOC_B], [PRED_B])) == {
        "PHI": (2, 1, 0),
        "non-PHI": (1, 0, 1),
        "DATE": (0, 1, 0),
        "ID": (0, 2, 1),
        "PHONE": (0, 0, 1),
    }
    assert table(token_scores([DOC_B], [PRED_B], subset="no_id")) == {
        "PHI": (0, 1, 1),
        "non-PHI": (2, 1, 1),
        "DATE": (0, 1, 0),
        "PHONE": (0, 0, 1),
    }


def test_unknown_subset_and_misaligned_predictions() -> None:
    with pytest.raises(ValueError, match="unknown subset"):
        token_scores([DOC_A], [PRED_A], subset="rare")
    with pytest.raises(ValueError, match="13 predicted labels"):
        token_scores([DOC_A], [PRED_A[:-1]])
    with pytest.raises(ValueError, match="unknown label 'NAME'"):
        token_scores([DOC_B], [["O", "NAME", "O", "O"]])
    with pytest.raises(ValueError, match="3 predicted labels"):
        entity_scores([DOC_B], [["O", "O", "O"]])
    assert set(SUBSETS) == {
        "all", "ambiguous", "not_in_dictionary", "people_locations_organizations", "no_id",
    }  # fmt: skip


def test_gold_entities_snap_and_merge() -> None:
    doc = Document("s", "Smith's note", (Span(0, 5, "PATIENT"),))
    assert gold_entities(doc) == [(0, 7, "PATIENT")]
    two = Document("t", "John Smith and Mercy", (Span(0, 4, "PATIENT"), Span(5, 10, "PATIENT"),
                                                 Span(15, 20, "HOSPITAL")))  # fmt: skip
    assert gold_entities(two) == [(0, 10, "PATIENT"), (15, 20, "HOSPITAL")]
    assert gold_entities(two, binary=True) == [(0, 10, "PHI"), (15, 20, "PHI")]


def test_entities_from_labels() -> None:
    toks = DOC_A.tokens
    ents = entities_from_labels(toks, PRED_A)
    text = DOC_A.text
    assert [(text[s:e], c) for s, e, c in ents] == [
        ("Swan", "DOCTOR"),
        ("John", "PATIENT"),
        ("Smith", "DOCTOR"),
        ("Mercy", "LOCATION"),
        ("Hospital", "HOSPITAL"),
        ("7/22", "DATE"),
        ("swan 2005", "PATIENT"),
    ]
    binary = entities_from_labels(toks, PRED_A, binary=True)
    assert [text[s:e] for s, e, _ in binary] == [
        "Swan", "John Smith", "Mercy Hospital", "7/22", "swan 2005",
    ]  # fmt: skip
    with pytest.raises(ValueError):
        entities_from_labels(toks, PRED_A[:3])


def test_entity_scores_strict() -> None:
    rows = entity_scores([DOC_A], [PRED_A], match="strict")
    assert all(r.level == "entity" and r.match == "strict" for r in rows)
    assert table(rows) == {
        # gold: Swan, John Smith, Mercy Hospital, 7/22, 12345, 2005 (6 phrases);
        # predicted: Swan, John Smith, Mercy Hospital, 7/22, swan 2005 (5)
        "PHI": (4, 1, 2),
        "PATIENT": (0, 2, 1),  # John / swan 2005 vs John Smith
        "DOCTOR": (1, 1, 0),
        "LOCATION": (0, 1, 0),
        "HOSPITAL": (0, 1, 1),  # Hospital vs Mercy Hospital
        "DATE": (1, 0, 1),
        "ID": (0, 0, 1),
    }


def test_entity_scores_overlap() -> None:
    assert table(entity_scores([DOC_A], [PRED_A], match="overlap")) == {
        "PHI": (5, 0, 1),  # "swan 2005" overlaps gold 2005; only 12345 missed
        "PATIENT": (1, 1, 0),
        "DOCTOR": (1, 1, 0),
        "LOCATION": (0, 1, 0),
        "HOSPITAL": (1, 0, 0),
        "DATE": (1, 0, 1),
        "ID": (0, 0, 1),
    }
    with pytest.raises(ValueError, match="unknown match"):
        entity_scores([DOC_A], [PRED_A], match="fuzzy")


def test_overlap_matching_is_one_to_one() -> None:
    doc = build(
        [("Mercy", "HOSPITAL", ""), ("General", "HOSPITAL", ""), ("Hospital", "HOSPITAL", "")]
    )
    pred = ["HOSPITAL", "O", "HOSPITAL"]
    assert table(entity_scores([doc], [pred], match="overlap"))["HOSPITAL"] == (1, 1, 0)
    assert table(entity_scores([doc], [pred], match="strict"))["HOSPITAL"] == (0, 2, 1)


def test_per_document_counts_sum_to_micro_average() -> None:
    docs, preds = [DOC_A, DOC_B], [PRED_A, PRED_B]
    binary = per_document_counts(docs, preds)
    assert binary.tolist() == [[7, 1, 1], [2, 1, 0]]
    assert per_document_counts(docs, preds, "PHI").tolist() == binary.tolist()
    assert per_document_counts(docs, preds, "ID").tolist() == [[0, 0, 1], [0, 2, 1]]
    assert per_document_counts(docs, preds, "non-PHI").tolist() == [[5, 1, 1], [1, 0, 1]]
    assert per_document_counts(docs, preds, subset="no_id").tolist() == [[7, 1, 0], [0, 1, 1]]
    strict = per_document_counts(docs, preds, match="strict")
    assert strict.tolist() == [[4, 1, 2], [0, 1, 2]]  # B: one phrase "555-1234 ref 98765"
    both = table(token_scores(docs, preds))
    assert both["PHI"] == tuple(binary.sum(axis=0)) == (9, 2, 1)
    # micro-averaging per-fold rows equals scoring the folds' documents together
    merged = table(merge_rows([*token_scores([DOC_A], [PRED_A]), *token_scores([DOC_B], [PRED_B])]))
    assert merged == both
    with pytest.raises(ValueError):
        per_document_counts(docs, preds, subset="ambiguous", match="strict")


def test_token_correctness_pairs_systems_on_one_token_set() -> None:
    correct = token_correctness([DOC_A], [PRED_A])
    assert correct.tolist() == [i not in (11, 12) for i in range(14)]
    exact = token_correctness([DOC_A], [PRED_A], binary=False)
    assert np.flatnonzero(~exact).tolist() == [4, 6, 11, 12, 13]
    # people/locations/organizations: own mask drops 9, 11; the binary system's drops 9,
    # 11, 13 -- judged together on the union so both arrays line up.
    a = token_correctness([DOC_A], [PRED_A], subset="people_locations_organizations",
                          other=[BINARY_A])  # fmt: skip
    b = token_correctness([DOC_A], [BINARY_A], subset="people_locations_organizations",
                          other=[PRED_A])  # fmt: skip
    assert a.shape == b.shape == (12,)
    assert int((~a).sum()) == 2 and int((~b).sum()) == 1  # 12, 13 vs 12


@pytest.mark.parametrize("subset", SUBSETS)
def test_label_codes_stand_in_for_the_labels(subset: str) -> None:
    """The token-level functions give the same counts and decisions from label codes
    (``label_codes``, made once per system by the scorer) as from the labels."""
    docs, a, b = [DOC_A, DOC_B], [PRED_A, PRED_B], [BINARY_A, ["O", "PHI", "O", "O"]]
    codes_a, codes_b = label_codes(docs, a), label_codes(docs, b)
    assert all(c.dtype == np.int8 for c in codes_a)
    assert np.array_equal(
        token_correctness(docs, codes_a, subset=subset, other=codes_b),
        token_correctness(docs, a, subset=subset, other=b),
    )
    assert np.array_equal(
        per_document_counts(docs, codes_b, None, subset),
        per_document_counts(docs, b, None, subset),
    )
    with pytest.raises(ValueError, match="unknown label 'PERSON'"):
        label_codes([DOC_B], [["O", "PERSON", "O", "O"]])
    with pytest.raises(ValueError, match="3 predicted labels for document 'B' with 4 tokens"):
        token_correctness([DOC_B], [codes_b[1][:3]], subset=subset)

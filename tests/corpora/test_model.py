"""The data model validates spans and fingerprints content."""

from __future__ import annotations

import pytest

from corpora.model import CorpusError, Document, Span, check_predictions, gold_labels


def test_validate_rejects_bad_spans() -> None:
    with pytest.raises(CorpusError, match="outside the text") as err:
        Document("r1", "short", (Span(2, 50, "DATE"),)).validate(file="f.xml")
    assert err.value.file == "f.xml" and err.value.record == "r1" and err.value.offset == 2
    with pytest.raises(CorpusError, match="overlaps"):
        Document("r1", "abcdefgh", (Span(0, 4, "DATE"), Span(2, 6, "DATE"))).validate()
    with pytest.raises(CorpusError, match="unknown category"):
        Document("r1", "abcdefgh", (Span(0, 4, "NAME"),)).validate()
    with pytest.raises(CorpusError, match="empty record"):
        Document("r1", "   \n").validate()


def test_error_message_names_file_record_offset() -> None:
    err = CorpusError("bad", file="a.txt", record="7", offset=12)
    assert str(err) == "file a.txt, record 7, offset 12: bad"


def test_fingerprint_depends_on_content() -> None:
    a = Document("x", "Seen by Dr. Lee", (Span(12, 15, "DOCTOR"),))
    b = Document("x", "Seen by Dr. Lee", (Span(12, 15, "DOCTOR"),))
    c = Document("x", "Seen by Dr. Lee", (Span(12, 15, "PATIENT"),))
    assert a.fingerprint == b.fingerprint != c.fingerprint


def test_check_predictions_catches_misaligned_output() -> None:
    doc = Document("x", "Seen by Dr. Lee", (Span(12, 15, "DOCTOR"),))
    assert gold_labels([doc]) == [["O", "O", "O", "DOCTOR"]]
    check_predictions([doc], [["O", "O", "O", "PHI"]], "s")
    with pytest.raises(ValueError, match="3 labels"):
        check_predictions([doc], [["O", "O", "O"]], "s")
    with pytest.raises(ValueError, match="unknown labels"):
        check_predictions([doc], [["O", "O", "O", "NAME"]], "s")


def test_tokens_without_flags_share_one_empty_set() -> None:
    """A token's flags are a frozenset; the tokens no mark overlaps share one empty set
    (a new empty frozenset per token came to 216 bytes a token, ~300 MB per 1.4 million)."""
    from corpora.model import Mark

    plain = Document("a", "Seen by Dr. Smith on 3/4 today.")
    marked = Document("b", "Seen by Dr. Smith on 3/4 today.", marks=(Mark(12, 17, "ambiguous"),))
    for doc in (plain, marked):
        empty = [t.flags for t in doc.tokens if not t.flags]
        assert len(empty) >= 6 and all(f is empty[0] for f in empty)
    assert [t.text for t in marked.tokens if t.flags] == ["Smith"]
    assert next(t.flags for t in marked.tokens if t.flags) == frozenset({"ambiguous"})


def test_a_document_sent_to_a_worker_keeps_its_tokens_and_their_shared_flags() -> None:
    """Tokens pickle as their constructor's arguments (the dataclass's generated state
    functions were 70 worker-seconds of a tuned PhysioNet run): equal tokens come back,
    every field included, and the flagless ones still share one empty set."""
    import pickle

    from corpora.model import Mark

    doc = Document(
        "a", "Seen by Dr. Smith on 3/4 today.", (Span(12, 17, "DOCTOR"),), (Mark(12, 17, "amb"),)
    )
    tokens = doc.tokens
    back = pickle.loads(pickle.dumps(doc, protocol=pickle.HIGHEST_PROTOCOL))
    assert back.tokens == tokens and back.fingerprint == doc.fingerprint
    assert [t.label for t in back.tokens] == [t.label for t in tokens]
    assert next(t.flags for t in back.tokens if t.flags) == frozenset({"amb"})
    empty = [t.flags for t in back.tokens if not t.flags]
    assert len(empty) >= 6 and all(f is empty[0] for f in empty)

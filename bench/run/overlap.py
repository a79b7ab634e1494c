"""Training and scored notes compared by what they say, not by their ids.

A benchmark's numbers mean something only for notes its models never saw.  Ids and patient
keys do not show that: the same notes under new ids (``--extra-training`` holding the scored
notes renamed), the same corpus given as ``--train-corpus`` and as ``--corpora``, or the
surrogate variant of the scored notes (the same notes with other names) all pass an id
check and give 100 % or inflated scores.  So every training source of a run -- each
cross-validation training fold, the ``--train-corpus``, the ``--extra-training`` corpus --
is compared with the notes scored against it by two content keys of
:class:`corpora.model.Document`:

* :attr:`~corpora.model.Document.text_key` -- the normalised text (case-folded, white
  space collapsed): an *identical* note.  Always refused (a usage error): a score on notes
  the model was trained on measures nothing.
* :attr:`~corpora.model.Document.context_key` -- the text with every gold PHI phrase
  replaced by one marker: a *near-duplicate*, the same note with other names, dates or
  places.  Refused too unless the user asks for it (``--allow-near-duplicates``): the model
  has seen every context word of the note, so it is scored on memory, not on notes it
  never saw.  When allowed, run.json and the report say how many scored notes were.
  Only notes with at least :data:`MIN_CONTEXT_WORDS` words outside their PHI count: a
  short form ("pt NAME admitted on DATE to HOSPITAL") is filled in for many patients, and
  two of them are different notes of one template -- kept apart by ``--group-by
  template`` where a corpus says so -- not one note copied.

Patients are compared too for ``--extra-training`` (where both sides know them): a
patient's other notes in training let a model "find" names it learned from them.

``--test-variant`` is not affected: each fold's model trains on the *other* folds'
authentic notes and labels the variant of its own test notes, whose near-duplicates are in
no training fold.  ``--augment`` copies are made of training notes for training only.

The outcome of the check (:class:`Overlap`) is what run.json records and what the report
states about overlap -- a measurement, never a reading of the options.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bench.run.protocols import Split
from bench.run.run_types import UsageError
from corpora.folds import DEFAULT_GROUP_KEY
from corpora.model import Corpus, Document

#: The option that lets near-duplicates of scored notes train.
ALLOW_OPTION = "--allow-near-duplicates"
#: Words outside the PHI phrases a note needs for its near-duplicate to count as a copy.
MIN_CONTEXT_WORDS = 30


@dataclass
class Overlap:
    """What the check found: per training source, the scored notes it was compared with,
    and how many of them were near-duplicates of its notes (identical ones are refused)."""

    allowed: bool = False
    #: source ("cv folds of X", "--train-corpus X", "--extra-training X") -> counts
    sources: dict[str, dict[str, int]] = field(default_factory=dict)

    @property
    def near_duplicates(self) -> int:
        return sum(c["near_duplicates"] for c in self.sources.values())

    def as_dict(self) -> dict[str, Any]:
        """For run.json."""
        return {
            "compared_by": "normalised text, and text with PHI masked",
            "identical": 0,  # any identical note stops the run before this is written
            "near_duplicates": self.near_duplicates,
            "near_duplicates_allowed": self.allowed,
            "sources": self.sources,
        }


def _patients(documents: Iterable[Document]) -> set[str]:
    """The patient keys of ``documents`` that have one."""
    return {
        str(d.metadata[DEFAULT_GROUP_KEY])
        for d in documents
        if d.metadata.get(DEFAULT_GROUP_KEY) not in (None, "")
    }


def check_disjoint(extra: Corpus, scored: Mapping[str, Corpus]) -> None:
    """Raise ``ValueError`` if ``extra`` shares a document id or a patient with a scored corpus.

    Patients are compared where both sides know them (the ``patient`` metadata key): a
    patient's other notes in training would let a model "find" names it learned from them.
    """
    ids = {d.id for d in extra.documents}
    patients = _patients(extra.documents)
    for spec, corpus in scored.items():
        shared_ids = sorted(ids & {d.id for d in corpus.documents})
        shared_patients = sorted(patients & _patients(corpus.documents))
        if shared_ids or shared_patients:
            what = (
                f"{len(shared_ids)} document(s), e.g. {shared_ids[0]!r}"
                if shared_ids
                else f"{len(shared_patients)} patient(s), e.g. {shared_patients[0]!r}"
            )
            raise ValueError(f"shares {what} with the scored corpus {spec}")


def compare(
    source: str,
    training: Sequence[Document],
    scored: Sequence[Document],
    overlap: Overlap,
) -> None:
    """Compare one training set with the notes scored against it, into ``overlap``.

    Raises :class:`UsageError` (one line, naming the source and a scored note's id) for an
    identical note, and for a near-duplicate unless ``overlap.allowed``.
    """
    texts = {d.text_key: d for d in training}
    contexts = {d.context_key: d for d in training}
    identical = [d for d in scored if d.text_key in texts]
    if identical:
        first = identical[0]
        raise UsageError(
            f"{source}: {len(identical)} scored note(s) are identical to training notes "
            f"(e.g. {first.id!r} is {texts[first.text_key].id!r} in training), so the "
            "scores would be of notes the models were trained on"
        )
    near = [
        d for d in scored if d.context_key in contexts and d.context_words >= MIN_CONTEXT_WORDS
    ]
    if near and not overlap.allowed:
        first = near[0]
        raise UsageError(
            f"{source}: {len(near)} scored note(s) are the same notes as training notes "
            f"with other PHI (e.g. {first.id!r} and {contexts[first.context_key].id!r}); "
            f"{ALLOW_OPTION} scores them anyway, and the report says so"
        )
    counts = overlap.sources.setdefault(source, {"scored": 0, "near_duplicates": 0})
    counts["scored"] += len(scored)
    counts["near_duplicates"] += len(near)


def check_splits(
    splits: Mapping[str, Sequence[Split]],
    corpora: Mapping[str, Corpus],
    overlap: Overlap,
) -> None:
    """Every split's training documents against its test documents (cross-validation
    folds, the ``--train-corpus`` protocol, learning curves and variant twins alike)."""
    for name, corpus_splits in splits.items():
        for split in corpus_splits:
            train_docs = corpora[split.train_corpus].documents
            test_docs = corpora[split.test_corpus].documents
            if split.protocol == "cross":
                source = f"--train-corpus {split.train_corpus}"
            else:
                source = f"training folds of {name}"
            compare(
                source,
                [train_docs[i] for i in split.train],
                [test_docs[i] for i in split.test],
                overlap,
            )

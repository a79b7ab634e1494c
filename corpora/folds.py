"""Fold splitting: the one place documents are divided into k folds.

Every k-fold split in the harness comes from :func:`kfold` -- the runner's outer
cross-validation, learning curves, the inner folds of tuned and stacked systems, the
jackknife of the Illinois two-stage tagger, and the ablations -- so they all keep the same
promise: folds depend only on the seed (never on ``PYTHONHASHSEED``, the backend or the job
count), and where documents carry a grouping key (the patient a note belongs to, the
template family a generated note came from), every group stays on one side of every split.
Without that, a patient's name learned from one note is "found" in the next note of the same
patient, and the scores flatter every learned system.

Grouping keys are read from ``Document.metadata``: readers set ``patient`` where the source
knows it (PhysioNet patient ids, i2b2 2014 file names, a ``group`` field in JSON lines),
the ``brat`` reader sets ``directory`` (the folder a note sits in, for projects that keep
one folder per patient), and the embedded corpus's generator sets ``template`` (the
pattern family of each note).

The module also holds the one fixed split of a corpus by patient: the *tuning subset*
(:func:`tuning_split`), the patients whose notes a developer may read while hand-tuning
rules, kept apart from the patients rule-based systems are reported on.
"""

from __future__ import annotations

import hashlib
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from corpora.model import Document

#: ``--group-by`` values: a metadata key, ``document`` (no grouping) or ``auto``.
GROUP_BY_CHOICES: tuple[str, ...] = ("auto", "patient", "directory", "template", "document")
#: The key ``auto`` prefers, when every document has it.
DEFAULT_GROUP_KEY = "patient"
#: Set on a transformed training copy (``--augment``): the id of the note it was made from.
COPY_OF_KEY = "copy_of"

Fold = tuple[list[int], list[int]]


def document_folds(n_documents: int, k: int, seed: int) -> list[Fold]:
    """``k`` (train indices, test indices) pairs partitioning ``range(n_documents)``."""
    return kfold(n_documents, k, seed)


def kfold(n_items: int, k: int, seed: int, groups: Sequence[Hashable] | None = None) -> list[Fold]:
    """``k`` (train, test) index pairs partitioning ``range(n_items)``; with ``groups`` (one
    key per item) no group is split across a train/test boundary.

    Ungrouped folds are a seeded permutation cut into ``k`` near-equal chunks.  Grouped folds
    are the same when every group has one member (so grouping a corpus of one note per
    patient changes nothing); otherwise whole groups are dealt to the lightest fold
    (:func:`_group_folds`), groups numbered in sorted order of their keys so the folds never
    depend on set or hash order.
    """
    if k < 2:
        raise ValueError("cross-validation needs at least 2 folds")
    if n_items < k:
        raise ValueError(f"cannot make {k} folds from {n_items} documents")
    if groups is not None:
        if len(groups) != n_items:
            raise ValueError(f"{len(groups)} group keys for {n_items} documents")
        keys = sorted({str(g) for g in groups})
        if len(keys) < n_items:
            return _group_folds([str(g) for g in groups], keys, k, seed)
    order = np.random.default_rng(seed).permutation(n_items)
    chunks = np.array_split(order, k)
    return [
        (
            sorted(np.concatenate([c for j, c in enumerate(chunks) if j != i]).tolist()),
            sorted(test.tolist()),
        )
        for i, test in enumerate(chunks)
    ]


def _group_folds(groups: list[str], keys: list[str], k: int, seed: int) -> list[Fold]:
    """Whole groups dealt to the fold with the fewest documents, largest group first, ties
    in a seeded order: folds as equal in size as the groups allow.  (scikit-learn's
    ``GroupKFold(shuffle=True)`` deals equal *numbers of groups*, which on PhysioNet, where
    one patient has dozens of notes and another one, gives folds of very unequal size.)"""
    if len(keys) < k:
        raise ValueError(f"cannot make {k} folds from {len(keys)} groups (patients)")
    number = {key: i for i, key in enumerate(keys)}
    codes = np.fromiter((number[g] for g in groups), dtype=np.int64, count=len(groups))
    sizes = np.bincount(codes, minlength=len(keys))
    tie = np.random.default_rng(seed).permutation(len(keys))
    fold_of = np.empty(len(keys), dtype=np.int64)
    load = np.zeros(k, dtype=np.int64)
    for g in np.lexsort((tie, -sizes)):
        f = int(np.argmin(load))
        fold_of[g] = f
        load[f] += sizes[g]
    item_fold = fold_of[codes]
    return [
        (np.flatnonzero(item_fold != f).tolist(), np.flatnonzero(item_fold == f).tolist())
        for f in range(k)
    ]


def resolve_group_key(documents: Sequence[Document], group_by: str = "auto") -> str | None:
    """The metadata key documents are grouped by, or ``None`` for one group per document.

    ``auto`` is ``patient`` when every document has a patient key, else no grouping; a named
    key must be present on every document (a partly grouped corpus would silently leak).
    """
    if group_by not in GROUP_BY_CHOICES:
        raise ValueError(f"unknown grouping {group_by!r}; use one of {', '.join(GROUP_BY_CHOICES)}")
    if group_by == "document":
        return None
    key = DEFAULT_GROUP_KEY if group_by == "auto" else group_by
    missing = sum(1 for d in documents if d.metadata.get(key) in (None, ""))
    if missing:
        if group_by == "auto":
            return None
        raise ValueError(
            f"--group-by {group_by}: {missing} of {len(documents)} documents have no "
            f"{key!r} key (this corpus cannot be grouped that way)"
        )
    return key


def groups_of(documents: Sequence[Document], key: str | None) -> list[str] | None:
    """Each document's group under ``key`` (``None``: ungrouped).

    Training copies made by ``--augment`` (:data:`COPY_OF_KEY`) join the group of the note
    they were made from: they carry its patient and directory, and where documents are
    ungrouped a note and its copies form a group of their own.  The copy has other names but
    the same context words, so a model that learned the note on one side of a jackknife or
    an inner fold would label its copy on the other side almost perfectly.
    """
    if key is not None:
        return [str(d.metadata[key]) for d in documents]
    if not any(COPY_OF_KEY in d.metadata for d in documents):
        return None
    return [str(d.metadata.get(COPY_OF_KEY, d.id)) for d in documents]


def group_labels(documents: Sequence[Document], group_by: str = "auto") -> list[str]:
    """Each document's group as :func:`document_kfold` groups them: its key under
    ``group_by``, else the note it was copied from, else its own id."""
    groups = groups_of(documents, resolve_group_key(documents, group_by))
    return groups if groups is not None else [d.id for d in documents]


def document_kfold(
    documents: Sequence[Document], k: int, seed: int, group_by: str = "auto"
) -> list[Fold]:
    """:func:`kfold` over ``documents``, grouped as ``group_by`` says (inner folds of tuned
    and stacked systems use this on their training documents)."""
    key = resolve_group_key(documents, group_by)
    return kfold(len(documents), k, seed, groups_of(documents, key))


def max_folds(documents: Sequence[Document], k: int, group_by: str = "auto") -> int:
    """``k``, or fewer when ``documents`` have fewer groups than that (documents, when
    ungrouped): the most folds :func:`document_kfold` can make of them.  A jackknife that
    must work on any training set (the Illinois two-stage tagger's) asks this first."""
    groups = groups_of(documents, resolve_group_key(documents, group_by))
    return min(k, len(set(groups)) if groups is not None else len(documents))


# --------------------------------------------------------------------------------------
# The tuning subset: patients set apart for hand-tuning rules
# --------------------------------------------------------------------------------------

#: A patient is in the tuning subset when its numeric id is a multiple of this number.
TUNING_MODULUS = 5


def is_tuning_patient(patient: object) -> bool:
    """True if ``patient`` belongs to the tuning subset.

    Rule-based systems have no training folds, so the errors a developer looks at while
    writing or adjusting rules must come from notes that are never reported on.  The rule
    is fixed in advance and depends on the patient id alone (not on which other patients a
    corpus holds): a numeric id that is a multiple of :data:`TUNING_MODULUS` (PhysioNet ids
    5, 10, 15, ...), any other id by a stable hash of its text.  One fifth of the patients,
    and all of their notes, land on the tuning side.
    """
    key = str(patient).strip()
    if key.isdigit():
        return int(key) % TUNING_MODULUS == 0
    digest = hashlib.blake2b(key.encode("utf-8"), digest_size=4).digest()
    return int.from_bytes(digest, "big") % TUNING_MODULUS == 0


def tuning_split(documents: Sequence[Document]) -> tuple[list[int], list[int]]:
    """(tuning, evaluation) document indices by :func:`is_tuning_patient`.

    A document's patient is its ``patient`` metadata key; a document without one is its
    own patient (its id is hashed), so every note of a patient lands on the same side.
    """
    tuning: list[int] = []
    evaluation: list[int] = []
    for i, doc in enumerate(documents):
        patient = doc.metadata.get(DEFAULT_GROUP_KEY)
        key = doc.id if patient in (None, "") else patient
        (tuning if is_tuning_patient(key) else evaluation).append(i)
    return tuning, evaluation

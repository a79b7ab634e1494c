"""Feature encodings kept on disk (systems/features/stored.py): written only once a worker's
memo has had to evict, read back to the very ids and matrices extraction gives, and never
read stale."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

import numpy as np
import pytest

from corpora.model import Document
from infra import cache
from systems.features import common, stored
from systems.features.base import FEATURE_SPACE
from tests.systems.test_svm import notes

FEATURES = (common.Orthography(), common.ShapeWindow(), common.CharNgrams())


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch) -> Path:
    path = tmp_path / "cache"
    path.mkdir(mode=0o700)
    monkeypatch.setenv("DEID_BENCH_CACHE", str(path))
    monkeypatch.delenv("DEID_BENCH_NO_CACHE", raising=False)
    _reset()
    yield path
    _reset()


def _reset() -> None:
    """No encoding held, in memory or spilled: the next one starts a new vocabulary."""
    FEATURE_SPACE._settled.clear()
    FEATURE_SPACE._encoded.clear()
    FEATURE_SPACE._binary.clear()
    FEATURE_SPACE.restart_if_empty()


def _entries(cache_dir: Path) -> list[Path]:
    return sorted((cache_dir / stored.NAMESPACE).glob("*.pkl"))


def _fresh_matrix(docs: list[Document]):
    """The matrix of ``docs`` from a new vocabulary, and the vocabulary's names."""
    _reset()
    x = FEATURE_SPACE.matrix(FEATURES, docs, binary=True)
    return x, list(FEATURE_SPACE.names)


def test_entries_are_written_only_once_the_memo_evicts(cache_dir, monkeypatch) -> None:
    docs = notes(6, seed=3)
    _fresh_matrix(docs)
    assert _entries(cache_dir) == []  # everything fits: nothing goes to disk
    monkeypatch.setattr(FEATURE_SPACE._encoded, "evictions", 1)
    _fresh_matrix(docs)
    assert len(_entries(cache_dir)) == len(docs)  # one entry per note and feature set
    assert all(p.stat().st_mode & 0o777 == 0o600 for p in _entries(cache_dir))


def test_stored_encodings_give_the_same_ids_and_matrix(cache_dir, monkeypatch) -> None:
    docs = notes(8, seed=4)
    before, names = _fresh_matrix(docs)
    monkeypatch.setattr(FEATURE_SPACE._encoded, "evictions", 1)
    _fresh_matrix(docs[:5])  # written for five notes, in a vocabulary of their own
    calls: list[str] = []
    _count_extractions(monkeypatch, calls)
    after, names_after = _fresh_matrix(docs)
    assert sorted(set(calls)) == sorted(d.id for d in docs[5:])  # the stored ones not again
    assert names_after == names  # the same ids in the same order
    assert after.shape == before.shape
    assert np.array_equal(after.indptr, before.indptr)
    assert np.array_equal(after.indices, before.indices)
    assert np.array_equal(after.data, before.data)
    # a set whose classes are partly in the memo is stored whole, and read back the same
    _reset()
    FEATURE_SPACE.encode(FEATURES[1], docs[0])
    rows = FEATURE_SPACE.rows(FEATURES[:2], docs[0])
    again = FEATURE_SPACE.rows(FEATURES[:2], docs[0])
    assert rows == again and rows[0]


def test_an_edited_list_or_another_parameter_is_not_read_stale(
    cache_dir, tmp_path: Path, monkeypatch
) -> None:
    lists = tmp_path / "lists"
    lists.mkdir()
    (lists / "last_names.txt").write_text("smith\n", encoding="utf-8")
    doc = notes(1, seed=5)[0]
    window = common.DictionaryWindow(dictionaries=str(lists))
    key = stored.entry_key((window,), doc)
    narrower = common.DictionaryWindow(offsets=(0,), dictionaries=str(lists))
    assert stored.entry_key((narrower,), doc) != key
    (lists / "last_names.txt").write_text("smith\njones\n", encoding="utf-8")
    stored.lists_stamp.cache_clear()
    assert stored.entry_key((window,), doc) != key
    os.utime(lists / "last_names.txt", ns=(1, 1))
    stored.lists_stamp.cache_clear()
    touched = stored.entry_key((window,), doc)
    assert touched != key and stored.entry_key((window,), notes(2, seed=6)[1]) != touched


def test_a_corrupt_entry_is_extracted_again(cache_dir, monkeypatch) -> None:
    docs = notes(3, seed=7)
    before, names = _fresh_matrix(docs)
    monkeypatch.setattr(FEATURE_SPACE._encoded, "evictions", 1)
    _fresh_matrix(docs)
    for path in _entries(cache_dir):
        path.write_bytes(path.read_bytes()[:-7] + b"garbage")
    after, names_after = _fresh_matrix(docs)
    assert names_after == names and (after != before).nnz == 0


def test_evicted_encodings_come_back_from_the_spill_file_not_interned_again(
    cache_dir, monkeypatch
) -> None:
    """Past its budget the memo writes what it evicts, in the process's ids, to its spill
    file (infra.spill): the next pass reads the arrays back, extracting and interning
    nothing, and builds the same matrix."""
    docs = notes(8, seed=9)
    before, names = _fresh_matrix(docs)
    monkeypatch.setattr(FEATURE_SPACE._encoded, "budget", FEATURE_SPACE._encoded.size // 3)
    first, names_first = _fresh_matrix(docs)
    assert FEATURE_SPACE._encoded.spilled > 0 and len(FEATURE_SPACE._encoded) < 3 * len(docs)
    interned: list[tuple[str, str]] = []
    intern = type(FEATURE_SPACE)._intern
    monkeypatch.setattr(
        type(FEATURE_SPACE),
        "_intern",
        lambda self, part, key: interned.append(key) or intern(self, part, key),
    )
    again = FEATURE_SPACE.matrix(FEATURES, docs, binary=True)
    assert interned == []  # no note's names looked up again
    assert names_first == names == list(FEATURE_SPACE.names)
    for x in (first, again):
        assert (x != before).nnz == 0 and np.array_equal(x.indices, before.indices)
    FEATURE_SPACE.forget_encodings()  # the memory goes; the spill keeps it all
    assert len(FEATURE_SPACE._encoded) == 0 and FEATURE_SPACE._encoded.spilled == 3 * len(docs)
    FEATURE_SPACE.restart_if_empty()  # spilled encodings still use the vocabulary: kept
    assert list(FEATURE_SPACE.names) == names


def test_merged_rows_are_kept_once_the_memo_evicts_and_give_the_same_matrix(
    cache_dir, monkeypatch
) -> None:
    """``matrix(binary=True)`` is each note's merged rows (sorted, distinct ids per token)
    stacked: the same matrix as merging the classes' ids and summing duplicates over the
    whole batch; the merged rows are kept (memo, then spill) only in a run that evicts."""
    docs = notes(6, seed=10)
    features = (*FEATURES, common.ShapeWindow(offsets=(0,)))  # "shape0=..." emitted twice
    monkeypatch.setattr(FEATURE_SPACE._encoded, "evictions", 0)
    _reset()
    x = FEATURE_SPACE.matrix(features, docs, binary=True)
    assert len(FEATURE_SPACE._binary) == 0  # everything fits: nothing kept twice
    summed = FEATURE_SPACE.matrix(features, docs)  # a name two classes emit counts twice
    assert summed.max() == 2.0 and x.has_canonical_format and x.max() == 1.0
    summed.data[:] = 1.0
    assert (x != summed).nnz == 0 and np.array_equal(x.indices, summed.indices)
    monkeypatch.setattr(FEATURE_SPACE._encoded, "evictions", 1)
    again = FEATURE_SPACE.matrix(features, docs, binary=True)
    assert len(FEATURE_SPACE._binary) == len(docs)
    FEATURE_SPACE.forget_encodings()
    assert FEATURE_SPACE._binary.spilled == len(docs)
    third = FEATURE_SPACE.matrix(features, docs, binary=True)  # from the spill file
    for y in (again, third):
        assert np.array_equal(y.indptr, x.indptr) and np.array_equal(y.indices, x.indices)
        assert np.array_equal(y.data, x.data) and y.data.dtype == np.float32


def _count_extractions(monkeypatch, calls: list[str]) -> None:
    for feature in FEATURES:
        extract = type(feature).extract

        def counting(self, document, _extract=extract):
            calls.append(document.id)
            return _extract(self, document)

        monkeypatch.setattr(type(feature), "extract", counting)


def test_shared_extraction_stores_each_note_once_and_gives_the_same_ids(
    cache_dir, monkeypatch
) -> None:
    """Where workers share a corpus, each note is extracted once, stored, and read back
    to the ids and matrix that extraction alone gives."""
    docs = notes(8, seed=5)
    monkeypatch.setattr(FEATURE_SPACE._encoded, "evictions", 0)  # as a run that fits in memory
    before, names = _fresh_matrix(docs)
    assert _entries(cache_dir) == []  # not shared: nothing written
    monkeypatch.setenv(cache.ENV_SHARED_WORK, "1")
    calls: list[str] = []
    _count_extractions(monkeypatch, calls)
    after, names_after = _fresh_matrix(docs)
    assert len(_entries(cache_dir)) == len(docs)
    assert sorted(calls) == sorted(d.id for d in docs for _ in FEATURES)  # once each
    assert names_after == names
    assert np.array_equal(after.indptr, before.indptr)
    assert np.array_equal(after.indices, before.indices)


def test_a_note_another_worker_is_extracting_is_waited_for_not_extracted(
    cache_dir, monkeypatch
) -> None:
    """A note whose claim another worker holds is not extracted here: the call returns
    once that worker has stored it."""
    from systems.features.base import _extract
    from tests.systems.test_shared_models import another_worker_holding

    docs = notes(3, seed=6)
    monkeypatch.setenv(cache.ENV_SHARED_WORK, "1")
    entry = stored.entry_key(FEATURES, docs[0])
    theirs = [_extract(f, docs[0]) for f in FEATURES]
    thread = another_worker_holding(
        stored.claim(entry, wait=True), lambda: stored.store(entry, theirs)
    )
    calls: list[str] = []
    _count_extractions(monkeypatch, calls)
    FEATURE_SPACE.share_extraction(FEATURES, docs)
    assert stored.exists(entry)  # waited for it
    thread.join()
    assert docs[0].id not in calls
    # the others are extracted here, unless their claim shares the held lock file
    held = stored.stripe(entry)
    others = [d for d in docs[1:] if stored.stripe(stored.entry_key(FEATURES, d)) != held]
    assert {d.id for d in others} <= set(calls)


def _share_in_another_process(cache_path: str, docs: list[Document], log: str) -> None:
    os.environ["DEID_BENCH_CACHE"] = cache_path
    os.environ[cache.ENV_SHARED_WORK] = "1"
    for feature in FEATURES:
        extract = type(feature).extract

        def logged(self, document, _extract=extract):
            with open(log, "a") as out:
                out.write(f"{document.id}\n")
            return _extract(self, document)

        type(feature).extract = logged  # this child process only
    FEATURE_SPACE.share_extraction(FEATURES, docs)


def test_two_workers_extract_each_note_once(cache_dir, tmp_path) -> None:
    """Two processes given the same notes at the same time extract each exactly once
    between them."""
    docs = notes(24, seed=7)
    log = tmp_path / "extracted.log"
    context = multiprocessing.get_context("fork")
    workers = [
        context.Process(target=_share_in_another_process, args=(str(cache_dir), docs, str(log)))
        for _ in range(2)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
        assert worker.exitcode == 0
    extracted = log.read_text().split()
    assert sorted(extracted) == sorted(d.id for d in docs for _ in FEATURES)
    assert len(_entries(cache_dir)) == len(docs)

"""Shared fixtures: where ../shared is, and skips with a clear reason where it is absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from corpora import nlp

ROOT = Path(__file__).resolve().parents[1]
#: ../shared beside the repository, or DEID_BENCH_SHARED.
SHARED = Path(os.environ.get("DEID_BENCH_SHARED", ROOT.parent / "shared"))

# Tests never download anything.
os.environ.setdefault("DEID_BENCH_NO_DOWNLOAD", "1")
if "NLTK_DATA" not in os.environ and (SHARED / "nltk_data").is_dir():
    os.environ["NLTK_DATA"] = str(SHARED / "nltk_data")
    import nltk

    nltk.data.path.insert(0, str(SHARED / "nltk_data"))


def _need(path: Path, what: str) -> Path:
    if not path.exists():
        pytest.skip(f"{what} not found at {path} (set DEID_BENCH_SHARED to ../shared)")
    return path


@pytest.fixture(scope="session")
def physionet_dir() -> Path:
    return _need(SHARED / "corpora" / "physionet-deid", "PhysioNet deid corpus")


@pytest.fixture(scope="session")
def deid_dictionaries_dir() -> Path:
    return _need(SHARED / "dictionaries" / "deid-1.1", "deid-1.1 dictionaries")


@pytest.fixture(scope="session")
def papers_dir() -> Path:
    return _need(SHARED / "papers", "papers")


requires_nltk = pytest.mark.skipif(
    not (nlp.available("averaged_perceptron_tagger_eng") and nlp.available("wordnet")),
    reason="NLTK tagger/WordNet not installed (set NLTK_DATA=../shared/nltk_data)",
)

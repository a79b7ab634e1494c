"""POS tags and lemmas for tokens, computed once per document and cached.

Sibanda & Uzuner (2006, §5) use part-of-speech tags of the target and its neighbours and
lemmatized context words.  We use NLTK's averaged-perceptron tagger and the WordNet
lemmatizer; both read data files (``taggers/averaged_perceptron_tagger_eng`` and
``corpora/wordnet``) from ``NLTK_DATA`` (``../shared/nltk_data`` in this workplace).

Where a resource is missing, an online machine fetches it with ``nltk.download`` on first
use; offline, :class:`MissingResourceError` says exactly which resource is missing and how to
install it.  ``DEID_BENCH_NO_DOWNLOAD=1`` (set by tests and CI) forbids the download.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from infra import memo, stages
from infra.memo import memoize

if TYPE_CHECKING:
    from corpora.model import Document

#: NLTK resource name -> path inside an NLTK data directory.
RESOURCES = {
    "averaged_perceptron_tagger_eng": "taggers/averaged_perceptron_tagger_eng/",
    "wordnet": "corpora/wordnet",
}


class MissingResourceError(RuntimeError):
    """An NLTK data resource is not installed and could not be fetched."""

    def __init__(self, resource: str) -> None:
        self.resource = resource
        super().__init__(
            f"NLTK resource {resource!r} ({RESOURCES[resource]}) was not found. Install it "
            f"with `python -m nltk.downloader {resource}` on a machine with internet access, "
            f"or point NLTK_DATA at a directory that holds it (e.g. "
            f"NLTK_DATA=../shared/nltk_data)."
        )


_lock = threading.Lock()


def _find(resource: str) -> bool:
    import nltk

    try:
        nltk.data.find(RESOURCES[resource])
    except LookupError:
        return False
    return True


def require(resource: str) -> None:
    """Make sure an NLTK resource is available, downloading it only if allowed."""
    with _lock:
        if _find(resource):
            return
        if os.environ.get("DEID_BENCH_NO_DOWNLOAD") or os.environ.get("CI"):
            raise MissingResourceError(resource)
        import nltk

        try:
            ok = nltk.download(resource, quiet=True, raise_on_error=True)
        except Exception:  # any network failure means "not available"
            ok = False
        if not ok or not _find(resource):
            raise MissingResourceError(resource)


def available(resource: str) -> bool:
    """True when the resource is installed (never downloads): for test skips."""
    return _find(resource)


@memoize("nlp.tagger", max_entries=1)
def _tagger() -> Any:
    require("averaged_perceptron_tagger_eng")
    from nltk.tag.perceptron import PerceptronTagger

    return PerceptronTagger()


@memoize("nlp.lemmatizer", max_entries=1)
def _lemmatizer() -> Any:
    require("wordnet")
    from nltk.stem import WordNetLemmatizer

    lemmatizer = WordNetLemmatizer()
    lemmatizer.lemmatize("warmup")  # force the lazy WordNet corpus to load once
    return lemmatizer


def pos_tag_words(words: Sequence[str]) -> list[str]:
    """Penn Treebank tags for one sentence of words."""
    if not words:
        return []
    return list(_tag_sentence(tuple(words)))


def _weigh_sentence(key: tuple[tuple[str, ...]], tags: tuple[str, ...]) -> int:
    return 120 + 16 * len(tags)  # the key's and the value's tuples; words, tags are shared


@memo.memoize("nlp.sentence_tags", weigh=_weigh_sentence)
def _tag_sentence(words: tuple[str, ...]) -> tuple[str, ...]:
    """Tags of one sentence, memoized: the perceptron tags a sentence from its own words
    only, so equal sentences get equal tags, and most sentences recur -- across the four
    variants of a corpus (which change only PHI words) and across notes (headers, stock
    phrases).  Cold tagging of the four default corpora went from 47 s to 34 s."""
    return tuple(sys.intern(tag) for _, tag in _tagger().tag(list(words)))


def _weigh_document(fingerprint: str, value: tuple[str, ...]) -> int:
    return 100 + 8 * len(value)  # a pointer per token; tags and lemmas are shared strings


_POS: memo.Memo[str, tuple[str, ...]] = memo.Memo(
    "nlp.pos", weigh=_weigh_document, document=lambda fingerprint: fingerprint
)
_LEMMAS: memo.Memo[str, tuple[str, ...]] = memo.Memo(
    "nlp.lemmas", weigh=_weigh_document, document=lambda fingerprint: fingerprint
)


def pos_tags(document: Document) -> tuple[str, ...]:
    """POS tag of every token of ``document``, tagged sentence by sentence; cached."""
    key = document.fingerprint
    cached = _POS.get(key)
    if cached is not None:
        return cached
    with stages.stage(stages.FEATURIZE):
        return _POS.put(key, _tag_document(document))


def _tag_document(document: Document) -> tuple[str, ...]:
    tags: list[str] = []
    sentence: list[str] = []
    current = None
    for tok in document.tokens:
        if tok.sentence != current and sentence:
            tags.extend(pos_tag_words(sentence))
            sentence = []
        current = tok.sentence
        sentence.append(tok.text)
    tags.extend(pos_tag_words(sentence))
    return tuple(tags)


_WORDNET_POS = {"N": "n", "V": "v", "J": "a", "R": "r"}


def _weigh_lemma(key: tuple[str, str], value: str) -> int:
    return 200 + 2 * len(value)  # key tuple, the lower-cased word and the lemma


@memo.memoize("nlp.lemma", weigh=_weigh_lemma)
def lemma(word: str, pos: str = "N") -> str:
    """WordNet lemma of a lower-cased word given its Penn tag (nouns by default)."""
    lower = word.lower()
    if not lower.isalpha():
        return lower
    return _lemmatizer().lemmatize(lower, _WORDNET_POS.get(pos[:1], "n"))


def lemmas(document: Document) -> tuple[str, ...]:
    """Lemma of every token of ``document`` (POS-aware), cached."""
    key = document.fingerprint
    cached = _LEMMAS.get(key)
    if cached is not None:
        return cached
    with stages.stage(stages.FEATURIZE):
        tags = pos_tags(document)
        result = tuple(lemma(tok.text, tag) for tok, tag in zip(document.tokens, tags, strict=True))
        return _LEMMAS.put(key, result)


#: Bump when tagging or lemmatizing changes, to invalidate the disk cache of :func:`warm_cache`.
NLP_CACHE_VERSION = 1


def warm_cache(documents: Sequence[Document]) -> int:
    """Load POS tags and lemmas of ``documents`` from disk, computing and storing them once.

    Tagging is the slowest step of featurization (~15k tokens/s with NLTK's perceptron), so
    the runner, ablations and benchmarks call this before featurizing.  Entries are stored
    per document, keyed by its fingerprint (see :mod:`infra.cache`), so any subset of a
    corpus (a fold's training or test part) hits the cache.  Returns how many documents had
    to be tagged in this process (0 when everything came from memory or disk).
    """
    with stages.stage(stages.FEATURIZE):
        return _warm(documents)


def _warm(documents: Sequence[Document]) -> int:
    from infra.cache import MISSING, load, make_key, store

    tagged = 0
    for doc in documents:
        fingerprint = doc.fingerprint
        if fingerprint in _LEMMAS and fingerprint in _POS:
            continue
        key = make_key("nlp", NLP_CACHE_VERSION, fingerprint)
        value = load("nlp", key)
        if value is MISSING:
            value = (pos_tags(doc), lemmas(doc))
            store("nlp", key, value)
            tagged += 1
        tags, lemmatized = value
        _POS.put(fingerprint, _interned(tags))
        _LEMMAS.put(fingerprint, _interned(lemmatized))
    return tagged


def _interned(words: tuple[str, ...]) -> tuple[str, ...]:
    """``words`` with each string the process's one copy: tags and lemmas read from disk
    are new strings, and a corpus repeats the same few thousand of them."""
    return tuple(map(sys.intern, words))

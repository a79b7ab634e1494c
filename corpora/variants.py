"""The paper's four corpora as transforms of any base corpus with typed PHI spans.

Sibanda & Uzuner (2006) evaluate on (§3, §6.1-6.3):

``authentic``
    the base as it is (§6.1, Tables 4-5);
``surrogate``
    the *re-identified* corpus: every PHI replaced with a dictionary surrogate of its
    category in the formats of §3 ("Mr. F. Lastname", "F. M. Lastname", "dd/mm/yy",
    "ddth of MonthName, yyyy", ...), consistently within a document, dates shifted by one
    offset per document, IDs and phones re-drawn digit by digit in their original shape
    (§6.1, Tables 1-3);
``ambiguous``
    PHI replaced with words that are also ordinary or medical words ("Swan", "Bell",
    "Hope", "May"), each used both as PHI and as non-PHI in the corpus, and every
    occurrence of those words flagged ``ambiguous`` (§6.2, Tables 6-9);
``unseen``
    names of people, places and hospitals replaced by random letter strings with the
    orthography of the original ("O. Ymfgkstjj"), checked absent from every dictionary,
    and flagged ``not_in_dictionary`` (§6.3, Tables 10-13).

Usage: ``--corpus surrogate`` (the embedded corpus), ``--corpus
unseen:physionet:../shared/corpora/physionet-deid`` (any reader), and variants compose
(``ambiguous:surrogate:...``).  Each transform is ``fn(corpus, *, seed) -> Corpus``,
deterministic per seed, recomputes every offset exactly (:func:`replace_spans`), and is
cached on disk keyed by the base corpus's fingerprint, the seed and
:data:`VARIANTS_VERSION`.

The ``not_in_dictionary`` flag of Table 13 ("PHI not found in dictionaries") is computed
the same way for all four (:func:`not_in_dictionary_marks`): every word of a PATIENT,
DOCTOR, LOCATION or HOSPITAL span that is in none of the lists the systems consult
(:func:`corpora.dictionaries.system_dictionaries`).
"""

from __future__ import annotations

import random
import re
import string
from collections.abc import Callable, Iterable

from corpora.ambiguity import ambiguous_documents, ambiguous_marks, data_fingerprint
from corpora.dictionaries import (
    ASCII_WORD,
    Dictionaries,
    lookup_form,
    normalize,
    surrogate_dictionaries,
    system_dictionaries,
)
from corpora.folds import COPY_OF_KEY
from corpora.load import variant
from corpora.model import (
    FLAG_NOT_IN_DICTIONARY,
    Corpus,
    Document,
    Mark,
    Span,
)
from corpora.surrogates import (
    HOSPITAL_WORDS,
    SurrogateFactory,
    apply_case,
    case_style,
)
from infra.memo import memoize

#: Bump whenever a variant's output for a given input changes (invalidates the cache).
VARIANTS_VERSION = 5
#: The version in each variant's random stream (:func:`document_rng`), kept apart from
#: :data:`VARIANTS_VERSION` and per variant: a change to one variant (a rewritten ambiguous
#: corpus) must not redraw the names of the others, or every report made with them would
#: silently stop reproducing.  Bump a variant's entry only when its own draws are meant to
#: change.  (``surrogate`` and ``unseen`` keep the stream of every committed report.)
STREAM_VERSIONS: dict[str, int] = {"surrogate": 3, "unseen": 3, "foreign": 5}
#: The same for the ambiguous corpus's draws (:func:`corpora.ambiguity.ambiguous_documents`).
AMBIGUOUS_STREAM_VERSION = 4
#: Categories whose words can be "in a dictionary" (Table 10 counts only these).
NAME_CATEGORIES = frozenset({"PATIENT", "DOCTOR", "LOCATION", "HOSPITAL"})


# --------------------------------------------------------------------------- dictionaries


@memoize("variants.vocabularies", identity=(0,), max_entries=4)
def vocabulary(dictionaries: Dictionaries) -> frozenset[str]:
    """Every word (and every word of a multi-word entry) in ``dictionaries`` (memoized)."""
    words: set[str] = set()
    for entries in dictionaries.lists.values():
        for e in entries:
            words.add(e)
            if " " in e or "-" in e or "'" in e:
                words.update(ASCII_WORD.findall(e))
    return frozenset(words)


def _in_vocabulary(word: str, vocab: frozenset[str]) -> bool:
    """``word`` is in ``vocab`` as written or as an ASCII list holds it (``lookup_form``, as
    the systems' dictionary features look it up: "Müller" is found as "muller")."""
    w = normalize(word)
    if w.endswith("'s"):
        w = w[:-2]
    return w in vocab or (not w.isascii() and lookup_form(w) in vocab)


#: A word of a name: letters (of any script: "Müller" is one word, not "M" and "ller"),
#: with inner apostrophes and hyphens.
_NAME_WORD = re.compile(r"[^\W\d_](?:[^\W\d_]|['\-])*")


def not_in_dictionary_marks(document: Document, vocab: frozenset[str]) -> list[Mark]:
    """Marks over the words of name-like PHI that are in no system dictionary (Table 13)."""
    out = []
    for span in document.spans:
        if span.category not in NAME_CATEGORIES:
            continue
        text = document.text[span.start : span.end]
        for m in _NAME_WORD.finditer(text):
            word = m.group(0).rstrip("'-")
            if not _in_vocabulary(word, vocab) and not all(
                _in_vocabulary(p, vocab) for p in re.split(r"[-']", word) if len(p) > 1
            ):
                start = span.start + m.start()
                out.append(Mark(start, start + len(word), FLAG_NOT_IN_DICTIONARY))
    return out


def flagged(
    document: Document,
    vocab: frozenset[str],
    extra: Iterable[Mark] = (),
    *,
    drop_stale: bool = False,
) -> Document:
    """Add the ``not_in_dictionary`` marks (and ``extra``); ``drop_stale`` removes old ones."""
    marks = set(document.marks)
    if drop_stale:
        marks = {m for m in marks if m.flag != FLAG_NOT_IN_DICTIONARY}
    marks |= set(not_in_dictionary_marks(document, vocab))
    marks |= set(extra)
    return Document(document.id, document.text, document.spans, tuple(marks), document.metadata)


# --------------------------------------------------------------------------- plumbing


def document_rng(name: str, seed: int, doc: Document, copy: int = 0) -> random.Random:
    """The stream of one document's transform; ``copy`` > 0 gives another stream for a
    further copy of the same note (copy 0 is the plain variant's)."""
    stream = seed if copy == 0 else f"{seed}.{copy}"
    version = STREAM_VERSIONS.get(name, VARIANTS_VERSION)
    return random.Random(f"deid-bench:{name}:{version}:{stream}:{doc.id}")


def cached_variant(
    name: str, corpus: Corpus, seed: int, compute: Callable[[], Corpus], *extra: str
) -> Corpus:
    """``compute()`` cached on disk under the variant, its version, the seed, the base
    corpus, the system dictionaries and ``extra`` (the fingerprint of any data file the
    variant reads, so editing the file rebuilds the corpus)."""
    from infra.cache import cached, make_key

    dictionaries = system_dictionaries()

    def run() -> Corpus:
        return compute()

    key = make_key(
        "variant", name, VARIANTS_VERSION, seed, corpus.fingerprint, dictionaries.sources, *extra
    )
    return cached("corpus-variant", key, run)


def variant_corpus(name: str, base: Corpus, seed: int, documents: Iterable[Document]) -> Corpus:
    """The corpus of a variant's ``documents``, its metadata saying what it was made from."""
    return Corpus(
        name=name,
        documents=tuple(documents),
        metadata={**dict(base.metadata), "variant": name, "base": base.name, "seed": seed},
    )


def replace_spans(document: Document, replacements: dict[Span, str], **kw: object) -> Document:
    """See :func:`corpora.surrogates.replace_spans` (re-exported for variant authors)."""
    from corpora.surrogates import replace_spans as _replace

    return _replace(document, replacements, **kw)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- variants


@variant(
    "authentic",
    "the notes as they are, with their own PHI (the paper's authentic corpus)",
)
def authentic(corpus: Corpus, *, seed: int) -> Corpus:
    """The base as is, with the ``not_in_dictionary`` flag computed (Table 13)."""

    def compute() -> Corpus:
        vocab = vocabulary(system_dictionaries())
        docs = (flagged(d, vocab, drop_stale=True) for d in corpus)
        return variant_corpus("authentic", corpus, seed, docs)

    return cached_variant("authentic", corpus, seed, compute)


def surrogate_document(document: Document, seed: int, copy: int = 0) -> Document:
    """One re-identified document (§3): every span replaced via :class:`SurrogateFactory`."""
    factory = SurrogateFactory(document_rng("surrogate", seed, document, copy))
    replacements = {
        s: factory.replace(s.category, document.text[s.start : s.end]) for s in document.spans
    }
    return replace_spans(document, replacements, drop_flags=frozenset({FLAG_NOT_IN_DICTIONARY}))


@variant(
    "surrogate",
    "the same notes re-identified with dictionary surrogates (the paper's reidentified "
    "corpus, Table 2)",
)
def surrogate(corpus: Corpus, *, seed: int) -> Corpus:
    """Every PHI replaced by a same-category surrogate in the paper's formats (§3, §6.1)."""

    def compute() -> Corpus:
        vocab = vocabulary(system_dictionaries())
        docs = (flagged(surrogate_document(d, seed), vocab) for d in corpus)
        return variant_corpus("surrogate", corpus, seed, docs)

    return cached_variant("surrogate", corpus, seed, compute)


@variant(
    "ambiguous",
    "surrogates chosen to be ambiguous between PHI and ordinary words (§6.2, Tables 6-9)",
)
def ambiguous(corpus: Corpus, *, seed: int) -> Corpus:
    """PHI replaced by words ambiguous between PHI and non-PHI, all uses flagged (§6.2).

    How the words are chosen and placed is :mod:`corpora.ambiguity`: names, places,
    hospitals and dates become words that the notes also use as ordinary words, class by
    class in Table 6's shares; the ordinary uses are the notes' own words, and shorthand the
    notes write out in full ("q.d." -> "daily"), listed in
    ``metadata["ambiguous_substituted"]``.  Every use of a word used both ways is flagged.
    """

    def compute() -> Corpus:
        docs = ambiguous_documents(list(corpus), seed, AMBIGUOUS_STREAM_VERSION)
        marks = ambiguous_marks(docs)
        vocab = vocabulary(system_dictionaries())
        out = [flagged(d, vocab, m) for d, m in zip(docs, marks, strict=True)]
        return variant_corpus("ambiguous", corpus, seed, out)

    return cached_variant("ambiguous", corpus, seed, compute, data_fingerprint())


def _random_word(rng: random.Random, original: str, forbidden: frozenset[str]) -> str:
    """Random letters with the orthography of ``original`` (case pattern, about its length)."""
    style = case_style(original)
    n = len(original)
    while True:
        if n == 1:
            word = rng.choice(string.ascii_uppercase)
            return word.lower() if style == "lower" else word
        length = max(2, n + rng.randint(-1, 2))
        word = "".join(rng.choice(string.ascii_lowercase) for _ in range(length))
        if word in forbidden or (word.endswith("s") and word[:-1] in forbidden):
            continue
        if style == "upper":
            return word.upper()
        if style == "lower":
            return word
        return word.capitalize() if original[:1].isupper() else word


@memoize("variants.unseen_forbidden", max_entries=4)
def _unseen_forbidden(sources: tuple[str, ...]) -> frozenset[str]:
    return vocabulary(system_dictionaries()) | vocabulary(surrogate_dictionaries())


def unseen_document(
    document: Document, seed: int, forbidden: frozenset[str], copy: int = 0
) -> Document:
    """One document with name-like PHI replaced by random strings, replaced words marked."""
    rng = document_rng("unseen", seed, document, copy)
    memory: dict[str, str] = {}
    replacements: dict[Span, str] = {}
    # Offsets (relative to the new span start) of every replaced word, per span.
    replaced_words: dict[Span, list[tuple[int, int]]] = {}
    for span in document.spans:
        if span.category not in NAME_CATEGORIES:
            continue
        text = document.text[span.start : span.end]
        out, pos, words = [], 0, []
        length = 0
        for m in ASCII_WORD.finditer(text):
            gap = text[pos : m.start()]
            out.append(gap)
            length += len(gap)
            word = m.group(0)
            keep = span.category == "HOSPITAL" and word.lower() in HOSPITAL_WORDS
            if keep or (word.lower() == "s" and m.start() > 0 and text[m.start() - 1] == "'"):
                new = word
            else:
                key = word.lower()
                if key not in memory:
                    memory[key] = _random_word(rng, word, forbidden)
                new = apply_case(memory[key], case_style(word))
                if len(word) > 1 and word[:1].isupper() and not word.isupper():
                    new = new.capitalize()
                words.append((length, length + len(new)))
            out.append(new)
            length += len(new)
            pos = m.end()
        out.append(text[pos:])
        replacements[span] = "".join(out)
        replaced_words[span] = words
    new_doc = replace_spans(document, replacements, drop_flags=frozenset({FLAG_NOT_IN_DICTIONARY}))
    marks = []
    for old, new in zip(document.spans, new_doc.spans, strict=True):
        for a, b in replaced_words.get(old, ()):
            marks.append(Mark(new.start + a, new.start + b, FLAG_NOT_IN_DICTIONARY))
    return Document(
        new_doc.id, new_doc.text, new_doc.spans, (*new_doc.marks, *marks), new_doc.metadata
    )


@variant(
    "unseen",
    "names, locations and hospitals replaced by strings found in no dictionary "
    "(§6.3, Tables 10-13)",
)
def unseen(corpus: Corpus, *, seed: int) -> Corpus:
    """Names of people, places and hospitals replaced by strings in no dictionary (§6.3)."""

    def compute() -> Corpus:
        system = system_dictionaries()
        forbidden = _unseen_forbidden(tuple(system.sources))
        vocab = vocabulary(system)
        docs = (flagged(unseen_document(d, seed, forbidden), vocab) for d in corpus)
        return variant_corpus("unseen", corpus, seed, docs)

    return cached_variant("unseen", corpus, seed, compute)


#: The four corpora of Sibanda & Uzuner (2006, §3, §6.2-6.3), each a variant of the embedded
#: notes: what ``--corpora all`` and the reproductions on the embedded corpus score on.
PAPER_CORPORA = ("authentic", "surrogate", "ambiguous", "unseen")
#: Variants that transform each document on its own (:func:`document_variant`).
DOCUMENT_VARIANTS = ("surrogate", "unseen")


def document_variant(name: str, document: Document, seed: int, copy: int = 0) -> Document:
    """One document through the ``surrogate`` or ``unseen`` transform, with its own id
    (``<id>+<name>``, ``<id>+<name>2`` for ``copy`` 1, ...): the copies that augment a
    training set (``--augment``).  ``metadata["copy_of"]`` names the note it was made from,
    so that every split keeps the two on one side (:func:`corpora.folds.groups_of`).

    Both transforms draw from a random stream seeded by the document id, ``seed`` and
    ``copy``, so a document's copy is the same in every fold that trains on it, and its
    features are computed once per process; copies with another ``copy`` index draw other
    names for the same note.  The ambiguous variant needs the whole corpus (it balances
    each word's PHI and non-PHI uses across notes) and is not offered.
    """
    if copy < 0:
        raise ValueError(f"copy index must be >= 0, not {copy}")
    if name == "surrogate":
        new = surrogate_document(document, seed, copy)
    elif name == "unseen":
        forbidden = _unseen_forbidden(tuple(system_dictionaries().sources))
        new = unseen_document(document, seed, forbidden, copy)
    else:
        raise ValueError(f"no per-document variant {name!r}; use {', '.join(DOCUMENT_VARIANTS)}")
    suffix = name if copy == 0 else f"{name}{copy + 1}"
    metadata = {**dict(new.metadata), COPY_OF_KEY: document.metadata.get(COPY_OF_KEY, document.id)}
    return Document(f"{document.id}+{suffix}", new.text, new.spans, new.marks, metadata)


__all__ = [
    "DOCUMENT_VARIANTS",
    "NAME_CATEGORIES",
    "VARIANTS_VERSION",
    "ambiguous",
    "authentic",
    "document_variant",
    "not_in_dictionary_marks",
    "surrogate",
    "surrogate_document",
    "unseen",
    "unseen_document",
    "vocabulary",
]

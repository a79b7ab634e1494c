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

import bisect
import random
import re
import string
from collections.abc import Callable, Iterable
from functools import lru_cache

from corpora.dictionaries import (
    Dictionaries,
    normalize,
    surrogate_dictionaries,
    system_dictionaries,
)
from corpora.load import variant
from corpora.model import (
    FLAG_AMBIGUOUS,
    FLAG_NOT_IN_DICTIONARY,
    Corpus,
    Document,
    Mark,
    Span,
)
from corpora.surrogates import (
    HOSPITAL_WORDS,
    MONTH_NAMES,
    SurrogateFactory,
    apply_case,
    case_style,
    parse_date,
    render_date,
)

#: Bump whenever a variant's output for a given input changes (invalidates the cache).
VARIANTS_VERSION = 2
#: Categories whose words can be "in a dictionary" (Table 10 counts only these).
NAME_CATEGORIES = frozenset({"PATIENT", "DOCTOR", "LOCATION", "HOSPITAL"})

_WORD_RE = re.compile(r"[A-Za-z]+")

# --------------------------------------------------------------------------- lexicon
# Words ambiguous between PHI and non-PHI, each with a clinical non-PHI use that the
# ambiguous variant appends to a note when the corpus has no such use yet (§6.2: "making
# sure to use each ambiguous word both as PHI and non-PHI").  Written for deid-bench.
AMBIGUOUS_SURNAMES: dict[str, str] = {
    "Swan": "Swan catheter removed.",
    "Huntington": "Family hx of Huntington's disease.",
    "Bell": "Bell's palsy on the left, improving.",
    "Parkinson": "Hx of Parkinson's disease, on sinemet.",
    "Foley": "Foley draining clear urine.",
    "Brown": "Brown stool, guaiac negative.",
    "Green": "Green sputum suctioned.",
    "White": "White count trending down.",
    "Black": "Black tarry stool x1.",
    "Graves": "Graves' disease s/p RAI.",
    "Addison": "R/o Addison's disease, cortisol pending.",
    "Cushing": "Cushingoid features noted; r/o Cushing syndrome.",
    "Wilson": "Wilson's disease ruled out.",
    "Hodgkin": "Hodgkin's lymphoma in remission.",
    "Murphy": "Positive Murphy's sign.",
    "Crohn": "Crohn's flare suspected.",
    "Still": "Still febrile this afternoon.",
    "Long": "Long discussion with family about goals.",
    "Young": "Young-appearing for stated age.",
    "Stone": "Kidney stone passed.",
    "Sharp": "Sharp chest pain with inspiration.",
    "Strong": "Strong peripheral pulses.",
    "Small": "Small amount of drainage.",
    "Short": "Short of breath with exertion.",
    "Bland": "Bland diet as tolerated.",
    "Gross": "Gross hematuria resolved.",
    "Power": "Power 5/5 in all extremities.",
    "Fox": "Fox news on in room.",
    "Banks": "Blood banks notified of need for platelets.",
    "Hall": "Ambulated in hall with PT.",
    "Cook": "Cook catheter in place.",
    "Baker": "Baker's cyst on ultrasound.",
}
AMBIGUOUS_FIRST_NAMES: dict[str, str] = {
    "Will": "Will continue current plan.",
    "Hope": "Family expresses hope for recovery.",
    "Rose": "Temp rose to 101.2 overnight.",
    "Mark": "Mark the site with a marker before the tap.",
    "Bill": "Bill questions referred to SW.",
    "Pat": "Pat dry and apply duoderm.",
    "Ray": "Gamma ray exposure denied.",
    "Frank": "Frank blood from NGT.",
    "Gene": "Gene testing sent.",
    "Grace": "Grace period for insurance discussed by case management.",
    "Joy": "Joy juice not given.",
    "Iris": "Iris reactive bilaterally.",
    "Faith": "Faith in team expressed by family.",
    "Sandy": "Sandy stool noted.",
    "Penny": "Penny-sized lesion on sacrum.",
    "Dawn": "Restless until dawn.",
    "Guy": "Guy wire of traction adjusted.",
    "Lance": "Lance the abscess per surgery.",
}
AMBIGUOUS_PLACES: dict[str, str] = {
    "Paris": "Plaster of Paris splint applied.",
    "Reading": "BP reading of 150/90 repeated.",
    "Mobile": "Mobile with walker.",
    "Normal": "Normal sinus rhythm on telemetry.",
    "Orange": "Orange juice given for low sugar.",
    "Bath": "Sponge bath given.",
    "Independence": "Independence with ADLs is the goal.",
    "Marathon": "Marathon runner prior to admission.",
    "Sandwich": "Ate half a sandwich at lunch.",
    "Lancaster": "Lancaster bed ordered.",
    "Hope": "Family expresses hope for recovery.",
    "Mercy": "Mercy bed rail padded.",
    "Warren": "Warren shunt patent on US.",
    "Concord": "Concord with plan per family.",
}
AMBIGUOUS_MONTHS: dict[str, str] = {
    "May": "May need intubation if worse.",
    "March": "March of the family to the chapel.",
}
AMBIGUOUS_HOSPITAL_PATTERNS = (
    "{w} Memorial Hospital",
    "{w} General Hospital",
    "{w} Medical Center",
    "{w} Clinic",
    "{w} Rehab",
)


def ambiguous_lexicon() -> dict[str, str]:
    """Every ambiguous word (lower-cased) -> a non-PHI use of it."""
    out: dict[str, str] = {}
    for table in (AMBIGUOUS_SURNAMES, AMBIGUOUS_FIRST_NAMES, AMBIGUOUS_PLACES, AMBIGUOUS_MONTHS):
        for w, use in table.items():
            out.setdefault(w.lower(), use)
    return out


# --------------------------------------------------------------------------- dictionaries


_VOCABULARIES: dict[int, tuple[Dictionaries, frozenset[str]]] = {}


def vocabulary(dictionaries: Dictionaries) -> frozenset[str]:
    """Every word (and every word of a multi-word entry) in ``dictionaries`` (memoized)."""
    hit = _VOCABULARIES.get(id(dictionaries))
    if hit is not None and hit[0] is dictionaries:
        return hit[1]
    words: set[str] = set()
    for entries in dictionaries.lists.values():
        for e in entries:
            words.add(e)
            if " " in e or "-" in e or "'" in e:
                words.update(_WORD_RE.findall(e))
    vocab = frozenset(words)
    _VOCABULARIES[id(dictionaries)] = (dictionaries, vocab)
    return vocab


def _in_vocabulary(word: str, vocab: frozenset[str]) -> bool:
    w = normalize(word)
    if w.endswith("'s"):
        w = w[:-2]
    return w in vocab


def not_in_dictionary_marks(document: Document, vocab: frozenset[str]) -> list[Mark]:
    """Marks over the words of name-like PHI that are in no system dictionary (Table 13)."""
    out = []
    for span in document.spans:
        if span.category not in NAME_CATEGORIES:
            continue
        text = document.text[span.start : span.end]
        for m in re.finditer(r"[A-Za-z][A-Za-z'\-]*", text):
            word = m.group(0).rstrip("'-")
            if not _in_vocabulary(word, vocab) and not all(
                _in_vocabulary(p, vocab) for p in re.split(r"[-']", word) if len(p) > 1
            ):
                start = span.start + m.start()
                out.append(Mark(start, start + len(word), FLAG_NOT_IN_DICTIONARY))
    return out


def _flagged(
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


def _rng(name: str, seed: int, doc: Document) -> random.Random:
    return random.Random(f"deid-bench:{name}:{VARIANTS_VERSION}:{seed}:{doc.id}")


def _cached(name: str, corpus: Corpus, seed: int, compute: Callable[[], Corpus]) -> Corpus:
    from corpora.cache import cached, make_key

    dictionaries = system_dictionaries()

    def run() -> Corpus:
        return compute()

    key = make_key(
        "variant", name, VARIANTS_VERSION, seed, corpus.fingerprint, dictionaries.sources
    )
    return cached("corpus-variant", key, run)


def _corpus(name: str, base: Corpus, seed: int, documents: Iterable[Document]) -> Corpus:
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


@variant("authentic")
def authentic(corpus: Corpus, *, seed: int) -> Corpus:
    """The base as is, with the ``not_in_dictionary`` flag computed (Table 13)."""

    def compute() -> Corpus:
        vocab = vocabulary(system_dictionaries())
        docs = (_flagged(d, vocab, drop_stale=True) for d in corpus)
        return _corpus("authentic", corpus, seed, docs)

    return _cached("authentic", corpus, seed, compute)


def surrogate_document(document: Document, seed: int) -> Document:
    """One re-identified document (§3): every span replaced via :class:`SurrogateFactory`."""
    factory = SurrogateFactory(_rng("surrogate", seed, document))
    replacements = {
        s: factory.replace(s.category, document.text[s.start : s.end]) for s in document.spans
    }
    return replace_spans(document, replacements, drop_flags=frozenset({FLAG_NOT_IN_DICTIONARY}))


@variant("surrogate")
def surrogate(corpus: Corpus, *, seed: int) -> Corpus:
    """Every PHI replaced by a same-category surrogate in the paper's formats (§3, §6.1)."""

    def compute() -> Corpus:
        vocab = vocabulary(system_dictionaries())
        docs = (_flagged(surrogate_document(d, seed), vocab) for d in corpus)
        return _corpus("surrogate", corpus, seed, docs)

    return _cached("surrogate", corpus, seed, compute)


class _AmbiguousFactory(SurrogateFactory):
    """Surrogates drawn mostly from words that are also ordinary or medical words."""

    def __init__(self, rng: random.Random, style: str = "mixed") -> None:
        super().__init__(rng)
        self.style = style  # the note's capitalization (upper / lower / mixed)
        self.surnames = sorted(AMBIGUOUS_SURNAMES)
        self.first_names = sorted(AMBIGUOUS_FIRST_NAMES)
        self.places = sorted(AMBIGUOUS_PLACES)

    def amb_last(self) -> str:
        return self.rng.choice(self.surnames) if self.rng.random() < 0.75 else self.last_name()

    def amb_first(self) -> str:
        if self.rng.random() < 0.6:
            return self.rng.choice(self.first_names)
        return self.first_name()

    def amb_hospital(self) -> str:
        if self.rng.random() < 0.5:
            word = self.rng.choice(self.surnames + self.places)
            return self.rng.choice(AMBIGUOUS_HOSPITAL_PATTERNS).format(w=word)
        return self.hospital()

    def replace(self, category: str, text: str) -> str:
        if category in ("PATIENT", "DOCTOR"):
            return self.replace_name(text, first=self.amb_first, last=self.amb_last)
        if category == "LOCATION":
            return self.replace_location(text, lambda: self.rng.choice(self.places))
        if category == "HOSPITAL":
            return self.replace_hospital(text, self.amb_hospital)
        if category == "DATE":
            parsed = parse_date(text)
            if parsed is not None and self.rng.random() < 0.35:
                date, fmt = parsed
                date = date + self.shift
                month = self.rng.choice((5, 3))
                date = date.replace(month=month, day=min(date.day, 28))
                if fmt in ("m/d", "mm/dd/yyyy", "m/d/yy", "m/d/yyyy", "mm/dd/yy"):
                    fmt = "Mon d" if fmt == "m/d" else "Month d, yyyy"
                if "Mon" in fmt or "Month" in fmt:
                    new = render_date(date, fmt)
                    return apply_case(new, case_style(text) if text[:1].isalpha() else self.style)
        return super().replace(category, text)


def _lexicon_matches(text: str, lexicon: dict[str, str]) -> list[tuple[int, int, str]]:
    """(start, end, lower-cased word) of every whole-word occurrence of a lexicon word."""
    return [
        (m.start(), m.end(), w)
        for m in _WORD_RE.finditer(text)
        if (w := m.group(0).lower()) in lexicon
    ]


def _inside_span(document: Document, start: int, end: int) -> bool:
    spans = document.spans
    i = bisect.bisect_right([s.start for s in spans], start) - 1
    return i >= 0 and spans[i].start <= start and end <= spans[i].end


@variant("ambiguous")
def ambiguous(corpus: Corpus, *, seed: int) -> Corpus:
    """PHI replaced by words ambiguous between PHI and non-PHI, all uses flagged (§6.2)."""

    def compute() -> Corpus:
        lexicon = ambiguous_lexicon()
        docs: list[Document] = []
        for d in corpus:
            factory = _AmbiguousFactory(_rng("ambiguous", seed, d), case_style(d.text))
            repl = {s: factory.replace(s.category, d.text[s.start : s.end]) for s in d.spans}
            docs.append(replace_spans(d, repl, drop_flags=frozenset({FLAG_NOT_IN_DICTIONARY})))
        # Which ambiguous words are used as PHI, and which also as non-PHI?
        as_phi: dict[str, int] = {}
        as_other: set[str] = set()
        for i, d in enumerate(docs):
            for start, end, w in _lexicon_matches(d.text, lexicon):
                if _inside_span(d, start, end):
                    as_phi.setdefault(w, i)
                else:
                    as_other.add(w)
        # Make sure every word used as PHI also occurs as non-PHI (append a use).
        appended: dict[int, list[str]] = {}
        for w, i in sorted(as_phi.items()):
            if w not in as_other:
                appended.setdefault(i, []).append(lexicon[w])
        for i, uses in appended.items():
            d = docs[i]
            tail = apply_case(" ".join(uses), case_style(d.text))
            docs[i] = replace_spans(d, {}, append="\n" + tail + "\n")
        used = set(as_phi)
        vocab = vocabulary(system_dictionaries())
        out = []
        for d in docs:
            marks = [
                Mark(start, end, FLAG_AMBIGUOUS)
                for start, end, w in _lexicon_matches(d.text, lexicon)
                if w in used
            ]
            out.append(_flagged(d, vocab, marks))
        return _corpus("ambiguous", corpus, seed, out)

    return _cached("ambiguous", corpus, seed, compute)


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


@lru_cache(maxsize=4)
def _unseen_forbidden(sources: tuple[str, ...]) -> frozenset[str]:
    return vocabulary(system_dictionaries()) | vocabulary(surrogate_dictionaries())


def unseen_document(document: Document, seed: int, forbidden: frozenset[str]) -> Document:
    """One document with name-like PHI replaced by random strings, replaced words marked."""
    rng = _rng("unseen", seed, document)
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
        for m in _WORD_RE.finditer(text):
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


@variant("unseen")
def unseen(corpus: Corpus, *, seed: int) -> Corpus:
    """Names of people, places and hospitals replaced by strings in no dictionary (§6.3)."""

    def compute() -> Corpus:
        system = system_dictionaries()
        forbidden = _unseen_forbidden(tuple(system.sources))
        vocab = vocabulary(system)
        docs = (_flagged(unseen_document(d, seed, forbidden), vocab) for d in corpus)
        return _corpus("unseen", corpus, seed, docs)

    return _cached("unseen", corpus, seed, compute)


__all__ = [
    "AMBIGUOUS_FIRST_NAMES",
    "AMBIGUOUS_MONTHS",
    "AMBIGUOUS_PLACES",
    "AMBIGUOUS_SURNAMES",
    "MONTH_NAMES",
    "NAME_CATEGORIES",
    "VARIANTS_VERSION",
    "ambiguous",
    "ambiguous_lexicon",
    "authentic",
    "not_in_dictionary_marks",
    "surrogate",
    "surrogate_document",
    "unseen",
    "unseen_document",
    "vocabulary",
]

"""Primitive feature classes shared by every learned system.

The papers' feature sets overlap heavily: the target word, its neighbours, POS tags, word
shape and dictionary membership appear in Stat De-id (Sibanda & Uzuner 2006, §5), the
Stanford NER CRF (Finkel et al. 2005; Tafvizi 2011, §2.2), MIST (Tafvizi §2.3) and SNoW
(§4.2 of the 2006 paper).  Each primitive is written once here and parameterized (window
offsets, lemmatized or not, which dictionaries), and the system-specific modules compose
them -- so the Mega SVM's "union of feature sets" never holds two copies of one feature.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from corpora import nlp
from corpora.dictionaries import Dictionaries, lookup_form, normalize, system_dictionaries
from infra.memo import memoize
from systems.features.base import FeatureClass, TokenFeatures

if TYPE_CHECKING:
    from corpora.model import Document

BOS = "<s>"
EOS = "</s>"


def _words(document: Document, lemmatized: bool, lowercase: bool = True) -> Sequence[str]:
    if lemmatized:
        return nlp.lemmas(document)
    if lowercase:
        return [t.text.lower() for t in document.tokens]
    return [t.text for t in document.tokens]


def _offset_name(offset: int) -> str:
    return "0" if offset == 0 else (f"+{offset}" if offset > 0 else str(offset))


class WordWindow(FeatureClass):
    """The words at the given offsets from the target (``w-1=the``), within a sentence.

    ``lemmatized`` uses WordNet lemmas (the 2006 paper lemmatizes context words, §5).
    """

    name = "word_window"

    def __init__(
        self, offsets: tuple[int, ...] = (-1, 0, 1), lemmatized: bool = False, prefix: str = "w"
    ) -> None:
        self.offsets = offsets
        self.lemmatized = lemmatized
        self.prefix = prefix

    def key(self) -> str:
        return f"{self.prefix}:" + super().key()

    def extract(self, document: Document) -> list[TokenFeatures]:
        words = _words(document, self.lemmatized)
        toks = document.tokens
        n = len(toks)
        names = {o: f"{self.prefix}{_offset_name(o)}=" for o in self.offsets}
        out: list[TokenFeatures] = []
        for i in range(n):
            sent = toks[i].sentence
            row: TokenFeatures = {}
            for o, nm in names.items():
                j = i + o
                if 0 <= j < n and toks[j].sentence == sent:
                    row[nm + words[j]] = 1.0
                else:
                    row[nm + (BOS if o < 0 else EOS)] = 1.0
            out.append(row)
        return out


class BigramContext(FeatureClass):
    """The (lemmatized) bigram before and after the target (2006 paper, §5)."""

    name = "bigrams"

    def __init__(self, lemmatized: bool = True) -> None:
        self.lemmatized = lemmatized

    def extract(self, document: Document) -> list[TokenFeatures]:
        words = _words(document, self.lemmatized)
        toks = document.tokens
        n = len(toks)
        out: list[TokenFeatures] = []
        for i in range(n):
            sent = toks[i].sentence

            def w(j: int, i: int = i, sent: int = sent) -> str:
                if 0 <= j < n and toks[j].sentence == sent:
                    return words[j]
                return BOS if j < i else EOS

            out.append({f"bg-={w(i - 2)}_{w(i - 1)}": 1.0, f"bg+={w(i + 1)}_{w(i + 2)}": 1.0})
        return out


class PosWindow(FeatureClass):
    """Penn Treebank POS tags at the given offsets (NLTK averaged perceptron)."""

    name = "pos"

    def __init__(self, offsets: tuple[int, ...] = (-1, 0, 1)) -> None:
        self.offsets = offsets

    def extract(self, document: Document) -> list[TokenFeatures]:
        tags = nlp.pos_tags(document)
        toks = document.tokens
        n = len(toks)
        out: list[TokenFeatures] = []
        for i in range(n):
            sent = toks[i].sentence
            row: TokenFeatures = {}
            for o in self.offsets:
                j = i + o
                tag = tags[j] if 0 <= j < n and toks[j].sentence == sent else "NONE"
                row[f"pos{_offset_name(o)}={tag}"] = 1.0
            out.append(row)
        return out


_SHAPE_SUBS = ((re.compile(r"[A-Z]"), "X"), (re.compile(r"[a-z]"), "x"), (re.compile(r"\d"), "d"))
_COLLAPSE = re.compile(r"(.)\1+")


def _char_shape(c: str) -> str:
    if c.isupper():
        return "X"
    if c.islower():
        return "x"
    return "d" if c.isdecimal() else c


def word_shape(word: str, collapse: bool = True) -> str:
    """``Smith`` -> ``Xx``, ``07/22`` -> ``d/d`` (collapsed) -- Stanford-style shapes.

    Letters are classed by their Unicode case, as Stanford's shape functions do (Java's
    ``Character.isUpperCase``), so "Östman" and "ŠEVČÍKOVÁ" have the shapes of "Smith" and
    "SMITH" rather than shapes no training note had.  ASCII words take the regular
    expressions' path, which gives the same shapes faster."""
    if word.isascii():
        shape = word
        for pattern, repl in _SHAPE_SUBS:
            shape = pattern.sub(repl, shape)
    else:
        shape = "".join(map(_char_shape, word))
    return _COLLAPSE.sub(r"\1", shape) if collapse else shape


class Orthography(FeatureClass):
    """Capitalization, length, digits and inner "-" or "/" of the target (2006 paper, §5)."""

    name = "orthography"

    def extract(self, document: Document) -> list[TokenFeatures]:
        out: list[TokenFeatures] = []
        for tok in document.tokens:
            w = tok.text
            row: TokenFeatures = {f"len={min(len(w), 12)}": 1.0}
            if w[:1].isupper():
                row["init_cap"] = 1.0
            if w.isupper() and any(c.isalpha() for c in w):
                row["all_caps"] = 1.0
            if w.islower():
                row["all_lower"] = 1.0
            if any(c.isdigit() for c in w):
                row["has_digit"] = 1.0
                if w.isdigit():
                    row["all_digits"] = 1.0
            if "-" in w:
                row["has_hyphen"] = 1.0
            if "/" in w:
                row["has_slash"] = 1.0
            out.append(row)
        return out


class ShapeWindow(FeatureClass):
    """Word shapes of the target and neighbours (Stanford NER's ``wordShape``)."""

    name = "shape"

    def __init__(self, offsets: tuple[int, ...] = (-1, 0, 1)) -> None:
        self.offsets = offsets

    def extract(self, document: Document) -> list[TokenFeatures]:
        toks = document.tokens
        shapes = [word_shape(t.text) for t in toks]
        n = len(toks)
        out: list[TokenFeatures] = []
        for i in range(n):
            row: TokenFeatures = {}
            for o in self.offsets:
                j = i + o
                s = shapes[j] if 0 <= j < n and toks[j].sentence == toks[i].sentence else "NONE"
                row[f"shape{_offset_name(o)}={s}"] = 1.0
            out.append(row)
        return out


class CharNgrams(FeatureClass):
    """Character n-grams of the target with word-boundary marks (Stanford ``useNGrams``)."""

    name = "char_ngrams"

    def __init__(self, min_n: int = 2, max_n: int = 4) -> None:
        self.min_n = min_n
        self.max_n = max_n

    def extract(self, document: Document) -> list[TokenFeatures]:
        out: list[TokenFeatures] = []
        for tok in document.tokens:
            w = f"<{tok.text.lower()}>"
            row: TokenFeatures = {}
            for n in range(self.min_n, self.max_n + 1):
                for k in range(len(w) - n + 1):
                    row["ng=" + w[k : k + n]] = 1.0
            out.append(row)
        return out


class Section(FeatureClass):
    """The section heading the target sits under (2006 paper, §5)."""

    name = "section"

    def extract(self, document: Document) -> list[TokenFeatures]:
        return [{f"sec={t.section or 'NONE'}": 1.0} for t in document.tokens]


#: The dictionaries the 2006 paper's features consult (§5): names, locations, hospitals,
#: months.  Each maps a feature name to the canonical lists it unions.
DEFAULT_DICTIONARY_GROUPS: dict[str, tuple[str, ...]] = {
    "first_name": ("female_first_names", "male_first_names"),
    "last_name": ("last_names",),
    "location": ("locations", "us_states", "countries", "local_places"),
    "hospital": ("hospitals",),
    "month": ("months",),
}


@memoize("features.dictionary_lexicons", identity=(0,))
def _group_lexicon(d: Dictionaries, groups: tuple[str, ...]) -> tuple[dict[str, set[str]], int]:
    """Each group's entries (the union of its canonical lists) and the longest phrase, in
    words (at most 4), per dictionaries object and groups: building the unions and scanning
    ~10^5 entries for the longest phrase took ~0.1 s, once per *document* before."""
    lex = {g: d.union(DEFAULT_DICTIONARY_GROUPS.get(g, (g,))) for g in groups}
    longest = max((e.count(" ") + 1 for s in lex.values() for e in s), default=1)
    return lex, min(longest, 4)


@memoize("features.dictionary_indexes", identity=(0,))
def _group_index(
    lex: dict[str, set[str]], groups: tuple[str, ...]
) -> tuple[dict[str, tuple[str, ...]], frozenset[str]]:
    """Entry -> groups holding it, and the first words of multi-word entries, per lexicon
    (:func:`_group_lexicon`): one look-up per token instead of one per group."""
    groups_of: dict[str, list[str]] = {}
    for g, entries in lex.items():
        for e in entries:
            groups_of.setdefault(e, []).append(g)
    index = {e: tuple(gs) for e, gs in groups_of.items()}
    starts = frozenset(e.split(" ", 1)[0] for e in index if " " in e)
    return index, starts


class DictionaryWindow(FeatureClass):
    """Presence of the words at given offsets in named dictionaries (``dict+1=last_name``).

    Multi-word dictionary entries ("new york") are matched too: every token of a matched
    phrase gets the feature.  A word written with diacritics is also looked up as an ASCII
    list holds it (:func:`corpora.dictionaries.lookup_form`: "Müller" finds "muller"); the
    papers' notes were ASCII, where this changes nothing.
    """

    name = "dictionary"
    version = 2  # cache version: words with diacritics are looked up in ASCII too

    def __init__(
        self,
        offsets: tuple[int, ...] = (-1, 0, 1),
        groups: tuple[str, ...] = tuple(DEFAULT_DICTIONARY_GROUPS),
        dictionaries: str | None = None,
    ) -> None:
        self.offsets = offsets
        self.groups = groups
        self.dictionaries = dictionaries

    def _lexicon(self) -> tuple[dict[str, set[str]], int]:
        return _group_lexicon(system_dictionaries(self.dictionaries), tuple(self.groups))

    def _index(self) -> tuple[dict[str, tuple[str, ...]], frozenset[str], int]:
        """Entry -> groups holding it, first words of multi-word entries, longest phrase."""
        lex, longest = self._lexicon()
        index, starts = _group_index(lex, tuple(self.groups))
        return index, starts, longest

    def membership(self, document: Document) -> list[set[str]]:
        """For every token, the dictionary groups it belongs to (alone or in a phrase)."""
        index, starts, longest = self._index()
        toks = document.tokens
        words = [normalize(t.text) for t in toks]
        spellings = [words]
        if not all(map(str.isascii, words)):
            spellings.append([w if w.isascii() else lookup_form(w) for w in words])
        hits: list[set[str]] = [set() for _ in toks]
        for forms in spellings:
            self._match(forms, index, starts, longest, hits)
        return hits

    @staticmethod
    def _match(
        words: list[str],
        index: dict[str, tuple[str, ...]],
        starts: frozenset[str],
        longest: int,
        hits: list[set[str]],
    ) -> None:
        """Add to ``hits`` the groups of every entry and phrase ``words`` spell."""
        for i, w in enumerate(words):
            groups = index.get(w)
            if groups:
                hits[i].update(groups)
            if longest > 1 and w in starts and w[:1].isalpha():
                for size in range(2, longest + 1):
                    if i + size > len(words):
                        break
                    groups = index.get(" ".join(words[i : i + size]))
                    if groups:
                        for k in range(i, i + size):
                            hits[k].update(groups)

    def extract(self, document: Document) -> list[TokenFeatures]:
        hits = self.membership(document)
        n = len(hits)
        out: list[TokenFeatures] = []
        for i in range(n):
            row: TokenFeatures = {}
            for o in self.offsets:
                j = i + o
                if 0 <= j < n:
                    for g in hits[j]:
                        row[f"dict{_offset_name(o)}={g}"] = 1.0
            out.append(row)
        return out

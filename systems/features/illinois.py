"""Feature classes of the Illinois tagger, LBJNET (Ratinov & Roth 2009; Tafvizi 2011, §2.4).

First stage (Tafvizi §2.4): the target word, its word type (all caps, all digits, ...),
its prefixes and suffixes, the words within two tokens and the capitalization pattern of
that window.  Mapped onto classes:

===================================  =====================================================
Tafvizi §2.4                          feature class
===================================  =====================================================
target word, words in a ±2 window     :class:`~systems.features.common.WordWindow`
word-type information                 :class:`~systems.features.common.Orthography`
prefixes and suffixes                 :class:`Affixes` (this module)
capitalization pattern in ±2          :class:`CapitalizationWindow` (this module)
===================================  =====================================================

:class:`Affixes` names its features exactly like the boundary n-grams of
:class:`~systems.features.common.CharNgrams` (``ng=<sm``, ``th>``), so in the Mega SVM's
union with the Stanford n-grams an affix and the same n-gram are one column, not two.

Second stage (Tafvizi §2.4 and §7.2.3): :class:`PredictionContext` turns the first
stage's labels into features -- the labels of the neighbouring tokens and what the other
occurrences of the same word in the note were labelled.  It is not a
:class:`~systems.features.base.FeatureClass`, because its input is a prediction, not a
document; :mod:`systems.illinois` runs the two stages.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from corpora.model import OUTSIDE
from systems.features.base import FeatureClass, TokenFeatures
from systems.features.common import Orthography, WordWindow

if TYPE_CHECKING:
    from corpora.model import Document


class Affixes(FeatureClass):
    """Prefixes and suffixes of the target up to ``max_len`` characters (lower-cased).

    Surnames share endings (-son, -ez, -ski) and hospital names beginnings (st., mount),
    which lets the tagger generalize to names it never saw (Ratinov & Roth 2009).
    """

    name = "affixes"

    def __init__(self, max_len: int = 4) -> None:
        self.max_len = max_len

    def extract(self, document: Document) -> list[TokenFeatures]:
        out: list[TokenFeatures] = []
        for tok in document.tokens:
            w = tok.text.lower()
            row: TokenFeatures = {}
            for k in range(1, min(self.max_len, len(w)) + 1):
                row[f"ng=<{w[:k]}"] = 1.0
                row[f"ng={w[-k:]}>"] = 1.0
            out.append(row)
        return out


def capitalization_class(word: str) -> str:
    """``C`` initial capital, ``A`` all capitals, ``l`` lower case, ``d`` digits only,
    ``m`` mixed letters and digits, ``p`` anything else (punctuation)."""
    if word.isdigit():
        return "d"
    if word.isalpha():
        if word.isupper():
            return "A" if len(word) > 1 else "C"
        if word[0].isupper():
            return "C"
        return "l"
    if any(c.isalnum() for c in word):
        if word[0].isupper():
            return "C"
        return "m"
    return "p"


class CapitalizationWindow(FeatureClass):
    """Capitalization class of each token within ``size`` of the target, and the pattern
    of the whole window (``cap-1=C``, ``capseq=lC_C``).

    In notes that are all upper or all lower case (PhysioNet) the pattern flags the rare
    capitalized word; in mixed-case notes it is the classic name cue (Ratinov & Roth 2009).
    """

    name = "cap_window"

    def __init__(self, size: int = 2) -> None:
        self.size = size

    def extract(self, document: Document) -> list[TokenFeatures]:
        toks = document.tokens
        caps = [capitalization_class(t.text) for t in toks]
        n = len(toks)
        out: list[TokenFeatures] = []
        for i in range(n):
            sent = toks[i].sentence
            row: TokenFeatures = {}
            pattern = []
            for o in range(-self.size, self.size + 1):
                j = i + o
                c = caps[j] if 0 <= j < n and toks[j].sentence == sent else "_"
                pattern.append(c)
                if o:
                    row[f"cap{o:+d}={c}"] = 1.0
            row["capseq=" + "".join(pattern)] = 1.0
            out.append(row)
        return out


#: The first-stage feature classes of the Illinois tagger (Tafvizi 2011, §2.4).
ILLINOIS_FEATURES: tuple[FeatureClass, ...] = (
    WordWindow(offsets=(-2, -1, 0, 1, 2)),
    Orthography(),
    Affixes(max_len=4),
    CapitalizationWindow(size=2),
)


def _occurrence_key(text: str) -> str | None:
    """The lower-cased word, or ``None`` for tokens not worth linking (punctuation)."""
    if not any(c.isalnum() for c in text):
        return None
    return text.lower()


class PredictionContext:
    """Second-stage features from first-stage labels (Tafvizi §2.4, §7.2.3).

    * ``p-2=O``, ``p-1=DOCTOR``, ..., ``p+2=O``: the first-stage labels of the tokens at
      ``offsets`` (the target's own label at offset 0 included by default) -- "whether the
      surrounding context of a token includes a PHI";
    * ``occ_any=PATIENT``: some *other* occurrence of the same lower-cased word in the
      document was labelled PATIENT; ``occ_major=O`` the majority label over those other
      occurrences -- "whether the same word in another part of the document was
      classified as a PHI" (Ratinov & Roth's non-local features).

    Windows cross sentence boundaries: in fragmented notes the label of the previous line
    (a name before a pager number) is still informative.
    """

    def __init__(
        self, offsets: tuple[int, ...] = (-2, -1, 0, 1, 2), occurrences: bool = True
    ) -> None:
        self.offsets = offsets
        self.occurrences = occurrences

    def features(self, document: Document, labels: Sequence[str]) -> list[TokenFeatures]:
        """One feature dict per token of ``document`` given its first-stage ``labels``."""
        toks = document.tokens
        n = len(toks)
        if len(labels) != n:
            raise ValueError(f"{len(labels)} first-stage labels for {n} tokens")
        names = {o: ("p0=" if o == 0 else f"p{o:+d}=") for o in self.offsets}
        keys = [_occurrence_key(t.text) for t in toks]
        totals: dict[str, Counter[str]] = {}
        if self.occurrences:
            # a word seen once in the note has no other occurrence to tell about
            repeated = {k for k, c in Counter(keys).items() if c > 1 and k is not None}
            keys = [k if k in repeated else None for k in keys]
            for k, lab in zip(keys, labels, strict=True):
                if k is not None:
                    totals.setdefault(k, Counter())[lab] += 1
        out: list[TokenFeatures] = []
        occurrence: dict[tuple[str, str], list[str]] = {}  # (word, own label) -> names
        for i in range(n):
            row: TokenFeatures = {}
            for o, nm in names.items():
                j = i + o
                if 0 <= j < n:
                    row[nm + labels[j]] = 1.0
                else:
                    row[nm + "NONE"] = 1.0
            k = keys[i]
            if k is not None and self.occurrences:
                extra = occurrence.get((k, labels[i]))
                if extra is None:
                    extra = occurrence[k, labels[i]] = _occurrence_names(totals[k], labels[i])
                for name in extra:
                    row[name] = 1.0
            out.append(row)
        return out


def _occurrence_names(counts: Counter[str], own: str) -> list[str]:
    """``occ_any`` and ``occ_major`` names of a word whose occurrences in the note were
    labelled ``counts``, seen from one occurrence labelled ``own`` (left out): the same
    for every occurrence with that label, so computed once per (word, label)."""
    others = [(lab, c - (lab == own)) for lab, c in counts.items()]
    others = [(lab, c) for lab, c in others if c > 0]
    if not others:
        return []
    names = ["occ_any=" + lab for lab, _ in others if lab != OUTSIDE]
    top = max(others, key=lambda kv: (kv[1], kv[0] != OUTSIDE, kv[0]))
    names.append("occ_major=" + top[0])
    return names

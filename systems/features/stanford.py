"""Feature classes of the Stanford NER CRF (Finkel et al. 2005; Tafvizi 2011, §2.2).

Tafvizi lists six feature types for the Stanford tagger used as a de-identifier:

==========================================  =============================================
Tafvizi §2.2                                 feature class here
==========================================  =============================================
the target word                              :class:`~systems.features.common.WordWindow`
previous and next word                       (same class, offsets -1, 0, +1)
character n-grams of the target              :class:`~systems.features.common.CharNgrams`
POS of the target and surrounding words      :class:`~systems.features.common.PosWindow`
word shape of the target and neighbours      :class:`~systems.features.common.ShapeWindow`
presence of a word within 4 left/right       :class:`DisjunctiveWindow` (this module)
==========================================  =============================================

Only the last one is Stanford-specific, so it is the only feature written here; the others
are the shared primitives with Stanford's parameters.  The Mega SVM (Tafvizi §4) unions
:data:`STANFORD_FEATURES` with the other systems' tuples; identical primitives share a
:meth:`~systems.features.base.FeatureClass.key`, so a union can drop duplicates by key.

Substitutes: Stanford's own tokenizer and POS tagger are replaced by the harness's clinical
tokenizer and NLTK's averaged perceptron; its ``chris2useLC`` word-shape function by
:func:`~systems.features.common.word_shape`.  Character n-grams run from 2 to 6 characters
including the word-boundary marks (Stanford's ``maxNGramLeng=6``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from systems.features.base import FeatureClass, TokenFeatures
from systems.features.common import CharNgrams, PosWindow, ShapeWindow, WordWindow

if TYPE_CHECKING:
    from corpora.model import Document


class DisjunctiveWindow(FeatureClass):
    """Bag of the words up to ``size`` tokens to the left and to the right of the target.

    Stanford NER's ``useDisjunctive``: a feature says "word *w* occurs somewhere within
    ``size`` tokens on the left" (``dl=w``) or "... on the right" (``dr=w``), without its
    position -- Tafvizi's "presence of a word within a window size of 4" (§2.2).  Unlike
    :class:`~systems.features.common.WordWindow` the position is deliberately forgotten, so
    "Dr. J. Smith" and "Dr. Smith" share the cue ``dl=dr.``.  The window stays within the
    target's sentence, as the positional windows do.
    """

    name = "disjunctive"

    def __init__(self, size: int = 4, prefix: str = "d") -> None:
        self.size = size
        self.prefix = prefix

    def extract(self, document: Document) -> list[TokenFeatures]:
        toks = document.tokens
        words = [t.text.lower() for t in toks]
        n = len(toks)
        left, right = f"{self.prefix}l=", f"{self.prefix}r="
        out: list[TokenFeatures] = []
        for i in range(n):
            sent = toks[i].sentence
            row: TokenFeatures = {}
            for j in range(max(0, i - self.size), i):
                if toks[j].sentence == sent:
                    row[left + words[j]] = 1.0
            for j in range(i + 1, min(n, i + self.size + 1)):
                if toks[j].sentence != sent:
                    break
                row[right + words[j]] = 1.0
            out.append(row)
        return out


#: Stanford NER's feature classes (Tafvizi 2011, §2.2), in the order of her list.
STANFORD_FEATURES: tuple[FeatureClass, ...] = (
    WordWindow(offsets=(-1, 0, 1)),
    CharNgrams(min_n=2, max_n=6),
    PosWindow(offsets=(-1, 0, 1)),
    ShapeWindow(offsets=(-1, 0, 1)),
    DisjunctiveWindow(size=4),
)

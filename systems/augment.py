"""Training that generalizes to new names (``--augment unseen,surrogate``, or one base of a
stacked system's own ``augment``).

Learned de-identifiers memorise the names and places of their training notes: trained on
one set of PhysioNet patients, the CRFs and the Mega SVM find 58-91 % of the place names of
new patients but only 2-15 % once those names are replaced by names from elsewhere.  The
remedy of PHICON (Yue & Zhou 2020) is to replace the PHI of the training notes and train on
both: the model then has to rely on what carries across vocabularies -- word shape,
character n-grams, the context words, "in no dictionary" -- rather than on the words
themselves.

:class:`Augmented` adds, for each variant named, a transformed copy of every *training*
document (:func:`corpora.variants.document_variant`: dictionary surrogates, or random
strings absent from every dictionary), and trains the wrapped system on originals and
copies together.  A variant named n times (``--augment unseen:3``) adds n copies, each with
other names: one copy of a note gives each of its names one replacement, which the model can
still learn as a word; several copies leave it only the context and the form of the word.
Test documents are never transformed here.  Inside ``--tune`` the augmentation happens
within each inner fold, so each inner model sees copies of its own training part only.
"""

from __future__ import annotations

import itertools
from collections import Counter

from corpora.model import Document
from corpora.variants import DOCUMENT_VARIANTS, document_variant
from infra import memo, stages
from systems.base import ExtendedTraining, System

#: Copies kept per process, by (variant, seed, copy, document fingerprint), and released
#: with the document; the same training document recurs in k - 1 outer folds and in every
#: inner fold of tuning.
_COPIES: memo.Memo[tuple[str, int, int, str], Document] = memo.Memo(
    "augment.copies", max_entries=20_000, document=lambda key: key[3]
)


def augmented_copy(variant: str, document: Document, seed: int, copy: int = 0) -> Document:
    """``document`` through ``variant`` (its ``copy``-th copy), computed once per process."""
    key = (variant, seed, copy, document.fingerprint)
    hit = _COPIES.get(key)
    if hit is None:
        with stages.stage(stages.FEATURIZE):
            hit = _COPIES.put(key, document_variant(variant, document, seed, copy))
    return hit


#: Variants no training step may use: kept to test generalization (``--test-variant``).
RESERVED_FOR_TESTING: tuple[str, ...] = ("foreign",)

#: The most copies of each training document one variant may add: each copy is a whole
#: training set more to featurize and fit, so ``unseen:1000`` would run for days.
MAX_COPIES = 20


#: The most alternatives a range of copies may offer ``--tune`` (``unseen:1-3`` offers
#: three): each is a grid axis value, multiplying the candidates fitted on the first inner
#: fold.
MAX_CHOICES = 6


def parse_augment_choices(text: str) -> tuple[tuple[str, ...], ...]:
    """The augmentations ``text`` offers, fewest copies first: ``"unseen:3,surrogate"`` ->
    one, ``("unseen", "unseen", "unseen", "surrogate")``; ``"unseen:1-3,surrogate"`` ->
    three, with one, two and three random-string copies, for ``--tune`` to choose between
    inside the training folds (:class:`bench.training.tuning.Tuned`).  Each variant appears
    as many times as copies of every training document it adds.  A value naming no variant
    is a ``ValueError`` (a caller that means "none" says so before calling)."""
    parts: list[list[tuple[str, ...]]] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        name, _, count = part.partition(":")
        name = name.strip()
        low, dash, high = count.partition("-")
        try:
            lo = int(low) if count else 1
            hi = int(high) if dash else lo
        except ValueError:
            lo = hi = 0
        if not (1 <= lo <= MAX_COPIES and 1 <= hi <= MAX_COPIES) or (dash and lo >= hi):
            raise ValueError(
                f"{part!r}: the number of copies must be a whole number >= 1 and at most "
                f"{MAX_COPIES}, or a range LOW-HIGH of them (unseen:1-3) for --tune to choose"
            )
        parts.append([(name,) * n for n in range(lo, hi + 1)])
    if not parts:
        raise ValueError(f"{text!r}: give at least one VARIANT[:N], e.g. unseen:2")
    choices = tuple(sum(combo, ()) for combo in itertools.product(*parts))
    if len(choices) > MAX_CHOICES:
        raise ValueError(
            f"{text!r} offers {len(choices)} augmentations to choose from; at most "
            f"{MAX_CHOICES} (each is fitted as a candidate of its own)"
        )
    return choices


def parse_augment(text: str) -> tuple[str, ...]:
    """``"unseen:3,surrogate"`` -> ``("unseen", "unseen", "unseen", "surrogate")``: each
    variant as many times as copies of every training document it adds.  A range of copies
    is a ``ValueError`` here: it is a choice, which only ``--tune`` can make."""
    choices = parse_augment_choices(text)
    if len(choices) > 1:
        raise ValueError(
            f"{text!r}: a range of copies is a choice --tune makes for a system's own "
            "augmentation (--augment, --param NAME.augment); give one number of copies here"
        )
    return choices[0]


class Augmented(ExtendedTraining):
    """``system`` trained on its training documents plus transformed copies of them.

    Parameters
    ----------
    system:
        The system to train (unfitted; a clone is fitted).
    variants:
        Names from :data:`corpora.variants.DOCUMENT_VARIANTS`, one copy of every training
        document per name; a name given n times adds n copies with different names.
    seed:
        Seed of the transforms.
    """

    added_key = "augmented_copies"

    def __init__(self, system: System, variants: tuple[str, ...] = ("unseen",), seed: int = 0):
        self.system = system
        self.variants = tuple(variants)
        self.seed = seed

    def check_params(self) -> None:
        bad = [v for v in self.variants if v not in DOCUMENT_VARIANTS]
        if bad or not self.variants:
            raise ValueError(
                f"augmentation variants must be some of {', '.join(DOCUMENT_VARIANTS)}"
                + (f", not {', '.join(bad)}" if bad else "")
            )
        reserved = [v for v in self.variants if v in RESERVED_FOR_TESTING]
        if reserved:
            raise ValueError(
                f"the {reserved[0]!r} variant is reserved for testing generalization, so no "
                "training step may use it"
            )
        super().check_params()

    def added_documents(self, documents: list[Document]) -> list[Document]:
        added: list[Document] = []
        made: Counter[str] = Counter()
        for variant in self.variants:
            added.extend(augmented_copy(variant, d, self.seed, made[variant]) for d in documents)
            made[variant] += 1
        return added

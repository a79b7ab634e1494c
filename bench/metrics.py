"""Token-level precision, recall and F1 -- the measures of Sibanda & Uzuner (2006, §6).

Binary scores treat every non-``O`` label as PHI (a binary system's ``PHI`` label included);
per-category scores compare labels exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from corpora.model import OUTSIDE


@dataclass(frozen=True)
class Counts:
    """Confusion counts for one label; ``tn`` only matters for the binary view."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    def __add__(self, other: Counts) -> Counts:
        return Counts(
            self.tp + other.tp, self.fp + other.fp, self.fn + other.fn, self.tn + other.tn
        )

    @property
    def precision(self) -> float:
        d = self.tp + self.fp
        return self.tp / d if d else 0.0

    @property
    def recall(self) -> float:
        d = self.tp + self.fn
        return self.tp / d if d else 0.0

    @property
    def f1(self) -> float:
        d = 2 * self.tp + self.fp + self.fn
        return 2 * self.tp / d if d else 0.0


def token_counts(
    gold: Sequence[Sequence[str]],
    pred: Sequence[Sequence[str]],
    label: str | None = None,
    mask: Sequence[Sequence[bool]] | None = None,
) -> Counts:
    """Counts for ``label`` (``None``: PHI vs non-PHI), over tokens where ``mask`` is true."""
    tp = fp = fn = tn = 0
    for d, (g_doc, p_doc) in enumerate(zip(gold, pred, strict=True)):
        m_doc = mask[d] if mask is not None else None
        for i, (g, p) in enumerate(zip(g_doc, p_doc, strict=True)):
            if m_doc is not None and not m_doc[i]:
                continue
            if label is None:
                gi, pi = g != OUTSIDE, p != OUTSIDE
            else:
                gi, pi = g == label, p == label
            if gi and pi:
                tp += 1
            elif pi:
                fp += 1
            elif gi:
                fn += 1
            else:
                tn += 1
    return Counts(tp, fp, fn, tn)

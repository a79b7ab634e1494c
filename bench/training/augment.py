"""How the run names and describes training augmentation (``--augment``); the wrapper
itself is :mod:`systems.augment` (a stacked system's base may be augmented too)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from systems.augment import (
    MAX_CHOICES,
    MAX_COPIES,
    RESERVED_FOR_TESTING,
    Augmented,
    augmented_copy,
    parse_augment,
    parse_augment_choices,
)

__all__ = [
    "MAX_CHOICES",
    "MAX_COPIES",
    "RESERVED_FOR_TESTING",
    "Augmented",
    "augmented_copy",
    "describe_augment",
    "parse_augment",
    "parse_augment_choices",
]


def describe_augment(variants: Sequence[str], choices: Sequence[Sequence[str]] = ()) -> str:
    """``("unseen", "unseen", "surrogate")`` -> ``"unseen ×2, surrogate"`` for reports; with
    the ``choices`` ``--tune`` chose between, the range of each count:
    ``"unseen ×1–3, surrogate (copies chosen inside the training folds)"``."""
    if len(choices) > 1:
        counts = [Counter(c) for c in choices]
        names = dict.fromkeys(v for c in choices for v in c)
        parts = []
        for name in names:
            low, high = min(c[name] for c in counts), max(c[name] for c in counts)
            span = f"{low}" if low == high else f"{low}–{high}"
            parts.append(name if high == 1 else f"{name} ×{span}")
        return ", ".join(parts) + " (copies chosen inside the training folds)"
    counts = Counter(variants)
    return ", ".join(v if counts[v] == 1 else f"{v} ×{counts[v]}" for v in dict.fromkeys(variants))

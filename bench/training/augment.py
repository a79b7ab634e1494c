"""How the run names and describes training augmentation (``--augment``); the wrapper
itself is :mod:`systems.augment` (a stacked system's base may be augmented too)."""

from __future__ import annotations

from collections import Counter

from systems.augment import (
    MAX_COPIES,
    RESERVED_FOR_TESTING,
    Augmented,
    augmented_copy,
    parse_augment,
)

__all__ = [
    "MAX_COPIES",
    "RESERVED_FOR_TESTING",
    "Augmented",
    "augmented_copy",
    "describe_augment",
    "parse_augment",
]


def describe_augment(variants: tuple[str, ...] | list[str]) -> str:
    """``("unseen", "unseen", "surrogate")`` -> ``"unseen ×2, surrogate"`` for reports."""
    counts = Counter(variants)
    return ", ".join(v if counts[v] == 1 else f"{v} ×{counts[v]}" for v in dict.fromkeys(variants))

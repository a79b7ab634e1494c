"""Feature classes: small objects that turn a document's tokens into sparse features.

Why objects: the same feature class is used by several systems -- the Mega SVM is the
union of the Stat De-id, Stanford, MIST, MIMIC and Illinois feature classes (Tafvizi 2011,
§1.2) -- so no feature is written twice, and ablations (Stat De-id report, Figs 2-5) switch
whole classes on and off.

Each class returns, per token, a ``dict`` of feature name -> value (``"w=smith": 1.0``,
``"len": 5.0``).  Results are cached per (document fingerprint, feature class key), so a
corpus is featurized once and reused by every fold and every system in a run.
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from corpora.model import Document

TokenFeatures = dict[str, float]


class FeatureClass(ABC):
    """One switchable group of features (a row of the ablation figures)."""

    #: Short unique name used in ablation tables and cache keys.
    name: ClassVar[str] = ""
    #: Bump when the extraction logic changes, to invalidate caches.
    version: ClassVar[int] = 1

    def params(self) -> dict[str, Any]:
        return {p: getattr(self, p, None) for p in _init_param_names(type(self))}

    def key(self) -> str:
        """Cache key: name, version and parameters."""
        params = ",".join(f"{k}={v!r}" for k, v in sorted(self.params().items()))
        return f"{self.name}@{self.version}({params})"

    @abstractmethod
    def extract(self, document: Document) -> list[TokenFeatures]:
        """One feature dict per token of ``document.tokens``."""


@cache
def _init_param_names(cls: type) -> tuple[str, ...]:
    """Constructor parameter names of a feature class, computed once per class (inspecting
    the signature on every cache lookup cost ~0.2 ms, i.e. seconds per corpus)."""
    sig = inspect.signature(cls.__init__)
    return tuple(p for p in sig.parameters if p != "self" and not p.startswith("_"))


_CACHE: dict[tuple[str, str], list[TokenFeatures]] = {}


def extract_cached(feature: FeatureClass, document: Document) -> list[TokenFeatures]:
    """``feature.extract(document)``, computed once per process per document."""
    key = (document.fingerprint, feature.key())
    cached = _CACHE.get(key)
    if cached is None:
        cached = feature.extract(document)
        if len(cached) != len(document.tokens):
            raise ValueError(
                f"feature class {feature.name!r} returned {len(cached)} rows for "
                f"{len(document.tokens)} tokens"
            )
        _CACHE[key] = cached
    return cached


def combine(
    features: Sequence[FeatureClass], documents: Sequence[Document]
) -> list[list[TokenFeatures]]:
    """Merged per-token features of several classes, one list per document."""
    out: list[list[TokenFeatures]] = []
    for doc in documents:
        parts = [extract_cached(f, doc) for f in features]
        merged: list[TokenFeatures] = []
        for i in range(len(doc.tokens)):
            row: TokenFeatures = {}
            for part in parts:
                row.update(part[i])
            merged.append(row)
        out.append(merged)
    return out


def clear_cache() -> None:
    _CACHE.clear()

"""Re-implementations beside their originals: how close does ``mimic`` come to deid.pl?

An external system can declare the registered system that re-implements it
(:attr:`systems.external.ExternalSystem.original_of`: ``deidpl`` -> ``mimic``).  Whenever
both are in a run, the report compares them on the same test documents (both are scored
on the pooled test folds, so the same notes in the same order):

* **agreement** -- the share of tokens on which the two make the same binary decision (PHI
  or not), and Cohen's kappa of those decisions (agreement corrected for what their PHI
  rates alone would give: ``(p_o - p_e) / (1 - p_e)``, ``p_e = p_a p_b + (1-p_a)(1-p_b)``);
* **recall per PHI type** -- for each gold category, the share of its tokens each system
  marks as PHI of any category (what de-identification needs: a hospital called a location
  is still removed), with the binary precision and recall over all tokens;
* **throughput** -- test tokens per second of each, from the cells computed in this run
  (cells read from the cache have no time; re-run with ``--no-cache`` to time them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from corpora.model import LABELS, OUTSIDE

if TYPE_CHECKING:
    import pandas as pd

    from bench.score.scoring import Scorer

#: Columns of peer_comparison.csv (``label`` is ``ALL`` or a gold category; agreement,
#: kappa, precision and throughput are on the ``ALL`` rows only).
COLUMNS = (
    "corpus",
    "original",
    "reimplementation",
    "label",
    "tokens",
    "recall_original",
    "recall_reimplementation",
    "precision_original",
    "precision_reimplementation",
    "agreement",
    "kappa",
    "tokens_per_second_original",
    "tokens_per_second_reimplementation",
)
ALL = "ALL"


def pairs(scorer: Scorer) -> list[tuple[str, str]]:
    """(original, re-implementation) pairs whose two systems are both in the run.

    The re-implementation is every system of the run built from the class registered as
    the original's ``original_of``, aliases included: ``mimic-snomed=mimic`` with the
    program's own word lists is compared with deid.pl as ``mimic`` is, so the report shows
    how much of the remaining difference the resources explain and how much the rules."""
    from systems.base import SYSTEMS
    from systems.external import ExternalSystem

    out = []
    for name, spec in scorer.systems.items():
        if not (isinstance(spec.cls, type) and issubclass(spec.cls, ExternalSystem)):
            continue
        target = spec.cls.original_of
        if target is None or target not in SYSTEMS:
            continue
        target_cls = SYSTEMS.get(target).cls
        out.extend(
            (name, other)
            for other, other_spec in scorer.systems.items()
            if other != name and (other == target or other_spec.cls is target_cls)
        )
    return out


def cohen_kappa(a: np.ndarray, b: np.ndarray) -> float:
    """Cohen's kappa of two boolean decision vectors (nan when both are constant and equal
    -- no disagreement is possible to correct for)."""
    n = len(a)
    if n == 0:
        return float("nan")
    observed = float(np.mean(a == b))
    pa, pb = float(np.mean(a)), float(np.mean(b))
    expected = pa * pb + (1 - pa) * (1 - pb)
    return float("nan") if expected >= 1.0 else (observed - expected) / (1.0 - expected)


def _throughput(scorer: Scorer, system: str, corpus: str) -> float | None:
    cells = [
        o
        for o in scorer.outcomes
        if o.system == system and o.corpus == corpus and o.ok and not o.cached
    ]
    seconds = sum(o.seconds for o in cells)
    tokens = sum(o.n_tokens for o in cells)
    return tokens / seconds if cells and seconds > 0 else None


def compare(scorer: Scorer) -> pd.DataFrame | None:
    """The comparison rows of every pair on every corpus (``None``: no pair in the run)."""
    import pandas as pd

    rows: list[dict[str, Any]] = []
    for original, reimpl in pairs(scorer):
        for corpus, splits in scorer.splits.items():
            if any(s.fraction != 1.0 for s in splits):
                continue  # learning curves: only the full-size cells are comparable
            a, b = scorer.pooled(original, corpus), scorer.pooled(reimpl, corpus)
            if a is None or b is None:
                continue
            rows.extend(_rows(scorer, corpus, original, reimpl, a, b))
    return pd.DataFrame(rows, columns=list(COLUMNS)) if rows else None


def _rows(
    scorer: Scorer, corpus: str, original: str, reimpl: str, a: Any, b: Any
) -> list[dict[str, Any]]:
    gold = np.array([t.label for doc in a.documents for t in doc.tokens], dtype=object)
    pa = np.array([lab != OUTSIDE for labels in a.labels for lab in labels], dtype=bool)
    pb = np.array([lab != OUTSIDE for labels in b.labels for lab in labels], dtype=bool)
    is_phi = gold != OUTSIDE
    base = {"corpus": corpus, "original": original, "reimplementation": reimpl}

    def recall(pred: np.ndarray, mask: np.ndarray) -> float:
        return float(pred[mask].mean()) if mask.any() else float("nan")

    def precision(pred: np.ndarray) -> float:
        return float(is_phi[pred].mean()) if pred.any() else float("nan")

    rows = [
        {
            **base,
            "label": ALL,
            "tokens": len(gold),
            "recall_original": recall(pa, is_phi),
            "recall_reimplementation": recall(pb, is_phi),
            "precision_original": precision(pa),
            "precision_reimplementation": precision(pb),
            "agreement": float(np.mean(pa == pb)) if len(gold) else float("nan"),
            "kappa": cohen_kappa(pa, pb),
            "tokens_per_second_original": _throughput(scorer, original, corpus),
            "tokens_per_second_reimplementation": _throughput(scorer, reimpl, corpus),
        }
    ]
    for label in LABELS:
        mask = gold == label
        if mask.any():
            rows.append(
                {
                    **base,
                    "label": label,
                    "tokens": int(mask.sum()),
                    "recall_original": recall(pa, mask),
                    "recall_reimplementation": recall(pb, mask),
                }
            )
    return rows

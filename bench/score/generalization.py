"""Generalization: recall on a variant of the test notes, and whether it estimates anything.

``--test-variant V`` has each fold's model, trained on the authentic training folds, label
the test notes after transform ``V`` as well (:mod:`bench.run.protocols`).  The drop from the
authentic to the variant recall estimates how a system does on names it never met -- but
only when no training step used ``V``'s transform.  ``--augment unseen`` trains on copies
made by the very generator of the ``unseen`` test variant, so its ``unseen`` recall
measures how well the model learned that generator.  This module

* finds, per system, the transforms its training used (:func:`training_transforms`: its
  augmentation, and the variants its training corpora are made of), and the report says,
  beside the variant's recall, whether it is a generalization estimate;
* compares recall per PHI category on the authentic and the variant notes
  (:func:`category_comparison`): where the names of other countries
  (:mod:`corpora.foreign`) escape, by category, with a paired test per category --
  approximate randomization over documents (document ``i`` is the same note before and
  after the transform; token counts differ, as a name of one word may become two, so the
  tokens cannot be paired) -- and Holm's correction over the categories of one system.

Recall of a category is the share of its gold tokens a system marks as PHI of any
category (what de-identification needs; a hospital called a location is still removed).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from corpora.model import LABELS, OUTSIDE

if TYPE_CHECKING:
    import pandas as pd

    from bench.run.run_types import RunResult
    from bench.score.scoring import Scorer
    from corpora.model import Document

#: Columns of variant_categories.csv.
CATEGORY_COLUMNS = (
    "system",
    "corpus",
    "variant_corpus",
    "category",
    "tokens_authentic",
    "tokens_variant",
    "recall_authentic",
    "recall_variant",
    "difference",
    "p_value",
    "p_holm",
    "test",
)
TEST_NAME = "approximate_randomization_recall (paired documents; Holm over categories)"


# --------------------------------------------------------------------------- transforms


def spec_variants(spec: str | None) -> list[str]:
    """The variant transforms a corpus spec is made of, outermost first
    (``unseen:surrogate:physionet:DIR`` -> unseen, surrogate; the embedded ``unseen`` ->
    unseen); ``authentic`` changes nothing and is left out."""
    from corpora.load import VARIANTS

    out = []
    for part in (spec or "").split(":"):
        if part not in VARIANTS:
            break
        if part != "authentic":
            out.append(part)
    return out


def training_transforms(info: Mapping[str, Any], system: str, corpus: str) -> dict[str, list[str]]:
    """Transform -> the training steps of ``system`` that used it, for a model trained on
    ``corpus`` (its cross-validation folds) in the run ``info`` (run.json): augmentation
    (``--augment`` or the system's own ``--param NAME.augment``), and the variants the
    training corpora are made of (the cross-validated corpus, ``--train-corpus``,
    ``--extra-training``).  Empty for a system that is not trained."""
    entry = (info.get("systems") or {}).get(system) or {}
    if not entry.get("requires_training"):
        return {}
    out: dict[str, list[str]] = {}
    run_level = list(info.get("augment") or [])
    own = list(entry.get("augment", run_level))
    where = "--augment" if own == run_level else f"--param {system}.augment"
    for name in dict.fromkeys(own):
        out.setdefault(name, []).append(where)
    train = info.get("train_corpus") or corpus
    sources = [(train, f"training corpus {train}")]
    if info.get("extra_training"):
        sources.append((info["extra_training"], f"--extra-training {info['extra_training']}"))
    for spec, what in sources:
        for name in spec_variants(spec):
            out.setdefault(name, []).append(what)
    return out


def estimate_note(info: Mapping[str, Any], system: str, corpus: str) -> str:
    """What the variant recall of ``system`` is: a generalization estimate, or the
    training step that used the test variant's transform."""
    variant = info.get("test_variant")
    used = training_transforms(info, system, corpus).get(variant or "", [])
    if not used:
        return "a generalization estimate"
    return f"**not** a generalization estimate: training used `{variant}` ({'; '.join(used)})"


# --------------------------------------------------------------------------- per category


def category_counts(
    documents: Sequence[Document],
    predictions: Sequence[Sequence[str]],
    categories: Sequence[str] = LABELS,
) -> dict[str, np.ndarray]:
    """Per category, per document, (found, 0, missed) gold tokens of that category: found
    = marked PHI of any category.  Shaped like :func:`bench.score.metrics.per_document_counts`,
    so the recall statistic of :func:`bench.score.significance.approximate_randomization` reads
    it.  One pass over the tokens for every category."""
    out = {c: np.zeros((len(documents), 3), dtype=np.float64) for c in categories}
    for i, (doc, labels) in enumerate(zip(documents, predictions, strict=True)):
        gold = np.array([t.label for t in doc.tokens], dtype=object)
        found = np.array([label != OUTSIDE for label in labels], dtype=bool)
        if len(gold) != len(found):
            raise ValueError(f"document {i}: {len(found)} labels for {len(gold)} tokens")
        for category, counts in out.items():
            mask = gold == category
            hits = int(np.count_nonzero(found & mask))
            counts[i, 0], counts[i, 2] = hits, int(np.count_nonzero(mask)) - hits
    return out


def _recall(counts: np.ndarray) -> float:
    tp, _, fn = counts.sum(axis=0)
    return float(tp / (tp + fn)) if tp + fn else float("nan")


def category_comparison(scorer: Scorer) -> pd.DataFrame | None:
    """Per system, variant corpus and gold category: recall on the authentic and the
    variant notes, the paired test and its Holm-adjusted p-value (``None``: no variant)."""
    import pandas as pd

    rows: list[dict[str, Any]] = []
    for vcorpus, vsplits in scorer.splits.items():
        if not vsplits or vsplits[0].protocol != "variant":
            continue
        corpus = vsplits[0].train_corpus
        for system, spec in scorer.systems.items():
            a, b = scorer.pooled(system, corpus), scorer.pooled(system, vcorpus)
            if a is None or b is None:
                continue
            scored_on = spec.tags.evaluated_labels
            categories = [c for c in LABELS if scored_on is None or c in scored_on]
            rows.extend(_system_rows(scorer, system, corpus, vcorpus, a, b, categories))
    return pd.DataFrame(rows, columns=list(CATEGORY_COLUMNS)) if rows else None


def _system_rows(
    scorer: Scorer, system: str, corpus: str, vcorpus: str, a: Any, b: Any, categories: list[str]
) -> list[dict[str, Any]]:
    """The category rows of one system, Holm-corrected over its categories."""
    from bench.score.significance import approximate_randomization, holm_adjusted

    rows = []
    authentic = category_counts(a.documents, a.labels, categories)
    variant = category_counts(b.documents, b.labels, categories)
    for category in categories:
        ca, cb = authentic[category], variant[category]
        n_a, n_b = int(ca[:, [0, 2]].sum()), int(cb[:, [0, 2]].sum())
        if not n_a and not n_b:
            continue
        diff, p = approximate_randomization(
            cb, ca, n_shuffles=scorer.config.n_shuffles, seed=scorer.config.seed, statistic="recall"
        )
        rows.append(
            {
                "system": system,
                "corpus": corpus,
                "variant_corpus": vcorpus,
                "category": category,
                "tokens_authentic": n_a,
                "tokens_variant": n_b,
                "recall_authentic": _recall(ca),
                "recall_variant": _recall(cb),
                "difference": diff,
                "p_value": p,
                "test": TEST_NAME,
            }
        )
    adjusted = holm_adjusted({r["category"]: r["p_value"] for r in rows})
    for r in rows:
        r["p_holm"] = adjusted[r["category"]]
    return rows


# --------------------------------------------------------------------------- report


def _binary_table(result: RunResult, info: Mapping[str, Any]) -> str | None:
    from bench.report.markdown import md_table, pct

    comparison = result.variant_comparison
    if comparison is None or comparison.empty:
        return None
    rows = [
        [
            r.system,
            r.corpus,
            r.variant_corpus,
            pct(r.recall_authentic),
            pct(r.recall_variant),
            estimate_note(info, r.system, r.corpus),
            f"{100 * r.difference:+.1f}",
            f"{r.p_value:.3g}",
        ]
        for r in comparison.itertuples()
    ]
    headers = ["System", "Trained and tested on", "Tested on", "R", "R variant"]
    return md_table(rows, [*headers, "R variant is", "Δ", "p"])


def _category_table(frame: pd.DataFrame, alpha: float) -> str:
    from bench.report.markdown import md_table, pct

    rows = []
    for r in frame.itertuples():
        mark = " *" if r.p_holm < alpha else ""
        diff = "" if math.isnan(r.difference) else f"{100 * r.difference:+.1f}{mark}"
        rows.append(
            [
                r.system,
                r.category,
                f"{r.tokens_authentic} / {r.tokens_variant}",
                pct(r.recall_authentic),
                pct(r.recall_variant),
                diff,
                f"{r.p_value:.3g}",
                f"{r.p_holm:.3g}",
            ]
        )
    headers = ["System", "Category", "Tokens (authentic / variant)", "R", "R variant", "Δ"]
    return md_table(rows, [*headers, "p", "p (Holm)"])


def variant_section(result: RunResult, info: Mapping[str, Any]) -> list[str]:
    """The report's section on ``--test-variant``: recall before and after the transform,
    whether each figure is a generalization estimate, and recall per PHI category."""
    table = _binary_table(result, info)
    if table is None:
        return []
    variant = info.get("test_variant")
    out = [
        "## Trained on authentic notes, tested on a variant",
        "",
        f"Each fold's model labels the same test notes before and after the `{variant}` "
        "transform (the test notes never reach training).  Recall (%) on each; p: paired "
        "approximate randomization over documents on the recall difference.  A variant "
        "recall is a generalization estimate only when no training step of the system used "
        "the variant's transform (augmentation, or a training corpus made by it); "
        "otherwise it measures how well the model learned that transform.",
        "",
        table,
        "",
    ]
    frame = result.variant_categories
    if frame is not None and not frame.empty:
        alpha = result.config.alpha
        out += [
            f"### Recall per PHI category, authentic vs `{variant}`",
            "",
            "Share of each gold category's tokens marked PHI (any category), on the authentic "
            "notes and on the same notes after the transform (a name may change its number "
            "of tokens, so the token counts differ).  p: approximate randomization over "
            "documents, paired; p (Holm): adjusted over the categories of one system; `*`: "
            f"the difference is significant at α = {alpha} after that correction.",
            "",
            _category_table(frame, alpha),
            "",
        ]
    return out


__all__ = [
    "CATEGORY_COLUMNS",
    "category_comparison",
    "category_counts",
    "estimate_note",
    "spec_variants",
    "training_transforms",
    "variant_section",
]

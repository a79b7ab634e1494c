"""Each scored note's counts (``documents.csv``) and the paired comparison of two runs.

Why: a change to a system, a word list or the harness moves a run's figures, and whether a
move is more than chance is a paired question -- the same notes, before and after -- that a
report's pooled counts cannot answer.  ``documents.csv`` keeps, per system, corpus and
scored note, the token-level PHI counts (tp, fp, fn) the report's F is the sum of, and
names the note by a hash of what is scored in it (its text and gold spans), never by its id
or its words: a report holds no PHI.  ``python -m bench compare BEFORE AFTER`` pairs two
runs' notes by that hash and tests each (system, corpus)'s difference in PHI F by
approximate randomization over the paired notes (Noreen 1989; Yeh 2000), with Holm's
correction over the rows.  Notes only one run scored (a variant whose text changed) are
counted and left out of the pair, and the table says how many.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from bench.run.run_types import RunResult
    from corpora.model import Document

DOCUMENTS_FILE = "documents.csv"
COLUMNS = ("system", "corpus", "note", "tp", "fp", "fn")
COUNTS = ["tp", "fp", "fn"]


def scored_key(document: Document) -> str:
    """A hash of what scoring reads in ``document``: its text and gold spans (not its id,
    nor the subset marks a word list change can move)."""
    h = hashlib.blake2b(digest_size=12)
    h.update(document.text.encode("utf-8", "surrogatepass"))
    for s in sorted(document.spans, key=lambda s: (s.start, s.end, s.category)):
        h.update(f"\0{s.start}:{s.end}:{s.category}".encode())
    return h.hexdigest()


def document_counts(result: RunResult) -> pd.DataFrame:
    """One row per system, corpus and scored note: its token-level PHI (tp, fp, fn)."""
    from bench.score import metrics
    from bench.score.scoring import pooled_predictions

    rows = []
    for system, corpus, got in pooled_predictions(result):
        counts = metrics.per_document_counts(got.documents, got.labels)
        for doc, (tp, fp, fn) in zip(got.documents, counts.tolist(), strict=True):
            rows.append((system, corpus, scored_key(doc), int(tp), int(fp), int(fn)))
    return pd.DataFrame(rows, columns=list(COLUMNS))


def read_counts(run: str | Path) -> pd.DataFrame:
    """The ``documents.csv`` of a report directory (or the file itself); ``ValueError``
    naming the file when it is missing or not such a table."""
    path = Path(run)
    if path.is_dir():
        path = path / DOCUMENTS_FILE
    if not path.is_file():
        raise ValueError(
            f"{path}: no {DOCUMENTS_FILE} (reports written before it existed have none: "
            "run the command again)"
        )
    try:
        frame = pd.read_csv(path, dtype={"system": str, "corpus": str, "note": str})
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: not a {DOCUMENTS_FILE} table ({exc})") from None
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"{path}: not a {DOCUMENTS_FILE} table (no {', '.join(missing)})")
    return frame


def compare(
    before: pd.DataFrame, after: pd.DataFrame, *, n_shuffles: int = 10_000, seed: int = 0
) -> pd.DataFrame:
    """Per (system, corpus) both runs scored: the notes paired, PHI F before and after on
    them, the difference, its approximate-randomization p and Holm's adjusted p.

    A note scored twice in one run (the same text twice in a corpus) pairs with the same
    occurrence in the other, in order.
    """
    from bench.score.metrics import f1_from_counts
    from bench.score.significance import approximate_randomization, holm_adjusted

    rows = []
    tests: dict[str, float] = {}
    for (system, corpus), a in before.groupby(["system", "corpus"], sort=False):
        b = after[(after.system == system) & (after.corpus == corpus)]
        if b.empty:
            continue
        a = a.assign(occurrence=a.groupby("note").cumcount())
        b = b.assign(occurrence=b.groupby("note").cumcount())
        paired = a.merge(b, on=["note", "occurrence"], suffixes=("_a", "_b"))
        counts_a = paired[[f"{c}_a" for c in COUNTS]].to_numpy(dtype=np.int64)
        counts_b = paired[[f"{c}_b" for c in COUNTS]].to_numpy(dtype=np.int64)
        row = {
            "system": system,
            "corpus": corpus,
            "notes": len(paired),
            "only_before": len(a) - len(paired),
            "only_after": len(b) - len(paired),
            "f1_before": f1_from_counts(*counts_a.sum(axis=0)) if len(paired) else float("nan"),
            "f1_after": f1_from_counts(*counts_b.sum(axis=0)) if len(paired) else float("nan"),
        }
        if len(paired):
            diff, p = approximate_randomization(
                counts_b, counts_a, n_shuffles=n_shuffles, seed=seed
            )
            row["difference"], row["p_value"] = diff, p
            tests[f"{system}\0{corpus}"] = p
        else:
            row["difference"], row["p_value"] = float("nan"), float("nan")
        rows.append(row)
    adjusted = holm_adjusted(tests) if tests else {}
    for row in rows:
        row["p_holm"] = adjusted.get(f"{row['system']}\0{row['corpus']}", float("nan"))
    return pd.DataFrame(rows)


def render(table: pd.DataFrame, before: str, after: str, alpha: float = 0.05) -> str:
    """The comparison as a Markdown table; a difference significant after Holm's
    correction at ``alpha`` is starred."""
    from tabulate import tabulate

    if table.empty:
        return "No (system, corpus) is scored in both runs."
    lines = [
        f"PHI F (token level) before = {before}, after = {after}; approximate randomization "
        f"over the paired notes, Holm-corrected over the {len(table)} rows (* p < {alpha}).",
        "",
    ]
    body = []
    for r in table.itertuples(index=False):
        star = " *" if r.p_holm < alpha else ""
        unpaired = f"{r.only_before} / {r.only_after}" if r.only_before or r.only_after else ""
        body.append(
            [
                r.system,
                r.corpus,
                r.notes,
                unpaired,
                f"{100 * r.f1_before:.2f}",
                f"{100 * r.f1_after:.2f}",
                f"{100 * r.difference:+.2f}{star}",
                f"{r.p_value:.3g}",
                f"{r.p_holm:.3g}",
            ]
        )
    headers = [
        "system",
        "corpus",
        "paired notes",
        "only before / after",
        "F before",
        "F after",
        "difference",
        "p",
        "p (Holm)",
    ]
    lines.append(tabulate(body, headers=headers, tablefmt="github", disable_numparse=True))
    return "\n".join(lines)


__all__: Sequence[str] = (
    "DOCUMENTS_FILE",
    "compare",
    "document_counts",
    "read_counts",
    "render",
    "scored_key",
)

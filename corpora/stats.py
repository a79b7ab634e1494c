"""Corpus statistics: the paper's distribution tables for any corpus.

Sibanda & Uzuner (2006) describe each corpus by per-category word counts: Table 1 (words
per PHI category and non-PHI), Table 6 (of those, words ambiguous between PHI and non-PHI)
and Table 10 (words not found in a dictionary).  :func:`distribution_table` computes all
three from :attr:`Document.tokens` -- token counts by gold label and by the ``ambiguous``
/ ``not_in_dictionary`` flags the variants set -- so the same numbers come out for the
embedded corpus, PhysioNet or a user's data.  Only counts are reported, never PHI text.
"""

from __future__ import annotations

from collections import Counter

import pandas as pd

from corpora.model import FLAG_AMBIGUOUS, FLAG_NOT_IN_DICTIONARY, LABELS, OUTSIDE, Corpus

NON_PHI = "Non-PHI"
PHI_TOTAL = "PHI (all)"
TOTAL = "Total"
COLUMNS = ("tokens", "share", "ambiguous", "not_in_dictionary")


def distribution_table(corpus: Corpus) -> pd.DataFrame:
    """Token counts per class: total, share of all tokens, ambiguous, not in a dictionary.

    Rows: ``Non-PHI``, each PHI category of :data:`LABELS` (in order), ``PHI (all)`` and
    ``Total``; the category rows sum to ``PHI (all)`` and ``Non-PHI`` + ``PHI (all)`` is
    ``Total``.
    """
    total: Counter[str] = Counter()
    ambiguous: Counter[str] = Counter()
    missing: Counter[str] = Counter()
    for doc in corpus:
        for tok in doc.tokens:
            total[tok.label] += 1
            if tok.flags:
                if FLAG_AMBIGUOUS in tok.flags:
                    ambiguous[tok.label] += 1
                if FLAG_NOT_IN_DICTIONARY in tok.flags:
                    missing[tok.label] += 1
    rows = [NON_PHI, *LABELS]
    keys = {NON_PHI: OUTSIDE, **{label: label for label in LABELS}}
    data = {r: [total[keys[r]], 0.0, ambiguous[keys[r]], missing[keys[r]]] for r in rows}
    phi = [sum(data[label][i] for label in LABELS) for i in range(4)]
    data[PHI_TOTAL] = phi
    data[TOTAL] = [data[NON_PHI][i] + phi[i] for i in range(4)]
    frame = pd.DataFrame.from_dict(data, orient="index", columns=list(COLUMNS))
    n = max(int(frame.loc[TOTAL, "tokens"]), 1)
    frame["share"] = frame["tokens"] / n
    for col in ("tokens", "ambiguous", "not_in_dictionary"):
        frame[col] = frame[col].astype(int)
    frame.index.name = "class"
    return frame


def stats_markdown(corpus: Corpus) -> str:
    """Markdown with the paper's Tables 1, 6 and 10 for ``corpus`` (counts only)."""
    frame = distribution_table(corpus)
    n_docs = len(corpus)
    kinds = Counter(str(d.metadata.get("kind", "note")) for d in corpus)
    lines = [
        f"# Corpus `{corpus.name}`",
        "",
        f"{n_docs} documents ({', '.join(f'{v} {k}' for k, v in sorted(kinds.items()))}), "
        f"{int(frame.loc['Total', 'tokens'])} tokens, "
        f"{frame.loc[PHI_TOTAL, 'share']:.1%} of them PHI.  Counts are tokens.",
        "",
        "## Table 1 -- distribution of PHI (tokens)",
        "",
        frame[["tokens", "share"]]
        .assign(share=lambda f: f["share"].map(lambda x: f"{x:.2%}"))
        .to_markdown(),
        "",
        "## Table 6 -- ambiguous tokens (PHI and non-PHI uses of ambiguous words)",
        "",
        frame[["tokens", "ambiguous"]].to_markdown(),
        "",
        "## Table 10 -- tokens not found in the system dictionaries",
        "",
        frame[["tokens", "not_in_dictionary"]].to_markdown(),
        "",
    ]
    return "\n".join(lines)

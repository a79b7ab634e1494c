"""Dominance: is one system at least as good as another in precision *and* recall?

An F-measure ranks systems on one number and hides the trade: rules that reach 97 % recall
at 68 % precision and a model at 95 % recall and 87 % precision have close F-measures, and
neither is better for a hospital that needs both.  The question a reader brings is whether
one system is *at least as good on both* -- dominates the other -- and whether that holds
beyond the noise of these test notes.

For each pair of systems on each corpus (scored on the same subset), this module gives both
systems' binary token precision and recall, and a paired approximate-randomization test
over documents (:func:`bench.score.significance.approximate_randomization`) of the precision
difference and, separately, of the recall difference.  A system *dominates* when its
precision and recall are both at least the other's (point estimates, not both equal).  It
dominates *significantly* when it is better on both and each difference is significant at
``alpha``: the claim "better on both" is the intersection of two claims, and an
intersection-union test rejects its null when each test does at level ``alpha``, with no
correction for the two tests (Berger 1982).

For every rule-based peer in the run (an external tool that is not trained: ``deidpl``,
Philter, Presidio), the report answers "is any configuration better than it on both?".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from infra import cache

if TYPE_CHECKING:
    import pandas as pd

    from bench.run.run_types import RunResult
    from bench.score.scoring import Pooled, Scorer

#: Columns of dominance.csv (documented in docs/formats.md).
COLUMNS = (
    "corpus",
    "subset",
    "system_a",
    "system_b",
    "precision_a",
    "precision_b",
    "precision_difference",
    "precision_p",
    "recall_a",
    "recall_b",
    "recall_difference",
    "recall_p",
    "dominant",
    "significant",
)
#: ``dominant`` when neither system is at least as good on both measures, and when both
#: have the same precision and recall.
NEITHER, EQUAL = "neither", "equal"
#: Bump when a cached pair's content changes.
VERSION = 1


def verdict(precision_a: float, recall_a: float, precision_b: float, recall_b: float) -> str:
    """``"a"`` or ``"b"`` for the system at least as good on both (and better on one),
    :data:`EQUAL`, or :data:`NEITHER` (each better on one)."""
    if precision_a == precision_b and recall_a == recall_b:
        return EQUAL
    if precision_a >= precision_b and recall_a >= recall_b:
        return "a"
    if precision_b >= precision_a and recall_b >= recall_a:
        return "b"
    return NEITHER


def dominance_table(scorer: Scorer) -> pd.DataFrame | None:
    """Every pair of systems with complete results on each corpus, on the subset both
    are scored on (``None``: fewer than two systems anywhere)."""
    import pandas as pd

    from bench.score.scoring import headline_subset

    rows: list[dict[str, Any]] = []
    for corpus in scorer.splits:
        got = {s: p for s in scorer.systems if (p := scorer.pooled(s, corpus)) is not None}
        names = list(got)
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                subset = headline_subset(scorer.systems[a])
                if subset != headline_subset(scorer.systems[b]):
                    continue
                rows.append(_pair(scorer, corpus, subset, (a, got[a]), (b, got[b])))
    return pd.DataFrame(rows, columns=list(COLUMNS)) if rows else None


def _pair(
    scorer: Scorer, corpus: str, subset: str, a: tuple[str, Pooled], b: tuple[str, Pooled]
) -> dict[str, Any]:
    """One row: both systems' P and R, the two paired tests (cached like significance.csv
    under the cells' prediction keys) and the verdict at the run's alpha."""
    from bench.score.scoring import scoring_code

    config = scorer.config
    (name_a, got_a), (name_b, got_b) = a, b
    key = cache.make_key(
        "dominance",
        VERSION,
        got_a.keys,
        got_b.keys,
        subset,
        config.n_shuffles,
        config.seed,
        scoring_code(),
    )

    def compute() -> dict[str, float]:
        from bench.score import metrics
        from bench.score.significance import STATISTICS, approximate_randomization

        ca = metrics.per_document_counts(got_a.documents, got_a.codes, None, subset)
        cb = metrics.per_document_counts(got_b.documents, got_b.codes, None, subset)
        out: dict[str, float] = {}
        for measure in ("precision", "recall"):
            diff, p = approximate_randomization(
                ca, cb, n_shuffles=config.n_shuffles, seed=config.seed, statistic=measure
            )
            out[f"{measure}_a"] = float(STATISTICS[measure](ca.sum(axis=0)))
            out[f"{measure}_b"] = float(STATISTICS[measure](cb.sum(axis=0)))
            out[f"{measure}_difference"], out[f"{measure}_p"] = diff, p
        return out

    tested = cache.cached("dominance", key, compute)
    side = verdict(
        tested["precision_a"], tested["recall_a"], tested["precision_b"], tested["recall_b"]
    )
    dominant = {"a": name_a, "b": name_b}.get(side, side)
    sign = {"a": 1, "b": -1}.get(side, 0)
    significant = sign != 0 and all(
        sign * tested[f"{m}_difference"] > 0 and tested[f"{m}_p"] < config.alpha
        for m in ("precision", "recall")
    )
    return {
        "corpus": corpus,
        "subset": subset,
        "system_a": name_a,
        "system_b": name_b,
        **tested,
        "dominant": dominant,
        "significant": significant,
    }


# --------------------------------------------------------------------------- report


def rule_based_peers(systems: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The run's external tools that are not trained (run.json's ``systems``)."""
    return [n for n, s in systems.items() if s.get("external") and not s.get("requires_training")]


def _versus(row: Any, reference: str) -> tuple[str, float, float, float, float, float, float]:
    """(other system, its P, P diff, p, its R, R diff, p) of a pair row, seen from the
    other system's side against ``reference``."""
    flip = row.system_a == reference
    other = row.system_b if flip else row.system_a
    sign = -1.0 if flip else 1.0
    return (
        other,
        row.precision_b if flip else row.precision_a,
        sign * row.precision_difference,
        row.precision_p,
        row.recall_b if flip else row.recall_a,
        sign * row.recall_difference,
        row.recall_p,
    )


def answer(frame: pd.DataFrame, corpus: str, reference: str, alpha: float) -> str:
    """One line answering "is any configuration better than ``reference`` on both?" on
    ``corpus``, from the pair rows."""
    rows = frame[
        (frame.corpus == corpus) & ((frame.system_a == reference) | (frame.system_b == reference))
    ]
    question = f"**Is any configuration better than `{reference}` on both precision and recall?**"
    if rows.empty:
        return f"{question} Not measured: no other system was scored on the same subset."

    def detail(r: Any) -> str:
        other, p, dp, pp, rec, dr, pr = _versus(r, reference)
        return (
            f"`{other}` (P {100 * p:.1f}, {100 * dp:+.1f}, p = {pp:.3g}; "
            f"R {100 * rec:.1f}, {100 * dr:+.1f}, p = {pr:.3g})"
        )

    wins = [r for r in rows.itertuples() if r.dominant not in (reference, NEITHER, EQUAL)]
    strong = [r for r in wins if r.significant]
    if strong:
        return f"{question} Yes, significantly at α = {alpha}: " + "; ".join(map(detail, strong))
    if wins:
        return (
            f"{question} Not significantly: at least as good on both as point estimates, but "
            f"not better on both with each difference significant at α = {alpha}: "
            + "; ".join(map(detail, wins))
        )
    return f"{question} No: every other system is worse on at least one of them."


def _pair_table(frame: pd.DataFrame) -> str:
    from bench.report.markdown import md_table, pct

    rows = []
    for r in frame.itertuples():
        if r.dominant in (NEITHER, EQUAL):
            what = "neither (a trade-off)" if r.dominant == NEITHER else "equal"
        else:
            what = f"`{r.dominant}`" + (" (significant on both)" if r.significant else "")
        rows.append(
            [
                r.system_a,
                r.system_b,
                f"{pct(r.precision_a)} / {pct(r.precision_b)}",
                f"{r.precision_p:.3g}",
                f"{pct(r.recall_a)} / {pct(r.recall_b)}",
                f"{r.recall_p:.3g}",
                what,
            ]
        )
    return md_table(rows, ["A", "B", "P (A / B)", "p (P)", "R (A / B)", "p (R)", "Dominates"])


def report_section(result: RunResult) -> list[str]:
    """The report's dominance section: per corpus, the pair table and, for each rule-based
    peer in the run, the answer to "is any configuration better than it on both?"."""
    frame = result.dominance
    if frame is None or frame.empty:
        return []
    alpha = result.config.alpha
    out = [
        "## Dominance: at least as good in precision and recall",
        "",
        "Binary PHI, token level, on the subset both systems are scored on.  A system "
        "dominates another when its precision and its recall are both at least the other's. "
        "p: paired approximate randomization over documents, of the precision difference "
        "and of the recall difference separately.  *Significant on both*: better on both, "
        f"each difference significant at α = {alpha} (an intersection-union test: no "
        "correction for the two tests).  Every pair in `dominance.csv`.",
        "",
    ]
    peers = rule_based_peers(result.systems)
    for corpus, group in frame.groupby("corpus", sort=False):
        out += [f"### Corpus `{corpus}`", ""]
        out += [
            answer(frame, str(corpus), peer, alpha)
            for peer in peers
            if peer in set(group.system_a) | set(group.system_b)
        ]
        if peers:
            out.append("")
        out += [_pair_table(group), ""]
    return out


__all__ = [
    "COLUMNS",
    "answer",
    "dominance_table",
    "report_section",
    "rule_based_peers",
    "verdict",
]

"""The Markdown of ``sibanda2006.md``: the paper's tables beside ours, the claims, the
ambiguous corpus against Table 6, the global-context ablation and the feature ranking.

Figures are kept as the fractions the runs produce and rounded once, here, when printed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from bench.report.markdown import pct
from bench.reproduce import paper_figures
from bench.reproduce.common import (
    SAME_POINTS,
    Clock,
    Verdict,
    data_reason,
    disagreements,
    failures_section,
    fmt_p,
    header,
    md_table,
    side_by_side,
    verdict_section,
)
from bench.reproduce.sibanda2006 import claims
from bench.reproduce.sibanda2006.design import (
    CORPORA,
    PAPER_CORPUS,
    PAPER_TOP_FEATURES,
    TABLES,
    TITLE,
    paper,
    published,
    reason,
    role_of,
)
from bench.reproduce.verdicts import Part

if TYPE_CHECKING:
    from bench.reproduce.sibanda2006.experiments import Context


def report(
    ctx: Context,
    parts: Mapping[Callable[..., Verdict], list[Part]],
    verdicts: Sequence[Verdict],
    clock: Clock,
) -> str:
    """The whole report."""
    options = ctx.options
    entries, t13_outside = _table_entries(ctx), []
    md = header(TITLE, options, clock, _how_lines(ctx))
    md += failures_section([ctx.result])
    md += verdict_section(verdicts)
    md += [
        "## The tables",
        "",
        "Token-level scores pooled over the test folds. `p vs SVM (Holm)`: approximate "
        f"randomization on F1 over documents ({options.n_shuffles:,} shuffles), "
        "Holm-adjusted over the parts of the claim the table belongs to (Tables 2-5, 7-8, "
        "11-12: the twelve of the first claim; Table 9: the six of the claim about the "
        "ambiguous corpus). A table's SVM row carries no p. The IdentiFinder tables omit IDs, "
        "as the paper did (§6).",
        "",
        *_tables(ctx, parts, entries),
        *_table13(ctx, parts, t13_outside),
        "## Where we disagree with the paper",
        "",
        "Rows whose published F lies outside our 95 % interval, by system, with the reason "
        f"we believe. Whatever the system: {data_reason(options.base)}",
        "",
        *(disagreements(entries, reason, t13_outside) or ["None."]),
        "",
        *_global_context(ctx, parts),
        *_ranking(ctx),
        *_ambiguous_corpus(ctx),
        "## Corpora: words per class (Tables 1, 6, 10)",
        "",
        _distribution(ctx),
        "",
    ]
    return "\n".join(md) + "\n"


def _how_lines(ctx: Context) -> list[str]:
    def params(p: Mapping[str, Any]) -> str:
        return ", ".join(f"{k}={','.join(v) if isinstance(v, tuple) else v}" for k, v in p.items())

    return [
        "- Corpora (the paper's four): "
        + "; ".join(f"{PAPER_CORPUS[c]}: `{ctx.specs[c]}`" for c in CORPORA),
        "- Systems: "
        + "; ".join(
            f"{r.paper} → `{r.name}`" + (f" ({params(r.params)})" if r.params else "")
            for r in ctx.roles.values()
        ),
        f"- Protocol: {ctx.options.folds}-fold cross-validation by document (the paper's "
        "ten-fold); every system sees the same folds",
    ]


def _table_entries(ctx: Context) -> list[tuple[str, Any, str, Any]]:
    """(table, published row, our system, our results row) of every published row."""
    out = []
    for table in TABLES:
        for pub in published(table.number):
            ours = ctx.name(role_of(pub.paper_system, table.subset))
            label = "PHI" if pub.label == "PHI" else "non-PHI"
            r = ctx.row(role_of(pub.paper_system, table.subset), table.corpus, table.subset, label)
            out.append((table.number, pub, ours, r))
    return out


def _adjusted(parts: Sequence[Part]) -> dict[str, float]:
    from bench.score.significance import holm_adjusted

    return holm_adjusted({p.label: p.p for p in parts if p.measured})


def _tables(
    ctx: Context,
    parts: Mapping[Callable[..., Verdict], list[Part]],
    entries: Sequence[tuple[str, Any, str, Any]],
) -> list[str]:
    family = _adjusted(parts[claims.local_context_wins])
    ambiguous = _adjusted(parts[claims.svm_best_on_ambiguity])
    out = []
    for table in TABLES:
        adjusted = ambiguous if table.subset == "ambiguous" else family
        p_values = {
            label.split(" > ")[1]: p
            for label, p in adjusted.items()
            if label.startswith(f"{table.number}:")
        }
        rows = [(pub, ours, r) for number, pub, ours, r in entries if number == table.number]
        out += [
            f"### {table.number}: {table.title} (ours: `{ctx.specs[table.corpus]}`, subset "
            f"`{table.subset}`)",
            "",
            side_by_side(rows, p_values),
            "",
        ]
    return out


def _recall_ci(r: Any) -> tuple[float, float]:
    """Recall interval from the F1 interval of a subset of gold PHI only: there
    precision is 1 whenever anything is found, so F = 2R / (1 + R), R = F / (2 - F)."""
    low, high = float(r.f1_ci_low), float(r.f1_ci_high)
    return low / (2 - low), high / (2 - high)


def _table13(
    ctx: Context,
    parts: Mapping[Callable[..., Verdict], list[Part]],
    outside: list[tuple[str, bool, str]],
) -> list[str]:
    """Table 13's rows (and, in ``outside``, ours that lie outside our interval)."""
    adjusted = _adjusted(parts[claims.svm_finds_most_unseen])
    rows = []
    for key, paper_key in (
        ("svm", "svm"),
        ("identifinder", "hmm"),
        ("snow", "snow"),
        ("dictionary", "heuristic"),
    ):
        name = ctx.name(key)
        r = ctx.row(key, "unseen", "not_in_dictionary")
        if r is None:
            rows.append([ctx.roles[key].paper, name, "", "", "", "", "", "not run"])
            continue
        low, high = _recall_ci(r)
        paper_r = paper_figures.SU06_TABLE13[paper_key]
        inside = round(100 * low, 1) <= paper_r <= round(100 * high, 1)
        ours_r = 100 * float(r.recall)
        if not inside:
            outside.append((name, ours_r > paper_r, f"Table 13 found {paper_r:.1f} → {ours_r:.1f}"))
        rows.append(
            [
                ctx.roles[key].paper,
                name,
                f"{paper_r:.1f}",
                pct(float(r.recall)),
                f"{pct(low)}–{pct(high)}",
                int(r.tp + r.fn),
                fmt_p(adjusted.get(f"svm > {name}")) if key != "svm" else "",
                "yes" if inside else "**no**",
            ]
        )
    headers = [
        "Paper's system",
        "Ours",
        "Found, paper (%)",
        "Found, ours (%)",
        "95% CI",
        "PHI tokens",
        "p vs SVM (recall, Holm)",
        "paper's in our CI",
    ]
    return [
        f"### Table 13: share of the PHI not in dictionaries found (ours: `{ctx.specs['unseen']}`)",
        "",
        "The paper calls this figure precision; §6.3 describes it as the share of those PHI "
        "each system identified, which on a subset of gold PHI only is the recall.",
        "",
        md_table(rows, headers),
        "",
    ]


def _global_context(ctx: Context, parts: Mapping[Callable[..., Verdict], list[Part]]) -> list[str]:
    from bench.reproduce.common import measure
    from bench.reproduce.sibanda2006.experiments import entities_per_sentence, typed_counts

    adjusted = _adjusted(parts[claims.global_context_adds_little])
    rows = []
    for corpus in CORPORA:
        with_, without = typed_counts(ctx, "snow", corpus), typed_counts(ctx, "snow_local", corpus)
        if not with_ or not without:
            continue
        a, b = measure(with_), measure(without)
        p = adjusted.get(f"{corpus}: gain < {SAME_POINTS:g}")
        rows.append([f"`{ctx.specs[corpus]}`", pct(a), pct(b), f"{100 * (a - b):+.1f}", fmt_p(p)])
    sentences = []
    for corpus in CORPORA:
        docs = ctx.result.corpora[ctx.specs[corpus]].documents
        with_phi, one = np.sum([entities_per_sentence(d) for d in docs], axis=0)
        sentences.append(
            [corpus, f"`{ctx.specs[corpus]}`", str(with_phi), pct(one / max(with_phi, 1))]
        )
    return [
        "## Global context",
        "",
        "SNoW with its sentence-level inference (`snow`) and without it (`snow-local`). The "
        "inference chooses each phrase's type from the other phrases of its sentence, so its "
        "effect shows in the typed score: F over PATIENT, DOCTOR, LOCATION and HOSPITAL with "
        "the category matched exactly (micro-averaged); p: bootstrap over documents that the "
        "gain is below one point, Holm-adjusted over the corpora.",
        "",
        md_table(rows, ["Corpus", "typed F with inference", "typed F without", "Δ", "p (Holm)"])
        if rows
        else "(not run)",
        "",
        "The paper explains the weakness of global context by the notes' fragments: most "
        "sentences carry one entity (§6.4). Sentences with PHI in our corpora:",
        "",
        md_table(
            sentences, ["Corpus", "Ours", "Sentences with PHI", "with exactly one PHI phrase (%)"]
        ),
        "",
    ]


def _ranking(ctx: Context) -> list[str]:
    gains = ctx.gains
    table = (
        "(not run)"
        if gains is None
        else md_table(
            [
                [
                    str(i + 1),
                    f"`{g.feature}`",
                    PAPER_TOP_FEATURES.get(g.feature, ""),
                    g.feature_class,
                    f"{g.information_gain:.4f}",
                ]
                for i, g in enumerate(gains.itertuples())
            ],
            ["Rank", "Template", "Paper's name", "Feature class", "Information gain (bits)"],
        )
    )
    return [
        "## §6.4 Feature ranking",
        "",
        "Information gain about PHI vs non-PHI of each feature template of our SVM on "
        f"`{ctx.specs['authentic']}` (`python -m bench infogain`). The paper's five most "
        "informative: " + ", ".join(PAPER_TOP_FEATURES.values()) + ". Information gain "
        "favours templates with many values (a word template has thousands), which is part "
        "of why word templates lead.",
        "",
        table,
        "",
    ]


def _ambiguous_corpus(ctx: Context) -> list[str]:
    """Table 6 beside ours, Table 9's subset, what single cues predict, and the SVM's drop
    from the re-identified to the ambiguous corpus (a finding, not a claim)."""
    from corpora.stats import ambiguity_markdown, distribution_table, paper_columns, table6_markdown

    corpus = ctx.result.corpora[ctx.specs["ambiguous"]]
    columns = paper_columns(paper_figures.su06_corpus_columns())
    return [
        f"## The ambiguous corpus (`{ctx.specs['ambiguous']}`) against Table 6",
        "",
        "`python -m bench corpus stats` prints the same tables. Counts are tokens, the "
        "paper's words.",
        "",
        *table6_markdown(distribution_table(corpus), columns),
        *[
            line.replace("## ", "### ", 1)
            for line in ambiguity_markdown(corpus, seed=ctx.options.seed)
        ],
        *_svm_drop(ctx),
    ]


def _svm_drop(ctx: Context) -> list[str]:
    from bench.reproduce.common import aligned
    from bench.score.significance import STATISTICS, paired_bootstrap_ci

    f1 = STATISTICS["f1"]
    lines = []
    for role in ("svm", "dictionary"):
        pair = aligned(ctx.counts(role, "surrogate"), ctx.counts(role, "ambiguous"))
        if pair is None:
            continue
        drop, low, high = paired_bootstrap_ci(
            pair,
            lambda s: f1(s[0]) - f1(s[1]),
            n_resamples=ctx.options.n_resamples,
            alpha=ctx.options.alpha,
            seed=ctx.options.seed,
        )
        system = "SVM" if role == "svm" else "H+D"
        theirs = paper("Table 2", system) - paper("Table 7", system)
        lines.append(
            f"- `{ctx.name(role)}`: PHI F (IDs left out) {100 * f1(pair[0].sum(axis=0)):.1f} on "
            f"the re-identified corpus, {100 * f1(pair[1].sum(axis=0)):.1f} on the ambiguous "
            f"one: {100 * drop:.1f} points lost (95 % interval {100 * low:.1f} to "
            f"{100 * high:.1f}); the paper's {system}: {paper('Table 2', system):.1f} → "
            f"{paper('Table 7', system):.1f}, {theirs:.1f} points."
        )
    return [
        "### What ambiguity costs (a finding, not a claim of the paper)",
        "",
        "The corpus was built to Table 6's shares, not tuned to any system's drop:",
        "",
        *lines,
        "",
    ]


def _distribution(ctx: Context) -> str:
    from bench.report.render import distribution_table

    return distribution_table({c: ctx.result.corpora[ctx.specs[c]] for c in CORPORA})

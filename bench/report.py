"""report.md and its plots: what a reviewer reads without running anything.

The layout follows Sibanda & Uzuner (2006): per corpus, one table of systems x {PHI,
non-PHI} x {precision, recall, F-measure} with the best value of each column in bold
(their footnote 7), a separate table on people, locations and organizations only for the
SNoW comparison (their Tables 3, 5, 8, 12), the ambiguous-token and not-in-dictionary views
(Tables 9 and 13), per-category F-measures (as in Tafvizi 2011, appendix A), and the
corpus's distribution of PHI words (Table 1).

Significance marks: the paper says a 1 % difference is significant at alpha = 0.05 without
naming its test (footnote 8).  We mark a system's F-measure with ``*`` when approximate
randomization over documents (:mod:`bench.significance`) finds it different from the best
system's at ``alpha`` after Holm's correction over the comparisons with the best system in
that table: with nine systems eight comparisons are made, and uncorrected, the chance of at
least one false mark among eight systems no different from the best would be about
1 - 0.95^8 = 34 %.  Every test (z, McNemar, randomization, uncorrected p-values) is in
significance.csv.

A system scored on some categories only (``snow``: people, locations and organizations)
appears in the per-category table only under those categories, and not in the entity table,
whose binary PHI row counts every category.

The papers' published figures are printed beside ours, labelled as measured on different
data (:mod:`bench.paper_figures`).  No document text ever enters the report: only counts,
scores and names of systems and corpora.
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench import paper_figures
from bench.augment import describe_augment
from bench.dominance import report_section as dominance_section
from bench.generalization import variant_section
from bench.ledger import report_section as ledger_section
from bench.protocols import NOT_SPLIT
from bench.run_types import DEFAULT_INNER_FOLDS
from corpora import cache
from corpora.model import LABELS, OUTSIDE, printable

if TYPE_CHECKING:
    import pandas as pd

    from bench.run_types import RunResult

PLO = "people_locations_organizations"
#: The test whose p-value decides the ``*`` mark.
MARK_TEST = "approximate_randomization_f1"


def _pct(x: Any) -> str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.1f}"


def _md_table(rows: Sequence[Sequence[Any]], headers: Sequence[str]) -> str:
    from tabulate import tabulate

    return tabulate(rows, headers=list(headers), tablefmt="github", disable_numparse=True)


def _bold_best(values: list[float | None]) -> list[str]:
    """Format percentages and bold the best (ties all bold)."""
    present = [v for v in values if v is not None and not math.isnan(v)]
    best = max(present) if present else None
    out = []
    for v in values:
        s = _pct(v)
        if s and best is not None and round(100 * v, 1) == round(100 * best, 1):
            s = f"**{s}**"
        out.append(s)
    return out


def _row(df: pd.DataFrame, **where: Any) -> Any:
    sel = df
    for k, v in where.items():
        sel = sel[sel[k] == v]
    return None if sel.empty else sel.iloc[0]


def _p_vs(sig: pd.DataFrame, corpus: str, subset: str, best: str, other: str) -> float | None:
    """The uncorrected :data:`MARK_TEST` p-value of ``best`` vs ``other`` (None: not tested)."""
    if sig is None or sig.empty:
        return None
    sel = sig[
        (sig.corpus == corpus)
        & (sig.test == MARK_TEST)
        & (sig.subset == subset)
        & (
            ((sig.system_a == best) & (sig.system_b == other))
            | ((sig.system_a == other) & (sig.system_b == best))
        )
    ]
    if sel.empty:
        return None
    return float(sel.iloc[0].p_value)


def significant_vs_best(
    sig: pd.DataFrame,
    corpus: str,
    subset: str,
    best: str,
    others: Sequence[str],
    alpha: float,
) -> dict[str, bool]:
    """Which of ``others`` differ from ``best`` at ``alpha``, Holm-corrected over the family
    of those comparisons (the ones that were tested)."""
    from bench.significance import holm

    p_values = {
        o: p for o in others if o != best and (p := _p_vs(sig, corpus, subset, best, o)) is not None
    }
    return holm(p_values, alpha)


def _sentence(text: str) -> str:
    """First letter up, the rest untouched (``str.capitalize`` would lower "ID", "O")."""
    return text[:1].upper() + text[1:]


#: Headings of the subsets a system's source compared it on (:attr:`System.compared_on`);
#: any other subset is headed by its description.
COMPARED_ON_TITLES = {"no_id": "Everything but IDs (the IdentiFinder comparison)"}


def _compared_on(result: RunResult, systems: Sequence[str]) -> list[str]:
    """The subsets the sources of ``systems`` compared them on, each once, in the order
    the systems declare them: each gets a table of every system."""
    declared = (result.systems[s].get("compared_on", ()) for s in systems)
    return list(dict.fromkeys(subset for subsets in declared for subset in subsets))


def headline_table(
    df: pd.DataFrame,
    sig: pd.DataFrame,
    corpus: str,
    systems: Sequence[str],
    subset: str,
    alpha: float,
) -> str | None:
    """Systems x {PHI, non-PHI} x {P, R, F}: bold best, ``*`` significantly below the best F
    (Holm-corrected over the comparisons with the best)."""
    tok = df[(df.corpus == corpus) & (df.level == "token") & (df.subset == subset)]
    present = [s for s in systems if not tok[tok.system == s].empty]
    if not present:
        return None
    lines: list[list[str]] = []
    for label in ("PHI", "non-PHI"):
        rows = [_row(tok, system=s, label=label) for s in present]
        cols = {
            m: _bold_best([None if r is None else float(r[m]) for r in rows])
            for m in ("precision", "recall", "f1")
        }
        f1s = {
            s: (float(r.f1) if r is not None else -1.0) for s, r in zip(present, rows, strict=True)
        }
        best = max(f1s, key=lambda s: f1s[s])
        marked = significant_vs_best(sig, corpus, subset, best, present, alpha)
        for i, s in enumerate(present):
            f = cols["f1"][i]
            if label == "PHI" and marked.get(s, False):
                f += " *"
            r = rows[i]
            ci = ""
            if r is not None and not math.isnan(float(r.f1_ci_low)):
                ci = f"{_pct(r.f1_ci_low)}–{_pct(r.f1_ci_high)}"
            lines.append([s, label, cols["precision"][i], cols["recall"][i], f, ci])
    return _md_table(lines, ["System", "Class", "P", "R", "F", "95% CI of F"])


def published_table(corpus: str, subset: str) -> str | None:
    rows = paper_figures.published_for(corpus, subset)
    if not rows:
        return None
    lines = [
        [
            p.paper_system,
            p.our_system,
            p.label,
            "" if p.precision is None else f"{p.precision:.1f}",
            "" if p.recall is None else f"{p.recall:.1f}",
            "" if p.f1 is None else f"{p.f1:.1f}",
            f"{p.source}, {p.table}",
        ]
        for p in rows
    ]
    return _md_table(lines, ["Published system", "ours", "Class", "P", "R", "F", "Source"])


def category_table(
    df: pd.DataFrame,
    corpus: str,
    systems: Sequence[str],
    scored_on: Mapping[str, Sequence[str] | None] | None = None,
) -> str | None:
    """Token F-measure per category (systems that predict categories only).

    ``scored_on`` maps a system to the only categories it is scored on (``snow``'s people,
    locations and organizations); its other cells stay empty rather than showing a 0.0 for
    a category it was never built to find.
    """
    scored_on = scored_on or {}
    tok = df[(df.corpus == corpus) & (df.level == "token") & (df.subset == "all")]
    cats = [c for c in LABELS if not tok[tok.label == c].empty]
    present = [s for s in systems if not tok[(tok.system == s) & tok.label.isin(cats)].empty]
    if not cats or not present:
        return None
    columns = {}
    for c in cats:
        vals = []
        for s in present:
            allowed = scored_on.get(s)
            r = _row(tok, system=s, label=c) if allowed is None or c in allowed else None
            vals.append(None if r is None else float(r.f1))
        columns[c] = _bold_best(vals)
    lines = [[s, *(columns[c][i] for c in cats)] for i, s in enumerate(present)]
    return _md_table(lines, ["System", *cats])


def subset_table(
    df: pd.DataFrame, corpus: str, systems: Sequence[str], subset: str, measure: str
) -> str | None:
    """One measure of binary PHI on a special subset (ambiguous / not in dictionary)."""
    tok = df[(df.corpus == corpus) & (df.level == "token") & (df.subset == subset)]
    tok = tok[tok.label == "PHI"]
    tok = tok[(tok.tp + tok.fp + tok.fn) > 0]
    present = [s for s in systems if not tok[tok.system == s].empty]
    if not present:
        return None
    rows = [_row(tok, system=s) for s in present]
    if measure == "recall":
        vals = _bold_best([float(r.recall) for r in rows])
        return _md_table(
            [[s, v, int(r.tp + r.fn)] for s, v, r in zip(present, vals, rows, strict=True)],
            ["System", "PHI found (recall)", "PHI tokens"],
        )
    cols = {m: _bold_best([float(r[m]) for r in rows]) for m in ("precision", "recall", "f1")}
    return _md_table(
        [
            [s, cols["precision"][i], cols["recall"][i], cols["f1"][i]]
            for i, s in enumerate(present)
        ],
        ["System", "P", "R", "F"],
    )


def entity_table(df: pd.DataFrame, corpus: str, systems: Sequence[str]) -> str | None:
    """Binary PHI entities, strict and overlap (pass only systems scored on every category:
    the binary row counts every category's phrases)."""
    ent = df[(df.corpus == corpus) & (df.level == "entity") & (df.label == "PHI")]
    present = [s for s in systems if not ent[ent.system == s].empty]
    if not present:
        return None
    lines = []
    for s in present:
        row = [s]
        for match in ("strict", "overlap"):
            r = _row(ent, system=s, match=match)
            row += [_pct(r.precision), _pct(r.recall), _pct(r.f1)] if r is not None else [""] * 3
        lines.append(row)
    return _md_table(
        lines, ["System", "strict P", "strict R", "strict F", "overlap P", "overlap R", "overlap F"]
    )


def distribution_rows(corpus: Any) -> dict[str, int]:
    """Words (tokens) per gold class, the counting unit of the paper's Table 1."""
    counts = {"non-PHI": 0, **{c: 0 for c in LABELS}}
    for doc in corpus.documents:
        for tok in doc.tokens:
            counts["non-PHI" if tok.label == OUTSIDE else tok.label] += 1
    return counts


def distribution_table(corpora: Mapping[str, Any]) -> str:
    """Table 1 view: words per class for each corpus, with the paper's counts beside."""
    dists = {name: distribution_rows(c) for name, c in corpora.items()}
    classes = [k for k in ("non-PHI", *LABELS) if any(d[k] for d in dists.values())]
    headers = ["Class", *dists]
    published = [n for n in dists if n in paper_figures.SU06_TABLE1]
    headers += [f"{n} (SU06, published)" for n in published]
    lines = []
    for k in classes:
        line = [k, *(str(d[k]) for d in dists.values())]
        line += [str(paper_figures.SU06_TABLE1[n].get(k, "")) for n in published]
        lines.append(line)
    total = ["Total", *(str(sum(d.values())) for d in dists.values())]
    total += [str(sum(paper_figures.SU06_TABLE1[n].values())) for n in published]
    lines.append(total)
    return _md_table(lines, headers)


def timing_table(info: Mapping[str, Any]) -> str:
    agg: dict[tuple[str, str], list[float]] = {}
    for cell in info["cells"]:
        a = agg.setdefault((cell["system"], cell["corpus"]), [0.0, 0, 0, 0])
        a[0] += cell["seconds"]
        a[1] += cell["tokens"] if not cell["cached"] else 0
        a[2] += 1
        a[3] += 1 if cell["cached"] else 0
    lines = []
    for (system, corpus), (secs, toks, n, cached) in sorted(agg.items()):
        rate = f"{toks / secs:,.0f}" if secs > 0 and toks else ""
        lines.append([system, corpus, str(n), str(cached), f"{secs:.1f}", rate])
    return _md_table(lines, ["System", "Corpus", "Cells", "From cache", "Seconds", "Tokens/s"])


def render_report(
    result: RunResult, info: Mapping[str, Any], plots: Mapping[str, str] | None = None
) -> str:
    """The whole report.md (Markdown; no PHI)."""
    from bench.metrics import SUBSETS

    df, sig = result.results, result.significance
    alpha = result.config.alpha
    systems = list(result.systems)
    plots = plots or {}
    out: list[str] = ["# deid-bench report", ""]
    out += [
        "## How this was produced",
        "",
        f"- Command: `{' '.join(info['command'])}`",
        f"- Date (UTC): {info['started']}; wall time {info['wall_seconds']:.0f} s",
        f"- Seed: {info['seed']}; protocol: {info['protocol']}"
        + (f" ({info['folds']} folds)" if info["protocol"] in ("cv", "auto") else ""),
        f"- Folds grouped by: {_grouping(info)}",
        *_training_lines(info),
        f"- Backend: {info['backend']} with {info['jobs']} job(s)",
        "- Packages: "
        + ", ".join(f"{k} {v}" for k, v in info["packages"].items() if v is not None),
        f"- Python {info['python']} on {info['platform']}",
        "",
        "Scores are token-level unless marked otherwise, pooled over the test folds (every "
        "document is tested once). **Bold**: best in the column. `*`: F-measure differs "
        f"from the best system's at α = {alpha} (approximate randomization over documents, "
        "Holm-corrected over the comparisons with the best system in the table; uncorrected "
        "p-values, z-tests and McNemar in `significance.csv`). CI: percentile bootstrap over "
        "documents. "
        "Published rows are the papers' own figures on *their* data (i2b2 / Partners "
        "discharge summaries), printed for orientation only: they are not comparable "
        "measurements.",
        "",
    ]
    out += ledger_section(info)
    skipped = {k: v for k, v in result.skipped.items() if v}
    if skipped:
        out += [
            "Records skipped by `--lenient`: " + ", ".join(f"{k}: {v}" for k, v in skipped.items()),
            "",
        ]
    not_run = [f for f in result.failures if f.get("skipped")]
    if not_run:
        seen = {}
        for f in not_run:
            seen.setdefault(f["system"], f["error"].removeprefix("skipped: "))
        out += ["## Not run here", ""]
        out.append(_md_table([[k, v] for k, v in seen.items()], ["System", "Why"]))
        out.append("")
    failures = [f for f in result.failures if not f.get("skipped")]
    if failures:
        out += ["## Failures", ""]
        out.append(
            _md_table(
                [[f["system"], f["corpus"], str(f["fold"]), f["error"]] for f in failures],
                ["System", "Corpus", "Fold", "Error"],
            )
        )
        out.append("")
    out += ["## Systems", ""]
    out.append(
        _md_table(
            [
                [
                    n,
                    s["description"],
                    "yes" if s["requires_training"] else "no",
                    s["headline_subset"],
                    s.get("departures", ""),
                ]
                for n, s in result.systems.items()
            ],
            ["System", "What it is", "Trained", "Scored on", "Departures from the source"],
        )
    )
    out.append("")
    if "f1_ci" in plots:
        out += [f"![PHI F-measure with 95% confidence intervals]({plots['f1_ci']})", ""]

    all_systems = [s for s in systems if result.systems[s]["headline_subset"] == "all"]
    for corpus in result.splits:
        out += [f"## Corpus `{corpus}`", ""]
        table = headline_table(df, sig, corpus, all_systems, "all", alpha)
        if table:
            out += ["### PHI and non-PHI (all categories)", "", table, ""]
        pub = published_table(corpus, "all")
        if pub:
            out += ["Published figures (different data):", "", pub, ""]
        if any(result.systems[s]["headline_subset"] == PLO for s in systems):
            table = headline_table(df, sig, corpus, systems, PLO, alpha)
            if table:
                out += [
                    "### People, locations and organizations only (the SNoW comparison)",
                    "",
                    "Systems scored on every category elsewhere were trained on every "
                    "category; the paper retrained its SVM on these four for this comparison "
                    "(Tables 3, 5, 8, 12), as `python -m bench reproduce sibanda2006` does "
                    "(in a run: `--systems ...,svm-plo=svm --param "
                    "\"svm-plo.train_categories=('DOCTOR','HOSPITAL','LOCATION','PATIENT')\"`).",
                    "",
                    table,
                    "",
                ]
                pub = published_table(corpus, PLO)
                if pub:
                    out += ["Published figures (different data):", "", pub, ""]
        for subset in _compared_on(result, all_systems):
            table = headline_table(df, sig, corpus, all_systems, subset, alpha)
            if table:
                out += [
                    f"### {COMPARED_ON_TITLES.get(subset, _sentence(SUBSETS[subset]))}",
                    "",
                    f"{_sentence(SUBSETS[subset])}. No significance marks: the tests "
                    "in `significance.csv` are run on the headline subsets.",
                    "",
                    table,
                    "",
                ]
        table = subset_table(df, corpus, systems, "ambiguous", "prf")
        if table:
            out += [
                "### Ambiguous tokens only",
                "",
                f"{_sentence(SUBSETS['ambiguous'])}.",
                "",
                table,
                "",
            ]
            pub = published_table(corpus, "ambiguous")
            if pub:
                out += ["Published figures (different data):", "", pub, ""]
        table = subset_table(df, corpus, systems, "not_in_dictionary", "recall")
        if table:
            published = ", ".join(f"{k} {v:.1f}" for k, v in paper_figures.SU06_TABLE13.items())
            out += [
                "### PHI not found in dictionaries",
                "",
                table,
                "",
                f"Published (Sibanda & Uzuner 2006, Table 13, different data): {published}.",
                "",
            ]
        scored_on = {s: result.systems[s].get("tags", {}).get("evaluated_labels") for s in systems}
        table = category_table(df, corpus, systems, scored_on)
        if table:
            out += ["### F-measure per category", "", table, ""]
            partial = [s for s in systems if scored_on.get(s) is not None]
            if partial:
                out += [
                    f"{', '.join(f'`{s}`' for s in partial)}: only the categories it is scored on.",
                    "",
                ]
        table = entity_table(df, corpus, all_systems)
        if table:
            out += ["### Entity level (binary PHI)", "", table, ""]
            left_out = [s for s in systems if s not in all_systems]
            if left_out:
                out += [
                    f"Not shown: {', '.join(f'`{s}`' for s in left_out)} (scored on some "
                    "categories only; the binary row counts every category).",
                    "",
                ]
        table = operating_point_table(result.operating_points, corpus)
        if table:
            out += [
                "### Operating points: what a given recall costs",
                "",
                "Precision (%) at the threshold that reaches each recall level, from the "
                "out-of-fold token scores pooled over the folds (binary PHI, every token); "
                "the threshold is the system's `threshold` parameter that gives the point. "
                "Only systems that score tokens appear.",
                "",
                table,
                "",
            ]
            key = f"pr:{corpus}"
            if key in plots:
                out += [f"![Precision-recall curves on {corpus}]({plots[key]})", ""]

    out += external_sections(result, info)
    out += variant_section(result, info)
    out += dominance_section(result)
    table = tuned_table(info)
    if table:
        out += [
            "## Chosen inside the training folds (`--tune`)",
            "",
            "Hyperparameters and decision thresholds selected by an inner cross-validation on "
            "each outer fold's training documents only (the test fold never reaches "
            f"selection), objective `{info.get('objective')}`.  Inner score, P and R are the "
            "chosen candidate's, on the out-of-fold decisions of the training documents.",
            "",
            table,
            "",
        ]

    if result.learning_curve is not None:
        out += ["## Learning curve", ""]
        if "learning_curve" in plots:
            out += [f"![Learning curve]({plots['learning_curve']})", ""]
        out += [learning_curve_table(result.learning_curve), ""]

    out += ["## Corpora: words per class", "", distribution_table(result.corpora), ""]
    out += ["## Time", "", timing_table(info), ""]
    # names, ids and the command line come from files and arguments: no control character
    # of theirs reaches a reader's terminal or breaks a line of the report
    return printable("\n".join(out), keep="\n") + "\n"


def external_sections(result: RunResult, info: Mapping[str, Any]) -> list[str]:
    """How each external tool ran, the notes it failed on, and each re-implementation
    beside its original (:mod:`bench.peer_comparison`); empty without external tools."""
    out: list[str] = []
    setups = {n: s for n, s in result.systems.items() if s.get("runs_as")}
    if setups:
        out += [
            "## External tools: how they ran",
            "",
            "Each tool is run as it is installed here; a note it crashed on, timed out on or "
            "answered with unreadable output is scored as withheld (every token PHI) unless "
            "`on_error=fail` (then its cells fail); a tool that failed on every note of a "
            "fold did not run, and has no score.",
            "",
            _md_table(
                [[n, s["runs_as"], str(s.get("failed_notes", 0))] for n, s in setups.items()],
                ["System", "Ran as", "Notes it failed on"],
            ),
            "",
        ]
        failed = [
            [c["system"], c["corpus"], str(c["fold"]), f["document"], f["error"]]
            for c in info.get("cells", [])
            for f in (c.get("fitted") or {}).get("note_failures", [])
        ]
        if failed:
            out += [
                _md_table(failed[:50], ["System", "Corpus", "Fold", "Document", "What happened"]),
                "",
            ]
            if len(failed) > 50:
                out += [f"... and {len(failed) - 50} more (run.json lists them all).", ""]
    df = result.peer_comparison
    if df is None or df.empty:
        return out
    out += [
        "## Re-implementations beside their originals",
        "",
        "Both systems on the same test notes. Agreement: share of tokens with the same "
        "PHI / non-PHI decision, and Cohen's κ of those decisions. Recall per gold PHI type: "
        "share of its tokens marked PHI (any category). Throughput: test tokens per second "
        "of the cells computed in this run (`cached`: read from the cache, not timed).",
        "",
    ]
    for (corpus, original, reimpl), g in df.groupby(
        ["corpus", "original", "reimplementation"], sort=False
    ):
        total = g[g.label == "ALL"].iloc[0]
        rows = [
            ["Agreement (% of tokens)", f"{100 * total.agreement:.2f}", ""],
            ["Cohen's κ", f"{total.kappa:.3f}" if not math.isnan(total.kappa) else "", ""],
            [
                "PHI precision (all types)",
                _pct(total.precision_original),
                _pct(total.precision_reimplementation),
            ],
            [
                "PHI recall (all types)",
                _pct(total.recall_original),
                _pct(total.recall_reimplementation),
            ],
        ]
        rows += [
            [
                f"recall of {r.label} ({int(r.tokens)} tokens)",
                _pct(r.recall_original),
                _pct(r.recall_reimplementation),
            ]
            for r in g[g.label != "ALL"].itertuples()
        ]
        rows.append(
            [
                "Tokens per second",
                _rate(total.tokens_per_second_original),
                _rate(total.tokens_per_second_reimplementation),
            ]
        )
        out += [
            f"### `{reimpl}` vs its original `{original}` on `{corpus}`",
            "",
            _md_table(rows, ["", original, reimpl]),
            "",
        ]
    return out


def _rate(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "cached"
    return f"{value:,.0f}"


def _grouping(info: Mapping[str, Any]) -> str:
    grouping = info.get("grouping") or {}
    kinds = sorted(set(grouping.values()))
    if not kinds:
        return "document"
    if len(kinds) == 1:
        what = kinds[0]
        if what == NOT_SPLIT:
            return f"{what} (a training corpus is given; see the overlap line below)"
        return f"{what} (no {what} on both sides of a split)" if what != "document" else what
    return "; ".join(f"{c}: {g}" for c, g in grouping.items())


def _own_augment(info: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    """Learned systems whose training copies differ from the run's ``--augment`` (their
    ``--param NAME.augment``), with their own."""
    run_level = tuple(info.get("augment", ()))
    out = {}
    for name, system in (info.get("systems") or {}).items():
        own = tuple(system.get("augment", run_level))
        if system.get("requires_training") and own != run_level:
            out[name] = own
    return out


def _training_lines(info: Mapping[str, Any]) -> list[str]:
    lines = []
    own = _own_augment(info)
    if info.get("tune"):
        judged = ["authentic", *dict.fromkeys(info.get("augment", ()))]
        lines.append(
            f"- Tuning: inside the training folds, objective `{info.get('objective')}` "
            f"(`--tune`; {_inner_folds(info)}, "
            f"successive halving over each grid, judged on the held-out inner "
            f"parts: {', '.join(judged)}"
            + (
                "; for a system with its own augmentation, authentic and one copy per "
                "variant it trains with)"
                if own
                else ")"
            )
        )
    if info.get("augment"):
        lines.append(
            "- Training augmented with transformed copies of the training documents: "
            + describe_augment(info["augment"])
            + (" (systems without their own augmentation below)" if own else "")
        )
    if own:
        lines.append(
            "- Augmentation of each system's own (`--param NAME.augment`): "
            + "; ".join(f"{n}: {describe_augment(a) if a else 'none'}" for n, a in own.items())
        )
    if info.get("extra_training"):
        lines.append(
            f"- Learned systems also trained on every document of `{info['extra_training']}` "
            "(`--extra-training`: in every training set, inner folds included; never scored, "
            "and checked to share no document id or patient with the scored corpora)"
        )
    overlap = _overlap_line(info.get("overlap") or {})
    if overlap:
        lines.append(overlap)
    if info.get("test_variant"):
        lines.append(
            f"- Also tested on the `{info['test_variant']}` variant of each test fold "
            "(trained on authentic notes only)"
        )
    return lines


def _inner_folds(info: Mapping[str, Any]) -> str:
    """The inner folds tuning used, as the tuned cells recorded them (the option's value
    only where no cell was tuned in this run, e.g. every cell read from the cache)."""
    used = sorted(
        {
            int(c["fitted"]["inner_folds"])
            for c in info.get("cells", [])
            if isinstance(c.get("fitted"), Mapping) and "inner_folds" in c["fitted"]
        }
    )
    asked = info.get("inner_folds") or DEFAULT_INNER_FOLDS
    if not used:
        return f"{asked} inner folds"
    text = " or ".join(str(n) for n in used) + " inner folds"
    if 0 in used:
        text += " (0: one candidate and no threshold, nothing to select)"
    return text


def _overlap_line(overlap: Mapping[str, Any]) -> str:
    """What comparing training and scored notes by content found (:mod:`bench.overlap`),
    as measured when the run was planned."""
    sources = overlap.get("sources") or {}
    if not sources:
        return ""
    near = int(overlap.get("near_duplicates") or 0)
    compared = ", ".join(f"{name} ({c['scored']} scored notes)" for name, c in sources.items())
    if not near:
        return (
            f"- Training vs scored notes, compared by text: none identical, none the same "
            f"note with other PHI ({compared})"
        )
    which = "; ".join(
        f"{c['near_duplicates']} of {c['scored']} against {name}"
        for name, c in sources.items()
        if c["near_duplicates"]
    )
    return (
        f"- **Near-duplicates scored** (`--allow-near-duplicates`): scored notes that are "
        f"training notes with other PHI: {which}.  Their scores measure how well a model "
        "recalls notes it was trained on, not how it does on new notes"
    )


def _slug(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name).strip("_")[:60] or "corpus"


def plot_stems(corpora: Iterable[str]) -> dict[str, str]:
    """``pr_<corpus>`` file stems of the per-corpus plots, one per corpus spec.

    A directory in the spec counts by its last part only, so the same corpus gives the same
    file name whether the command named it by a relative or an absolute path; two specs
    that would share a stem get ``_2``, ``_3``, ... in sorted order.
    """
    out: dict[str, str] = {}
    taken: set[str] = set()
    for spec in sorted(set(corpora)):
        parts = [p.rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1] for p in spec.split(":")]
        stem = base = f"pr_{_slug(':'.join(parts))}"
        n = 1
        while stem in taken:
            n += 1
            stem = f"{base}_{n}"
        taken.add(stem)
        out[spec] = stem
    return out


def operating_point_table(points: pd.DataFrame | None, corpus: str) -> str | None:
    if points is None or points.empty:
        return None
    sel = points[points.corpus == corpus]
    if sel.empty:
        return None
    levels = sorted(sel.recall_level.unique())
    rows = []
    for system, g in sel.groupby("system", sort=True):
        by = {float(r.recall_level): r for r in g.itertuples()}
        cells = []
        for level in levels:
            r = by.get(float(level))
            if r is None or math.isnan(r.precision):
                cells.append("not reached")
            else:
                cells.append(f"{_pct(r.precision)} (t = {r.threshold:.3g})")
        rows.append([system, *cells])
    return _md_table(rows, ["System", *(f"P at R ≥ {100 * lv:g} %" for lv in levels)])


def _value(v: Any) -> str:
    """A chosen parameter as a reader wants it: floats to four significant digits."""
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def tuned_table(info: Mapping[str, Any]) -> str | None:
    rows = []
    for cell in info.get("cells", []):
        fitted = cell.get("fitted") or {}
        chosen = fitted.get("chosen")
        if not chosen or cell.get("protocol") == "variant":  # a variant cell: the same model
            continue
        score = fitted.get("inner_score")
        p, r = fitted.get("inner_precision"), fitted.get("inner_recall")
        rows.append(
            [
                cell["system"],
                cell["corpus"],
                str(cell["fold"]),
                ", ".join(f"{k}={_value(v)}" for k, v in sorted(chosen.items())),
                "" if score is None else f"{score:.3f}",
                "" if p is None or r is None else f"{_pct(p)} / {_pct(r)}",
            ]
        )
    if not rows:
        return None
    return _md_table(rows, ["System", "Corpus", "Fold", "Chosen", "Inner score", "Inner P / R"])


def learning_curve_table(lc: pd.DataFrame) -> str:
    sel = lc[(lc.level == "token") & (lc.subset == "all") & (lc.label == "PHI")]
    fractions = sorted(sel.train_fraction.unique())
    lines = []
    for (corpus, system), g in sel.groupby(["corpus", "system"], sort=True):
        by = {float(r.train_fraction): r for r in g.itertuples()}
        lines.append([corpus, system, *(_pct(by[f].f1) if f in by else "" for f in fractions)])
    return _md_table(lines, ["Corpus", "System", *(f"{100 * f:g} %" for f in fractions)])


# --------------------------------------------------------------------------- plots


def _save(fig: Any, path: Path) -> None:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    cache.atomic_write_bytes(path, buf.getvalue())


def write_plots(result: RunResult, out: Path) -> dict[str, Path]:
    """f1_ci.png (every run), learning_curve.png (when one was run) and pr_<corpus>.png
    (precision-recall curves of the systems that score tokens; :func:`plot_stems`), keyed
    ``f1_ci``, ``learning_curve`` and ``pr:<corpus spec>``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths: dict[str, Path] = {}
    df = result.results
    rows = []
    for system, info in result.systems.items():
        sel = df[
            (df.system == system)
            & (df.level == "token")
            & (df.subset == info["headline_subset"])
            & (df.label == "PHI")
        ]
        rows.extend(sel.itertuples())
    if rows:
        corpora = list(result.splits)
        systems = list(result.systems)
        fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(systems) * len(corpora) / 2), 4))
        width = 0.8 / max(1, len(systems))
        for j, system in enumerate(systems):
            xs, ys, lo, hi = [], [], [], []
            for i, corpus in enumerate(corpora):
                r = next((r for r in rows if r.system == system and r.corpus == corpus), None)
                if r is None:
                    continue
                xs.append(i + (j - (len(systems) - 1) / 2) * width)
                ys.append(r.f1)
                low = r.f1 - r.f1_ci_low if not math.isnan(r.f1_ci_low) else 0.0
                high = r.f1_ci_high - r.f1 if not math.isnan(r.f1_ci_high) else 0.0
                lo.append(max(low, 0.0))
                hi.append(max(high, 0.0))
            if xs:
                ax.errorbar(xs, ys, yerr=[lo, hi], fmt="o", capsize=3, label=system)
        ax.set_xticks(range(len(corpora)), corpora, rotation=15)
        ax.set_ylabel("PHI F-measure (token)")
        ax.set_title("PHI F-measure with 95% bootstrap CI")
        ax.legend(fontsize="small", ncol=2)
        ax.grid(axis="y", alpha=0.3)
        paths["f1_ci"] = out / "f1_ci.png"
        _save(fig, paths["f1_ci"])
        plt.close(fig)
    lc = result.learning_curve
    if lc is not None and not lc.empty:
        sel = lc[(lc.level == "token") & (lc.subset == "all") & (lc.label == "PHI")]
        corpora = sorted(sel.corpus.unique())
        fig, axes = plt.subplots(1, len(corpora), figsize=(5 * len(corpora), 4), squeeze=False)
        for ax, corpus in zip(axes[0], corpora, strict=True):
            for system, g in sel[sel.corpus == corpus].groupby("system"):
                g = g.sort_values("train_fraction")
                ax.plot(100 * g.train_fraction, g.precision, "o-", label=f"{system} P")
                ax.plot(100 * g.train_fraction, g.recall, "s--", label=f"{system} R")
            ax.set_xscale("log", base=2)
            ax.set_xlabel("training set (%)")
            ax.set_ylabel("PHI precision / recall")
            ax.set_title(corpus)
            ax.grid(alpha=0.3)
            ax.legend(fontsize="small")
        paths["learning_curve"] = out / "learning_curve.png"
        _save(fig, paths["learning_curve"])
        plt.close(fig)
    stems = plot_stems(result.curves)
    for corpus, curves in result.curves.items():
        if not curves:
            continue
        fig, ax = plt.subplots(figsize=(6, 4.5))
        for system, (recall, precision) in sorted(curves.items()):
            ax.plot(recall, precision, label=system)
        for level in (0.90, 0.95, 0.99):
            ax.axvline(level, color="grey", lw=0.6, ls=":")
        ax.set_xlabel("PHI recall (token)")
        ax.set_ylabel("PHI precision (token)")
        ax.set_xlim(0.5, 1.0)
        ax.set_ylim(0.0, 1.02)
        ax.set_title(f"Precision-recall, out-of-fold scores: {corpus}"[:80])
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small")
        key = f"pr:{corpus}"
        paths[key] = out / f"{stems[corpus]}.png"
        _save(fig, paths[key])
        plt.close(fig)
    return paths

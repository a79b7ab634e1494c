"""report.md and its plots: what a reviewer reads without running anything.

The report opens with a one-screen summary, the answer first (:func:`summary_section`):
every system's PHI precision / recall / F on every corpus with the significance marks of
the tables below, sentences on which differences hold (said from the same marks), each
system's weakest category, and links to the detail sections.  The details follow, one
small function per section (:data:`SECTIONS`, and :data:`CORPUS_TABLES` within each corpus).

The details' layout follows Sibanda & Uzuner (2006): per corpus, one table of systems x {PHI,
non-PHI} x {precision, recall, F-measure} with the best value of each column in bold
(their footnote 7), a separate table on people, locations and organizations only for the
SNoW comparison (their Tables 3, 5, 8, 12), the ambiguous-token and not-in-dictionary views
(Tables 9 and 13), per-category F-measures (as in Tafvizi 2011, appendix A), and the
corpus's distribution of PHI words (Table 1).

Significance marks: the paper says a 1 % difference is significant at alpha = 0.05 without
naming its test (footnote 8).  We mark a system's F-measure with ``*`` when approximate
randomization over documents (:mod:`bench.score.significance`) finds it different from the best
system's at ``alpha`` after Holm's correction over the comparisons with the best system in
that table: with nine systems eight comparisons are made, and uncorrected, the chance of at
least one false mark among eight systems no different from the best would be about
1 - 0.95^8 = 34 %.  Every test (z, McNemar, randomization, uncorrected p-values) is in
significance.csv.

A system scored on some categories only (``snow``: people, locations and organizations)
appears in the per-category table only under those categories, and not in the entity table,
whose binary PHI row counts every category.

The papers' published figures are printed beside ours, labelled as measured on different
data (:mod:`bench.reproduce.paper_figures`).  No document text ever enters the report: only counts,
scores and names of systems and corpora.
"""

from __future__ import annotations

import io
import math
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench.report.ledger import report_section as ledger_section
from bench.report.markdown import md_table, pct
from bench.reproduce import paper_figures
from bench.run.protocols import NOT_SPLIT
from bench.run.run_types import DEFAULT_INNER_FOLDS
from bench.score.dominance import report_section as dominance_section
from bench.score.generalization import variant_section
from bench.training.augment import describe_augment
from bench.training.tuning import VARIANTS
from corpora.model import LABELS, OUTSIDE, printable
from infra import cache
from systems.cross_fitting import SHARED

if TYPE_CHECKING:
    import pandas as pd

    from bench.run.run_types import RunResult

PLO = "people_locations_organizations"
#: The test whose p-value decides the ``*`` mark.
MARK_TEST = "approximate_randomization_f1"


def _bold_best(values: list[float | None]) -> list[str]:
    """Format percentages and bold the best (ties all bold)."""
    present = [v for v in values if v is not None and not math.isnan(v)]
    best = max(present) if present else None
    out = []
    for v in values:
        s = pct(v)
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
    from bench.score.significance import holm

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


def _token_rows(df: pd.DataFrame, corpus: str, subset: str) -> pd.DataFrame:
    return df[(df.corpus == corpus) & (df.level == "token") & (df.subset == subset)]


def _present(rows: pd.DataFrame, systems: Sequence[str]) -> list[str]:
    """``systems`` that have rows, in their order (a failed system has none)."""
    return [s for s in systems if not rows[rows.system == s].empty]


@dataclass(frozen=True)
class Ranking:
    """Who has the best PHI F-measure on one corpus and subset, and who differs from it:
    what the ``*`` marks of the headline tables and the summary's sentences both say."""

    #: The system with the highest PHI F (the first of the given order on a tie).
    best: str
    #: PHI F of every system with rows (-1: rows, but none for PHI).
    f1: Mapping[str, float]
    #: The tested systems, each True where it differs significantly from the best
    #: (Holm-corrected, :func:`significant_vs_best`).
    marked: Mapping[str, bool]


def phi_ranking(
    df: pd.DataFrame,
    sig: pd.DataFrame,
    corpus: str,
    systems: Sequence[str],
    subset: str,
    alpha: float,
) -> Ranking | None:
    """The :class:`Ranking` of ``systems`` on ``corpus`` and ``subset`` (None: no rows)."""
    tok = _token_rows(df, corpus, subset)
    present = _present(tok, systems)
    if not present:
        return None
    rows = [_row(tok, system=s, label="PHI") for s in present]
    f1s = {s: (float(r.f1) if r is not None else -1.0) for s, r in zip(present, rows, strict=True)}
    best = max(f1s, key=lambda s: f1s[s])
    return Ranking(best, f1s, significant_vs_best(sig, corpus, subset, best, present, alpha))


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
    ranking = phi_ranking(df, sig, corpus, systems, subset, alpha)
    if ranking is None:
        return None
    tok = _token_rows(df, corpus, subset)
    present = list(ranking.f1)
    lines: list[list[str]] = []
    for label in ("PHI", "non-PHI"):
        rows = [_row(tok, system=s, label=label) for s in present]
        cols = {
            m: _bold_best([None if r is None else float(r[m]) for r in rows])
            for m in ("precision", "recall", "f1")
        }
        for i, s in enumerate(present):
            f = cols["f1"][i]
            if label == "PHI" and ranking.marked.get(s, False):
                f += " *"
            r = rows[i]
            ci = ""
            if r is not None and not math.isnan(float(r.f1_ci_low)):
                ci = f"{pct(r.f1_ci_low)}–{pct(r.f1_ci_high)}"
            lines.append([s, label, cols["precision"][i], cols["recall"][i], f, ci])
    return md_table(lines, ["System", "Class", "P", "R", "F", "95% CI of F"])


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
    return md_table(lines, ["Published system", "ours", "Class", "P", "R", "F", "Source"])


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
    return md_table(lines, ["System", *cats])


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
        return md_table(
            [[s, v, int(r.tp + r.fn)] for s, v, r in zip(present, vals, rows, strict=True)],
            ["System", "PHI found (recall)", "PHI tokens"],
        )
    cols = {m: _bold_best([float(r[m]) for r in rows]) for m in ("precision", "recall", "f1")}
    return md_table(
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
            row += [pct(r.precision), pct(r.recall), pct(r.f1)] if r is not None else [""] * 3
        lines.append(row)
    return md_table(
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
    return md_table(lines, headers)


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
    return md_table(lines, ["System", "Corpus", "Cells", "From cache", "Seconds", "Tokens/s"])


@dataclass(frozen=True)
class ReportInput:
    """What every section of report.md reads: the scored run, its run.json ``info`` and the
    file names of its plots (keyed as :func:`write_plots` keys them)."""

    result: RunResult
    info: Mapping[str, Any]
    plots: Mapping[str, str]

    @property
    def df(self) -> pd.DataFrame:
        return self.result.results

    @property
    def sig(self) -> pd.DataFrame:
        return self.result.significance

    @property
    def alpha(self) -> float:
        return self.result.config.alpha

    @property
    def systems(self) -> list[str]:
        return list(self.result.systems)

    @property
    def all_systems(self) -> list[str]:
        """Systems scored on every category (``snow`` is not): the headline tables' rows."""
        return [s for s in self.systems if self.result.systems[s]["headline_subset"] == "all"]

    def scored_on(self) -> dict[str, Sequence[str] | None]:
        """Each system's only categories (``None``: every category)."""
        return {
            s: self.result.systems[s].get("tags", {}).get("evaluated_labels") for s in self.systems
        }


#: A section of report.md: its Markdown lines, each ending in a blank line (none: left out).
Section = Callable[[ReportInput], list[str]]


def render_report(
    result: RunResult, info: Mapping[str, Any], plots: Mapping[str, str] | None = None
) -> str:
    """The whole report.md (Markdown; no PHI): the title, a one-screen summary, and then
    every detail section of :data:`SECTIONS`, which the summary links to."""
    report = ReportInput(result, info, plots or {})
    details = [line for section in SECTIONS for line in section(report)]
    out = ["# deid-bench report", "", *summary_section(report, details), *details]
    # names, ids and the command line come from files and arguments: no control character
    # of theirs reaches a reader's terminal or breaks a line of the report
    return printable("\n".join(out), keep="\n") + "\n"


def provenance_section(report: ReportInput) -> list[str]:
    """How the run was made (command, seed, folds, training options, versions) and how to
    read the tables."""
    info = report.info
    return [
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
        f"from the best system's at α = {report.alpha} (approximate randomization over "
        "documents, Holm-corrected over the comparisons with the best system in the table; "
        "uncorrected p-values, z-tests and McNemar in `significance.csv`). CI: percentile "
        "bootstrap over documents. "
        "Published rows are the papers' own figures on *their* data (i2b2 / Partners "
        "discharge summaries), printed for orientation only: they are not comparable "
        "measurements.",
        "",
    ]


def skipped_records_section(report: ReportInput) -> list[str]:
    skipped = {k: v for k, v in report.result.skipped.items() if v}
    if not skipped:
        return []
    listed = ", ".join(f"{k}: {v}" for k, v in skipped.items())
    return [f"Records skipped by `--lenient`: {listed}", ""]


def not_run_section(report: ReportInput) -> list[str]:
    """Systems that cannot run on this machine, with the reason each gave (once each)."""
    why: dict[str, str] = {}
    for f in report.result.failures:
        if f.get("skipped"):
            why.setdefault(f["system"], f["error"].removeprefix("skipped: "))
    if not why:
        return []
    return ["## Not run here", "", md_table(list(why.items()), ["System", "Why"]), ""]


def failures_section(report: ReportInput) -> list[str]:
    failures = [f for f in report.result.failures if not f.get("skipped")]
    if not failures:
        return []
    rows = [[f["system"], f["corpus"], str(f["fold"]), f["error"]] for f in failures]
    return ["## Failures", "", md_table(rows, ["System", "Corpus", "Fold", "Error"]), ""]


def systems_section(report: ReportInput) -> list[str]:
    """Each system's own facts (description, training, scoring subset, departures from its
    source), then the F-measure plot of every system."""
    rows = [
        [
            n,
            s["description"],
            "yes" if s["requires_training"] else "no",
            s["headline_subset"],
            s.get("departures", ""),
        ]
        for n, s in report.result.systems.items()
    ]
    headers = ["System", "What it is", "Trained", "Scored on", "Departures from the source"]
    out = ["## Systems", "", md_table(rows, headers), ""]
    if "f1_ci" in report.plots:
        out += [f"![PHI F-measure with 95% confidence intervals]({report.plots['f1_ci']})", ""]
    return out


def corpora_sections(report: ReportInput) -> list[str]:
    """One section per corpus, each the tables of :data:`CORPUS_TABLES` in order."""
    out: list[str] = []
    for corpus in report.result.splits:
        out += [f"## Corpus `{corpus}`", ""]
        for table in CORPUS_TABLES:
            out += table(report, corpus)
    return out


def _published(corpus: str, subset: str) -> list[str]:
    pub = published_table(corpus, subset)
    return ["Published figures (different data):", "", pub, ""] if pub else []


def _headline_all(report: ReportInput, corpus: str) -> list[str]:
    table = headline_table(report.df, report.sig, corpus, report.all_systems, "all", report.alpha)
    out = ["### PHI and non-PHI (all categories)", "", table, ""] if table else []
    return out + _published(corpus, "all")


def _headline_plo(report: ReportInput, corpus: str) -> list[str]:
    """Every system on people, locations and organizations, when one is scored on those
    only (the SNoW comparison)."""
    if not any(report.result.systems[s]["headline_subset"] == PLO for s in report.systems):
        return []
    table = headline_table(report.df, report.sig, corpus, report.systems, PLO, report.alpha)
    if not table:
        return []
    return [
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
        *_published(corpus, PLO),
    ]


def _compared_on_tables(report: ReportInput, corpus: str) -> list[str]:
    """Every system on each subset some system's source compared it on."""
    from bench.score.metrics import SUBSETS

    out: list[str] = []
    for subset in _compared_on(report.result, report.all_systems):
        table = headline_table(
            report.df, report.sig, corpus, report.all_systems, subset, report.alpha
        )
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
    return out


def _ambiguous_tokens(report: ReportInput, corpus: str) -> list[str]:
    from bench.score.metrics import SUBSETS

    table = subset_table(report.df, corpus, report.systems, "ambiguous", "prf")
    if not table:
        return []
    out = ["### Ambiguous tokens only", "", f"{_sentence(SUBSETS['ambiguous'])}.", "", table, ""]
    return out + _published(corpus, "ambiguous")


def _not_in_dictionary(report: ReportInput, corpus: str) -> list[str]:
    table = subset_table(report.df, corpus, report.systems, "not_in_dictionary", "recall")
    if not table:
        return []
    published = ", ".join(f"{k} {v:.1f}" for k, v in paper_figures.SU06_TABLE13.items())
    return [
        "### PHI not found in dictionaries",
        "",
        table,
        "",
        f"Published (Sibanda & Uzuner 2006, Table 13, different data): {published}.",
        "",
    ]


def _per_category(report: ReportInput, corpus: str) -> list[str]:
    scored_on = report.scored_on()
    table = category_table(report.df, corpus, report.systems, scored_on)
    if not table:
        return []
    out = ["### F-measure per category", "", table, ""]
    partial = [s for s in report.systems if scored_on.get(s) is not None]
    if partial:
        names = ", ".join(f"`{s}`" for s in partial)
        out += [f"{names}: only the categories it is scored on.", ""]
    return out


def _entity_level(report: ReportInput, corpus: str) -> list[str]:
    table = entity_table(report.df, corpus, report.all_systems)
    if not table:
        return []
    out = ["### Entity level (binary PHI)", "", table, ""]
    left_out = [s for s in report.systems if s not in report.all_systems]
    if left_out:
        out += [
            f"Not shown: {', '.join(f'`{s}`' for s in left_out)} (scored on some "
            "categories only; the binary row counts every category).",
            "",
        ]
    return out


def _operating_points(report: ReportInput, corpus: str) -> list[str]:
    table = operating_point_table(report.result.operating_points, corpus)
    if not table:
        return []
    out = [
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
    if key in report.plots:
        out += [f"![Precision-recall curves on {corpus}]({report.plots[key]})", ""]
    return out


#: The tables of each corpus's section, in order.
CORPUS_TABLES: tuple[Callable[[ReportInput, str], list[str]], ...] = (
    _headline_all,
    _headline_plo,
    _compared_on_tables,
    _ambiguous_tokens,
    _not_in_dictionary,
    _per_category,
    _entity_level,
    _operating_points,
)


def external_tools_section(report: ReportInput) -> list[str]:
    """How each external tool ran, and the notes it failed on; empty without one."""
    setups = {n: s for n, s in report.result.systems.items() if s.get("runs_as")}
    if not setups:
        return []
    out = [
        "## External tools: how they ran",
        "",
        "Each tool is run as it is installed here; a note it crashed on, timed out on or "
        "answered with unreadable output is scored as withheld (every token PHI) unless "
        "`on_error=fail` (then its cells fail); a tool that failed on every note of a "
        "fold did not run, and has no score.",
        "",
        md_table(
            [[n, s["runs_as"], str(s.get("failed_notes", 0))] for n, s in setups.items()],
            ["System", "Ran as", "Notes it failed on"],
        ),
        "",
    ]
    failed = [
        [c["system"], c["corpus"], str(c["fold"]), f["document"], f["error"]]
        for c in report.info.get("cells", [])
        for f in (c.get("fitted") or {}).get("note_failures", [])
    ]
    if failed:
        headers = ["System", "Corpus", "Fold", "Document", "What happened"]
        out += [md_table(failed[:50], headers), ""]
        if len(failed) > 50:
            out += [f"... and {len(failed) - 50} more (run.json lists them all).", ""]
    return out


def peer_comparison_section(report: ReportInput) -> list[str]:
    """Each re-implementation beside its original (:mod:`bench.score.peer_comparison`); empty
    unless both ran."""
    df = report.result.peer_comparison
    if df is None or df.empty:
        return []
    out = [
        "## Re-implementations beside their originals",
        "",
        "Both systems on the same test notes. Agreement: share of tokens with the same "
        "PHI / non-PHI decision, and Cohen's κ of those decisions. Recall per gold PHI type: "
        "share of its tokens marked PHI (any category). Throughput: test tokens per second "
        "of the cells computed in this run (`cached`: read from the cache, not timed).",
        "",
    ]
    groups = df.groupby(["corpus", "original", "reimplementation"], sort=False)
    for (corpus, original, reimpl), g in groups:
        out += [
            f"### `{reimpl}` vs its original `{original}` on `{corpus}`",
            "",
            md_table(_peer_rows(g), ["", original, reimpl]),
            "",
        ]
    return out


def _peer_rows(g: pd.DataFrame) -> list[list[str]]:
    """One re-implementation vs its original: agreement, precision, recall overall and per
    gold PHI type, throughput."""
    total = g[g.label == "ALL"].iloc[0]
    rows = [
        ["Agreement (% of tokens)", f"{100 * total.agreement:.2f}", ""],
        ["Cohen's κ", f"{total.kappa:.3f}" if not math.isnan(total.kappa) else "", ""],
        [
            "PHI precision (all types)",
            pct(total.precision_original),
            pct(total.precision_reimplementation),
        ],
        [
            "PHI recall (all types)",
            pct(total.recall_original),
            pct(total.recall_reimplementation),
        ],
    ]
    rows += [
        [
            f"recall of {r.label} ({int(r.tokens)} tokens)",
            pct(r.recall_original),
            pct(r.recall_reimplementation),
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
    return rows


def ledger_report_section(report: ReportInput) -> list[str]:
    """How many configurations were scored on these test notes before (bench.report.ledger)."""
    return ledger_section(report.info)


def generalization_section(report: ReportInput) -> list[str]:
    """Recall on a test variant beside the authentic notes, per category, and whether
    the figure estimates generalization (bench.score.generalization)."""
    return variant_section(report.result, report.info)


def dominance_report_section(report: ReportInput) -> list[str]:
    """Which system is at least as good in precision and recall (bench.score.dominance)."""
    return dominance_section(report.result)


def objective_text(info: Mapping[str, Any]) -> str:
    """"objective `f2`", naming the systems that keep their own (a preset's operating
    point, e.g. ``recall@precision=0.85``)."""
    run = info.get("objective")
    tuned = info.get("tuned_systems") or ()
    own = {
        name: system["objective"]
        for name, system in (info.get("systems") or {}).items()
        if name in tuned and system.get("objective") not in (None, run)
    }
    if not own:
        return f"objective `{run}`"
    theirs = "; ".join(f"`{o}` for `{n}`" for n, o in own.items())
    if len(own) == len(tuned):
        return f"objective {theirs}"
    return f"objective `{run}` ({theirs})"


def tuning_section(report: ReportInput) -> list[str]:
    table = tuned_table(report.info)
    if not table:
        return []
    return [
        "## Chosen inside the training folds (`--tune`)",
        "",
        "Hyperparameters and decision thresholds selected by an inner cross-validation on "
        "each outer fold's training documents only (the test fold never reaches "
        f"selection), {objective_text(report.info)}.  Inner score, P and R are "
        "the chosen candidate's, on the out-of-fold decisions of the training documents.",
        "",
        table,
        "",
    ]


def learning_curve_section(report: ReportInput) -> list[str]:
    curve = report.result.learning_curve
    if curve is None:
        return []
    out = ["## Learning curve", ""]
    if "learning_curve" in report.plots:
        out += [f"![Learning curve]({report.plots['learning_curve']})", ""]
    return [*out, learning_curve_table(curve), ""]


def distribution_section(report: ReportInput) -> list[str]:
    return ["## Corpora: words per class", "", distribution_table(report.result.corpora), ""]


def time_section(report: ReportInput) -> list[str]:
    return ["## Time", "", timing_table(report.info), ""]


#: The detail sections of report.md, in order, below its summary.
SECTIONS: tuple[Section, ...] = (
    provenance_section,
    ledger_report_section,
    skipped_records_section,
    not_run_section,
    failures_section,
    systems_section,
    corpora_sections,
    external_tools_section,
    peer_comparison_section,
    generalization_section,
    dominance_report_section,
    tuning_section,
    learning_curve_section,
    distribution_section,
    time_section,
)


# --------------------------------------------------------------------------- the summary

SUMMARY_TITLE = "Summary"


@dataclass(frozen=True)
class Heading:
    """A heading of report.md and the anchor a Markdown viewer gives it."""

    level: int
    text: str
    anchor: str


def _anchor(text: str) -> str:
    """The anchor GitHub (and most viewers) give a heading: lower case, code marks and
    punctuation dropped (``-`` and ``_`` kept), spaces to ``-``."""
    text = text.replace("`", "").strip().lower()
    kept = "".join(c for c in text if c in "-_ " or unicodedata.category(c)[0] in "LNM")
    return kept.replace(" ", "-")


def headings(lines: Iterable[str], taken: Iterable[str] = ()) -> list[Heading]:
    """The headings among ``lines``, each with its anchor; a repeated heading gets ``-1``,
    ``-2``, ... as on GitHub, counting the headings ``taken`` above them."""
    seen: dict[str, int] = {}
    for text in taken:
        seen[_anchor(text)] = seen.get(_anchor(text), -1) + 1
    out = []
    for line in lines:
        hashes, _, text = line.partition(" ")
        if not hashes or hashes.strip("#"):
            continue
        base = _anchor(text)
        n = seen[base] = seen.get(base, -1) + 1
        out.append(Heading(len(hashes), text, f"{base}-{n}" if n else base))
    return out


def _anchor_of(found: Sequence[Heading], corpus: str, title: str | None = None) -> str | None:
    """The anchor of a corpus's section, or of the subsection ``title`` inside it."""
    inside = False
    for h in found:
        if h.level == 2:
            if inside:
                return None
            inside = h.text == f"Corpus `{corpus}`"
            if inside and title is None:
                return h.anchor
        elif inside and h.text == title:
            return h.anchor
    return None


def summary_section(report: ReportInput, details: Sequence[str]) -> list[str]:
    """The report's first screen: every system's PHI P / R / F on every corpus with the
    marks of the tables below, which differences hold, where each system fails most, and
    links to the detail sections (``details``: their lines, whose headings give anchors)."""
    found = headings("\n".join(details).splitlines(), taken=["deid-bench report", SUMMARY_TITLE])
    return [
        f"## {SUMMARY_TITLE}",
        "",
        *_summary_table(report),
        *_differences(report, found),
        *_weakest(report, found),
        *_missing(report, found),
        "Below: " + " · ".join(f"[{h.text}](#{h.anchor})" for h in found if h.level == 2),
        "",
    ]


def _family(report: ReportInput, subset: str) -> list[str]:
    """The systems a subset's headline table compares (and so the family of its marks)."""
    return report.all_systems if subset == "all" else report.systems


def _ranking(report: ReportInput, corpus: str, subset: str) -> Ranking | None:
    family = _family(report, subset)
    return phi_ranking(report.df, report.sig, corpus, family, subset, report.alpha)


def _summary_table(report: ReportInput) -> list[str]:
    """System x corpus: PHI P / R / F of each system's headline subset, ``*`` as in the
    headline tables."""
    corpora = list(report.result.splits)
    subsets = {s: report.result.systems[s]["headline_subset"] for s in report.systems}
    rankings = {(c, u): _ranking(report, c, u) for c in corpora for u in set(subsets.values())}
    rows = []
    for system, subset in subsets.items():
        cells = []
        for corpus in corpora:
            r = _row(_token_rows(report.df, corpus, subset), system=system, label="PHI")
            ranking = rankings[corpus, subset]
            mark = " *" if ranking is not None and ranking.marked.get(system, False) else ""
            cells.append(
                "" if r is None else f"{pct(r.precision)} / {pct(r.recall)} / {pct(r.f1)}{mark}"
            )
        if any(cells):
            rows.append([system, *cells])
    if not rows:
        return ["No system has scores: see *Failures* and *Not run here* below.", ""]
    out = [
        f"PHI precision / recall / F-measure (%) of each system on each corpus, token level. "
        f"`*`: F-measure differs from the best system's at α = {report.alpha}, as in the "
        "tables below.",
        "",
        md_table(rows, ["System", *(f"`{c}`" for c in corpora)]),
        "",
    ]
    partial = [s for s, u in subsets.items() if u != "all" and any(r[0] == s for r in rows)]
    if partial:
        names = ", ".join(f"`{s}`" for s in partial)
        out += [
            f"{names}: on people, locations and organizations only, marked against the best "
            "system on those.",
            "",
        ]
    return out


def _differences(report: ReportInput, found: Sequence[Heading]) -> list[str]:
    """Per corpus, the best system and whether the others are significantly below it."""
    subset = "all" if report.all_systems else PLO
    lines = []
    bests = set()
    for corpus in report.result.splits:
        ranking = _ranking(report, corpus, subset)
        if ranking is None:
            continue
        bests.add(ranking.best)
        anchor = _anchor_of(found, corpus)
        label = f"[`{corpus}`](#{anchor})" if anchor else f"`{corpus}`"
        lines.append(f"- {label}: {difference_sentence(ranking)}")
    if not lines:
        return []
    head = "**Which differences hold** (PHI F-measure"
    head += ", people, locations and organizations" if subset != "all" else ""
    head += "; approximate randomization over documents, Holm-corrected)."
    if len(lines) > 1 and len(bests) == 1:
        head += f"  `{bests.pop()}` is best on every corpus."
    return [head, "", *lines, ""]


def difference_sentence(ranking: Ranking) -> str:
    """``multi`` has the highest PHI F (99.5), significantly above the runner-up ..."""
    f1 = ranking.f1
    best = ranking.best
    others = sorted((s for s in f1 if s != best and f1[s] >= 0), key=lambda s: -f1[s])
    text = f"`{best}` has the highest PHI F ({pct(f1[best])})"
    if not others:
        return text + "; no other system has scores."
    verdict = {
        s: "untested" if s not in ranking.marked else "below" if ranking.marked[s] else "level"
        for s in others
    }
    runner, rest = others[0], others[1:]
    says = {"below": "significantly above", "level": "not significantly above"}
    text += f", {says.get(verdict[runner], 'not tested against')} the runner-up `{runner}` "
    text += f"({pct(f1[runner])})"
    by = {v: [s for s in rest if verdict[s] == v] for v in ("below", "level", "untested")}
    if rest and len(by["below"]) == len(rest) and verdict[runner] == "below":
        return text + " and every other system."
    if by["level"]:
        text += "; not significantly above " + _named(by["level"], f1)
    if by["below"]:
        n = len(by["below"])
        text += f"; significantly above the other {n} system" + ("s" if n > 1 else "")
    if by["untested"]:
        text += "; not tested against " + _named(by["untested"], f1)
    return text + "."


def _named(systems: Sequence[str], f1: Mapping[str, float]) -> str:
    return ", ".join(f"`{s}` ({pct(f1[s])})" for s in systems)


#: Gold tokens a category needs to be named as a system's weakest (unless none has as many).
MIN_GOLD_TOKENS = 10


def weakest_category(
    df: pd.DataFrame, corpus: str, system: str, scored_on: Sequence[str] | None = None
) -> Any:
    """``system``'s per-category row of ``corpus`` with the lowest F-measure (ties: the
    lower recall, then the label set's order), among the categories that have at least
    :data:`MIN_GOLD_TOKENS` gold tokens (any gold token, where none has as many) and that
    it is scored on; None without per-category rows."""
    tok = _token_rows(df, corpus, "all")
    allowed = [c for c in LABELS if scored_on is None or c in scored_on]
    rows = tok[(tok.system == system) & tok.label.isin(allowed) & ((tok.tp + tok.fn) > 0)]
    if rows.empty:
        return None
    # a category with a handful of gold tokens (one OTHER token in 1,170 notes) says little
    # of where a system fails: it is named only when no category has more
    enough = rows[(rows.tp + rows.fn) >= MIN_GOLD_TOKENS]
    rows = enough if not enough.empty else rows
    return min(rows.itertuples(), key=lambda r: (r.f1, r.recall, LABELS.index(r.label)))


def _weakest(report: ReportInput, found: Sequence[Heading]) -> list[str]:
    """One line per system: its weakest category on each corpus, corpora with the same
    weakest category grouped."""
    corpora = list(report.result.splits)
    scored_on = report.scored_on()
    lines = [
        line
        for system in report.systems
        if (line := _weakest_line(report, system, corpora, scored_on.get(system)))
    ]
    if not lines:
        return []
    tables = [
        f"[`{c}`](#{a})" for c in corpora if (a := _anchor_of(found, c, "F-measure per category"))
    ]
    head = "**Where each system fails most**: its PHI category with the lowest F-measure "
    head += "(ties: the lower recall), among those with gold tokens (at least "
    head += f"{MIN_GOLD_TOKENS} where some category has as many)"
    head += f" (per-category tables: {', '.join(tables)})." if tables else "."
    return [head, "", *lines, ""]


def _weakest_line(
    report: ReportInput, system: str, corpora: Sequence[str], scored_on: Sequence[str] | None
) -> str | None:
    """``- `mimic`: LOCATION (`authentic`: F 21.4, R 44.3; ...)``; None for a system without
    scores (failed, not run)."""
    worst: dict[str, list[str]] = {}
    for corpus in corpora:
        r = weakest_category(report.df, corpus, system, scored_on)
        if r is not None:
            where = f"`{corpus}`: " if len(corpora) > 1 else ""
            worst.setdefault(r.label, []).append(f"{where}F {pct(r.f1)}, R {pct(r.recall)}")
    if worst:
        said = "; ".join(f"{label} ({'; '.join(at)})" for label, at in worst.items())
        return f"- `{system}`: {said}"
    scored = not report.df[report.df.system == system].empty
    if scored and not report.result.systems[system]["predicts_categories"]:
        return f"- `{system}`: labels PHI without a category, so no per-category scores"
    return None


def _missing(report: ReportInput, found: Sequence[Heading]) -> list[str]:
    """Systems absent from the table, or from some of its cells: which failed, which
    could not run here, with links to why."""
    said = []
    for skipped, title, what in ((False, "Failures", "Failed"), (True, "Not run here", "Not run")):
        names = dict.fromkeys(
            f["system"] for f in report.result.failures if bool(f.get("skipped")) == skipped
        )
        anchor = next((h.anchor for h in found if h.level == 2 and h.text == title), None)
        if names and anchor:
            said.append(f"{what}: {', '.join(f'`{s}`' for s in names)} ([{title}](#{anchor})).")
    return [" ".join(said), ""] if said else []


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


Augmentation = tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]


def _augmentation(entry: Mapping[str, Any], default: Augmentation = ((), ())) -> Augmentation:
    """The copies a run (or a system entry of run.json) trains with, and the augmentations
    its tuning chooses between (empty unless a range of copies was given)."""
    if "augment" not in entry:
        return default
    choices = tuple(tuple(c) for c in entry.get("augment_choices") or ())
    return tuple(entry["augment"]), choices


def _describe(augmentation: Augmentation) -> str:
    return describe_augment(*augmentation)


def _own_augment(info: Mapping[str, Any]) -> dict[str, Augmentation]:
    """Learned systems whose training copies differ from the run's ``--augment`` (their
    ``--param NAME.augment``), with their own."""
    run_level = _augmentation(info)
    out = {}
    for name, system in (info.get("systems") or {}).items():
        own = _augmentation(system, run_level)
        if system.get("requires_training") and own != run_level:
            out[name] = own
    return out


def _training_lines(info: Mapping[str, Any]) -> list[str]:
    lines = []
    own = _own_augment(info)
    if info.get("tune") or info.get("tuned_systems"):
        judged = ["authentic", *dict.fromkeys(info.get("augment", ()))]
        how = (
            "`--tune`"
            if info.get("tune")
            else ("always, for " + ", ".join(f"`{s}`" for s in info["tuned_systems"]))
        )
        lines.append(
            f"- Tuning: inside the training folds, {objective_text(info)} "
            f"({how}; {_inner_folds(info)}, "
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
            + _describe(_augmentation(info))
            + (" (systems without their own augmentation below)" if own else "")
        )
    if own:
        lines.append(
            "- Augmentation of each system's own (`--param NAME.augment`, or a preset's): "
            + "; ".join(f"{n}: {_describe(a) if a[0] else 'none'}" for n, a in own.items())
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
    only where no cell was tuned in this run, e.g. every cell read from the cache).  Cells
    whose inner models were the block models shared between outer folds recorded how many
    blocks labelled their training notes: those are said as such, not as inner folds."""
    fitted = [
        c["fitted"]
        for c in info.get("cells", [])
        if isinstance(c.get("fitted"), Mapping) and "inner_folds" in c["fitted"]
    ]
    shared = sorted({int(f["inner_folds"]) for f in fitted if _scheme(f) == SHARED})
    used = sorted({int(f["inner_folds"]) for f in fitted if _scheme(f) != SHARED})
    asked = info.get("inner_folds") or DEFAULT_INNER_FOLDS
    if not used and not shared:
        return f"{asked} inner folds"
    parts = []
    if used:
        text = " or ".join(str(n) for n in used) + " inner folds"
        if 0 in used:
            text += " (0: one candidate and no threshold, nothing to select)"
        parts.append(text)
    if shared:
        parts.append(
            "inner models shared between the outer folds: "
            + " or ".join(str(n) for n in shared)
            + " block models per outer fold, each learning from at least as many notes "
            f"as a model of {asked} inner folds (`systems/cross_fitting.py`)"
        )
    return "; ".join(parts)


def _scheme(fitted: Mapping[str, Any]) -> str:
    """How a cell's inner models were made: a tuned cell's ``inner_scheme``, else a
    stacked system's ``cross_fitting``."""
    return str(fitted.get("inner_scheme") or fitted.get("cross_fitting") or "")


def _overlap_line(overlap: Mapping[str, Any]) -> str:
    """What comparing training and scored notes by content found (:mod:`bench.run.overlap`),
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
                cells.append(f"{pct(r.precision)} (t = {r.threshold:.3g})")
        rows.append([system, *cells])
    return md_table(rows, ["System", *(f"P at R ≥ {100 * lv:g} %" for lv in levels)])


def _value(name: str, v: Any) -> str:
    """A chosen parameter as a reader wants it: floats to four significant digits, an
    augmentation (``variants``, chosen from a range of copies) as its copies:
    ``(unseen ×2, surrogate)``."""
    if name == VARIANTS and isinstance(v, list | tuple):
        return f"({describe_augment(v)})"
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
                ", ".join(f"{k}={_value(k, v)}" for k, v in sorted(chosen.items())),
                "" if score is None else f"{score:.3f}",
                "" if p is None or r is None else f"{pct(p)} / {pct(r)}",
            ]
        )
    if not rows:
        return None
    return md_table(rows, ["System", "Corpus", "Fold", "Chosen", "Inner score", "Inner P / R"])


def learning_curve_table(lc: pd.DataFrame) -> str:
    sel = lc[(lc.level == "token") & (lc.subset == "all") & (lc.label == "PHI")]
    fractions = sorted(sel.train_fraction.unique())
    lines = []
    for (corpus, system), g in sel.groupby(["corpus", "system"], sort=True):
        by = {float(r.train_fraction): r for r in g.itertuples()}
        lines.append([corpus, system, *(pct(by[f].f1) if f in by else "" for f in fractions)])
    return md_table(lines, ["Corpus", "System", *(f"{100 * f:g} %" for f in fractions)])


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
    paths: dict[str, Path] = {}
    if _plot_f1_ci(result, out / "f1_ci.png"):
        paths["f1_ci"] = out / "f1_ci.png"
    if _plot_learning_curve(result, out / "learning_curve.png"):
        paths["learning_curve"] = out / "learning_curve.png"
    stems = plot_stems(result.curves)
    for corpus, curves in result.curves.items():
        if curves:
            paths[f"pr:{corpus}"] = out / f"{stems[corpus]}.png"
            _plot_precision_recall(corpus, curves, paths[f"pr:{corpus}"])
    return paths


def _plot_f1_ci(result: RunResult, path: Path) -> bool:
    """Each system's PHI F (its headline subset) per corpus with its bootstrap interval;
    False (nothing written) when no system has scores."""
    import matplotlib.pyplot as plt

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
    if not rows:
        return False
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
    _save(fig, path)
    plt.close(fig)
    return True


def _plot_learning_curve(result: RunResult, path: Path) -> bool:
    """PHI precision and recall against the training fraction, one panel per corpus;
    False (nothing written) without a learning curve."""
    import matplotlib.pyplot as plt

    lc = result.learning_curve
    if lc is None or lc.empty:
        return False
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
    _save(fig, path)
    plt.close(fig)
    return True


def _plot_precision_recall(corpus: str, curves: Mapping[str, Any], path: Path) -> None:
    """The precision-recall curves of ``corpus`` (system -> (recall, precision)), with the
    recall levels of the operating points marked."""
    import matplotlib.pyplot as plt

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
    _save(fig, path)
    plt.close(fig)

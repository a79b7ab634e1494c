"""The Markdown and figures of ``statdeid.md``: the report's accuracy, kernels, ablations
and learning curve beside ours, and the claims.

Figures are kept as the fractions the runs produce and rounded once, when printed.  The
report states no test, so the tables carry no z-test: their p are the approximate
randomization over documents the claims use (uncorrected; the claims correct them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from bench.report.markdown import pct
from bench.reproduce import paper_figures
from bench.reproduce import verdicts as tests
from bench.reproduce.common import (
    Clock,
    Verdict,
    data_reason,
    failures_section,
    figure_png,
    fmt_p,
    header,
    md_table,
    verdict_section,
)
from bench.reproduce.statdeid.design import KERNELS, REPORT_ACCURACY, REPORT_CLASSES, TITLE
from systems.base import SYSTEMS

if TYPE_CHECKING:
    from bench.reproduce.statdeid.experiments import Context


def report(ctx: Context, verdicts: Sequence[Verdict], clock: Clock) -> tuple[str, dict[str, bytes]]:
    """The whole report, and its figures (file name -> PNG)."""
    from bench.reproduce.statdeid.experiments import ablation_rows

    options = ctx.options
    curve = _curve_points(ctx)
    figures = {
        "statdeid-ablation.png": _ablation_figure(ctx.ablations),
        "statdeid-learning-curve.png": _learning_curve_figure(curve),
    }
    md = header(
        TITLE,
        options,
        clock,
        [
            f"- Corpus: `{options.base}` ({len(ctx.corpus)} notes, {ctx.corpus.n_tokens:,} "
            "tokens); the report's: the i2b2 2006 Challenge corpus (889 discharge summaries, "
            "669 training / 220 test)",
            f"- System: `{ctx.system}` (binary, linear; defaults)",
            f"- Protocols: accuracy, ablations and learning curve by {options.folds}-fold "
            "cross-validation by document; kernels: a random 25 % test part and 50 random "
            f"training documents from the rest (seed {options.seed}), as in the report",
        ],
    )
    md += failures_section([ctx.lc_result])
    md += verdict_section(verdicts)
    md += ["## The tables", ""]
    md += _accuracy_section(ctx.lc_result.results, options.base, ctx.system)
    md += _kernel_section(ctx)
    md += _ablation_section(ctx, ablation_rows)
    md += _learning_curve_section(curve)
    md += [
        "## Why our figures differ from the report's",
        "",
        f"- The data: {data_reason(options.base)}",
        f"- The SVM: {SYSTEMS['svm'].departures}.",
        "- The report's figures come from one 669/220 split; ours (except the kernels) pool "
        "every test fold of a cross-validation.",
        "",
    ]
    return "\n".join(md) + "\n", figures


def _curve_points(ctx: Context) -> dict[float, Any]:
    """Training fraction -> the PHI row of the learning curve (every token)."""
    lc = ctx.lc_result.learning_curve
    if lc is None:
        return {}
    sel = lc[
        (lc.corpus == ctx.options.base)
        & (lc.system == ctx.system)
        & (lc.level == "token")
        & (lc.subset == "all")
        & (lc.label == "PHI")
    ]
    return {float(r.train_fraction): r for r in sel.itertuples()}


def _accuracy_section(df: Any, corpus: str, system: str) -> list[str]:
    from bench.reproduce.common import row

    rows = []
    for label in ("PHI", "non-PHI"):
        r = row(df, system, corpus, "all", label)
        p, rc, f = REPORT_ACCURACY[label]
        rows.append(
            [
                label,
                f"{p:.2f}",
                pct(None if r is None else float(r.precision), 2),
                f"{rc:.2f}",
                pct(None if r is None else float(r.recall), 2),
                f"{f:.2f}",
                pct(None if r is None else float(r.f1), 2),
            ]
        )
    phi = row(df, system, corpus, "all", "PHI")
    c = paper_figures.SD_CONFUSION
    confusion = ""
    if phi is not None:
        non = row(df, system, corpus, "all", "non-PHI")
        tn = int(non.tp) if non is not None else 0
        confusion = md_table(
            [
                [
                    "predicted PHI",
                    f"{c['tp']:,}",
                    f"{int(phi.tp):,}",
                    f"{c['fp']:,}",
                    f"{int(phi.fp):,}",
                ],
                [
                    "predicted non-PHI",
                    f"{c['fn']:,}",
                    f"{int(phi.fn):,}",
                    f"{c['tn']:,}",
                    f"{tn:,}",
                ],
            ],
            ["", "actual PHI: report", "ours", "actual non-PHI: report", "ours"],
        )
    printed_p = 100 * c["tp"] / (c["tp"] + c["fp"])
    printed_r = 100 * c["tp"] / (c["tp"] + c["fn"])
    return [
        "### §5.3 Accuracy (report: i2b2 2006 test set; ours: cross-validation)",
        "",
        md_table(rows, ["Class", "P report", "P ours", "R report", "R ours", "F report", "F ours"]),
        "",
        confusion,
        "",
        f"The report's confusion matrix (its Table 2) gives P {printed_p:.2f} / R "
        f"{printed_r:.2f}, its text P {REPORT_ACCURACY['PHI'][0]:.2f} / R "
        f"{REPORT_ACCURACY['PHI'][1]:.2f}: the two are swapped in one of them; "
        "the text's figures are the ones the report compares with Stat De-id.",
        "",
    ]


def _kernel_section(ctx: Context) -> list[str]:
    k = {r.kernel: r for r in ctx.kernels.itertuples()}
    rows = []
    for ours, theirs in KERNELS.items():
        if ours not in k:
            continue
        r = k[ours]
        pub = paper_figures.SD_KERNELS[theirs]
        p_cells = ["", ""]
        if ours != "linear" and "linear" in k:
            p_cells = [
                fmt_p(tests.higher("", r.phi_counts, k["linear"].phi_counts, ctx.options, s).p)
                for s in ("precision", "recall")
            ]
        rows.append(
            [
                theirs,
                f"{pub[0]:.1f}",
                pct(r.precision),
                f"{pub[1]:.1f}",
                pct(r.recall),
                f"{pub[2]:.1f}",
                pct(r.non_phi_precision),
                f"{pub[3]:.1f}",
                pct(r.non_phi_recall),
                *p_cells,
                f"{r.train_seconds:.1f}",
            ]
        )
    n_train = int(ctx.kernels.train_tokens.iloc[0]) if len(ctx.kernels) else 0
    headers = [
        "Kernel",
        "PHI P report",
        "ours",
        "PHI R report",
        "ours",
        "non-PHI P report",
        "ours",
        "non-PHI R report",
        "ours",
        "p(P) vs linear",
        "p(R) vs linear",
        "train s",
    ]
    return [
        "### Table 3: kernels, 50 training documents",
        "",
        f"Trained on 50 documents ({n_train:,} tokens), tested on the held-out quarter. p: "
        "approximate randomization over the test documents of the kernel's PHI precision / "
        "recall against the linear kernel's (uncorrected).",
        "",
        md_table(rows, headers),
        "",
    ]


def _ablation_table_rows(ctx: Context, ablation_rows: Any) -> list[list[str]]:
    """Every class first (the figures' baselines), then each class alone and all but it."""
    full = ablation_rows(ctx.ablations, "all").get("all")
    reverse = {v: k for k, v in REPORT_CLASSES.items()}
    quoted = {
        ("only", "lexical_bigrams"): "only lexical bigrams",
        ("only", "section"): "only section heading",
        ("without", "word"): "all but word itself",
    }
    published = {
        key: ", ".join(f"{m} {v:.2f}" for m, v in paper_figures.SD_ABLATION[what].items())
        for key, what in quoted.items()
    }
    rows = []
    if full is not None:
        baseline = f"{REPORT_ACCURACY['PHI'][0]:.2f} / {REPORT_ACCURACY['PHI'][1]:.2f}"
        rows.append(["every class", "(baseline)", "", *_scores(full), "", "", baseline])
    for mode in ("only", "without"):
        for name, r in ablation_rows(ctx.ablations, mode).items():
            p_cells = ["", ""]
            if full is not None:
                p_cells = [
                    fmt_p(tests.higher("", r.phi_counts, full.phi_counts, ctx.options, s).p)
                    for s in ("precision", "recall")
                ]
            rows.append(
                [
                    f"{mode} {name}",
                    reverse.get(name, ""),
                    mode,
                    *_scores(r),
                    *p_cells,
                    published.get((mode, name), ""),
                ]
            )
    return rows


def _scores(r: Any) -> list[str]:
    return [pct(r.precision), pct(r.recall), pct(r.non_phi_precision), pct(r.non_phi_recall)]


def _ablation_section(ctx: Context, ablation_rows: Any) -> list[str]:
    headers = [
        "Model",
        "report's class",
        "mode",
        "PHI P",
        "PHI R",
        "non-PHI P",
        "non-PHI R",
        "p(P)",
        "p(R)",
        "report",
    ]
    out = [
        "### Figures 2-5: one feature class alone, or all but one",
        "",
        "PHI and non-PHI precision / recall (%) by cross-validation; the first row is every "
        "class (the figures' baselines). Report classes are named in the second column "
        "(ours split its lexical information into the word itself, its neighbours and the "
        "bigrams); p: approximate randomization over documents of the row's PHI precision / "
        "recall against every class (uncorrected).",
        "",
        md_table(_ablation_table_rows(ctx, ablation_rows), headers),
        "",
    ]
    ran = set(ctx.ablations.feature_class)
    missing = [n for n, ours in REPORT_CLASSES.items() if ours not in ran]
    if missing:
        out += [
            f"Not run here: {', '.join(missing)} (the Link Grammar parser is not installed; "
            "`systems.features.linkgrammar` says how to install it).",
            "",
        ]
    out += ["![Feature classes alone and all but one](statdeid-ablation.png)", ""]
    return out


def _learning_curve_section(curve: Mapping[float, Any]) -> list[str]:
    if not curve:
        return ["### Figures 6-7: learning curve", "", "(not run)", ""]
    rows = [
        [f"{100 * f:g} %", pct(r.precision), pct(r.recall), pct(r.f1)]
        for f, r in sorted(curve.items())
    ]
    return [
        "### Figures 6-7: learning curve",
        "",
        "Each training fold cut to nested fractions (the test folds unchanged); PHI "
        "precision / recall / F (%). The report shows the same shape on the i2b2 corpus "
        "(no figures are printed in its text).",
        "",
        md_table(rows, ["Training set", "PHI P", "PHI R", "PHI F"]),
        "",
        "![Learning curve](statdeid-learning-curve.png)",
        "",
    ]


# --------------------------------------------------------------------------- figures


def _ablation_figure(ablations: Any) -> bytes:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from bench.reproduce.statdeid.experiments import ablation_rows

    full = ablation_rows(ablations, "all").get("all")
    fig, axes = plt.subplots(2, 2, figsize=(11, 7))
    for col, mode in enumerate(("only", "without")):
        rows = ablation_rows(ablations, mode)
        names = list(rows)
        x = np.arange(len(names))
        for i, (measure, phi_key, non_key) in enumerate(
            (
                ("precision", "precision", "non_phi_precision"),
                ("recall", "recall", "non_phi_recall"),
            )
        ):
            ax = axes[i][col]
            ax.bar(x - 0.2, [getattr(rows[n], phi_key) for n in names], 0.4, label="PHI")
            ax.bar(x + 0.2, [getattr(rows[n], non_key) for n in names], 0.4, label="non-PHI")
            if full is not None:
                ax.axhline(getattr(full, phi_key), color="C0", ls="--", lw=1, label="PHI baseline")
                ax.axhline(
                    getattr(full, non_key), color="C1", ls="--", lw=1, label="non-PHI baseline"
                )
            ax.set_xticks(x, names, rotation=35, ha="right", fontsize="small")
            ax.set_title(f"{measure}, {'one class alone' if mode == 'only' else 'all but one'}")
            # the report's all-but-one figures zoom in: every bar is near the baseline
            ax.set_ylim(*((0, 1.02) if mode == "only" else (0.8, 1.005)))
            ax.grid(axis="y", alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=4, fontsize="small")
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    return figure_png(fig)


def _learning_curve_figure(curve: Mapping[float, Any]) -> bytes:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    fractions = sorted(curve)
    if fractions:
        x = [100 * f for f in fractions]
        ax.plot(x, [curve[f].precision for f in fractions], "o-", label="PHI precision")
        ax.plot(x, [curve[f].recall for f in fractions], "s--", label="PHI recall")
        ax.set_xscale("log", base=2)
    ax.set_xlabel("training set (% of each training fold)")
    ax.set_ylabel("PHI precision / recall")
    ax.set_title("Learning curve (report Figures 6-7)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    return figure_png(fig)

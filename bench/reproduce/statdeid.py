"""``python -m bench reproduce statdeid``: the Stat De-id re-implementation report.

The report (an MIT 6.864 project re-implementing Stat De-id, Uzuner et al. 2008) measures
its binary SVM on the i2b2 2006 Challenge corpus (§5.3), then asks three questions:

* which feature classes matter -- one class enabled at a time and one disabled at a time
  (§5.4, Figures 2-5), run here by :func:`bench.ablation.feature_ablation`;
* which kernel -- linear, quadratic and Gaussian trained on 50 documents (§5.5, Table 3), run
  by :func:`bench.ablation.kernel_experiment` on the same kind of split (a random 25 % test
  part, 50 random training documents from the rest);
* how much data -- training on 3.125 % to 100 % of the training set (§5.6, Figures 6-7), run
  by the runner's learning-curve protocol (nested fractions of each training fold).

The report used one fixed 669/220 split; the ablations and the learning curve here use
cross-validation over the whole base corpus (every document tested once), the kernels the
report's split.  It states no significance test; ours: the two-proportion z-test on precision
and recall (Tafvizi 2011 eq. 3.4-3.5) where only pooled counts exist (kernels, ablations),
paired approximate randomization over documents where the same documents were labelled
twice (the learning curve).

Substitutes: the report's OpenNLP tagger is NLTK's; MeSH is WordNet noun classes; the
Link Grammar syntactic bigrams are optional (:mod:`systems.features.linkgrammar`) and left
out where the parser is not installed; our Stat De-id feature classes split the report's
"lexical" information into the word itself, its neighbours and the lexical bigrams.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from bench import paper_figures
from bench.reproduce.common import (
    NOT_SUPPORTED,
    NOT_TESTED,
    PARTLY,
    SUPPORTED,
    Clock,
    Options,
    Report,
    Role,
    Verdict,
    data_reason,
    document_counts,
    failures_section,
    figure_png,
    fmt_p,
    header,
    md_table,
    paired_difference,
    pct,
    roles_from,
    run,
    scorer_for,
    verdict_section,
)
from systems.base import SYSTEMS

NAME = "statdeid"
TITLE = "The Stat De-id re-implementation report, reproduced"

ROLES: dict[str, Role] = {"svm": Role("svm", "svm", {}, "Stat De-id (binary SVM)")}
#: The report's feature classes (Figures 2-5) -> ours.
REPORT_CLASSES = {
    "word itself": "word",
    "syntactic bigrams": "syntactic_bigrams",
    "lexical bigrams": "lexical_bigrams",
    "orthography": "orthography",
    "part of speech": "pos",
    "section heading": "section",
}
#: Report §5.3 (i2b2 2006 test set), percent: class -> (P, R, F).
REPORT_ACCURACY = {
    label: (p, r, f)
    for who, _ours, label, p, r, f in paper_figures.SD_I2B2
    if who == "re-implementation"
}
#: Recall points the report calls "very little" to lose: Table 3's linear minus Gaussian
#: PHI recall.
LITTLE_RECALL_POINTS = round(
    paper_figures.SD_KERNELS["linear"][1] - paper_figures.SD_KERNELS["gaussian"][1], 1
)
#: A section-only model "finds no PHI" below this recall (the report: 0 %).
NOTHING_FOUND = 0.01
#: A change of non-PHI precision or recall (points) that counts as "affected": the report's
#: Figures 4-5 draw non-PHI bars on a 0.8-1.0 axis, where half a point is not visible.
NON_PHI_POINTS = 0.5


def reproduce(options: Options) -> Report:
    """Run the report's experiments and build ``statdeid.md`` and its figures."""
    from bench import ablation

    clock = Clock()
    roles = roles_from(ROLES, options)
    svm = roles["svm"]

    # Learning curve (and, at 100 %, the §5.3 accuracy): the runner, cached.
    lc_result = run(options.run_config([svm], [options.base], protocol="learning-curve"))
    scorer = scorer_for(lc_result)
    corpus = lc_result.corpora[options.base]
    lc = lc_result.learning_curve

    # Kernels (Table 3) and ablations (Figures 2-5).
    kernels = ablation.kernel_experiment(
        corpus, train_documents=50, seed=options.seed, system_params=dict(svm.params)
    )
    ablations = ablation.feature_ablation(
        corpus,
        mode="both",
        folds=options.folds,
        seed=options.seed,
        system_params=dict(svm.params),
        include_optional=True,
    )

    verdicts = [
        claim_gaussian_precision(kernels, options.alpha),
        claim_quadratic_extremes(kernels, options.alpha),
        claim_lexical_bigrams_best(ablations),
        claim_section_alone(ablations),
        claim_word_precision(ablations, options.alpha),
        claim_word_orthography_recall(ablations),
        claim_non_phi_unaffected(ablations),
    ]
    curve = _curve_points(lc, options.base, svm.name)
    lc_verdicts, lc_tests = learning_curve_claims(scorer, svm.name, options.base, curve, options)
    verdicts += lc_verdicts

    figures = {
        "statdeid-ablation.png": _ablation_figure(ablations),
        "statdeid-learning-curve.png": _learning_curve_figure(curve),
    }
    md = header(
        TITLE,
        options,
        clock,
        [
            f"- Corpus: `{options.base}` ({len(corpus)} notes, {corpus.n_tokens:,} tokens); "
            "the report's: the i2b2 2006 Challenge corpus (889 discharge summaries, 669 "
            "training / 220 test)",
            f"- System: `{svm.name}` (binary, linear; {_params(svm.params) or 'defaults'})",
            f"- Protocols: accuracy, ablations and learning curve by {options.folds}-fold "
            "cross-validation by document; kernels: a random 25 % test part and 50 random "
            f"training documents from the rest (seed {options.seed}), as in the report",
        ],
    )
    md += failures_section([lc_result])
    md += verdict_section(verdicts)
    md += ["## The tables", ""]
    md += _accuracy_section(lc_result.results, options.base, svm.name)
    md += _kernel_section(kernels, options.alpha)
    md += _ablation_section(ablations)
    md += _learning_curve_section(curve, lc_tests)
    md += [
        "## Why our figures differ from the report's",
        "",
        f"- The data: {data_reason(options.base)}",
        f"- The SVM: {SYSTEMS['svm'].departures}.",
        "- The report's figures come from one 669/220 split; ours (except the kernels) pool "
        "every test fold of a cross-validation.",
        "",
    ]
    return Report(NAME, "\n".join(md) + "\n", verdicts, figures, failed=lc_result.failed)


# --------------------------------------------------------------------------- helpers


def _params(params: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items())


def _z(successes_a: float, n_a: float, successes_b: float, n_b: float) -> tuple[float, float]:
    from bench.significance import two_proportion_z_test

    return two_proportion_z_test(int(successes_a), int(n_a), int(successes_b), int(n_b))


def _precision_z(a: Any, b: Any) -> tuple[float, float]:
    """Z and p of a's PHI precision against b's (tp of tp + fp)."""
    return _z(a.tp, a.tp + a.fp, b.tp, b.tp + b.fp)


def _recall_z(a: Any, b: Any) -> tuple[float, float]:
    """Z and p of a's PHI recall against b's (tp of tp + fn)."""
    return _z(a.tp, a.tp + a.fn, b.tp, b.tp + b.fn)


def _kernel(name: str, column: int) -> str:
    """Table 3's figure for kernel ``name`` (columns: PHI P, PHI R, non-PHI P, non-PHI R)."""
    return f"{paper_figures.SD_KERNELS[name][column]:.1f}"


def _quoted(what: str, measure: str) -> str:
    """A figure the report quotes in §5.4 (:data:`bench.paper_figures.SD_ABLATION`)."""
    return f"{paper_figures.SD_ABLATION[what][measure]:.2f}"


def _by(frame: Any, column: str) -> dict[str, Any]:
    return {getattr(r, column): r for r in frame.itertuples()}


def _ablation_rows(ablations: Any, mode: str) -> dict[str, Any]:
    sel = ablations[ablations["mode"] == mode]
    return {r.feature_class: r for r in sel.itertuples()}


def _report_classes(rows: Mapping[str, Any]) -> dict[str, Any]:
    """The rows of the report's classes that ran here (report name -> row)."""
    return {name: rows[ours] for name, ours in REPORT_CLASSES.items() if ours in rows}


# --------------------------------------------------------------------------- the rules


def claim_gaussian_precision(kernels: Any, alpha: float) -> Verdict:
    """§5.5: the Gaussian kernel beats the linear one on PHI precision and loses very
    little recall."""
    k = _by(kernels, "kernel")
    if "rbf" not in k or "linear" not in k:
        verdict, evidence, p = NOT_TESTED, "not run", float("nan")
    else:
        g, lin = k["rbf"], k["linear"]
        _, p = _precision_z(g, lin)
        better = p < alpha and g.precision > lin.precision
        cost = 100 * (lin.recall - g.recall)
        verdict = (
            SUPPORTED
            if better and round(cost, 1) <= LITTLE_RECALL_POINTS
            else PARTLY
            if better
            else NOT_SUPPORTED
        )
        evidence = (
            f"PHI precision Gaussian {pct(g.precision)} vs linear {pct(lin.precision)} "
            f"(p {fmt_p(p)}); recall {pct(g.recall)} vs {pct(lin.recall)} ({cost:+.1f} points "
            f"lost) (report: {_kernel('gaussian', 0)} vs {_kernel('linear', 0)}; "
            f"{_kernel('gaussian', 1)} vs {_kernel('linear', 1)})"
        )
    return Verdict(
        "The Gaussian kernel beats the linear one on PHI precision, losing very little recall",
        "§5.5, Table 3",
        verdict,
        evidence,
        f"two-proportion z-test on precision (eq. 3.4-3.5 of Tafvizi 2011), α = {alpha}",
        "supported if the Gaussian kernel's precision is significantly higher and it loses at "
        f"most {LITTLE_RECALL_POINTS:.1f} recall points (the loss the report calls very "
        "little); partly if only the precision holds; not supported otherwise",
    )


def claim_quadratic_extremes(kernels: Any, alpha: float) -> Verdict:
    """Table 3: the quadratic kernel has the highest PHI precision and the lowest recall."""
    k = _by(kernels, "kernel")
    if not {"poly", "linear", "rbf"} <= set(k):
        return Verdict(
            "The quadratic kernel has the highest PHI precision and the lowest recall",
            "§5.5, Table 3",
            NOT_TESTED,
            "not run",
            "",
            "",
        )
    q, others = k["poly"], [k["linear"], k["rbf"]]
    p_prec = max(_precision_z(q, o)[1] for o in others)
    p_rec = max(_recall_z(q, o)[1] for o in others)
    top_p = all(q.precision > o.precision for o in others) and p_prec < alpha
    low_r = all(q.recall < o.recall for o in others) and p_rec < alpha
    verdict = SUPPORTED if top_p and low_r else PARTLY if top_p or low_r else NOT_SUPPORTED
    return Verdict(
        "The quadratic kernel has the highest PHI precision and the lowest recall",
        "§5.5, Table 3",
        verdict,
        f"quadratic P {pct(q.precision)} / R {pct(q.recall)}; linear {pct(k['linear'].precision)}"
        f" / {pct(k['linear'].recall)}; Gaussian {pct(k['rbf'].precision)} / "
        f"{pct(k['rbf'].recall)} (largest p against the other two: precision {fmt_p(p_prec)}, "
        "recall "
        f"{fmt_p(p_rec)}) (report: {_kernel('quadratic', 0)} / {_kernel('quadratic', 1)})",
        f"two-proportion z-tests on precision and recall against each other kernel, α = {alpha}",
        "supported if the quadratic kernel's precision is significantly above and its recall "
        "significantly below both others'; partly if one of the two; not supported if neither",
    )


def claim_lexical_bigrams_best(ablations: Any) -> Verdict:
    """§5.4.1: of the classes alone, lexical bigrams give the best precision and recall."""
    rows = _report_classes(_ablation_rows(ablations, "only"))
    if "lexical bigrams" not in rows:
        return Verdict(
            "Lexical bigrams alone give the best PHI precision and recall of any class",
            "§5.4.1, Figures 2-3",
            NOT_TESTED,
            "not run",
            "",
            "",
        )
    best_p = max(rows, key=lambda n: rows[n].precision)
    best_r = max(rows, key=lambda n: rows[n].recall)
    hits = [best_p == "lexical bigrams", best_r == "lexical bigrams"]
    verdict = SUPPORTED if all(hits) else PARTLY if any(hits) else NOT_SUPPORTED
    lex = rows["lexical bigrams"]
    return Verdict(
        "Lexical bigrams alone give the best PHI precision and recall of any class",
        "§5.4.1, Figures 2-3",
        verdict,
        f"alone, lexical bigrams P {pct(lex.precision)} / R {pct(lex.recall)}; best precision: "
        f"{best_p} ({pct(rows[best_p].precision)}), best recall: {best_r} "
        f"({pct(rows[best_r].recall)}) among the report's classes run here "
        f"(report: {_quoted('only lexical bigrams', 'precision')} / "
        f"{_quoted('only lexical bigrams', 'recall')})",
        "comparison of point estimates among the report's classes",
        "supported if lexical bigrams have both the highest precision and the highest recall "
        "of the report's classes used alone; partly if one; not supported if neither",
    )


def claim_section_alone(ablations: Any) -> Verdict:
    """§5.4.1: section headings alone find no PHI."""
    rows = _ablation_rows(ablations, "only")
    if "section" not in rows:
        verdict, evidence = NOT_TESTED, "not run"
    else:
        r = rows["section"]
        verdict = SUPPORTED if r.recall < NOTHING_FOUND else NOT_SUPPORTED
        evidence = f"section headings alone: PHI P {pct(r.precision)} / R {pct(r.recall)}"
    return Verdict(
        "Section headings alone find no PHI",
        "§5.4.1",
        verdict,
        evidence + f" (report: {_quoted('only section heading', 'precision')} / "
        f"{_quoted('only section heading', 'recall')})",
        "the recall itself",
        f"supported if the PHI recall is below {100 * NOTHING_FOUND:g} %; not supported otherwise",
    )


def claim_word_precision(ablations: Any, alpha: float) -> Verdict:
    """§5.4.2: disabling the word itself hurts PHI precision most."""
    full = _ablation_rows(ablations, "all").get("all")
    rows = _report_classes(_ablation_rows(ablations, "without"))
    if full is None or "word itself" not in rows:
        verdict, evidence = NOT_TESTED, "not run"
    else:
        drops = {n: full.precision - r.precision for n, r in rows.items()}
        worst = max(drops, key=lambda n: drops[n])
        _, p = _precision_z(full, rows["word itself"])
        significant = SUPPORTED if p < alpha else PARTLY
        verdict = significant if worst == "word itself" else NOT_SUPPORTED
        evidence = (
            f"without the word itself PHI precision {pct(rows['word itself'].precision)} vs "
            f"{pct(full.precision)} with every class (p {fmt_p(p)}); the largest drop: {worst} "
            f"({100 * drops[worst]:+.1f} points) (report: {REPORT_ACCURACY['PHI'][0]:.2f} → "
            f"{_quoted('all but word itself', 'precision')})"
        )
    return Verdict(
        "Disabling the word itself hurts PHI precision most",
        "§5.4.2, Figure 4",
        verdict,
        evidence,
        f"two-proportion z-test on precision, α = {alpha}",
        "supported if removing the word itself lowers precision more than removing any other "
        "of the report's classes, significantly; partly if the most but not significantly; "
        "not supported otherwise",
    )


def claim_word_orthography_recall(ablations: Any) -> Verdict:
    """§5.4.2: disabling the word itself or orthography hurts PHI recall most."""
    full = _ablation_rows(ablations, "all").get("all")
    rows = _report_classes(_ablation_rows(ablations, "without"))
    if full is None or not {"word itself", "orthography"} <= set(rows):
        verdict, evidence = NOT_TESTED, "not run"
    else:
        drops = {n: full.recall - r.recall for n, r in rows.items()}
        order = sorted(drops, key=lambda n: -drops[n])
        pair = {"word itself", "orthography"}
        verdict = (
            SUPPORTED if set(order[:2]) == pair else PARTLY if order[0] in pair else NOT_SUPPORTED
        )
        evidence = (
            "recall drops: "
            + ", ".join(f"{n} {100 * drops[n]:+.1f}" for n in order)
            + " points (report: both to "
            + _quoted("all but word itself / orthography (recall)", "recall")
            + f" from {REPORT_ACCURACY['PHI'][1]:.2f})"
        )
    return Verdict(
        "Disabling the word itself or orthography hurts PHI recall most",
        "§5.4.2, Figure 5",
        verdict,
        evidence,
        "comparison of point estimates",
        "supported if the two largest recall drops are those of the word itself and "
        "orthography; partly if the largest is one of them; not supported otherwise",
    )


def claim_non_phi_unaffected(ablations: Any) -> Verdict:
    """§5.4.2: non-PHI precision and recall are not affected by disabling one class."""
    full = _ablation_rows(ablations, "all").get("all")
    rows = _ablation_rows(ablations, "without")
    if full is None or not rows:
        verdict, evidence = NOT_TESTED, "not run"
    else:
        change = {
            n: 100
            * max(
                abs(r.non_phi_precision - full.non_phi_precision),
                abs(r.non_phi_recall - full.non_phi_recall),
            )
            for n, r in rows.items()
        }
        worst = max(change, key=lambda n: change[n])
        verdict = SUPPORTED if change[worst] < NON_PHI_POINTS else NOT_SUPPORTED
        evidence = f"largest change of non-PHI P or R: {worst}, {change[worst]:.2f} points"
    return Verdict(
        "Disabling a single class leaves non-PHI precision and recall unaffected",
        "§5.4.2, Figures 4-5",
        verdict,
        evidence,
        "size of the change",
        f"supported if no class's removal moves non-PHI precision or recall by "
        f"{NON_PHI_POINTS:g} point or more; not supported otherwise",
    )


def _curve_points(lc: Any, corpus: str, system: str) -> dict[float, Any]:
    """Training fraction -> the PHI row of the learning curve (every token)."""
    if lc is None:
        return {}
    sel = lc[
        (lc.corpus == corpus)
        & (lc.system == system)
        & (lc.level == "token")
        & (lc.subset == "all")
        & (lc.label == "PHI")
    ]
    return {float(r.train_fraction): r for r in sel.itertuples()}


def learning_curve_claims(
    scorer: Any, system: str, corpus: str, curve: Mapping[float, Any], options: Options
) -> tuple[list[Verdict], dict[str, tuple[float, float]]]:
    """The three claims of §5.6 and their tests ({test name: (difference, p)})."""
    from bench.reproduce.common import aligned
    from bench.significance import STATISTICS, paired_bootstrap_ci

    fractions = sorted(curve)
    tests: dict[str, tuple[float, float]] = {}
    if len(fractions) < 2:
        return [
            Verdict(c, "§5.6, Figures 6-7", NOT_TESTED, "not run", "", "")
            for c in (
                "Precision and recall both improve with more training data",
                "The gain is larger for recall than for precision",
                "A larger training set would still help",
            )
        ], tests
    small, half, full = fractions[0], _nearest(fractions, 0.5), fractions[-1]
    counts = {f: document_counts(scorer, system, corpus, fraction=f) for f in fractions}
    for name, (lo, hi) in {"smallest": (small, full), "half": (half, full)}.items():
        for statistic in ("precision", "recall"):
            diff, p, _ = paired_difference(counts[hi], counts[lo], options, statistic)
            tests[f"{statistic} {name}"] = (diff, p)
    alpha = options.alpha

    both = [tests[f"{s} smallest"] for s in ("precision", "recall")]
    up = [d > 0 and p < alpha for d, p in both]
    v1 = SUPPORTED if all(up) else PARTLY if any(up) else NOT_SUPPORTED
    verdicts = [
        Verdict(
            "Precision and recall both improve with more training data",
            "§5.6, Figures 6-7",
            v1,
            f"from {100 * small:g} % to 100 % of the training folds: precision "
            f"{pct(curve[small].precision)} → {pct(curve[full].precision)} (p "
            f"{fmt_p(both[0][1])}), recall {pct(curve[small].recall)} → "
            f"{pct(curve[full].recall)} (p {fmt_p(both[1][1])})",
            f"paired approximate randomization over documents, α = {alpha}",
            "supported if both rise significantly from the smallest to the full training "
            "set; partly if one does; not supported if neither",
        )
    ]
    arrays = aligned(counts[small], counts[full])
    if arrays is None:
        v2, evidence = NOT_TESTED, "documents differ between fractions"
    else:
        prec, rec = STATISTICS["precision"], STATISTICS["recall"]
        diff, low, high = paired_bootstrap_ci(
            arrays,
            lambda s: (rec(s[1]) - rec(s[0])) - (prec(s[1]) - prec(s[0])),
            n_resamples=options.n_resamples,
            alpha=alpha,
            seed=options.seed,
        )
        v2 = SUPPORTED if low > 0 else NOT_SUPPORTED if high < 0 else PARTLY
        evidence = (
            f"recall gain minus precision gain {100 * diff:+.1f} points (95% CI "
            f"{100 * low:+.1f} to {100 * high:+.1f})"
        )
    verdicts.append(
        Verdict(
            "The gain is larger for recall than for precision",
            "§5.6",
            v2,
            evidence,
            "paired bootstrap over documents of the difference of the two gains",
            "supported if the interval lies above 0; not supported if below; partly "
            "(undecided) if it contains 0",
        )
    )
    late = [tests[f"{s} half"] for s in ("precision", "recall")]
    still = [d > 0 and p < alpha for d, p in late]
    verdicts.append(
        Verdict(
            "A larger training set would still help",
            "§5.6",
            SUPPORTED if any(still) else NOT_SUPPORTED,
            f"from {100 * half:g} % to 100 %: precision {100 * late[0][0]:+.1f} points (p "
            f"{fmt_p(late[0][1])}), recall {100 * late[1][0]:+.1f} (p {fmt_p(late[1][1])})",
            f"paired approximate randomization over documents, α = {alpha}",
            "supported if precision or recall still rises significantly over the last "
            "doubling of the training set; not supported if the curve has flattened",
        )
    )
    return verdicts, tests


def _nearest(values: Sequence[float], target: float) -> float:
    return min(values, key=lambda v: abs(v - target))


# --------------------------------------------------------------------------- sections


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


def _kernel_section(kernels: Any, alpha: float) -> list[str]:
    names = {"linear": "linear", "poly": "quadratic", "rbf": "gaussian"}
    k = _by(kernels, "kernel")
    rows = []
    for ours, theirs in names.items():
        if ours not in k:
            continue
        r = k[ours]
        pub = paper_figures.SD_KERNELS[theirs]
        z_cells = ["", ""]
        if ours != "linear" and "linear" in k:
            z_cells = [
                f"{_precision_z(r, k['linear'])[0]:+.2f}",
                f"{_recall_z(r, k['linear'])[0]:+.2f}",
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
                *z_cells,
                f"{r.train_seconds:.1f}",
            ]
        )
    n_train = int(kernels.train_tokens.iloc[0]) if len(kernels) else 0
    return [
        "### Table 3: kernels, 50 training documents",
        "",
        f"Trained on 50 documents ({n_train:,} tokens), tested on the held-out quarter. Z: "
        "two-proportion z-test of the kernel's PHI precision / recall against the linear "
        f"kernel's (|Z| > 1.96: significant at α = {alpha}).",
        "",
        md_table(
            rows,
            [
                "Kernel",
                "PHI P report",
                "ours",
                "PHI R report",
                "ours",
                "non-PHI P report",
                "ours",
                "non-PHI R report",
                "ours",
                "Z(P) vs linear",
                "Z(R) vs linear",
                "train s",
            ],
        ),
        "",
    ]


def _ablation_section(ablations: Any) -> list[str]:
    full = _ablation_rows(ablations, "all").get("all")
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
    out = [
        "### Figures 2-5: one feature class alone, or all but one",
        "",
        "PHI and non-PHI precision / recall (%) by cross-validation; the first row is every "
        "class (the figures' baselines). Report classes are named in the second column "
        "(ours split its lexical information into the word itself, its neighbours and the "
        "bigrams); Z: precision / recall against every class.",
        "",
    ]
    rows = []
    if full is not None:
        rows.append(
            [
                "every class",
                "(baseline)",
                "",
                pct(full.precision),
                pct(full.recall),
                pct(full.non_phi_precision),
                pct(full.non_phi_recall),
                "",
                "",
                f"{REPORT_ACCURACY['PHI'][0]:.2f} / {REPORT_ACCURACY['PHI'][1]:.2f}",
            ]
        )
    for mode in ("only", "without"):
        for name, r in _ablation_rows(ablations, mode).items():
            zp = zr = ""
            if full is not None:
                zp = f"{_precision_z(r, full)[0]:+.2f}"
                zr = f"{_recall_z(r, full)[0]:+.2f}"
            rows.append(
                [
                    f"{mode} {name}",
                    reverse.get(name, ""),
                    mode,
                    pct(r.precision),
                    pct(r.recall),
                    pct(r.non_phi_precision),
                    pct(r.non_phi_recall),
                    zp,
                    zr,
                    published.get((mode, name), ""),
                ]
            )
    out += [
        md_table(
            rows,
            [
                "Model",
                "report's class",
                "mode",
                "PHI P",
                "PHI R",
                "non-PHI P",
                "non-PHI R",
                "Z(P)",
                "Z(R)",
                "report",
            ],
        ),
        "",
    ]
    missing = [n for n, ours in REPORT_CLASSES.items() if ours not in set(ablations.feature_class)]
    if missing:
        out += [
            f"Not run here: {', '.join(missing)} (the Link Grammar parser is not installed; "
            "`systems.features.linkgrammar` says how to install it).",
            "",
        ]
    out += ["![Feature classes alone and all but one](statdeid-ablation.png)", ""]
    return out


def _learning_curve_section(
    curve: Mapping[float, Any], tests: Mapping[str, tuple[float, float]]
) -> list[str]:
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

    full = _ablation_rows(ablations, "all").get("all")
    fig, axes = plt.subplots(2, 2, figsize=(11, 7))
    for col, mode in enumerate(("only", "without")):
        rows = _ablation_rows(ablations, mode)
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

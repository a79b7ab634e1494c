"""``python -m bench reproduce statdeid``: the experiments, and each claim's parts.

* which feature classes matter -- one class enabled at a time and one disabled at a time
  (§5.4, Figures 2-5), run by :func:`bench.reproduce.ablation.feature_ablation`;
* which kernel -- linear, quadratic and Gaussian trained on 50 documents (§5.5, Table 3), run
  by :func:`bench.reproduce.ablation.kernel_experiment` on the same kind of split (a random
  25 % test part, 50 random training documents from the rest);
* how much data -- training on 3.125 % to 100 % of the training set (§5.6, Figures 6-7), run
  by the runner's learning-curve protocol (nested fractions of each training fold).

The report used one fixed 669/220 split; the ablations and the learning curve here use
cross-validation over the whole base corpus (every document tested once), the kernels the
report's split.  Every model is scored per document, so each part is tested on documents.

Substitutes: the report's OpenNLP tagger is NLTK's; MeSH is WordNet noun classes; the Link
Grammar syntactic bigrams are optional (:mod:`systems.features.linkgrammar`) and left out
where the parser is not installed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bench.reproduce import ablation
from bench.reproduce import verdicts as tests
from bench.reproduce.common import (
    SAME_POINTS,
    Options,
    document_counts,
    roles_from,
    run,
    scorer_for,
)
from bench.reproduce.statdeid import claims
from bench.reproduce.statdeid.design import (
    COMPARABLE_F_POINTS,
    HUMAN_RECALL,
    LITTLE_RECALL_POINTS,
    NOTHING_FOUND,
    REPORT_CLASSES,
    ROLES,
)
from bench.reproduce.verdicts import Part

Counts = Mapping[str, Any]


@dataclass
class Context:
    """The report's three experiments on one corpus."""

    options: Options
    system: str
    corpus: Any
    lc_result: Any
    scorer: Any
    kernels: Any
    ablations: Any

    def curve_counts(self, fraction: float) -> Counts:
        return document_counts(self.scorer, self.system, self.options.base, fraction=fraction)

    @property
    def fractions(self) -> list[float]:
        lc = self.lc_result.learning_curve
        if lc is None:
            return []
        return sorted({float(f) for f in lc.train_fraction})


def run_all(options: Options) -> Context:
    """The report's runs: the learning curve through the runner, then the kernel experiment
    and the feature ablations on its corpus."""
    svm = roles_from(ROLES, options)["svm"]
    lc_result = run(options.run_config([svm], [options.base], protocol="learning-curve"))
    corpus = lc_result.corpora[options.base]
    common = dict(seed=options.seed, system_params=dict(svm.params), per_document=True)
    kernels = ablation.kernel_experiment(corpus, train_documents=50, **common)
    ablations = ablation.feature_ablation(
        corpus, mode="both", folds=options.folds, include_optional=True, **common
    )
    return Context(options, svm.name, corpus, lc_result, scorer_for(lc_result), kernels, ablations)


def parts_of(ctx: Context) -> dict[Any, list[Part]]:
    """Each claim's parts."""
    only = report_rows(ctx.ablations, "only")
    without = report_rows(ctx.ablations, "without")
    full = ablation_rows(ctx.ablations, "all").get("all")
    kernels = {r.kernel: r for r in ctx.kernels.itertuples()}
    return {
        claims.beats_humans: [human(ctx)],
        claims.lexical_bigrams_best: alone_best(only, "lexical bigrams", ctx.options),
        claims.syntactic_bigrams_second: [syntactic_recall(only, ctx.options)],
        claims.section_alone_finds_nothing: [section_alone(only, ctx.options)],
        claims.word_precision: worst_without(
            full, without, ("word itself",), "precision", ctx.options
        ),
        claims.word_orthography_recall: worst_without(
            full, without, ("word itself", "orthography"), "recall", ctx.options
        ),
        claims.non_phi_unaffected: non_phi_steady(full, without, ctx.options),
        claims.gaussian_precision: gaussian(kernels, ctx.options),
        claims.quadratic_extremes: quadratic(kernels, ctx.options),
        claims.kernels_effective: effective(kernels, ctx.options),
        **curve_parts(ctx),
    }


# --------------------------------------------------------------------------- ablations


def ablation_rows(ablations: Any, mode: str) -> dict[str, Any]:
    """Feature class -> its row of the ablation, for one mode (``only``, ``without``)."""
    sel = ablations[ablations["mode"] == mode]
    return {r.feature_class: r for r in sel.itertuples()}


def report_rows(ablations: Any, mode: str) -> dict[str, Any]:
    """The rows of the report's classes that ran here (the report's name -> row)."""
    rows = ablation_rows(ablations, mode)
    return {name: rows[ours] for name, ours in REPORT_CLASSES.items() if ours in rows}


def alone_best(only: Mapping[str, Any], best: str, options: Options) -> list[Part]:
    """``best`` used alone above every other report class alone, on precision and recall."""
    if best not in only:
        return [Part(f"{best} alone", None, float("nan"))]
    out = []
    for statistic in ("precision", "recall"):
        for name, r in only.items():
            if name != best:
                label = f"{statistic}: {best} > {name}"
                out.append(
                    tests.higher(label, only[best].phi_counts, r.phi_counts, options, statistic)
                )
    return out


def syntactic_recall(only: Mapping[str, Any], options: Options) -> Part:
    label = "recall: syntactic bigrams < lexical bigrams"
    if "syntactic bigrams" not in only or "lexical bigrams" not in only:
        return Part(label, None, float("nan"))
    return tests.higher(
        label,
        only["syntactic bigrams"].phi_counts,
        only["lexical bigrams"].phi_counts,
        options,
        "recall",
        lower=True,
    )


def section_alone(only: Mapping[str, Any], options: Options) -> Part:
    label = f"recall of section headings alone < {100 * NOTHING_FOUND:g} %"
    if "section heading" not in only:
        return Part(label, None, float("nan"))
    counts = only["section heading"].phi_counts
    return tests.beyond(label, counts, NOTHING_FOUND, options, "recall", below=True)


def worst_without(
    full: Any, without: Mapping[str, Any], worst: tuple[str, ...], statistic: str, options: Options
) -> list[Part]:
    """For each class of ``worst``: the statistic without it below the statistic with every
    class, and below the statistic without each class not in ``worst``."""
    if full is None or not set(worst) <= set(without):
        return [Part(f"{statistic} without {w}", None, float("nan")) for w in worst]
    out = []
    for w in worst:
        mine = without[w].phi_counts
        out.append(
            tests.higher(
                f"{statistic}: without {w} < every class",
                mine,
                full.phi_counts,
                options,
                statistic,
                lower=True,
            )
        )
        for name, r in without.items():
            if name not in worst:
                label = f"{statistic}: without {w} < without {name}"
                out.append(tests.higher(label, mine, r.phi_counts, options, statistic, lower=True))
    return out


def non_phi_steady(full: Any, without: Mapping[str, Any], options: Options) -> list[Part]:
    """Non-PHI precision and recall without each class within a point of every class's."""
    if full is None or not without:
        return [Part("non-PHI without a class", None, float("nan"))]
    return [
        tests.within(
            f"non-PHI {statistic} without {name}",
            r.non_phi_counts,
            full.non_phi_counts,
            options,
            SAME_POINTS,
            statistic=statistic,
        )
        for name, r in without.items()
        for statistic in ("precision", "recall")
    ]


# --------------------------------------------------------------------------- kernels


def _kernel_parts_missing(
    kernels: Mapping[str, Any], names: tuple[str, ...], label: str
) -> list[Part] | None:
    if set(names) <= set(kernels):
        return None
    return [Part(label, None, float("nan"))]


def gaussian(kernels: Mapping[str, Any], options: Options) -> list[Part]:
    missing = _kernel_parts_missing(kernels, ("rbf", "linear"), "Gaussian vs linear")
    if missing:
        return missing
    g, lin = kernels["rbf"].phi_counts, kernels["linear"].phi_counts
    return [
        tests.higher("precision: Gaussian > linear", g, lin, options, "precision"),
        tests.within(
            f"recall: Gaussian at most {LITTLE_RECALL_POINTS:.1f} below linear",
            g,
            lin,
            options,
            LITTLE_RECALL_POINTS,
            side="not lower",
            statistic="recall",
        ),
    ]


def quadratic(kernels: Mapping[str, Any], options: Options) -> list[Part]:
    missing = _kernel_parts_missing(kernels, ("poly", "linear", "rbf"), "quadratic vs others")
    if missing:
        return missing
    q = kernels["poly"].phi_counts
    out = []
    for other, name in (("linear", "linear"), ("rbf", "Gaussian")):
        o = kernels[other].phi_counts
        out.append(tests.higher(f"precision: quadratic > {name}", q, o, options, "precision"))
        out.append(tests.higher(f"recall: quadratic < {name}", q, o, options, "recall", lower=True))
    return out


def effective(kernels: Mapping[str, Any], options: Options) -> list[Part]:
    missing = _kernel_parts_missing(kernels, ("poly", "linear", "rbf"), "kernels vs linear")
    if missing:
        return missing
    lin = kernels["linear"].phi_counts
    out = []
    for kernel, name in (("poly", "quadratic"), ("rbf", "Gaussian")):
        k = kernels[kernel].phi_counts
        out.append(
            tests.within(
                f"F: {name} at most {COMPARABLE_F_POINTS:.1f} below linear",
                k,
                lin,
                options,
                COMPARABLE_F_POINTS,
                side="not lower",
            )
        )
        better = [tests.higher(f"{s}", k, lin, options, s) for s in ("precision", "recall")]
        out.append(tests.either(f"{name} > linear on precision or recall", better))
    return out


# --------------------------------------------------------------------------- learning curve


def curve_parts(ctx: Context) -> dict[Any, list[Part]]:
    """The three claims of §5.6, and the accuracy of §5.3 (the whole training folds)."""
    fractions = ctx.fractions
    if len(fractions) < 2:
        none = [Part("learning curve", None, float("nan"))]
        return {
            claims.both_improve: none,
            claims.recall_gains_more: none,
            claims.more_data_helps: none,
        }
    small, full = fractions[0], fractions[-1]
    half = min(fractions, key=lambda f: abs(f - 0.5))
    a, b, h = ctx.curve_counts(small), ctx.curve_counts(full), ctx.curve_counts(half)
    o = ctx.options
    smallest = f"{100 * small:g} %"
    from bench.score.significance import STATISTICS

    rec, prec = STATISTICS["recall"], STATISTICS["precision"]
    return {
        claims.both_improve: [
            tests.higher(f"{s}: 100 % > {smallest}", b, a, o, s) for s in ("precision", "recall")
        ],
        claims.recall_gains_more: [
            tests.sized(
                "recall gain - precision gain > 0",
                [a, b],
                lambda s: (rec(s[1]) - rec(s[0])) - (prec(s[1]) - prec(s[0])),
                0.0,
                o,
            )
        ],
        claims.more_data_helps: [
            tests.either(
                f"100 % > {100 * half:g} % on precision or recall",
                [tests.higher(s, b, h, o, s) for s in ("precision", "recall")],
            )
        ],
    }


def human(ctx: Context) -> Part:
    """§5.3: PHI recall with the whole training folds above a human's 81 %."""
    label = f"recall > {100 * HUMAN_RECALL:.0f} %"
    if not ctx.fractions:
        return Part(label, None, float("nan"))
    counts = ctx.curve_counts(ctx.fractions[-1])
    return tests.beyond(label, counts, HUMAN_RECALL, ctx.options, "recall")

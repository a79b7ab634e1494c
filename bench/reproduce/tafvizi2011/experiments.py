"""``python -m bench reproduce tafvizi2011``: the runs of her four hypotheses, and each
claim's parts, tested on documents.

Departures: the feature sets are this harness's re-creations of the five systems (each
feature module says what it could not reproduce), the Multi-deidentifier's bases are our
re-implementations, and her OpenNLP/Link Grammar preprocessing is NLTK's.  Her §1.4 states the
Crammer-Singer multiclass SVM (eqs. 1.3-1.8); liblinear's default, which she may have used,
is one-vs-rest: both are run (``mega`` and ``mega-cs``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from bench.report.markdown import pct
from bench.reproduce import verdicts as tests
from bench.reproduce.common import (
    SAME_POINTS,
    Options,
    Role,
    ar_p,
    document_counts,
    measure,
    roles_from,
    row,
    run,
    scorer_for,
)
from bench.reproduce.tafvizi2011 import claims
from bench.reproduce.tafvizi2011.design import (
    CATEGORIES,
    FEATURE_SETS,
    ROLES,
    Family,
    by_category,
    families,
    held_out_split,
)
from bench.reproduce.verdicts import Part
from corpora.model import Corpus


@dataclass
class Cell:
    """A runner call and the scorer over it."""

    result: Any
    scorer: Any

    def f1(self, system: str, corpus: str) -> float:
        r = row(self.result.results, system, corpus)
        return float("nan") if r is None else float(r.f1)

    def counts(self, system: str, corpus: str, label: str | None = None) -> dict[str, np.ndarray]:
        return document_counts(self.scorer, system, corpus, "all", label)


@dataclass
class Runs:
    """Every run of the thesis's experiments (``None``: needs a second collection)."""

    options: Options
    roles: dict[str, Role]
    a: Family
    b: Family | None
    h1: Cell  # every feature set on the first collection, authentic and surrogate
    second: Cell | None  # Mega on the second collection
    cross: Cell | None  # Mega trained on the first collection, tested on the second
    held: Cell  # Mega: cross-validation on a training part, and its held-out part
    train_part: Corpus
    with_split: Corpus
    h4: Cell  # Mega, Multi and Mega (Crammer-Singer) on the authentic first collection

    @property
    def mega(self) -> str:
        return self.roles["mega"].name

    def cells(self) -> list[Cell]:
        return [c for c in (self.h1, self.second, self.cross, self.held, self.h4) if c]


def _cell(
    options: Options,
    roles: list[Role],
    corpora: list[Corpus],
    training: Corpus | None = None,
) -> Cell:
    """One runner call scoring ``roles`` on ``corpora`` (trained on ``training`` when given,
    else cross-validated on each)."""
    names = [c.name for c in corpora]
    extra = {} if training is None else {"train_corpus": training.name}
    loaded = {c.name: c for c in (*corpora, *([training] if training else []))}
    result = run(options.run_config(roles, names, **extra), loaded)
    return Cell(result, scorer_for(result))


def run_all(options: Options) -> Runs:
    """The runs of the four hypotheses (the runner caches every cell)."""
    roles = roles_from(ROLES, options)
    a, b = families(options)
    h1 = _cell(options, [roles[k] for k in FEATURE_SETS], [a.surrogate, a.authentic])
    second = cross = None
    if b is not None:
        second = _cell(options, [roles["mega"]], [b.surrogate, b.authentic])
        cross = _cell(options, [roles["mega"]], [b.surrogate], training=a.surrogate)
    train_part, with_split = held_out_split(a.surrogate, options)
    held = _cell(options, [roles["mega"]], [train_part, with_split])
    h4 = _cell(options, [roles[k] for k in ("mega", "multi", "mega-cs")], [a.authentic])
    return Runs(options, roles, a, b, h1, second, cross, held, train_part, with_split, h4)


def parts_of(runs: Runs) -> dict[Any, list[Part]]:
    """Each claim's parts."""
    return {
        claims.mega_beats_sources: beats_sources(runs),
        claims.features_do_no_harm: no_harm(runs),
        claims.similar_across_corpora: similar(runs),
        claims.better_on_obesity: better_second(runs),
        claims.worse_across_corpora: [worse_across(runs)],
        claims.no_overfitting: [held_out_not_lower(runs)],
        claims.mega_beats_multi: [beats_multi(runs)],
        claims.weaker_on_hospitals_and_locations: weaker_categories(runs),
    }


# --------------------------------------------------------------------------- the parts


def _single_sets(runs: Runs) -> list[str]:
    return [runs.roles[k].name for k in FEATURE_SETS if k != "mega"]


def beats_sources(runs: Runs) -> list[Part]:
    """Hypothesis 1: all features' PHI F above each single set's (the runner's cached test)."""
    out = []
    for corpus in (runs.a.surrogate.name, runs.a.authentic.name):
        for other in _single_sets(runs):
            _, p = ar_p(runs.h1.scorer, corpus, runs.mega, other, "all")
            out.append(
                tests.from_test(
                    f"{corpus}: {runs.mega} > {other}",
                    runs.h1.f1(runs.mega, corpus),
                    runs.h1.f1(other, corpus),
                    p,
                )
            )
    return out


def no_harm(runs: Runs) -> list[Part]:
    """Hypothesis 1 concluded: per corpus, single set and category, all features' F at most
    one point below the single set's."""
    out = []
    for corpus in (runs.a.surrogate.name, runs.a.authentic.name):
        cats = by_category(runs.h1.result.results, corpus, [runs.mega])
        for cat in CATEGORIES:
            mine = cats.get((runs.mega, cat))
            if mine is None or mine.tp + mine.fn == 0:
                continue
            ours = runs.h1.counts(runs.mega, corpus, cat)
            for other in _single_sets(runs):
                out.append(
                    tests.within(
                        f"{corpus} {cat}: {runs.mega} ≥ {other} - {SAME_POINTS:g}",
                        ours,
                        runs.h1.counts(other, corpus, cat),
                        runs.options,
                        SAME_POINTS,
                        side="not lower",
                    )
                )
    return out


def corpus_pairs(runs: Runs) -> list[tuple[str, Cell, str, Cell, str]]:
    """(her table, our cell and corpus for her first, for her second) of B.3-B.6."""
    a, b = runs.a, runs.b
    pairs = [("Table B.3", runs.h1, a.authentic.name, runs.h1, a.surrogate.name)]
    if b is not None and runs.second is not None:
        pairs += [
            ("Table B.4", runs.h1, a.authentic.name, runs.second, b.authentic.name),
            ("Table B.5", runs.second, b.authentic.name, runs.second, b.surrogate.name),
            ("Table B.6", runs.h1, a.surrogate.name, runs.second, b.surrogate.name),
        ]
    return pairs


def similar(runs: Runs) -> list[Part]:
    """Hypothesis 2: each pair's PHI F within one point."""
    return [
        tests.within(
            f"{table.removeprefix('Table ')}: {ca} ≈ {cb}",
            xa.counts(runs.mega, ca),
            xb.counts(runs.mega, cb),
            runs.options,
            SAME_POINTS,
        )
        for table, xa, ca, xb, cb in corpus_pairs(runs)
    ]


def better_second(runs: Runs) -> list[Part]:
    """§6.1.2: the second collection's PHI F above the first's (B.4, B.6)."""
    out = []
    for table, xa, ca, xb, cb in corpus_pairs(runs):
        if table in ("Table B.4", "Table B.6"):
            label = f"{table.removeprefix('Table ')}: {cb} > {ca}"
            out.append(
                tests.higher(
                    label, xb.counts(runs.mega, cb), xa.counts(runs.mega, ca), runs.options
                )
            )
    return out or [Part("the second collection above the first", None, float("nan"))]


def worse_across(runs: Runs) -> Part:
    """A.13: trained on the first collection, PHI F on the second below its own CV's."""
    label = "cross-corpus < in-corpus"
    if runs.b is None or runs.cross is None or runs.second is None:
        return Part(label, None, float("nan"))
    corpus = runs.b.surrogate.name
    return tests.higher(
        label,
        runs.cross.counts(runs.mega, corpus),
        runs.second.counts(runs.mega, corpus),
        runs.options,
        lower=True,
    )


def held_out_not_lower(runs: Runs) -> Part:
    """B.7: the held-out PHI F at most one point below the cross-validated one."""
    return tests.within(
        f"held-out ≥ cross-validated - {SAME_POINTS:g}",
        runs.held.counts(runs.mega, runs.with_split.name),
        runs.held.counts(runs.mega, runs.train_part.name),
        runs.options,
        SAME_POINTS,
        side="not lower",
    )


def beats_multi(runs: Runs) -> Part:
    """B.8: Mega's PHI F above Multi's (the runner's cached test)."""
    corpus, multi = runs.a.authentic.name, runs.roles["multi"].name
    _, p = ar_p(runs.h4.scorer, corpus, runs.mega, multi, "all")
    return tests.from_test(
        f"{runs.mega} > {multi}", runs.h4.f1(runs.mega, corpus), runs.h4.f1(multi, corpus), p
    )


def weaker_categories(runs: Runs) -> list[Part]:
    """§6.2: on each corpus, HOSPITAL's and LOCATION's F each below the other PHI
    categories' F together (the same documents: a paired bootstrap)."""
    from bench.score.significance import STATISTICS

    f1 = STATISTICS["f1"]
    cells = [(runs.h1, runs.a.authentic.name), (runs.h1, runs.a.surrogate.name)]
    if runs.b is not None and runs.second is not None:
        cells += [(runs.second, runs.b.authentic.name), (runs.second, runs.b.surrogate.name)]
    others = [c for c in CATEGORIES if c not in ("non-PHI", "HOSPITAL", "LOCATION")]
    out = []
    for cell, corpus in cells:
        per = [cell.counts(runs.mega, corpus, c) for c in others]
        rest = {doc: sum(p[doc] for p in per) for doc in per[0]} if per and per[0] else {}
        for cat in ("HOSPITAL", "LOCATION"):
            mine = cell.counts(runs.mega, corpus, cat)
            part = tests.sized(
                f"{corpus}: {cat} < other categories",
                [mine, rest],
                lambda s: f1(s[1]) - f1(s[0]),
                0.0,
                runs.options,
            )
            detail = f"{pct(measure(mine))} vs {pct(measure(rest))}"
            out.append(replace(part, detail=detail) if part.measured else part)
    return out

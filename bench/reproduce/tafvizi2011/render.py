"""The Markdown of ``tafvizi2011.md``: her appendix tables beside ours, with her z-test as
hers and the document-level test of the PHI rows as ours, and the claims.

Her figures are fractions in the thesis and ours are fractions from the runs: both are
rounded once, here, when printed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bench.report.markdown import pct
from bench.reproduce import paper_figures
from bench.reproduce import verdicts as tests
from bench.reproduce.common import (
    Clock,
    Verdict,
    data_reason,
    failures_section,
    fmt_p,
    header,
    md_table,
    verdict_section,
)
from bench.reproduce.tafvizi2011.design import (
    CATEGORIES,
    FEATURE_SETS,
    TITLE,
    by_category,
    her_z,
)
from systems.base import SYSTEMS

if TYPE_CHECKING:
    from bench.reproduce.tafvizi2011.experiments import Runs

#: How the tables name her test.
HER_TEST = "her z-test (eq. 3.4-3.5; |Z| > 1.96 is her significance level)"


def _her(table: str) -> dict[str, tuple[float, float, float]]:
    """One of her appendix A tables, unrounded percentages: category -> (P, R, F)."""
    return paper_figures.t11_table(table)


def _f(percent: float | None) -> str:
    """A percentage with one decimal -- the one rounding of a printed figure of hers."""
    return "" if percent is None else f"{percent:.1f}"


def report(runs: Runs, verdicts: Sequence[Verdict], clock: Clock) -> str:
    """The whole report."""
    options, a, b = runs.options, runs.a, runs.b
    sections = _hypothesis1(runs) + _hypothesis2(runs) + _hypothesis3(runs) + _hypothesis4(runs)
    second = (
        f"second (her Obesity corpus): {b.name} — `{b.authentic.name}` ({len(b.authentic)} "
        f"notes) and `{b.surrogate.name}`"
        if b is not None
        else "no second collection (give `--other SPEC`): Tables B.4-B.6 and A.13 not run"
    )
    md = header(
        TITLE,
        options,
        clock,
        [
            f"- Collections: first (her Challenge corpus): {a.name} — `{a.authentic.name}` "
            f"({len(a.authentic)} notes) and `{a.surrogate.name}`; " + second,
            f"- Protocol: {options.folds}-fold cross-validation by document (a corpus with "
            "its own train/test split uses it); Hypothesis 3: a seeded 75/25 split grouped "
            "like the folds",
            "- Systems: " + "; ".join(f"{r.paper} → `{r.name}`" for r in runs.roles.values()),
        ],
    )
    md += failures_section([c.result for c in runs.cells()])
    md += verdict_section(verdicts)
    md += [
        "## The tables",
        "",
        "F-measures in percent, token level, pooled over the test folds; hers are her "
        "appendix tables' (her data: Partners discharge summaries). Z: "
        f"{HER_TEST}, on our figures as on hers; her appendix B prints |Z|. It treats tokens "
        "as independent and decides no verdict; the PHI rows' p is ours, a test over "
        "documents (uncorrected).",
        "",
        *sections,
        *_why(runs),
    ]
    return "\n".join(md) + "\n"


def _why(runs: Runs) -> list[str]:
    same_generator = runs.b is not None and runs.options.other is None
    return [
        "## Why our figures differ from hers",
        "",
        f"- The data: {data_reason(runs.options.base)}"
        + (
            " Our two collections come from one generator (different note kinds and "
            "templates, the same name and place lists), a smaller shift than hers."
            if same_generator
            else ""
        ),
        f"- The Mega SVM: {SYSTEMS['mega'].departures}; single feature sets are the same "
        "SVM restricted to one source.",
        f"- The Multi-deidentifier: {SYSTEMS['multi'].departures}. Her Multi scored 0 on "
        "Patients (Table A.15), which gives Table B.8 its largest Z.",
        "- Her figures come from one train/test split per corpus; ours pool every test fold "
        "of a cross-validation, so our Z-tests have larger n.",
        "",
    ]


# --------------------------------------------------------------------------- Hypothesis 1


def _hypothesis1(runs: Runs) -> list[str]:
    out = []
    for corpus, column in ((runs.a.surrogate, 1), (runs.a.authentic, 2)):
        names = {runs.roles[k].name: k for k in FEATURE_SETS}
        cats = by_category(runs.h1.result.results, corpus.name, list(names))
        tables = ", ".join(FEATURE_SETS[k][column].removeprefix("Table ") for k in FEATURE_SETS)
        kind = "Surrogate" if column == 1 else "Authentic"
        out += [
            f"### Hypothesis 1 on `{corpus.name}` (her {kind} {runs.a.paper} corpus, Tables "
            f"{tables})",
            "",
            _feature_set_table(
                cats,
                {n: FEATURE_SETS[k][column] for n, k in names.items()},
                {n: FEATURE_SETS[k][0] for n, k in names.items()},
            ),
            "",
            "Z of all features against each single feature set (her z-test, n = the "
            "category's gold tokens; positive: all features higher), and hers against the "
            f"Stanford set (Table {'B.1' if column == 2 else 'B.2'}, |Z| only):",
            "",
            _z_table(runs, cats, "Table B.1" if column == 2 else "Table B.2"),
            "",
        ]
    return out


def _feature_set_table(
    cats: Mapping[tuple[str, str], Any], her_tables: Mapping[str, str], names: Mapping[str, str]
) -> str:
    rows = []
    for cat in (*CATEGORIES, "PHI"):
        cells = [cat]
        present = False
        for system, table in her_tables.items():
            her = _her(table).get(cat) if cat != "PHI" else None
            r = cats.get((system, cat))
            if r is not None and r.tp + r.fn > 0:
                present = True
            cells += [
                "" if her is None else _f(her[2]),
                "" if r is None or r.tp + r.fn == 0 else pct(float(r.f1)),
            ]
        if present:
            rows.append(cells)
    headers = ["Category"]
    for system in her_tables:
        headers += [f"{names[system]}: hers", f"ours (`{system}`)"]
    return md_table(rows, headers)


def _z_table(runs: Runs, cats: Mapping[tuple[str, str], Any], her_table: str) -> str:
    singles = [runs.roles[k].name for k in FEATURE_SETS if k != "mega"]
    her = paper_figures.T11_APPENDIX_B[her_table][3]
    rows = []
    for cat in CATEGORIES:
        mine = cats.get((runs.mega, cat))
        if mine is None or mine.tp + mine.fn == 0:
            continue
        cells = [cat]
        for other in singles:
            r = cats.get((other, cat))
            cells.append("" if r is None else f"{her_z(mine, r)[0]:+.2f}")
        cells.append(f"{her[paper_figures.T11_CATEGORIES.index(cat)]:.2f}")
        rows.append(cells)
    return md_table(rows, ["Category", *(f"vs {s}" for s in singles), "her Z vs Stanford"])


# --------------------------------------------------------------------------- Hypothesis 2


def _hypothesis2(runs: Runs) -> list[str]:
    from bench.reproduce.tafvizi2011.experiments import corpus_pairs

    out = []
    for table, xa, ca, xb, cb in corpus_pairs(runs):
        desc = paper_figures.T11_APPENDIX_B[table][0]
        out += [
            f"### {table}: {desc} (ours: `{ca}` vs `{cb}`)",
            "",
            _pair_table(runs, table, xa, ca, xb, cb),
            "",
        ]
    if runs.b is not None and runs.cross is not None and runs.second is not None:
        out += [
            f"### Table A.13: trained on `{runs.a.surrogate.name}`, tested on "
            f"`{runs.b.surrogate.name}`",
            "",
            "Ours trained on every document of the first collection and tested on every "
            f"document of the second, beside the second's own {runs.options.folds}-fold "
            "cross-validation (the same test documents: a paired test).",
            "",
            _cross_table(runs),
            "",
        ]
    return out


def _phi_p(runs: Runs, a: Mapping[str, Any], b: Mapping[str, Any]) -> str:
    """The document-level p of two PHI F (paired when the documents are the same)."""
    part = tests.higher("", a, b, runs.options)
    return "" if not part.measured else f"p {fmt_p(part.p)}"


def _z_rows(mega: str, hers: tuple[Any, Any, Any], ours_a: Any, ours_b: Any) -> list[list[str]]:
    """Per category, her F in two settings and her |Z| beside ours and our Z by her test
    (appendix B's layout); a category neither setting holds is left out."""
    her_a, her_b, her_zs = hers
    rows = []
    for cat in CATEGORIES:
        x, y = ours_a.get((mega, cat)), ours_b.get((mega, cat))
        if x is None or y is None or (x.tp + x.fn == 0 and y.tp + y.fn == 0):
            continue
        i = paper_figures.T11_CATEGORIES.index(cat)
        rows.append(
            [
                cat,
                _f(her_a[cat][2]),
                _f(her_b[cat][2]),
                f"{her_zs[i]:.2f}",
                pct(float(x.f1)),
                pct(float(y.f1)),
                f"{her_z(x, y)[0]:+.2f}",
            ]
        )
    return rows


def _pair_table(runs: Runs, table: str, xa: Any, ca: str, xb: Any, cb: str) -> str:
    _desc, her_a, her_b, her_zs = paper_figures.T11_APPENDIX_B[table]
    ta, tb = _her(her_a), _her(her_b)
    cats_a = by_category(xa.result.results, ca, [runs.mega])
    cats_b = by_category(xb.result.results, cb, [runs.mega])
    rows = _z_rows(runs.mega, (ta, tb, her_zs), cats_a, cats_b)
    x, y = cats_a.get((runs.mega, "PHI")), cats_b.get((runs.mega, "PHI"))
    if x is not None and y is not None:
        p = _phi_p(runs, xa.counts(runs.mega, ca), xb.counts(runs.mega, cb))
        rows.append(["PHI (ours only)", "", "", "", pct(float(x.f1)), pct(float(y.f1)), p])
    headers = [
        "Category",
        "hers: first",
        "hers: second",
        "her |Z|",
        "ours: first",
        "ours: second",
        "Z (her test) / p",
    ]
    return md_table(rows, headers)


def _cross_table(runs: Runs) -> str:
    corpus = runs.b.surrogate.name  # type: ignore[union-attr]
    her = _her("Table A.13")
    cross = by_category(runs.cross.result.results, corpus, [runs.mega])  # type: ignore[union-attr]
    inside = by_category(runs.second.result.results, corpus, [runs.mega])  # type: ignore[union-attr]
    rows = []
    for cat in (*CATEGORIES, "PHI"):
        x, y = cross.get((runs.mega, cat)), inside.get((runs.mega, cat))
        if x is None or x.tp + x.fn == 0:
            continue
        if cat == "PHI":
            p = _phi_p(
                runs, runs.cross.counts(runs.mega, corpus), runs.second.counts(runs.mega, corpus)
            )  # type: ignore[union-attr]
            theirs, last = ["", "", ""], p
        else:
            theirs, last = [_f(v) for v in her[cat]], "" if y is None else f"{her_z(x, y)[0]:+.2f}"
        rows.append(
            [
                cat if cat != "PHI" else "PHI (ours only)",
                *theirs,
                pct(float(x.precision)),
                pct(float(x.recall)),
                pct(float(x.f1)),
                "" if y is None else pct(float(y.f1)),
                last,
            ]
        )
    headers = [
        "Category",
        "hers P",
        "hers R",
        "hers F",
        "ours P",
        "ours R",
        "ours F",
        "ours F, in-corpus CV",
        "Z (her test) / p",
    ]
    return md_table(rows, headers)


# --------------------------------------------------------------------------- Hypotheses 3, 4


def _hypothesis3(runs: Runs) -> list[str]:
    her_cv, her_all = _her("Table A.14"), _her("Table A.1")
    her_zs = paper_figures.T11_APPENDIX_B["Table B.7"][3]
    cv = by_category(runs.held.result.results, runs.train_part.name, [runs.mega])
    held = by_category(runs.held.result.results, runs.with_split.name, [runs.mega])
    rows = _z_rows(runs.mega, (her_cv, her_all, her_zs), cv, held)
    x, y = cv.get((runs.mega, "PHI")), held.get((runs.mega, "PHI"))
    if x is not None and y is not None:
        p = _phi_p(
            runs,
            runs.held.counts(runs.mega, runs.train_part.name),
            runs.held.counts(runs.mega, runs.with_split.name),
        )
        rows.append(["PHI (ours only)", "", "", "", pct(float(x.f1)), pct(float(y.f1)), p])
    headers = [
        "Category",
        "hers: 10-fold",
        "hers: test part",
        "her |Z|",
        "ours: CV",
        "ours: held-out",
        "Z (her test) / p",
    ]
    return [
        f"### Table B.7: cross-validation on `{runs.train_part.name}` vs the held-out part of "
        f"`{runs.with_split.name}`",
        "",
        f"{runs.options.folds}-fold cross-validation on the training part (her A.14) against a "
        "model trained on the training part and tested on the held-out part (her A.1).",
        "",
        md_table(rows, headers),
        "",
    ]


def _hypothesis4(runs: Runs) -> list[str]:
    corpus = runs.a.authentic.name
    multi, cs = runs.roles["multi"].name, runs.roles["mega-cs"].name
    b8 = _system_pair_table(runs, corpus, multi, ("Table A.6", "Table A.15", "Table B.8"))
    cs_table = _system_pair_table(runs, corpus, cs, None)
    part = tests.higher(
        "", runs.h4.counts(runs.mega, corpus), runs.h4.counts(cs, corpus), runs.options
    )
    cs_line = "not run"
    if part.measured:
        cs_line = (
            f"PHI F one-vs-rest {pct(runs.h4.f1(runs.mega, corpus))}, Crammer-Singer "
            f"{pct(runs.h4.f1(cs, corpus))} (approximate randomization over documents, "
            f"p {fmt_p(part.p)})"
        )
    return [
        f"### Table B.8: Mega vs Multi on `{corpus}` (her Authentic {runs.a.paper})",
        "",
        b8,
        "",
        "### One-vs-rest vs Crammer-Singer (her eqs. 1.3-1.8)",
        "",
        f"The same Mega features and C on `{corpus}`: {cs_line}. Per category (Z: {HER_TEST}):",
        "",
        cs_table,
        "",
    ]


def _system_pair_table(
    runs: Runs, corpus: str, other: str, hers: tuple[str, str, str] | None
) -> str:
    cats = by_category(runs.h4.result.results, corpus, [runs.mega, other])
    rows = []
    for cat in (*CATEGORIES, "PHI"):
        x, y = cats.get((runs.mega, cat)), cats.get((other, cat))
        if x is None or y is None or x.tp + x.fn == 0:
            continue
        cells = [cat]
        if hers is not None:
            if cat == "PHI":
                cells += ["", "", ""]
            else:
                i = paper_figures.T11_CATEGORIES.index(cat)
                zs = paper_figures.T11_APPENDIX_B[hers[2]][3]
                cells += [_f(_her(hers[0])[cat][2]), _f(_her(hers[1])[cat][2]), f"{zs[i]:.2f}"]
        if cat == "PHI":
            last = _phi_p(runs, runs.h4.counts(runs.mega, corpus), runs.h4.counts(other, corpus))
        else:
            last = f"{her_z(x, y)[0]:+.2f}"
        cells += [pct(float(x.f1)), pct(float(y.f1)), last]
        rows.append(cells)
    headers = ["Category"]
    if hers is not None:
        headers += ["hers: Mega", "hers: Multi", "her |Z|"]
    headers += [f"ours: `{runs.mega}`", f"ours: `{other}`", "Z (her test) / p"]
    return md_table(rows, headers)

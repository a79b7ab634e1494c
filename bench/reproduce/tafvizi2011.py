"""``python -m bench reproduce tafvizi2011``: Tafvizi (2011), Hypotheses 1-4.

Her thesis (§1.2, §6.1) tests four hypotheses about the Mega SVM, one linear SVM over the
union of the feature sets of Stat De-id, the Stanford NER, MITRE's MIST, the Illinois tagger
and the MIMIC rules (``mega``):

1. *High dimensionality* -- all features beat each single system's features (Tables A.1-A.10,
   compared in B.1-B.2);
2. *Universality* -- it does similarly well on different corpora (A.1, A.6, A.11, A.12,
   compared in B.3-B.6), and a model trained on one corpus and tested on another
   (A.13);
3. *Over-fitting* -- 10-fold cross-validation on the training part matches the held-out test
   part (A.14 vs A.1, B.7);
4. *Mega vs Multi* -- it beats the stacked Multi-deidentifier (A.15, B.8).

Every comparison uses her z-test (§3.5.4, eqs. 3.4-3.5) on two F-measures with ``n`` the
category's gold tokens (:func:`bench.significance.z_test_proportions`; Table B.8's
Patients row pins that ``n`` down), printed as she printed it.  Because that test treats an F
as a proportion of independent tokens, each verdict also rests on a test over documents
(paired approximate randomization where the documents are the same) and on Holm's
correction over the family of comparisons it draws on.

Her corpora are two collections of discharge summaries (Challenge, Obesity), each with real
and with surrogate PHI, split into training and test parts.  Ours: the base corpus
(``--base``) and a second one (``--other``), each as is and as its ``surrogate`` variant.
With the embedded base and no ``--other``, the embedded generator's two kinds of note play
the two collections: its discharge summaries (the Challenge corpus) and its ICU nursing notes
(the other collection), written from different templates.  Where a corpus has no
train/test split of its own we use 10-fold cross-validation (the runner's default, so the
cells are shared with ``run``), and for Hypothesis 3 a seeded 75/25 split grouped like the
folds (the thesis's corpora had their own).

Departures: the feature sets are this harness's re-creations of the five systems (each
feature module says what it could not reproduce), the Multi-deidentifier's bases are our
re-implementations, and her OpenNLP/Link Grammar preprocessing is NLTK's.  Her §1.4 states the
Crammer-Singer multiclass SVM (eqs. 1.3-1.8); liblinear's default, which she may have used,
is one-vs-rest: both are run (``mega`` and ``mega-cs``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from bench import paper_figures
from bench.plan import variant_spec
from bench.reproduce.common import (
    EMBEDDED,
    INCONCLUSIVE,
    NOT_SUPPORTED,
    NOT_TESTED,
    PARTLY,
    SUPPORTED,
    Clock,
    Comparison,
    Options,
    Report,
    Role,
    Verdict,
    ar_p,
    data_reason,
    document_counts,
    failures_section,
    fmt_p,
    header,
    md_table,
    outcomes,
    paired_difference,
    pct,
    roles_from,
    row,
    rule_a_beats_b,
    run,
    scorer_for,
)
from corpora.model import LABELS, Corpus, Document
from systems.base import SYSTEMS

NAME = "tafvizi2011"
TITLE = "Tafvizi (2011), reproduced: the Mega SVM's four hypotheses"
CATEGORIES = ("non-PHI", *LABELS[: LABELS.index("AGE") + 1])
Z_CRITICAL = 1.96

#: Feature sets of Hypothesis 1: role -> (her name, her table on the surrogate and on the
#: authentic Challenge corpus).
FEATURE_SETS: dict[str, tuple[str, str, str]] = {
    "mega": ("all features", "Table A.1", "Table A.6"),
    "mega-statdeid": ("Stat-Deid features", "Table A.2", "Table A.7"),
    "mega-stanford": ("Stanford features", "Table A.3", "Table A.8"),
    "mega-mist": ("MITRE features", "Table A.4", "Table A.9"),
    "mega-mimic": ("MIMIC features", "Table A.5", "Table A.10"),
}
ROLES: dict[str, Role] = {
    "mega": Role("mega", "mega", {}, "Mega-deidentifier (all features)"),
    "mega-statdeid": Role("mega-statdeid", "mega", {"sources": ("statdeid",)}, "Stat-Deid"),
    "mega-stanford": Role("mega-stanford", "mega", {"sources": ("stanford",)}, "Stanford"),
    "mega-mist": Role("mega-mist", "mega", {"sources": ("mist",)}, "MITRE"),
    "mega-mimic": Role("mega-mimic", "mega", {"sources": ("mimic",)}, "MIMIC"),
    "multi": Role("multi", "multi", {}, "Multi-deidentifier"),
    "mega-cs": Role("mega-cs", "mega", {"multi_class": "crammer_singer"}, "Mega, Crammer-Singer"),
}
#: Share of a corpus held out for Hypothesis 3 where it has no split of its own (her
#: corpora: 669 / 220 and 730 / 507 documents; the Stat De-id report: 75 / 25).
HELD_OUT_FOLDS = 4


@dataclass
class Family:
    """One collection of notes, with real-like and with surrogate PHI (her Challenge or
    Obesity corpus)."""

    name: str
    paper: str
    authentic: Corpus
    surrogate: Corpus


def families(options: Options) -> tuple[Family, Family | None]:
    """The two collections: the base (and ``--other``), or the embedded corpus's discharge
    summaries and nursing notes."""
    from corpora.load import LoadOptions, load_corpus

    load_options = LoadOptions(
        seed=options.seed,
        lenient=options.lenient,
        n_documents=options.n_documents,
        phi_rate=options.phi_rate,
        category_weights=options.category_weights,
    )

    def load(spec: str) -> Corpus:
        return load_corpus(spec, load_options)[0]

    embedded = options.base in EMBEDDED
    if embedded and options.other is None:
        authentic, surrogate = load(options.base), load(variant_spec(options.base, "surrogate"))
        out = []
        for kind, paper in (("discharge", "Challenge"), ("nursing", "Obesity")):
            out.append(
                Family(
                    f"{kind} notes",
                    paper,
                    _subset(authentic, kind, f"{options.base}[{kind}]"),
                    _subset(surrogate, kind, f"surrogate[{kind}]"),
                )
            )
        return out[0], out[1]
    first = Family(
        options.base,
        "Challenge",
        load(options.base),
        load(variant_spec(options.base, "surrogate")),
    )
    second = None
    if options.other:
        second = Family(
            options.other,
            "Obesity",
            load(options.other),
            load(variant_spec(options.other, "surrogate")),
        )
    return first, second


def _subset(corpus: Corpus, kind: str, name: str) -> Corpus:
    docs = tuple(d for d in corpus.documents if d.metadata.get("kind") == kind)
    return Corpus(name=name, documents=docs, metadata={**dict(corpus.metadata), "kind": kind})


def held_out_split(corpus: Corpus, options: Options) -> tuple[Corpus, Corpus]:
    """(the training part, the whole corpus with its train/test split declared), from the
    corpus's own split or a seeded, grouped 75/25 one."""
    from bench.protocols import SPLIT_KEY, cross_validation, has_own_split

    if has_own_split(corpus):
        train = tuple(d for d in corpus.documents if d.metadata[SPLIT_KEY] == "train")
        return Corpus(f"{corpus.name}:train", train, dict(corpus.metadata)), corpus
    first = cross_validation(corpus, HELD_OUT_FOLDS, options.seed, options.group_by)[0]
    test = set(first.test)
    docs = tuple(
        Document(
            d.id,
            d.text,
            d.spans,
            d.marks,
            {**dict(d.metadata), SPLIT_KEY: "test" if i in test else "train"},
        )
        for i, d in enumerate(corpus.documents)
    )
    train = tuple(d for i, d in enumerate(corpus.documents) if i not in test)
    return (
        Corpus(f"{corpus.name}:train", train, dict(corpus.metadata)),
        Corpus(f"{corpus.name}:held-out", docs, dict(corpus.metadata)),
    )


def reproduce(options: Options) -> Report:
    """Run the four hypotheses' experiments and build ``tafvizi2011.md``."""
    clock = Clock()
    roles = roles_from(ROLES, options)
    a, b = families(options)
    results = []

    # Hypothesis 1 (and the corpora of B.3): every feature set on the first collection.
    h1_roles = [roles[k] for k in FEATURE_SETS]
    r1 = run(
        options.run_config(h1_roles, [a.surrogate.name, a.authentic.name]),
        {a.surrogate.name: a.surrogate, a.authentic.name: a.authentic},
    )
    results.append(r1)
    s1 = scorer_for(r1)
    mega = roles["mega"].name

    # Hypothesis 2: the second collection, and across collections (A.13).
    r2 = s2 = r4 = s4 = None
    if b is not None:
        r2 = run(
            options.run_config([roles["mega"]], [b.surrogate.name, b.authentic.name]),
            {b.surrogate.name: b.surrogate, b.authentic.name: b.authentic},
        )
        s2 = scorer_for(r2)
        r4 = run(
            options.run_config([roles["mega"]], [b.surrogate.name], train_corpus=a.surrogate.name),
            {a.surrogate.name: a.surrogate, b.surrogate.name: b.surrogate},
        )
        s4 = scorer_for(r4)
        results += [r2, r4]

    # Hypothesis 3: cross-validation on the training part vs the held-out part.
    train_part, with_split = held_out_split(a.surrogate, options)
    r5 = run(
        options.run_config([roles["mega"]], [train_part.name, with_split.name]),
        {train_part.name: train_part, with_split.name: with_split},
    )
    s5 = scorer_for(r5)
    results.append(r5)

    # Hypothesis 4 and the multiclass formulation: on the authentic first collection.
    r3 = run(
        options.run_config([roles["mega"], roles["multi"], roles["mega-cs"]], [a.authentic.name]),
        {a.authentic.name: a.authentic},
    )
    s3 = scorer_for(r3)
    results.append(r3)

    sections: list[str] = []
    verdicts: list[Verdict] = []

    # ---- Hypothesis 1
    h1_z: list[Comparison] = []
    h1_ar: list[Comparison] = []
    for corpus, column in ((a.surrogate, 1), (a.authentic, 2)):
        cats = by_category(r1.results, corpus.name, [roles[k].name for k in FEATURE_SETS])
        sections += [
            f"### Hypothesis 1 on `{corpus.name}` (her "
            f"{'Surrogate' if column == 1 else 'Authentic'} {a.paper} corpus, Tables "
            f"{', '.join(FEATURE_SETS[k][column].removeprefix('Table ') for k in FEATURE_SETS)})",
            "",
            _feature_set_table(
                cats,
                {roles[k].name: FEATURE_SETS[k][column] for k in FEATURE_SETS},
                {roles[k].name: FEATURE_SETS[k][0] for k in FEATURE_SETS},
            ),
            "",
        ]
        z_rows = []
        for cat in CATEGORIES:
            all_row = cats.get((mega, cat))
            if all_row is None or all_row.tp + all_row.fn == 0:
                continue
            cells = [cat]
            for k in FEATURE_SETS:
                if k == "mega":
                    continue
                other = cats.get((roles[k].name, cat))
                if other is None:
                    cells.append("")
                    continue
                z, p = _z(all_row, other)
                h1_z.append(
                    Comparison(
                        f"{corpus.name} {cat} vs {roles[k].name}",
                        mega,
                        roles[k].name,
                        float(all_row.f1),
                        float(other.f1),
                        p,
                    )
                )
                cells.append(f"{z:+.2f}")
            her = paper_figures.T11_APPENDIX_B["Table B.1" if column == 2 else "Table B.2"][3]
            cells.append(f"{her[paper_figures.T11_CATEGORIES.index(cat)]:.2f}")
            z_rows.append(cells)
        sections += [
            "Z of all features against each single feature set (eq. 3.4-3.5 on the two "
            "F-measures, n = the category's gold tokens; positive: all features higher), and "
            f"hers against the Stanford set (Table {'B.1' if column == 2 else 'B.2'}, |Z| only):",
            "",
            md_table(
                z_rows,
                [
                    "Category",
                    *(f"vs {roles[k].name}" for k in FEATURE_SETS if k != "mega"),
                    "her Z vs Stanford",
                ],
            ),
            "",
        ]
        for k in FEATURE_SETS:
            if k == "mega":
                continue
            ra, rb = row(r1.results, mega, corpus.name), row(r1.results, roles[k].name, corpus.name)
            if ra is None or rb is None:
                continue
            _, p = ar_p(s1, corpus.name, mega, roles[k].name, "all")
            h1_ar.append(
                Comparison(
                    f"{corpus.name}: vs {roles[k].name}",
                    mega,
                    roles[k].name,
                    float(ra.f1),
                    float(rb.f1),
                    p,
                )
            )
    verdicts.append(claim_no_harm(h1_z, options.alpha))
    verdicts.append(claim_mega_beats_sources(h1_ar, options.alpha))

    # ---- Hypothesis 2
    pairs = [("Table B.3", r1, s1, a.authentic, r1, s1, a.surrogate)]
    if b is not None and r2 is not None and s2 is not None:
        pairs += [
            ("Table B.4", r1, s1, a.authentic, r2, s2, b.authentic),
            ("Table B.5", r2, s2, b.authentic, r2, s2, b.surrogate),
            ("Table B.6", r1, s1, a.surrogate, r2, s2, b.surrogate),
        ]
    h2: list[Comparison] = []
    for table, ra_, sa_, ca, rb_, sb_, cb in pairs:
        z_table, comparison = _corpus_pair(
            table, mega, ra_, sa_, ca.name, rb_, sb_, cb.name, options
        )
        h2.append(comparison)
        desc, _her_a, _her_b, _ = paper_figures.T11_APPENDIX_B[table]
        sections += [
            f"### {table}: {desc} (ours: `{ca.name}` vs `{cb.name}`)",
            "",
            z_table,
            "",
        ]
    verdicts.append(claim_universality(h2, options.alpha, b is not None))
    if r4 is not None and s4 is not None and r2 is not None and s2 is not None and b is not None:
        cross_table, cross = _cross(
            mega, r4, s4, r2, s2, b.surrogate.name, a.surrogate.name, options
        )
        sections += [
            f"### Table A.13: trained on `{a.surrogate.name}`, tested on `{b.surrogate.name}`",
            "",
            "Ours trained on every document of the first collection and tested on every "
            f"document of the second, beside the second's own {options.folds}-fold "
            "cross-validation (the same test documents: paired test).",
            "",
            cross_table,
            "",
        ]
        verdicts.append(claim_cross_corpus(cross, options.alpha))
    else:
        verdicts.append(claim_cross_corpus(None, options.alpha))

    # ---- Hypothesis 3
    b7_table, cv_vs_held, cats_b7 = _overfitting(mega, r5, s5, train_part, with_split, options)
    sections += [
        f"### Table B.7: cross-validation on `{train_part.name}` vs the held-out part of "
        f"`{with_split.name}`",
        "",
        f"{options.folds}-fold cross-validation on the training part (her A.14) against a "
        "model trained on the training part and tested on the held-out part (her A.1).",
        "",
        b7_table,
        "",
    ]
    verdicts.append(claim_no_overfitting(cv_vs_held, cats_b7, options.alpha))

    # ---- Hypothesis 4 and Crammer-Singer
    multi, mega_cs = roles["multi"].name, roles["mega-cs"].name
    b8_table = _system_pair_table(
        r3.results,
        a.authentic.name,
        mega,
        multi,
        paper_figures.t11_table("Table A.6"),
        paper_figures.t11_table("Table A.15"),
        paper_figures.T11_APPENDIX_B["Table B.8"][3],
    )
    ra, rb = row(r3.results, mega, a.authentic.name), row(r3.results, multi, a.authentic.name)
    h4 = []
    if ra is not None and rb is not None:
        _, p = ar_p(s3, a.authentic.name, mega, multi, "all")
        h4.append(Comparison(f"{a.authentic.name}", mega, multi, float(ra.f1), float(rb.f1), p))
    sections += [
        f"### Table B.8: Mega vs Multi on `{a.authentic.name}` (her Authentic {a.paper})",
        "",
        b8_table,
        "",
    ]
    verdicts.append(claim_mega_beats_multi(h4, options.alpha))
    cs_table = _system_pair_table(r3.results, a.authentic.name, mega, mega_cs, None, None, None)
    rc = row(r3.results, mega_cs, a.authentic.name)
    cs_line = "not run"
    if ra is not None and rc is not None:
        diff, p = ar_p(s3, a.authentic.name, mega, mega_cs, "all")
        cs_line = (
            f"PHI F one-vs-rest {pct(float(ra.f1))}, Crammer-Singer {pct(float(rc.f1))} "
            f"(difference {100 * diff:+.1f} points, approximate randomization p {fmt_p(p)})"
        )
    sections += [
        "### One-vs-rest vs Crammer-Singer (her eqs. 1.3-1.8)",
        "",
        f"The same Mega features and C on `{a.authentic.name}`: {cs_line}. Per category (Z: "
        "eq. 3.4-3.5):",
        "",
        cs_table,
        "",
    ]

    md = header(
        TITLE,
        options,
        clock,
        [
            f"- Collections: first (her Challenge corpus): {a.name} — `{a.authentic.name}` "
            f"({len(a.authentic)} notes) and `{a.surrogate.name}`; "
            + (
                f"second (her Obesity corpus): {b.name} — `{b.authentic.name}` "
                f"({len(b.authentic)} notes) and `{b.surrogate.name}`"
                if b is not None
                else "no second collection (give `--other SPEC`): Tables B.4-B.6 and A.13 not run"
            ),
            f"- Protocol: {options.folds}-fold cross-validation by document (a corpus with "
            "its own train/test split uses it); Hypothesis 3: a seeded 75/25 split grouped "
            "like the folds",
            "- Systems: " + "; ".join(f"{r.paper} → `{r.name}`" for r in roles.values()),
        ],
    )
    md += failures_section(results)
    md += _verdicts(verdicts)
    md += [
        "## The tables",
        "",
        "F-measures in percent, token level, pooled over the test folds; hers are her "
        "appendix tables' (her data: Partners discharge summaries). Z: her eq. 3.4-3.5 "
        "(|Z| > 1.96 is her significance level); her appendix B prints |Z|.",
        "",
        *sections,
        "## Why our figures differ from hers",
        "",
        f"- The data: {data_reason(options.base)}"
        + (
            " Our two collections come from one generator (different note kinds and "
            "templates, the same name and place lists), a smaller shift than hers."
            if b is not None and options.other is None
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
    failed = any(r.failed for r in results)
    return Report(NAME, "\n".join(md) + "\n", verdicts, failed=failed)


def _verdicts(verdicts: Sequence[Verdict]) -> list[str]:
    from bench.reproduce.common import verdict_section

    return verdict_section(verdicts)


# --------------------------------------------------------------------------- tables


def by_category(df: Any, corpus: str, systems: Sequence[str]) -> dict[tuple[str, str], Any]:
    """(system, category or non-PHI or PHI) -> results row, token level, every token."""
    sel = df[(df.corpus == corpus) & (df.level == "token") & (df.subset == "all")]
    sel = sel[sel.system.isin(list(systems))]
    return {(r.system, r.label): r for r in sel.itertuples()}


def _z(a: Any, b: Any) -> tuple[float, float]:
    """Her z of two results rows' F-measures, n = each row's gold tokens."""
    from bench.significance import z_test_proportions

    return z_test_proportions(float(a.f1), float(a.tp + a.fn), float(b.f1), float(b.tp + b.fn))


def _feature_set_table(
    cats: Mapping[tuple[str, str], Any], her_tables: Mapping[str, str], names: Mapping[str, str]
) -> str:
    rows = []
    for cat in (*CATEGORIES, "PHI"):
        cells = [cat]
        present = False
        for system, table in her_tables.items():
            her = paper_figures.t11_table(table).get(cat) if cat != "PHI" else None
            r = cats.get((system, cat))
            if r is not None and r.tp + r.fn > 0:
                present = True
            cells += [
                "" if her is None else f"{her[2]:.1f}",
                "" if r is None or r.tp + r.fn == 0 else pct(float(r.f1)),
            ]
        if present:
            rows.append(cells)
    headers = ["Category"]
    for system in her_tables:
        headers += [f"{names[system]}: hers", f"ours (`{system}`)"]
    return md_table(rows, headers)


def _corpus_pair(
    table: str,
    system: str,
    ra: Any,
    sa: Any,
    ca: str,
    rb: Any,
    sb: Any,
    cb: str,
    options: Options,
) -> tuple[str, Comparison]:
    _desc, her_a, her_b, her_z = paper_figures.T11_APPENDIX_B[table]
    ta, tb = paper_figures.t11_table(her_a), paper_figures.t11_table(her_b)
    cats_a = by_category(ra.results, ca, [system])
    cats_b = by_category(rb.results, cb, [system])
    rows = []
    for cat in CATEGORIES:
        x, y = cats_a.get((system, cat)), cats_b.get((system, cat))
        if x is None or y is None or (x.tp + x.fn == 0 and y.tp + y.fn == 0):
            continue
        z, _ = _z(x, y)
        i = paper_figures.T11_CATEGORIES.index(cat)
        rows.append(
            [
                cat,
                f"{ta[cat][2]:.1f}",
                f"{tb[cat][2]:.1f}",
                f"{her_z[i]:.2f}",
                pct(float(x.f1)),
                pct(float(y.f1)),
                f"{z:+.2f}",
            ]
        )
    _diff, p, test = paired_difference(
        document_counts(sa, system, ca), document_counts(sb, system, cb), options
    )
    x, y = row(ra.results, system, ca), row(rb.results, system, cb)
    if x is not None and y is not None:
        rows.append(
            ["PHI (ours only)", "", "", "", pct(float(x.f1)), pct(float(y.f1)), f"p {fmt_p(p)}"]
        )
    comparison = Comparison(
        f"{table}: {ca} vs {cb}",
        ca,
        cb,
        float("nan") if x is None else float(x.f1),
        float("nan") if y is None else float(y.f1),
        p,
    )
    text = md_table(
        rows,
        [
            "Category",
            "hers: first",
            "hers: second",
            "her |Z|",
            "ours: first",
            "ours: second",
            "our Z",
        ],
    )
    return text + f"\n\nPHI row: {test}.", comparison


def _cross(
    system: str,
    r4: Any,
    s4: Any,
    r2: Any,
    s2: Any,
    test_corpus: str,
    train_corpus: str,
    options: Options,
) -> tuple[str, Comparison | None]:
    her = paper_figures.t11_table("Table A.13")
    cross = by_category(r4.results, test_corpus, [system])
    inside = by_category(r2.results, test_corpus, [system])
    rows = []
    for cat in CATEGORIES:
        x, y = cross.get((system, cat)), inside.get((system, cat))
        if x is None or x.tp + x.fn == 0:
            continue
        z = "" if y is None else f"{_z(x, y)[0]:+.2f}"
        rows.append(
            [
                cat,
                *(f"{v:.1f}" for v in her[cat]),
                pct(float(x.precision)),
                pct(float(x.recall)),
                pct(float(x.f1)),
                "" if y is None else pct(float(y.f1)),
                z,
            ]
        )
    x, y = row(r4.results, system, test_corpus), row(r2.results, system, test_corpus)
    comparison = None
    if x is not None and y is not None:
        _diff, p, _test = paired_difference(
            document_counts(s4, system, test_corpus),
            document_counts(s2, system, test_corpus),
            options,
        )
        rows.append(
            [
                "PHI (ours only)",
                "",
                "",
                "",
                pct(float(x.precision)),
                pct(float(x.recall)),
                pct(float(x.f1)),
                pct(float(y.f1)),
                f"p {fmt_p(p)}",
            ]
        )
        comparison = Comparison(
            f"{train_corpus} → {test_corpus}", "cross", "in-corpus", float(x.f1), float(y.f1), p
        )
    return (
        md_table(
            rows,
            [
                "Category",
                "hers P",
                "hers R",
                "hers F",
                "ours P",
                "ours R",
                "ours F",
                "ours F, in-corpus CV",
                "Z cross vs in-corpus",
            ],
        ),
        comparison,
    )


def _overfitting(
    system: str, r5: Any, s5: Any, train_part: Corpus, with_split: Corpus, options: Options
) -> tuple[str, Comparison | None, list[Comparison]]:
    her_cv, her_all = paper_figures.t11_table("Table A.14"), paper_figures.t11_table("Table A.1")
    her_z = paper_figures.T11_APPENDIX_B["Table B.7"][3]
    cv = by_category(r5.results, train_part.name, [system])
    held = by_category(r5.results, with_split.name, [system])
    rows, per_category = [], []
    for cat in CATEGORIES:
        x, y = cv.get((system, cat)), held.get((system, cat))
        if x is None or y is None or (x.tp + x.fn == 0 and y.tp + y.fn == 0):
            continue
        z, p = _z(x, y)
        per_category.append(Comparison(cat, "cv", "held-out", float(x.f1), float(y.f1), p))
        i = paper_figures.T11_CATEGORIES.index(cat)
        rows.append(
            [
                cat,
                f"{her_cv[cat][2]:.1f}",
                f"{her_all[cat][2]:.1f}",
                f"{her_z[i]:.2f}",
                pct(float(x.f1)),
                pct(float(y.f1)),
                f"{z:+.2f}",
            ]
        )
    x, y = row(r5.results, system, train_part.name), row(r5.results, system, with_split.name)
    comparison = None
    if x is not None and y is not None:
        _, p, _test = paired_difference(
            document_counts(s5, system, train_part.name),
            document_counts(s5, system, with_split.name),
            options,
        )
        rows.append(
            ["PHI (ours only)", "", "", "", pct(float(x.f1)), pct(float(y.f1)), f"p {fmt_p(p)}"]
        )
        comparison = Comparison("PHI", "cv", "held-out", float(x.f1), float(y.f1), p)
    table = md_table(
        rows,
        [
            "Category",
            "hers: 10-fold",
            "hers: test part",
            "her |Z|",
            "ours: CV",
            "ours: held-out",
            "our Z",
        ],
    )
    return table, comparison, per_category


def _system_pair_table(
    df: Any,
    corpus: str,
    a: str,
    b: str,
    her_a: Mapping[str, tuple[float, float, float]] | None,
    her_b: Mapping[str, tuple[float, float, float]] | None,
    her_z: Sequence[float] | None,
) -> str:
    cats = by_category(df, corpus, [a, b])
    rows = []
    for cat in (*CATEGORIES, "PHI"):
        x, y = cats.get((a, cat)), cats.get((b, cat))
        if x is None or y is None or x.tp + x.fn == 0:
            continue
        z, _ = _z(x, y)
        cells = [cat]
        if her_a is not None and her_b is not None and her_z is not None:
            if cat == "PHI":
                cells += ["", "", ""]
            else:
                i = paper_figures.T11_CATEGORIES.index(cat)
                cells += [f"{her_a[cat][2]:.1f}", f"{her_b[cat][2]:.1f}", f"{her_z[i]:.2f}"]
        cells += [pct(float(x.f1)), pct(float(y.f1)), f"{z:+.2f}"]
        rows.append(cells)
    headers = ["Category"]
    if her_a is not None:
        headers += ["hers: Mega", "hers: Multi", "her |Z|"]
    headers += [f"ours: `{a}`", f"ours: `{b}`", "our Z"]
    return md_table(rows, headers)


# --------------------------------------------------------------------------- her findings


def her_significant(*tables: str) -> str:
    """Where her appendix B tables find |Z| above 1.96: "B.7: non-PHI, HOSPITAL"."""
    parts = []
    for table in tables:
        zs = paper_figures.T11_APPENDIX_B[table][3]
        cats = [c for c, z in zip(paper_figures.T11_CATEGORIES, zs, strict=True) if z > Z_CRITICAL]
        parts.append(
            f"{table.removeprefix('Table ')}: |Z| > {Z_CRITICAL} in "
            + (", ".join(cats) if cats else "no category")
        )
    return "; ".join(parts)


def _her_higher(table_a: str, table_b: str, among: str = "Table B.8") -> int:
    """In how many of the categories significant in ``among`` ``table_a``'s F is higher."""
    a, b = paper_figures.t11_table(table_a), paper_figures.t11_table(table_b)
    zs = paper_figures.T11_APPENDIX_B[among][3]
    return sum(
        a[c][2] > b[c][2]
        for c, z in zip(paper_figures.T11_CATEGORIES, zs, strict=True)
        if z > Z_CRITICAL
    )


def _her_pair(table_a: str, table_b: str, categories: Sequence[str]) -> str:
    a, b = paper_figures.t11_table(table_a), paper_figures.t11_table(table_b)
    return ", ".join(f"{c} {a[c][2]:.1f} vs {b[c][2]:.1f}" for c in categories)


# --------------------------------------------------------------------------- the rules


def claim_no_harm(comparisons: Sequence[Comparison], alpha: float) -> Verdict:
    """Hypothesis 1 as she concludes it (§6.1.1): adding features does not diminish
    performance."""
    if not comparisons:
        verdict, evidence = NOT_TESTED, "not run"
    else:
        won = outcomes(comparisons, alpha)
        worse = [c for c in comparisons if won[c.label] == "b"]
        better = [c for c in comparisons if won[c.label] == "a"]
        verdict = NOT_SUPPORTED if worse else SUPPORTED
        evidence = (
            f"of {len(comparisons)} category comparisons, all features significantly higher in "
            f"{len(better)}, a single feature set significantly higher in {len(worse)}"
            + (": " + "; ".join(c.label for c in worse[:6]) if worse else "")
            + f" (hers, against the Stanford set: {her_significant('Table B.1', 'Table B.2')})"
        )
    return Verdict(
        "Adding the other systems' features does not diminish performance",
        "Hypothesis 1, §6.1.1, Tables A.1-A.10, B.1-B.2",
        verdict,
        evidence,
        f"her z-test on per-category F-measures (eq. 3.4-3.5), Holm over the family, α = {alpha}",
        "supported if no single feature set is significantly better than all features in any "
        "category on either corpus; not supported otherwise",
    )


def claim_mega_beats_sources(comparisons: Sequence[Comparison], alpha: float) -> Verdict:
    """Hypothesis 1 as stated (§1.2): all features outperform every single system's."""
    verdict, evidence = rule_a_beats_b(comparisons, alpha)
    return Verdict(
        "The Mega SVM outperforms every single system's feature set",
        "Hypothesis 1, §1.2",
        verdict,
        evidence,
        f"approximate randomization on PHI F1 over documents, Holm over {len(comparisons)} "
        f"comparisons, α = {alpha}",
        "supported if all features have a significantly higher PHI F than each single "
        "feature set on both corpora; not supported if a single set is significantly higher "
        "anywhere; partly if all features win some and tie the rest; inconclusive if they "
        "win none",
    )


def claim_universality(
    comparisons: Sequence[Comparison], alpha: float, both_collections: bool
) -> Verdict:
    """Hypothesis 2 (§1.2): it performs similarly well on different corpora."""
    if not comparisons or all(np.isnan(c.p) for c in comparisons):
        verdict, evidence = NOT_TESTED, "not run"
    else:
        won = outcomes(comparisons, alpha)
        differ = [c for c in comparisons if won[c.label] != "tie"]
        verdict = (
            SUPPORTED
            if not differ
            else NOT_SUPPORTED
            if len(differ) == len(comparisons)
            else PARTLY
        )
        evidence = (
            "; ".join(
                f"{c.label}: {pct(c.value_a)} vs {pct(c.value_b)}"
                + (" (significant)" if won[c.label] != "tie" else "")
                for c in comparisons
            )
            + f" (hers: {her_significant('Table B.3', 'Table B.4', 'Table B.5', 'Table B.6')})"
        )
        if not both_collections:
            evidence += "; one collection only"
    return Verdict(
        "The Mega SVM performs similarly well on different corpora",
        "Hypothesis 2, §6.1.2, Tables B.3-B.6",
        verdict,
        evidence,
        "PHI F: paired approximate randomization where the notes are the same (authentic vs "
        "surrogate), her z-test otherwise; Holm over the pairs, "
        f"α = {alpha}",
        "supported if no pair of corpora differs significantly in PHI F; not supported if "
        "every pair does; partly otherwise",
    )


def claim_cross_corpus(comparison: Comparison | None, alpha: float) -> Verdict:
    """Her finding for Hypothesis 2 (§6.1.2, Table A.13): trained on one corpus, it does
    worse on another."""
    if comparison is None or np.isnan(comparison.p):
        verdict, evidence = NOT_TESTED, "needs a second collection (`--other`)"
    else:
        lower = comparison.value_a < comparison.value_b
        verdict = SUPPORTED if comparison.p < alpha and lower else NOT_SUPPORTED
        evidence = (
            f"PHI F trained on the first collection {pct(comparison.value_a)} vs trained on "
            f"the second itself {pct(comparison.value_b)} (p {fmt_p(comparison.p)}); hers "
            f"(A.13 vs A.11): {_her_pair('Table A.13', 'Table A.11', ('DOCTOR', 'PATIENT'))}"
        )
    return Verdict(
        "Trained on one corpus, the Mega SVM does significantly worse on another",
        "Hypothesis 2, §6.1.2, Table A.13",
        verdict,
        evidence,
        f"paired approximate randomization on PHI F1 over the test documents, α = {alpha}",
        "supported if the cross-corpus PHI F is significantly lower than the test corpus's "
        "own cross-validated F; not supported otherwise",
    )


def claim_no_overfitting(
    phi: Comparison | None, categories: Sequence[Comparison], alpha: float
) -> Verdict:
    """Hypothesis 3 (§6.1.3): cross-validation on the training part matches the held-out
    part."""
    if phi is None or np.isnan(phi.p):
        return Verdict(
            "The Mega SVM does not over-fit",
            "Hypothesis 3, §6.1.3, Tables A.14, B.7",
            NOT_TESTED,
            "not run",
            "",
            "",
        )
    overfit = phi.p < alpha and phi.value_a > phi.value_b
    won = outcomes(categories, alpha) if categories else {}
    worse = [c.label for c in categories if won.get(c.label) == "a"]
    verdict = NOT_SUPPORTED if overfit else PARTLY if worse else SUPPORTED
    return Verdict(
        "The Mega SVM does not over-fit",
        "Hypothesis 3, §6.1.3, Tables A.14, B.7",
        verdict,
        f"PHI F cross-validated {pct(phi.value_a)} vs held-out {pct(phi.value_b)} "
        f"(p {fmt_p(phi.p)}); categories significantly lower held-out: "
        f"{', '.join(worse) or 'none'} (hers: {her_significant('Table B.7')})",
        f"her z-test on PHI F (different documents) and per category, Holm over the "
        f"categories, α = {alpha}",
        "supported if the held-out PHI F is not significantly below the cross-validated one "
        "and no category is; partly if only some category is; not supported if PHI F is",
    )


def claim_mega_beats_multi(comparisons: Sequence[Comparison], alpha: float) -> Verdict:
    """Hypothesis 4 (§1.2): the Mega SVM beats the stacked Multi-deidentifier."""
    verdict, evidence = rule_a_beats_b(comparisons, alpha)
    if comparisons:
        c = comparisons[0]
        evidence = (
            f"PHI F Mega {pct(c.value_a)} vs Multi {pct(c.value_b)} (p {fmt_p(c.p)}); hers: "
            f"{her_significant('Table B.8')}, Multi higher in "
            f"{_her_higher('Table A.15', 'Table A.6')} of them"
        )
    if verdict == INCONCLUSIVE:
        evidence += "; no significant difference"
    return Verdict(
        "The Mega SVM outperforms the Multi-deidentifier",
        "Hypothesis 4, §6.1.4, Tables A.15, B.8",
        verdict,
        evidence,
        f"approximate randomization on PHI F1 over documents, α = {alpha}",
        "supported if Mega's PHI F is significantly higher; not supported if Multi's is; "
        "inconclusive otherwise",
    )

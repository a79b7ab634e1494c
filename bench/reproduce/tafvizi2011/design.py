"""Tafvizi (2011) as this reproduction lays it out: her four hypotheses, her two collections
of notes and ours, her feature sets and systems, and her appendix B findings.

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

Her corpora are two collections of discharge summaries (Challenge, Obesity), each with real
and with surrogate PHI, split into training and test parts.  Ours: the base corpus
(``--base``) and a second one (``--other``), each as is and as its ``surrogate`` variant.
With the embedded base and no ``--other``, the embedded generator's two kinds of note play
the two collections: its discharge summaries (the Challenge corpus) and its ICU nursing notes
(the other collection), written from different templates.  Where a corpus has no
train/test split of its own we use 10-fold cross-validation (the runner's default, so the
cells are shared with ``run``), and for Hypothesis 3 a seeded 75/25 split grouped like the
folds (the thesis's corpora had their own).

Every comparison of hers is her z-test (§3.5.4, eqs. 3.4-3.5) on two F-measures with ``n``
the category's gold tokens; :func:`her_z` computes it for our figures, printed as she
printed it.  It treats tokens as independent draws and decides no verdict here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bench.reproduce import paper_figures
from bench.reproduce.common import EMBEDDED, Options, Role
from bench.run.plan import variant_spec
from corpora.model import LABELS, Corpus, Document

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
    from bench.run.protocols import SPLIT_KEY, cross_validation, has_own_split

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


def her_higher(table_a: str, table_b: str, among: str = "Table B.8") -> int:
    """In how many of the categories significant in ``among`` ``table_a``'s F is higher."""
    a, b = paper_figures.t11_table(table_a), paper_figures.t11_table(table_b)
    zs = paper_figures.T11_APPENDIX_B[among][3]
    return sum(
        a[c][2] > b[c][2]
        for c, z in zip(paper_figures.T11_CATEGORIES, zs, strict=True)
        if z > Z_CRITICAL
    )


def her_pair(table_a: str, table_b: str, categories: Sequence[str]) -> str:
    a, b = paper_figures.t11_table(table_a), paper_figures.t11_table(table_b)
    return ", ".join(f"{c} {a[c][2]:.1f} vs {b[c][2]:.1f}" for c in categories)


def by_category(df: Any, corpus: str, systems: Sequence[str]) -> dict[tuple[str, str], Any]:
    """(system, category or non-PHI or PHI) -> results row, token level, every token."""
    sel = df[(df.corpus == corpus) & (df.level == "token") & (df.subset == "all")]
    sel = sel[sel.system.isin(list(systems))]
    return {(r.system, r.label): r for r in sel.itertuples()}


def her_z(a: Any, b: Any) -> tuple[float, float]:
    """Her z (eq. 3.4-3.5) of two results rows' F-measures, n = each row's gold tokens."""
    from bench.score.significance import z_test_proportions

    return z_test_proportions(float(a.f1), float(a.tp + a.fn), float(b.f1), float(b.tp + b.fn))

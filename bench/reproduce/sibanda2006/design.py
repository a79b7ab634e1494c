"""Sibanda & Uzuner (2006) as this reproduction lays it out: the paper's systems and ours,
its four corpora as variants of the base, its result tables and where we measure each.

Its protocol, followed here:

* The IdentiFinder comparison (Tables 2, 4, 7, 11) leaves ID numbers out, "to be fair to
  IdentiFinder which was not trained on this category" (§6): scored on the ``no_id``
  subset.  The heuristic+dictionary system shares those tables, so it is scored the same.
* For the SNoW comparison (Tables 3, 5, 8, 12) the paper *retrained* its SVM on people,
  locations and organizations only: ``svm-plo`` is ``svm`` with
  ``train_categories=(DOCTOR, HOSPITAL, LOCATION, PATIENT)``, and both are scored on those
  categories.
* Table 9 scores only the ambiguous words (PHI and non-PHI uses), Table 13 only the PHI not
  found in dictionaries (the share found, which the paper labels precision).
"""

from __future__ import annotations

from dataclasses import dataclass

from bench.reproduce import paper_figures
from bench.reproduce.common import Role
from bench.run.plan import variant_spec
from bench.run.run_types import PLO_SUBSET
from corpora.model import PEOPLE_LOCATIONS_ORGANIZATIONS
from corpora.variants import PAPER_CORPORA

NAME = "sibanda2006"
TITLE = "Sibanda & Uzuner (2006), reproduced"
SOURCE = paper_figures.SU06_SOURCE

#: The categories of the SNoW comparison, sorted (parameters must be stable for the cache).
PLO_CATEGORIES = tuple(sorted(PEOPLE_LOCATIONS_ORGANIZATIONS))

#: The paper's systems and ours: role -> system in the run.
ROLES: dict[str, Role] = {
    "svm": Role("svm", "svm", {}, "SVM"),
    "identifinder": Role("hmm", "hmm", {}, "IdentiFinder"),
    "dictionary": Role("heuristic", "heuristic", {}, "H+D"),
    "snow": Role("snow", "snow", {}, "SNoW"),
    "svm_plo": Role(
        "svm-plo", "svm", {"train_categories": PLO_CATEGORIES}, "SVM (people/loc./org.)"
    ),
    "snow_local": Role("snow-local", "snow", {"inference_weight": 0.0}, "SNoW, no inference"),
}
#: The four corpora: the paper's name -> the variant of the base.
CORPORA = PAPER_CORPORA
PAPER_CORPUS = {
    "authentic": "authentic discharge summaries",
    "surrogate": "re-identified discharge summaries",
    "ambiguous": "re-identified with ambiguous PHI",
    "unseen": "PHI not in dictionaries",
}

#: §6.4: the five most informative features, as our SVM's feature templates name them.
PAPER_TOP_FEATURES = {
    "lw0": "the target word (TW)",
    "bg-": "the bigram before TW",
    "bg+": "the bigram after TW",
    "lw-1": "the word before TW",
    "lw+1": "the word after TW",
}


@dataclass(frozen=True)
class PaperTable:
    """One of the paper's result tables and where we measure it."""

    number: str
    title: str
    corpus: str
    subset: str


TABLES = (
    PaperTable("Table 2", "re-identified discharge summaries", "surrogate", "no_id"),
    PaperTable("Table 3", "SNoW and SVM, re-identified", "surrogate", PLO_SUBSET),
    PaperTable("Table 4", "authentic discharge summaries", "authentic", "no_id"),
    PaperTable("Table 5", "SNoW and SVM, authentic", "authentic", PLO_SUBSET),
    PaperTable("Table 7", "the corpus with ambiguous PHI", "ambiguous", "no_id"),
    PaperTable("Table 8", "SNoW and SVM, ambiguous", "ambiguous", PLO_SUBSET),
    PaperTable(
        "Table 9", "ambiguous people, locations and organizations only", "ambiguous", "ambiguous"
    ),
    PaperTable("Table 11", "PHI not in dictionaries", "unseen", "no_id"),
    PaperTable("Table 12", "SNoW and SVM, PHI not in dictionaries", "unseen", PLO_SUBSET),
)


def role_of(paper_system: str, subset: str) -> str:
    """Our role playing ``paper_system`` in a table scored on ``subset``."""
    if paper_system == "SVM":
        return "svm_plo" if subset == PLO_SUBSET else "svm"
    return {"IdentiFinder": "identifinder", "H+D": "dictionary", "SNoW": "snow"}[paper_system]


def published(table: str) -> list[paper_figures.Published]:
    """The paper's rows of ``table``."""
    return [p for p in paper_figures.PUBLISHED if p.source == SOURCE and p.table == table]


def paper(table: str, system: str, measure: str = "f1", label: str = "PHI") -> float:
    """One published figure (percent), e.g. ``paper("Table 2", "H+D")``."""
    for p in published(table):
        if p.paper_system == system and p.label == label:
            value = getattr(p, measure)
            if value is not None:
                return float(value)
    raise KeyError((table, system, measure, label))


def corpus_specs(base: str) -> dict[str, str]:
    """The paper's four corpora as specs of ``base`` and its variants."""
    return {
        "authentic": base,
        **{v: variant_spec(base, v) for v in ("surrogate", "ambiguous", "unseen")},
    }


def reason(system: str, higher: bool) -> str:
    """Why we believe ``system`` scores above (``higher``) or below the paper."""
    if system == "hmm":
        return (
            "IdentiFinder was applied pre-trained on news (§4.3); ours is trained on the "
            "training folds of the same notes, so it knows their PHI contexts."
            if higher
            else "Our IdentiFinder-style HMM simplifies Nymble's unknown-word model, and is "
            "trained on far fewer PHI than a news model on names."
        )
    if system.startswith("snow"):
        return (
            "Roth & Yih's relational inference is replaced by learned sentence-level type "
            "constraints and SNoW's own gazetteers by the harness dictionaries; "
            + (
                "our notes' names sit in more regular contexts."
                if higher
                else "our token network also has to find the entity boundaries, which "
                "SNoW was given."
            )
        )
    if system == "heuristic":
        return (
            "Douglass's program and lists are unavailable: our rules are re-written from §4.1 "
            "on the harness dictionaries, which "
            + ("cover more of our names and hospitals." if higher else "miss some of ours.")
        )
    return "MeSH is replaced by WordNet noun classes and the paper's tagger by NLTK's; " + (
        "our notes repeat their contexts more than real ones."
        if higher
        else "the training folds hold fewer PHI of some kinds than the paper's corpus."
    )

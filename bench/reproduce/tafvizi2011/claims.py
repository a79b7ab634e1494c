"""The claims of Tafvizi (2011), each a pure function from its parts to a verdict.

The parts are measured in :mod:`bench.reproduce.tafvizi2011.experiments` on documents; her
z-test is printed in the tables as hers and decides nothing.  The verdict is
:func:`bench.reproduce.verdicts.judge`'s, the one rule of ``docs/reproduce.md``.
"""

from __future__ import annotations

from collections.abc import Sequence

from bench.reproduce.common import SAME_POINTS, Verdict
from bench.reproduce.tafvizi2011.design import her_higher, her_pair, her_significant
from bench.reproduce.verdicts import (
    BOOTSTRAP,
    RANDOMIZATION,
    UNPAIRED_RANDOMIZATION,
    Part,
    verdict_of,
)

#: Why our two collections differ the other way round from hers.
NURSING_HARDER = (
    "with the embedded corpus our second collection is ICU nursing notes -- fragments, "
    "all-lower-case and all-caps notes -- where hers (Obesity) was discharge summaries like "
    "the first; our nursing notes are the harder collection"
)


def mega_beats_sources(parts: Sequence[Part], alpha: float) -> Verdict:
    """Hypothesis 1 as stated (§1.2): all features outperform any single system's."""
    return verdict_of(
        "The Mega SVM outperforms every single system's feature set",
        "Hypothesis 1, §1.2",
        parts,
        alpha,
        f"{RANDOMIZATION} on PHI F",
        "on each of the first collection's two corpora, all features' PHI F above each single "
        "feature set's",
    )


def features_do_no_harm(parts: Sequence[Part], alpha: float) -> Verdict:
    """Hypothesis 1 as she concludes it (§6.1.1, B.1-B.2): adding features does not
    diminish performance."""
    return verdict_of(
        "Adding the other systems' features does not diminish performance",
        "Hypothesis 1, §6.1.1, Tables A.1-A.10, B.1-B.2",
        parts,
        alpha,
        f"{BOOTSTRAP} (paired), one-sided",
        f"on each corpus, for each single feature set and each category, all features' F at "
        f"most {SAME_POINTS:g} point below the single set's (hers, against the Stanford set: "
        f"{her_significant('Table B.1', 'Table B.2')})",
        "a category with few tokens (AGE, PHONE, LOCATION) cannot show a difference under "
        "one point either way",
    )


def similar_across_corpora(parts: Sequence[Part], alpha: float) -> Verdict:
    """Hypothesis 2 as stated (§1.2): it performs similarly well on different test corpora."""
    return verdict_of(
        "The Mega SVM performs similarly well on different corpora",
        "Hypothesis 2, §1.2, Tables B.3-B.6",
        parts,
        alpha,
        f"{BOOTSTRAP}, two one-sided tests (paired where the notes are the same)",
        f"for each pair of B.3-B.6, the two PHI F within {SAME_POINTS:g} point of each other "
        f"(hers: {her_significant('Table B.3', 'Table B.4', 'Table B.5', 'Table B.6')})",
        NURSING_HARDER,
    )


def better_on_obesity(parts: Sequence[Part], alpha: float) -> Verdict:
    """Her finding for Hypothesis 2 (§6.1.2, B.4, B.6): it performs significantly better on
    the Obesity corpora."""
    return verdict_of(
        "The Mega SVM performs significantly better on the Obesity corpora",
        "Hypothesis 2, §6.1.2, Tables B.4, B.6",
        parts,
        alpha,
        f"{UNPAIRED_RANDOMIZATION} on PHI F",
        "the second collection's PHI F above the first's, authentic (B.4) and surrogate (B.6)",
        NURSING_HARDER,
    )


def worse_across_corpora(parts: Sequence[Part], alpha: float) -> Verdict:
    """Her finding for Hypothesis 2 (§6.1.2, Table A.13): trained on one corpus, it does
    worse on another."""
    return verdict_of(
        "Trained on one corpus, the Mega SVM does significantly worse on another",
        "Hypothesis 2, §6.1.2, Table A.13",
        parts,
        alpha,
        f"{RANDOMIZATION} (the same test notes) on PHI F",
        "trained on the first collection, its PHI F on the second below the second's own "
        f"cross-validated F (hers, A.13 vs A.11: "
        f"{her_pair('Table A.13', 'Table A.11', ('DOCTOR', 'PATIENT'))})",
    )


def no_overfitting(parts: Sequence[Part], alpha: float) -> Verdict:
    """Hypothesis 3 (§6.1.3, B.7): cross-validation on the training part matches the
    held-out part."""
    return verdict_of(
        "The Mega SVM does not over-fit",
        "Hypothesis 3, §6.1.3, Tables A.14, B.7",
        parts,
        alpha,
        f"{BOOTSTRAP} (unpaired), one-sided",
        f"the held-out part's PHI F at most {SAME_POINTS:g} point below the cross-validated "
        f"one (hers: {her_significant('Table B.7')})",
    )


def mega_beats_multi(parts: Sequence[Part], alpha: float) -> Verdict:
    """Hypothesis 4 (§1.2, §6.1.4, B.8): it outperforms the Multi-deidentifier."""
    return verdict_of(
        "The Mega SVM outperforms the Multi-deidentifier",
        "Hypothesis 4, §6.1.4, Tables A.15, B.8",
        parts,
        alpha,
        f"{RANDOMIZATION} on PHI F",
        "Mega's PHI F above Multi's on the authentic first collection (hers: "
        f"{her_significant('Table B.8')}, Multi higher in "
        f"{her_higher('Table A.15', 'Table A.6')} of them; §6.1.4: 'The Multi-deidentifier "
        "performs significantly better')",
        "as in her own Table B.8: stacking five systems' decisions beats one SVM over their "
        "features (§6.2 credits the base systems' two-stage models and text processing)",
    )


def weaker_on_hospitals_and_locations(parts: Sequence[Part], alpha: float) -> Verdict:
    """§6.2: the system does not perform as well on the Hospitals and Locations categories."""
    return verdict_of(
        "The Mega SVM does not do as well on hospitals and locations",
        "§6.2",
        parts,
        alpha,
        f"{BOOTSTRAP} (paired), one-sided",
        "on each corpus, the F of HOSPITAL and of LOCATION each below the F of the other PHI "
        "categories together",
        "our notes' hospital and place names are short, mostly from the dictionaries, and "
        "sit in regular contexts; hers spanned many tokens of real, varied names (§6.2)",
    )


#: Every claim, in the report's order.
CLAIMS = (
    mega_beats_sources,
    features_do_no_harm,
    similar_across_corpora,
    better_on_obesity,
    worse_across_corpora,
    no_overfitting,
    mega_beats_multi,
    weaker_on_hospitals_and_locations,
)

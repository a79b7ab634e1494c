"""The claims of the Stat De-id report, each a pure function from its parts to a verdict.

The parts are measured in :mod:`bench.reproduce.statdeid.experiments`; the verdict is
:func:`bench.reproduce.verdicts.judge`'s, the one rule of ``docs/reproduce.md``.  The report
states no significance test; ours are on documents: approximate randomization where two
models labelled the same documents (every ablation and kernel), a bootstrap over documents
for a figure against a bound.
"""

from __future__ import annotations

from collections.abc import Sequence

from bench.reproduce.common import SAME_POINTS, Verdict
from bench.reproduce.statdeid.design import (
    COMPARABLE_F_POINTS,
    HUMAN_RECALL,
    LITTLE_RECALL_POINTS,
    NOTHING_FOUND,
)
from bench.reproduce.verdicts import BOOTSTRAP, RANDOMIZATION, Part, verdict_of

#: Why generated notes let more feature classes find PHI alone than the i2b2 notes did.
GENERATED_CONTEXTS = (
    "our notes are generated from templates, so a section heading or a neighbouring word "
    "predicts PHI more often than in the i2b2 discharge summaries"
)
#: Why the word alone does so well on our notes.
WORD_MEMORY = (
    "our notes draw their names and places from the same lists in every fold, so the word "
    "itself, alone, already recognizes much of the PHI; " + GENERATED_CONTEXTS
)
#: Why no single class's removal costs much on our notes.
REDUNDANT_CLASSES = (
    "with every other class kept, what one class knows is mostly known by another in our "
    "feature set (the word's shape and its neighbours recur in the bigrams), so removing one "
    "costs little"
)
#: What we know of the Gaussian kernel on our notes.
GAUSSIAN = (
    "trained on 50 of our notes the linear kernel is already near its best, leaving the "
    "Gaussian kernel little to gain; we have not found why it falls below the linear one"
)


def beats_humans(parts: Sequence[Part], alpha: float) -> Verdict:
    """§5.3, abstract: 97.37 % precision and 93.52 % recall, above an average human's 81 %."""
    return verdict_of(
        "The de-identifier locates PHI effectively, above an average human de-identifier",
        "abstract, §5.3",
        parts,
        alpha,
        f"{BOOTSTRAP}, one-sided",
        f"PHI recall above the human's {100 * HUMAN_RECALL:.0f} %",
    )


def lexical_bigrams_best(parts: Sequence[Part], alpha: float) -> Verdict:
    """§5.4.1: lexical bigrams alone contribute the most to precision and recall."""
    return verdict_of(
        "Lexical bigrams alone contribute the most to PHI precision and recall",
        "§5.4.1, Figures 2-3",
        parts,
        alpha,
        f"{RANDOMIZATION} on precision and on recall",
        "used alone, lexical bigrams' PHI precision and recall each above every other of the "
        "report's classes used alone",
        WORD_MEMORY,
    )


def syntactic_bigrams_second(parts: Sequence[Part], alpha: float) -> Verdict:
    """§5.4.1: syntactic bigrams alone also have good precision, and a slightly worse recall."""
    return verdict_of(
        "Syntactic bigrams alone have a slightly worse recall than lexical bigrams",
        "§5.4.1, Figure 3",
        parts,
        alpha,
        f"{RANDOMIZATION} on recall",
        "used alone, syntactic bigrams' PHI recall below lexical bigrams'",
    )


def section_alone_finds_nothing(parts: Sequence[Part], alpha: float) -> Verdict:
    """§5.4.1: section headings alone reach 0 % precision and recall."""
    return verdict_of(
        "Section headings alone find no PHI",
        "§5.4.1",
        parts,
        alpha,
        f"{BOOTSTRAP}, one-sided",
        f"used alone, section headings' PHI recall below {100 * NOTHING_FOUND:g} %",
        GENERATED_CONTEXTS,
    )


def word_precision(parts: Sequence[Part], alpha: float) -> Verdict:
    """§5.4.2, Figure 4: disabling the word itself hurts precision most (97.37 -> 93.02)."""
    return verdict_of(
        "Disabling the word itself hurts PHI precision most",
        "§5.4.2, Figure 4",
        parts,
        alpha,
        f"{RANDOMIZATION} on precision",
        "PHI precision without the word itself below precision with every class, and below "
        "precision without any other of the report's classes",
        REDUNDANT_CLASSES,
    )


def word_orthography_recall(parts: Sequence[Part], alpha: float) -> Verdict:
    """§5.4.2, Figure 5: disabling the word itself and orthography hurts recall most."""
    return verdict_of(
        "Disabling the word itself or orthography hurts PHI recall most",
        "§5.4.2, Figure 5",
        parts,
        alpha,
        f"{RANDOMIZATION} on recall",
        "for each of the two, PHI recall without it below recall with every class, and below "
        "recall without any of the report's other classes",
        REDUNDANT_CLASSES,
    )


def non_phi_unaffected(parts: Sequence[Part], alpha: float) -> Verdict:
    """§5.4.2: non-PHI precision and recall are not affected by disabling a single class."""
    return verdict_of(
        "Disabling a single class leaves non-PHI precision and recall unaffected",
        "§5.4.2, Figures 4-5",
        parts,
        alpha,
        f"{BOOTSTRAP}, two one-sided tests",
        f"for each of the report's classes, non-PHI precision and recall without it within "
        f"{SAME_POINTS:g} point of those with every class",
    )


def gaussian_precision(parts: Sequence[Part], alpha: float) -> Verdict:
    """§5.5: the Gaussian kernel outperforms the linear one on PHI precision, sacrificing
    very little recall."""
    return verdict_of(
        "The Gaussian kernel beats the linear one on PHI precision, losing very little recall",
        "§5.5, Table 3",
        parts,
        alpha,
        f"{RANDOMIZATION} on precision; {BOOTSTRAP} on the recall lost",
        "the Gaussian kernel's PHI precision above the linear kernel's, and its recall at most "
        f"{LITTLE_RECALL_POINTS:.1f} points below (the loss Table 3 shows and the report "
        "calls very little)",
        GAUSSIAN,
    )


def quadratic_extremes(parts: Sequence[Part], alpha: float) -> Verdict:
    """Table 3: the quadratic kernel has the highest PHI precision and the lowest recall."""
    return verdict_of(
        "The quadratic kernel has the highest PHI precision and the lowest recall",
        "§5.5, Table 3",
        parts,
        alpha,
        f"{RANDOMIZATION} on precision and on recall",
        "the quadratic kernel's PHI precision above the linear and the Gaussian kernels', and "
        "its recall below both",
        "the report's quadratic kernel lost recall on 50 real notes (59.3 %); on ours it "
        "generalises as well as the linear one",
    )


def kernels_effective(parts: Sequence[Part], alpha: float) -> Verdict:
    """Abstract, §5.5, §6: kernels other than linear are effective, with an overall
    performance comparable to the linear kernel's and better on precision and/or recall."""
    return verdict_of(
        "Kernels other than the linear one are effective: comparable overall, better on "
        "precision and/or recall",
        "abstract, §5.5, §6",
        parts,
        alpha,
        f"{BOOTSTRAP} on the F lost; {RANDOMIZATION} on precision and recall",
        "for the quadratic and the Gaussian kernel: its PHI F at most "
        f"{COMPARABLE_F_POINTS:.1f} points below the linear kernel's (the gap Table 3 shows "
        "and the report calls comparable), and its precision or its recall above the linear "
        "kernel's",
        GAUSSIAN,
    )


def both_improve(parts: Sequence[Part], alpha: float) -> Verdict:
    """§5.6, Figures 6-7: precision and recall both improve with the training set's size."""
    return verdict_of(
        "Precision and recall both improve with more training data",
        "§5.6, Figures 6-7",
        parts,
        alpha,
        f"{RANDOMIZATION} on precision and on recall",
        "PHI precision and recall each higher with the whole training folds than with the "
        "smallest share",
    )


def recall_gains_more(parts: Sequence[Part], alpha: float) -> Verdict:
    """§5.6: the effect of more data is stronger for recall than for precision."""
    return verdict_of(
        "The gain is larger for recall than for precision",
        "§5.6",
        parts,
        alpha,
        f"{BOOTSTRAP}, one-sided",
        "the recall gained from the smallest share to the whole training folds above the "
        "precision gained",
    )


def more_data_helps(parts: Sequence[Part], alpha: float) -> Verdict:
    """§5.6: a larger training set would still improve precision and recall."""
    return verdict_of(
        "A larger training set would still help",
        "§5.6",
        parts,
        alpha,
        f"{RANDOMIZATION} on precision and on recall",
        "PHI precision or recall higher with the whole training folds than with half of them "
        "(the last doubling)",
    )


#: Every claim, in the report's order.
CLAIMS = (
    beats_humans,
    lexical_bigrams_best,
    syntactic_bigrams_second,
    section_alone_finds_nothing,
    word_precision,
    word_orthography_recall,
    non_phi_unaffected,
    gaussian_precision,
    quadratic_extremes,
    kernels_effective,
    both_improve,
    recall_gains_more,
    more_data_helps,
)

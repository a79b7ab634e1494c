"""The Stat De-id re-implementation report as this reproduction lays it out: its system, its
feature classes and ours, and the figures it quotes that the claims measure against.

The report (an MIT 6.864 project re-implementing Stat De-id, Uzuner et al. 2008) measures
its binary SVM on the i2b2 2006 Challenge corpus (§5.3), then asks which feature classes
matter (§5.4, Figures 2-5), which kernel (§5.5, Table 3) and how much data (§5.6, Figures
6-7).  Our Stat De-id feature classes split its "lexical" information into the word itself,
its neighbours and the lexical bigrams.
"""

from __future__ import annotations

from bench.reproduce import paper_figures
from bench.reproduce.common import Role

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
#: §5.3: "an average human de-identifier ... achieves a recall of 81 %" (Neamatullah et al.).
HUMAN_RECALL = 0.81
#: A section-only model "finds no PHI" below this recall (the report: 0 %).
NOTHING_FOUND = 0.01


def _f(precision: float, recall: float) -> float:
    return 2 * precision * recall / (precision + recall)


#: Recall points the report calls "very little" to lose (§5.5): Table 3's linear minus
#: Gaussian PHI recall, 79.7 - 74.2.
LITTLE_RECALL_POINTS = (
    paper_figures.SD_KERNELS["linear"][1] - paper_figures.SD_KERNELS["gaussian"][1]
)
#: PHI F points below the linear kernel's that the report still calls "comparable" (§6):
#: Table 3's linear minus quadratic F, 84.1 - 74.1.
COMPARABLE_F_POINTS = _f(*paper_figures.SD_KERNELS["linear"][:2]) - _f(
    *paper_figures.SD_KERNELS["quadratic"][:2]
)
#: Our names of the kernels of Table 3.
KERNELS = {"linear": "linear", "poly": "quadratic", "rbf": "gaussian"}

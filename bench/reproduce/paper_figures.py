"""Published numbers from the three papers, printed beside ours in report.md.

Only numbers are transcribed here, each with the table it comes from.  They were measured on
data we do not have (the i2b2 2006 / Partners discharge summaries); our embedded corpora
imitate the papers' corpora in construction, not in content, so the report labels these
rows "published, different data" and never mixes them into our significance tests.

Sources (``/work/shared/papers``):

* **SU06** -- Sibanda & Uzuner (2006), Tables 1-13.  Their "reidentified" corpus is the
  analogue of our ``surrogate`` corpus; "authentic", "ambiguous" (§6.2) and "not in
  dictionaries" (§6.3, our ``unseen``) map one to one.  Systems: SVM -> ``svm``,
  heuristic+dictionary -> ``heuristic``, IdentiFinder -> ``hmm`` (our IdentiFinder-style
  HMM substitute), SNoW -> ``snow``.
* **SD** -- the Stat De-id re-implementation report: i2b2 2006 test set (§5.3, Table 2),
  kernels (Table 3), one-feature-class ablations (§5.4).
* **T11** -- Tafvizi (2011) MEng thesis, appendix A/B: the Mega SVM (``mega``) with all
  features on the Surrogate / Authentic Challenge corpora, 10-fold CV (Table A.14), the
  cross-corpus model (Table A.13), and the Multi-deidentifier F-measures (Table B.8).
  Values are fractions in the thesis and stored here as percentages.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Published:
    """One published precision/recall/F row (percent; ``None`` where not reported)."""

    source: str
    table: str
    our_corpus: str
    our_system: str
    paper_system: str
    label: str
    subset: str
    precision: float | None
    recall: float | None
    f1: float | None


_SU = "Sibanda & Uzuner 2006"
_SD = "Stat De-id re-implementation report"
_T11 = "Tafvizi 2011"
#: The ``source`` of Sibanda & Uzuner's :class:`Published` rows.
SU06_SOURCE = _SU

# (table, our corpus, subset, [(paper system, our system, label, P, R, F), ...])
_SU06: list[tuple[str, str, str, list[tuple[str, str, str, float, float, float]]]] = [
    (
        "Table 2",
        "surrogate",
        "all",
        [
            ("SVM", "svm", "PHI", 96.8, 97.7, 97.2),
            ("IdentiFinder", "hmm", "PHI", 60.2, 76.7, 67.4),
            ("H+D", "heuristic", "PHI", 88.9, 67.6, 76.8),
            ("SVM", "svm", "non-PHI", 99.6, 99.5, 99.6),
            ("IdentiFinder", "hmm", "non-PHI", 95.8, 91.4, 93.6),
            ("H+D", "heuristic", "non-PHI", 95.2, 95.2, 95.2),
        ],
    ),
    (
        "Table 3",
        "surrogate",
        "people_locations_organizations",
        [
            ("SVM", "svm", "PHI", 97.7, 98.2, 98.0),
            ("SNoW", "snow", "PHI", 96.1, 96.2, 96.2),
            ("SVM", "svm", "non-PHI", 99.8, 99.8, 99.8),
            ("SNoW", "snow", "non-PHI", 99.6, 99.6, 99.6),
        ],
    ),
    (
        "Table 4",
        "authentic",
        "all",
        [
            ("SVM", "svm", "PHI", 97.5, 95.0, 96.2),
            ("IdentiFinder", "hmm", "PHI", 25.2, 45.2, 32.3),
            ("H+D", "heuristic", "PHI", 81.9, 87.6, 84.7),
            ("SVM", "svm", "non-PHI", 99.8, 99.9, 99.9),
            ("IdentiFinder", "hmm", "non-PHI", 97.1, 93.3, 95.2),
            ("H+D", "heuristic", "non-PHI", 99.6, 99.6, 99.6),
        ],
    ),
    (
        "Table 5",
        "authentic",
        "people_locations_organizations",
        [
            ("SVM", "svm", "PHI", 97.4, 93.8, 95.6),
            ("SNoW", "snow", "PHI", 93.7, 93.4, 93.6),
            ("SVM", "svm", "non-PHI", 99.9, 100.0, 100.0),
            ("SNoW", "snow", "non-PHI", 99.9, 99.9, 99.9),
        ],
    ),
    (
        "Table 7",
        "ambiguous",
        "all",
        [
            ("SVM", "svm", "PHI", 92.0, 92.1, 92.0),
            ("IdentiFinder", "hmm", "PHI", 45.4, 71.4, 55.5),
            ("H+D", "heuristic", "PHI", 70.1, 46.6, 56.0),
            ("SVM", "svm", "non-PHI", 98.9, 98.9, 98.9),
            ("IdentiFinder", "hmm", "non-PHI", 95.0, 86.5, 90.1),
            ("H+D", "heuristic", "non-PHI", 92.7, 92.7, 92.7),
        ],
    ),
    (
        "Table 8",
        "ambiguous",
        "people_locations_organizations",
        [
            ("SVM", "svm", "PHI", 92.1, 92.8, 92.5),
            ("SNoW", "snow", "PHI", 91.6, 77.0, 83.7),
            ("SVM", "svm", "non-PHI", 99.3, 99.2, 99.3),
            ("SNoW", "snow", "non-PHI", 97.6, 99.3, 98.4),
        ],
    ),
    (
        "Table 9",
        "ambiguous",
        "ambiguous",
        [
            ("SVM", "svm", "PHI", 90.2, 87.5, 88.8),
            ("IdentiFinder", "hmm", "PHI", 55.8, 64.0, 59.6),
            ("H+D", "heuristic", "PHI", 59.8, 24.3, 34.6),
            ("SNoW", "snow", "PHI", 91.6, 82.9, 87.1),
            ("SVM", "svm", "non-PHI", 90.5, 92.7, 91.6),
            ("IdentiFinder", "hmm", "non-PHI", 69.0, 61.3, 64.9),
            ("H+D", "heuristic", "non-PHI", 59.9, 87.4, 71.1),
            ("SNoW", "snow", "non-PHI", 90.4, 95.5, 92.9),
        ],
    ),
    (
        "Table 11",
        "unseen",
        "all",
        [
            ("SVM", "svm", "PHI", 94.0, 96.0, 95.0),
            ("IdentiFinder", "hmm", "PHI", 55.1, 65.5, 59.8),
            ("H+D", "heuristic", "PHI", 76.4, 27.8, 40.8),
            ("SVM", "svm", "non-PHI", 99.4, 99.1, 99.3),
            ("IdentiFinder", "hmm", "non-PHI", 94.4, 91.6, 92.9),
            ("H+D", "heuristic", "non-PHI", 90.7, 90.7, 90.7),
        ],
    ),
    (
        "Table 12",
        "unseen",
        "people_locations_organizations",
        [
            ("SVM", "svm", "PHI", 93.9, 96.0, 95.0),
            ("SNoW", "snow", "PHI", 93.7, 79.0, 85.7),
            ("SVM", "svm", "non-PHI", 99.6, 99.4, 99.5),
            ("SNoW", "snow", "non-PHI", 98.0, 99.5, 98.7),
        ],
    ),
]

#: Table 13: share of the PHI not found in dictionaries that each system found (percent;
#: the paper calls it precision, the text describes it as the fraction identified).
SU06_TABLE13: dict[str, float] = {"svm": 95.5, "hmm": 76.7, "snow": 79.0, "heuristic": 11.1}

#: Table 1 (and Tables 6 / 10): words per class in the paper's corpora.
SU06_TABLE1: dict[str, dict[str, int]] = {
    "surrogate": {
        "non-PHI": 17872,
        "PATIENT": 1047,
        "DOCTOR": 311,
        "LOCATION": 24,
        "HOSPITAL": 592,
        "DATE": 735,
        "ID": 36,
        "PHONE": 39,
    },
    "authentic": {
        "non-PHI": 112720,
        "PATIENT": 287,
        "DOCTOR": 730,
        "LOCATION": 84,
        "HOSPITAL": 651,
        "DATE": 1933,
        "ID": 477,
        "PHONE": 32,
    },
    # Table 6 (total words; the ambiguous-word column is SU06_TABLE6_AMBIGUOUS)
    "ambiguous": {
        "non-PHI": 19296,
        "PATIENT": 1047,
        "DOCTOR": 311,
        "LOCATION": 24,
        "HOSPITAL": 592,
        "DATE": 736,
        "ID": 36,
        "PHONE": 39,
    },
    # Table 10 (total words; every name/location/hospital word is outside the dictionaries)
    "unseen": {
        "non-PHI": 17872,
        "PATIENT": 1045,
        "DOCTOR": 302,
        "LOCATION": 24,
        "HOSPITAL": 376,
        "DATE": 735,
        "ID": 36,
        "PHONE": 39,
    },
}
SU06_TABLE6_AMBIGUOUS: dict[str, int] = {
    "non-PHI": 3781,
    "PATIENT": 514,
    "DOCTOR": 247,
    "LOCATION": 24,
    "HOSPITAL": 82,
    "DATE": 201,
    "ID": 0,
    "PHONE": 0,
}
#: Table 10, "PHI Not in Dict." column: every name, location and hospital word.
SU06_TABLE10_NOT_IN_DICTIONARY: dict[str, int] = {
    "non-PHI": 0,
    "PATIENT": 1045,
    "DOCTOR": 302,
    "LOCATION": 24,
    "HOSPITAL": 376,
    "DATE": 0,
    "ID": 0,
    "PHONE": 0,
}


def su06_corpus_columns() -> dict[str, dict[str, int]]:
    """The paper's word counts of Tables 1, 6 and 10 as the columns
    :func:`corpora.stats.stats_markdown` prints beside ours (keys
    :data:`corpora.stats.PAPER_COLUMNS`, classes as its rows: ``Non-PHI`` and the labels)."""

    def rows(column: dict[str, int]) -> dict[str, int]:
        return {("Non-PHI" if k == "non-PHI" else k): v for k, v in column.items()}

    return {
        "table1_reidentified": rows(SU06_TABLE1["surrogate"]),
        "table1_authentic": rows(SU06_TABLE1["authentic"]),
        "table6_total": rows(SU06_TABLE1["ambiguous"]),
        "table6_ambiguous": rows(SU06_TABLE6_AMBIGUOUS),
        "table10_total": rows(SU06_TABLE1["unseen"]),
        "table10_not_in_dictionary": rows(SU06_TABLE10_NOT_IN_DICTIONARY),
    }


#: Stat De-id report, i2b2 2006 challenge test set (§5.3, Table 2), percent.
SD_I2B2 = [
    ("re-implementation", "svm", "PHI", 97.37, 93.52, 95.41),
    ("re-implementation", "svm", "non-PHI", 99.61, 99.85, 99.73),
    ("Stat De-id (Uzuner et al. 2007)", "svm", "PHI", 98.46, 95.24, 96.82),
]
#: Stat De-id report Table 3: kernel -> (PHI P, PHI R, non-PHI P, non-PHI R), 50 training docs.
SD_KERNELS: dict[str, tuple[float, float, float, float]] = {
    "linear": (89.1, 79.7, 98.8, 99.4),
    "quadratic": (98.7, 59.3, 97.6, 99.9),
    "gaussian": (95.0, 74.2, 98.5, 99.8),
}
#: Stat De-id report Table 2, the confusion matrix as printed (rows: predicted PHI,
#: predicted non-PHI; columns: actual PHI, actual non-PHI).
SD_CONFUSION = {"tp": 9013, "fp": 625, "fn": 243, "tn": 158838}
#: Stat De-id report §5.4: selected ablation figures quoted in the text (PHI, percent).
SD_ABLATION = {
    "only lexical bigrams": {
        "precision": 89.76,
        "recall": 67.91,
        "non-PHI precision": 98.08,
        "non-PHI recall": 99.53,
    },
    "only section heading": {"precision": 0.0, "recall": 0.0},
    "all but word itself": {"precision": 93.02},
    "all but word itself / orthography (recall)": {"recall": 90.14},
}

_T11_CATS = ("non-PHI", "PATIENT", "DOCTOR", "LOCATION", "HOSPITAL", "DATE", "ID", "PHONE", "AGE")
# (table, description, our corpus, protocol, {category: (P, R, F)} as fractions)
_T11_TABLES: list[tuple[str, str, str, str, list[tuple[float, float, float]]]] = [
    (
        "Table A.1",
        "Surrogate Challenge, all features",
        "surrogate",
        "split",
        [
            (0.99696, 0.99983, 0.99840),
            (0.99592, 0.95321, 0.97410),
            (0.98941, 0.97058, 0.97991),
            (0.96031, 0.50416, 0.66120),
            (0.97733, 0.83458, 0.90033),
            (0.99766, 0.98843, 0.99302),
            (0.99666, 0.99500, 0.99582),
            (1.00000, 0.80000, 0.88889),
            (0.66667, 0.66667, 0.66667),
        ],
    ),
    (
        "Table A.6",
        "Authentic Challenge, all features",
        "authentic",
        "split",
        [
            (0.99487, 0.99966, 0.99726),
            (0.98594, 0.96463, 0.97517),
            (0.99041, 0.94023, 0.96467),
            (0.92381, 0.38340, 0.54190),
            (0.98316, 0.67735, 0.80210),
            (0.98546, 0.98454, 0.98500),
            (0.99582, 0.99251, 0.99417),
            (0.98462, 0.76190, 0.85906),
            (0.0, 0.0, 0.0),
        ],
    ),
    (
        "Table A.13",
        "trained on Surrogate Challenge, tested on Surrogate Obesity",
        "",
        "cross",
        [
            (0.99154, 0.99964, 0.99558),
            (0.99627, 0.59071, 0.74167),
            (0.98346, 0.69886, 0.81709),
            (0.92793, 0.16748, 0.28375),
            (0.90321, 0.83220, 0.86625),
            (0.98615, 0.89776, 0.93988),
            (0.98615, 0.93788, 0.96141),
            (0.97531, 0.57664, 0.72477),
            (0.0, 0.0, 0.0),
        ],
    ),
    (
        "Table A.14",
        "Surrogate Challenge, 10-fold cross-validation",
        "surrogate",
        "cv",
        [
            (0.99831, 0.99965, 0.99898),
            (1.00000, 0.98131, 0.99057),
            (0.99657, 0.98142, 0.98894),
            (0.0, 0.0, 0.0),
            (0.97908, 0.93227, 0.95510),
            (0.99754, 1.00000, 0.99877),
            (0.99511, 0.99027, 0.99268),
            (1.00000, 0.97368, 0.98667),
            (1.00000, 0.33333, 0.50000),
        ],
    ),
]
#: Tafvizi 2011 Table B.8: Multi-deidentifier F-measure per category, Authentic Challenge.
T11_MULTI_F: dict[str, float] = {
    "non-PHI": 0.99883,
    "PATIENT": 0.0,
    "DOCTOR": 0.98332,
    "LOCATION": 0.72261,
    "HOSPITAL": 0.92906,
    "DATE": 0.99224,
    "ID": 0.99252,
    "PHONE": 0.84137,
    "AGE": 0.5,
}


# The rest of Tafvizi's appendix A (values as fractions, categories in _T11_CATS order), for
# ``reproduce tafvizi2011``.  Kept out of PUBLISHED: the single-feature-set models have no
# counterpart in a ``run`` report.  The extraction prints some captions away from their
# tables; each table is identified by its values where appendix B repeats them (B.1, B.2:
# Stanford; B.4-B.6: Obesity), and the two remaining ones of each corpus by their pattern:
# the MIMIC feature set (rule outputs) has precision 1.0 on every category it finds.
T11_APPENDIX_A: dict[str, tuple[str, list[tuple[float, float, float]]]] = {
    "Table A.2": (
        "Surrogate Challenge, Stat-Deid features",
        [
            (0.99594, 0.99941, 0.99767),
            (0.99595, 0.95906, 0.97716),
            (0.97103, 0.95717, 0.96406),
            (0.97560, 0.33333, 0.49689),
            (0.98191, 0.81335, 0.88972),
            (0.97519, 0.96436, 0.96975),
            (0.99498, 0.99166, 0.99332),
            (0.98076, 0.60000, 0.74452),
            (0.0, 0.0, 0.0),
        ],
    ),
    "Table A.3": (
        "Surrogate Challenge, Stanford features",
        [
            (0.99683, 0.99980, 0.99831),
            (0.99592, 0.95321, 0.97410),
            (0.99158, 0.96842, 0.97987),
            (0.96153, 0.52083, 0.67567),
            (0.97799, 0.83208, 0.89915),
            (0.99392, 0.98426, 0.98907),
            (0.99666, 0.99500, 0.99583),
            (1.00000, 0.76470, 0.86667),
            (1.00000, 0.66667, 0.80000),
        ],
    ),
    "Table A.4": (
        "Surrogate Challenge, MITRE features",
        [
            (0.96482, 0.98805, 0.97629),
            (0.0, 0.0, 0.0),
            (0.0, 0.0, 0.0),
            (0.0, 0.0, 0.0),
            (0.0, 0.0, 0.0),
            (0.50143, 0.56502, 0.53133),
            (0.51391, 0.78500, 0.62116),
            (1.00000, 0.63529, 0.77697),
            (0.0, 0.0, 0.0),
        ],
    ),
    "Table A.5": (
        "Surrogate Challenge, MIMIC features",
        [
            (0.96188, 0.99997, 0.98056),
            (0.0, 0.0, 0.0),
            (0.76000, 0.008217, 0.01626),
            (0.0, 0.0, 0.0),
            (0.0, 0.0, 0.0),
            (1.00000, 0.72882, 0.84315),
            (1.00000, 0.18416, 0.31105),
            (1.00000, 0.63529, 0.77698),
            (1.00000, 0.33333, 0.50000),
        ],
    ),
    "Table A.7": (
        "Authentic Challenge, Stat-Deid features",
        [
            (0.99106, 0.99944, 0.99523),
            (0.98755, 0.93517, 0.96065),
            (0.97990, 0.82330, 0.89480),
            (0.90385, 0.37154, 0.52661),
            (0.98697, 0.67190, 0.79951),
            (0.93246, 0.97658, 0.95402),
            (0.99502, 0.66556, 0.79761),
            (0.79688, 0.60714, 0.68918),
            (0.0, 0.0, 0.0),
        ],
    ),
    "Table A.8": (
        "Authentic Challenge, Stanford features",
        [
            (0.99479, 0.99973, 0.99725),
            (0.98577, 0.95285, 0.96903),
            (0.98694, 0.91684, 0.95061),
            (0.81250, 0.35968, 0.49863),
            (0.98346, 0.68963, 0.81075),
            (0.98457, 0.98595, 0.98526),
            (0.99415, 0.99002, 0.99208),
            (0.98462, 0.76190, 0.85906),
            (0.0, 0.0, 0.0),
        ],
    ),
    "Table A.9": (
        "Authentic Challenge, MITRE features",
        [
            (0.96576, 0.98805, 0.97677),
            (0.0, 0.0, 0.0),
            (0.0, 0.0, 0.0),
            (0.0, 0.0, 0.0),
            (0.0, 0.0, 0.0),
            (0.49924, 0.61218, 0.54997),
            (0.52695, 0.72379, 0.60988),
            (1.00000, 0.64286, 0.78261),
            (0.0, 0.0, 0.0),
        ],
    ),
    "Table A.10": (
        "Authentic Challenge, MIMIC features",
        [
            (0.96398, 0.99997, 0.98164),
            (0.0, 0.0, 0.0),
            (0.91470, 0.08359, 0.15317),
            (0.0, 0.0, 0.0),
            (0.0, 0.0, 0.0),
            (0.99937, 0.74286, 0.85223),
            (1.00000, 0.18386, 0.31061),
            (1.00000, 0.66667, 0.80000),
            (1.00000, 0.33333, 0.50000),
        ],
    ),
    "Table A.11": (
        "Surrogate Obesity, all features",
        [
            (0.99845, 0.99981, 0.99913),
            (0.99650, 0.95418, 0.97488),
            (0.99243, 0.99029, 0.99136),
            (0.96693, 0.88326, 0.92321),
            (0.98110, 0.92558, 0.95253),
            (0.99407, 0.95321, 0.97322),
            (0.99850, 0.96275, 0.98030),
            (0.96875, 0.80970, 0.88211),
            (0.0, 0.0, 0.0),
        ],
    ),
    "Table A.12": (
        "Authentic Obesity, all features",
        [
            (0.99743, 0.99972, 0.99858),
            (0.99760, 0.94124, 0.96860),
            (0.99366, 0.97067, 0.98203),
            (0.95075, 0.79661, 0.86688),
            (0.97214, 0.87626, 0.92171),
            (0.98879, 0.92946, 0.95821),
            (0.99602, 0.96132, 0.97837),
            (0.96341, 0.87454, 0.91683),
            (0.0, 0.0, 0.0),
        ],
    ),
    "Table A.15": (
        "Multi-deidentifier, Authentic Challenge",
        [
            (0.99834, 0.99933, 0.99883),
            (0.0, 0.0, 0.0),
            (0.98332, 0.98332, 0.98332),
            (0.88068, 0.61264, 0.72261),
            (0.94751, 0.91132, 0.92906),
            (0.99243, 0.99204, 0.99224),
            (0.99087, 0.99417, 0.99252),
            (1.00000, 0.72619, 0.84137),
            (1.00000, 0.33333, 0.50000),
        ],
    ),
}
#: Tafvizi appendix B: the z of each category (her eq. 3.4-3.5 on two F-measures), in
#: _T11_CATS order; the F-measures compared are those of the appendix A tables named.
T11_APPENDIX_B: dict[str, tuple[str, str, str, tuple[float, ...]]] = {
    "Table B.1": (
        "all features vs Stanford features, Authentic Challenge",
        "Table A.6",
        "Table A.8",
        (0.04940, 0.52857, 2.26042, 0.90008, 0.61962, 0.07061, 0.61904, 0.0, 0.0),
    ),
    "Table B.2": (
        "all features vs Stanford features, Surrogate Challenge",
        "Table A.1",
        "Table A.3",
        (0.57404, 0.0, 0.00922, 0.31942, 0.11119, 1.37825, 0.00379, 0.40134, 0.36926),
    ),
    "Table B.3": (
        "Authentic Challenge vs Surrogate Challenge",
        "Table A.6",
        "Table A.1",
        (6.33245, 0.09648, 3.00644, 2.53238, 7.81198, 2.52864, 0.57224, 0.53175, 1.73205),
    ),
    "Table B.4": (
        "Authentic Challenge vs Authentic Obesity",
        "Table A.6",
        "Table A.12",
        (10.63455, 0.64901, 4.81555, 11.64522, 11.73130, 5.88624, 3.58923, 1.47168, 0.0),
    ),
    "Table B.5": (
        "Authentic Obesity vs Surrogate Obesity",
        "Table A.12",
        "Table A.11",
        (8.68355, 0.80568, 4.98386, 4.84341, 4.79276, 4.88578, 0.56680, 1.35144, 0.0),
    ),
    "Table B.6": (
        "Surrogate Challenge vs Surrogate Obesity",
        "Table A.1",
        "Table A.11",
        (7.56664, 0.08276, 4.41499, 11.35680, 6.72090, 5.47237, 3.72450, 0.15779, 0.0),
    ),
    "Table B.7": (
        "10-fold cross-validation vs the test sub-corpus, Surrogate Challenge",
        "Table A.14",
        "Table A.1",
        (2.06790, 1.26863, 1.41607, 1.95803, 2.76441, 1.36176, 0.71322, 1.74311, 0.0),
    ),
    "Table B.8": (
        "Mega vs Multi, Authentic Challenge",
        "Table A.6",
        "Table A.15",
        (9.18706, 27.65936, 3.79451, 3.89474, 10.53410, 2.24370, 0.49667, 0.29326, 1.41421),
    ),
}
#: Tafvizi's categories (appendix tables' rows) as our labels.
T11_CATEGORIES = _T11_CATS


def t11_table(table: str) -> dict[str, tuple[float, float, float]]:
    """One of Tafvizi's appendix A tables: category -> (P, R, F) in percent (unrounded)."""
    values: list[tuple[float, float, float]] | None = None
    for name, _desc, _corpus, _protocol, vals in _T11_TABLES:
        if name == table:
            values = vals
    if values is None and table in T11_APPENDIX_A:
        values = T11_APPENDIX_A[table][1]
    if values is None:
        raise KeyError(table)
    # percentages as printed in the thesis, unrounded: a figure is rounded once, when shown
    return {
        cat: (100 * p, 100 * r, 100 * f) for cat, (p, r, f) in zip(_T11_CATS, values, strict=True)
    }


def _build() -> list[Published]:
    rows: list[Published] = []
    for table, corpus, subset, entries in _SU06:
        for paper_system, ours, label, p, r, f in entries:
            rows.append(Published(_SU, table, corpus, ours, paper_system, label, subset, p, r, f))
    for table, _desc, corpus, _protocol, values in _T11_TABLES:
        for cat, (p, r, f) in zip(_T11_CATS, values, strict=True):
            rows.append(
                Published(
                    _T11,
                    table,
                    corpus,
                    "mega",
                    "Mega (all features)",
                    cat,
                    "all",
                    100 * p,
                    100 * r,
                    100 * f,
                )
            )
    for cat, f in T11_MULTI_F.items():
        rows.append(
            Published(
                _T11, "Table B.8", "authentic", "multi", "Multi", cat, "all", None, None, 100 * f
            )
        )
    for paper_system, ours, label, p, r, f in SD_I2B2:
        rows.append(Published(_SD, "§5.3 / Table 2", "", ours, paper_system, label, "all", p, r, f))
    return rows


#: Every published row.
PUBLISHED: tuple[Published, ...] = tuple(_build())


def published_for(
    corpus: str, subset: str = "all", labels: tuple[str, ...] = ("PHI", "non-PHI")
) -> list[Published]:
    """Published rows comparable to our ``corpus`` (an embedded corpus name) and subset."""
    return [
        p for p in PUBLISHED if p.our_corpus == corpus and p.subset == subset and p.label in labels
    ]

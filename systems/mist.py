"""``mist``: a MITRE-MIST-style CRF de-identifier (Aberdeen et al. 2010; Tafvizi 2011, §2.3).

MIST is a CRF (the Carafe toolkit) whose features are, in Tafvizi's account, regular
expressions (her Table 2.1) and dictionary membership -- the features of
:func:`systems.features.mist.mist_features`.  The CRF machinery is the one of
:mod:`systems.crf` (CRFsuite via sklearn-crfsuite, sentence sequences, BIO tags).

Tafvizi's list leaves out the token's own identity, but Carafe's default feature set
(Aberdeen et al. 2010) includes the word and its neighbours; without them a CRF cannot learn
that "Smith" is a name unless a dictionary says so.  ``lexical=True`` (the default) adds
the shared :class:`~systems.features.common.WordWindow` at -1, 0, +1; ``lexical=False`` is
Tafvizi's literal description.

Substitutes: MIST's own lexicons are not distributed; the dictionary features use the
harness's system dictionaries plus the ``dictionaries`` directory (e.g. the deid-1.1 lists).
"""

from __future__ import annotations

from typing import ClassVar

from systems.base import register
from systems.crf import DEFAULT_ALGORITHM, DEFAULT_C2, DEFAULT_EPOCHS, CrfSystem
from systems.features.base import FeatureClass
from systems.features.common import WordWindow
from systems.features.mist import mist_features


@register
class MistCrf(CrfSystem):
    """CRF over Table 2.1 regular expressions, dictionary membership and (optionally) the
    words at -1, 0, +1."""

    relative_cost: ClassVar[float | None] = 4.0  # measured, for scheduling only
    name: ClassVar[str] = "mist"
    description: ClassVar[str] = (
        "MITRE-MIST-style CRF: Table 2.1 regexes + dictionary features "
        "(Aberdeen et al. 2010; Tafvizi 2011 §2.3), sklearn-crfsuite"
    )
    citation: ClassVar[str] = "Aberdeen et al. 2010; Tafvizi 2011 §2.3"
    departures: ClassVar[str] = (
        "CRFsuite (SGD) instead of Carafe; MIST/Carafe's own dictionaries unavailable: "
        "the harness dictionaries; Table 2.1 "
        "regexes reconstructed where the thesis text is garbled"
    )

    def __init__(
        self,
        *,
        c1: float = 0.1,
        c2: float = DEFAULT_C2,
        max_iterations: int = DEFAULT_EPOCHS,
        sequence: str = "sentence",
        dictionaries: str | None = None,
        two_stage: bool = False,
        inner_folds: int = 2,
        seed: int = 0,
        lexical: bool = True,
        algorithm: str = DEFAULT_ALGORITHM,
        threshold: float | None = None,
        group_by: str = "auto",
    ) -> None:
        super().__init__(
            c1=c1,
            c2=c2,
            max_iterations=max_iterations,
            sequence=sequence,
            dictionaries=dictionaries,
            two_stage=two_stage,
            inner_folds=inner_folds,
            seed=seed,
            algorithm=algorithm,
            threshold=threshold,
            group_by=group_by,
        )
        self.lexical = lexical

    def feature_classes(self) -> tuple[FeatureClass, ...]:
        features = mist_features(self.dictionaries)
        if self.lexical:
            features = (WordWindow(offsets=(-1, 0, 1)), *features)
        return features

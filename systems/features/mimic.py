"""The MIMIC de-identifier's decisions as features (Tafvizi 2011, §1.2 and §2.5).

The Mega SVM adds to Stat De-id's features "features from the MIMIC de-identifier": for a
rule-based system those are its rule outputs.  :class:`MimicRuleFeatures` runs
:mod:`systems.mimic` once per document and gives every token

* ``mimic=<LABEL>`` -- the label the rules assign (``mimic=O`` where none fires), and
* ``mimic_rule=<rule>`` -- which rule family fired (``name.title``, ``date.partial``,
  ``location.context`` ...), so the SVM can learn to trust some rules more than others,

which is also what the Multi-deidentifier's vote over the MIMIC output (Tafvizi §1.3)
needs.  The Appendix A tables ("performance with MIMIC features") ablate exactly this class.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from systems.features.base import FeatureClass, TokenFeatures

if TYPE_CHECKING:
    from corpora.model import Document


class MimicRuleFeatures(FeatureClass):
    """Per token: the MIMIC rules' label and the rule that fired (see the module docstring).

    ``dictionaries`` and ``local_lists`` are handed to
    :class:`systems.mimic.MimicDeidentifier` (``dictionaries=None``: the packaged defaults;
    ``local_lists=False``: without the site's clinician-name and local-place lists), so the
    features see the same lists as the system.
    """

    name = "mimic"
    version = 2

    def __init__(self, dictionaries: str | None = None, local_lists: bool = True) -> None:
        self.dictionaries = dictionaries
        self.local_lists = local_lists

    def extract(self, document: Document) -> list[TokenFeatures]:
        from systems.mimic import MimicDeidentifier

        system = MimicDeidentifier(dictionaries=self.dictionaries, local_lists=self.local_lists)
        labels, rules = system.annotate(document)
        out: list[TokenFeatures] = []
        for label, rule in zip(labels, rules, strict=True):
            if rule:
                out.append({f"mimic={label}": 1.0, f"mimic_rule={rule}": 1.0})
            else:
                out.append({f"mimic={label}": 1.0})
        return out

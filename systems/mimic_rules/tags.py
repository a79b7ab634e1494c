"""Why a span is a PHI candidate of the deid program (:mod:`systems.mimic_rules`): a
:class:`Tag` per rule or list that proposed it, and the bits rules test on it.

Its own module so that the lists (:mod:`systems.mimic_rules.lexicon`), which tag their
entries, and the frame that decides on candidates (:mod:`systems.mimic_rules.candidates`),
which reads a lexicon, need not import each other.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Tag:
    """Why a span is a PHI candidate: the rule or list that proposed it.

    ``rule`` is the name reported per token (and seen by the Mega SVM as a feature);
    ``label`` the harness category.  For names, ``part`` says which part of a name the rule
    believes the span is, and ``source`` which kind of list proposed it: ``unambiguous``,
    ``ambiguous`` or ``popular`` census names, or ``doctor`` names of the local clinician
    lists ("" for a context rule).  ``ambiguous`` tags only *propose*: a span whose tags are
    all ambiguous is not PHI (unless it pairs up as first and last name).  ``blocks`` marks
    a medical phrase ("Bell's palsy"): it hides the names inside it.  ``strong`` marks a
    name found by context, whose word is then marked wherever it recurs in the note.
    """

    rule: str
    label: str
    part: str = ""
    source: str = ""
    ambiguous: bool = False
    blocks: bool = False
    strong: bool = False
    #: the properties as bits (:data:`NAME`, :data:`LAST` ...), computed once: rules test them on
    #: every candidate of every paragraph
    mask: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        mask = 0
        if self.part:
            mask |= NAME
        if self.part == "last":
            mask |= LAST
        if self.census_first:
            mask |= CENSUS_FIRST
        if self.source == "unambiguous" or (
            self.rule in ("location.list", "location.local") and not self.ambiguous
        ):
            mask |= UNAMBIGUOUS_ENTRY
        if self.source == "popular":
            mask |= POPULAR
        if self.ambiguous:
            mask |= AMBIGUOUS
        object.__setattr__(self, "mask", mask)

    @property
    def is_name(self) -> bool:
        return bool(self.part)

    @property
    def census_first(self) -> bool:
        """A first name from the census lists (not a clinician list, not a rule)."""
        return self.part == "first" and self.source in ("unambiguous", "ambiguous", "popular")


#: :attr:`Tag.mask` bits: a name; a last name; a census first name; an entry of an
#: unambiguous name or place list (the program's "(un)" test); a popular name; ambiguous.
NAME, LAST, CENSUS_FIRST, UNAMBIGUOUS_ENTRY, POPULAR, AMBIGUOUS = (1 << i for i in range(6))


def mask_of(tags: Iterable[Tag]) -> int:
    """The union of the tags' :attr:`Tag.mask` bits."""
    mask = 0
    for t in tags:
        mask |= t.mask
    return mask

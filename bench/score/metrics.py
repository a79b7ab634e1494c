"""Precision, recall and F1 at the token and entity level, on the papers' evaluation subsets.

Why token level first: Sibanda & Uzuner (2006, §6) classify and score every *word* as PHI or
non-PHI and report precision, recall and F-measure for both classes (Tables 2-12); Tafvizi
(2011, §3.5.1-3.5.3, Appendix B) reports the same measures per category.  Entity-level
scores (i2b2 2014 convention) are added because a user deciding whether a de-identifier
leaks a *phrase* cares about phrases.

Micro-averaging over folds means summing counts over every test document of every fold and
computing P/R/F once (:func:`token_scores` on the concatenated test documents, or
:func:`merge_rows` on per-fold rows); :func:`per_document_counts` keeps the counts per
document so :mod:`bench.score.significance` can resample documents.

Binary scores treat every non-``O`` label as PHI (a binary system's ``PHI`` label included);
per-category scores compare labels exactly.

The evaluation subsets (:data:`SUBSETS`) and the exact choices made for each:

``all``
    Every token (Tables 2, 4, 7, 11; Tafvizi Appendix A/B).

``ambiguous``
    Tokens flagged ``ambiguous`` by the corpus variant whose gold label is ``O`` or a
    person/location/organization category.  Table 9 is titled "ambiguous people, locations
    and organizations" yet reports a Non-PHI row too, so the ambiguous words are scored in
    both their PHI and their non-PHI uses; ambiguous dates (Table 6 counts some) are left
    out to follow the title.  Labels are not changed.

``not_in_dictionary``
    Tokens flagged ``not_in_dictionary`` whose gold label is PHI (Table 10 counts no
    non-PHI "not in dictionary" words).  Table 13 calls its figure "precision", but the
    text (§6.3) describes it as the share of those PHI the system "accurately identified";
    on a subset made only of gold PHI the binary *recall* (= accuracy) is that number, and
    binary precision is trivially 1 whenever anything is found.  Report the recall column.

``people_locations_organizations``
    The SNoW comparison (§6, Tables 3, 8, 12): both systems were *trained* with only
    people, locations and organizations as PHI, and the tables still carry a Non-PHI row
    (99.6 % F on Table 3), so non-PHI tokens must stay in the scored set; scoring only the
    tokens whose gold or predicted label is a person/location/organization would leave no
    true negatives at all.  The harness therefore reads every label outside PATIENT,
    DOCTOR, LOCATION, HOSPITAL as ``O`` (a binary ``PHI`` prediction stays PHI: a binary
    system has no way to say which kind it found) and then drops the tokens whose *gold*
    label is another PHI category (a date, an ID...) unless the system called them a
    person/location/organization, which stays a false positive.  So a full-category system
    is neither rewarded nor penalised for its dates, and a binary system is not penalised
    for flagging dates it was trained to flag.  Where the runner retrains a system on the
    restricted labels (the paper's protocol) nothing changes except that such a system
    predicts ``O`` on dates, which are then dropped rather than counted as non-PHI hits --
    a small difference from the paper's Non-PHI row.

``no_id``
    The IdentiFinder comparison (§6): "PHI representing ID numbers" were omitted because
    IdentiFinder was not trained on them.  Same rule as above with every category but ID
    kept: gold ID tokens are dropped (unless predicted as another category, then a false
    positive of that category), and a predicted ``ID`` is read as ``O`` -- the ID category is
    outside the comparison, as if the system had not been trained on it either.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from corpora.model import (
    FLAG_AMBIGUOUS,
    FLAG_NOT_IN_DICTIONARY,
    LABELS,
    OUTSIDE,
    PEOPLE_LOCATIONS_ORGANIZATIONS,
    PHI,
    Document,
    Token,
)
from infra import memo

# --------------------------------------------------------------------------------------
# Counts (the shared contract with the runner; keep the API)
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Counts:
    """Confusion counts for one label; ``tn`` only matters for the binary view."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    def __add__(self, other: Counts) -> Counts:
        return Counts(
            self.tp + other.tp, self.fp + other.fp, self.fn + other.fn, self.tn + other.tn
        )

    @property
    def precision(self) -> float:
        d = self.tp + self.fp
        return self.tp / d if d else 0.0

    @property
    def recall(self) -> float:
        d = self.tp + self.fn
        return self.tp / d if d else 0.0

    @property
    def f1(self) -> float:
        return f1_from_counts(self.tp, self.fp, self.fn)


def token_counts(
    gold: Sequence[Sequence[str]],
    pred: Sequence[Sequence[str]],
    label: str | None = None,
    mask: Sequence[Sequence[bool]] | None = None,
) -> Counts:
    """Counts for ``label`` (``None``: PHI vs non-PHI), over tokens where ``mask`` is true."""
    tp = fp = fn = tn = 0
    for d, (g_doc, p_doc) in enumerate(zip(gold, pred, strict=True)):
        m_doc = mask[d] if mask is not None else None
        for i, (g, p) in enumerate(zip(g_doc, p_doc, strict=True)):
            if m_doc is not None and not m_doc[i]:
                continue
            if label is None:
                gi, pi = g != OUTSIDE, p != OUTSIDE
            else:
                gi, pi = g == label, p == label
            if gi and pi:
                tp += 1
            elif pi:
                fp += 1
            elif gi:
                fn += 1
            else:
                tn += 1
    return Counts(tp, fp, fn, tn)


# --------------------------------------------------------------------------------------
# Scores
# --------------------------------------------------------------------------------------

#: Row label of the binary PHI-vs-non-PHI scores (every non-``O`` label is positive).
PHI_ROW = "PHI"
#: Row label of the binary scores with non-PHI (``O``) as the positive class.
NON_PHI_ROW = "non-PHI"

#: Evaluation subsets: name -> what is scored (details in the module docstring).
SUBSETS: dict[str, str] = {
    "all": "every token",
    "ambiguous": (
        "tokens flagged ambiguous whose gold label is O or a person/location/organization "
        "(Sibanda & Uzuner 2006, Table 9)"
    ),
    "not_in_dictionary": (
        "gold PHI tokens flagged not_in_dictionary; the paper's figure is the binary recall "
        "(Sibanda & Uzuner 2006, Table 13)"
    ),
    "people_locations_organizations": (
        "labels outside PATIENT/DOCTOR/LOCATION/HOSPITAL read as O; tokens of other gold PHI "
        "dropped unless predicted as one of the four (the SNoW comparison, Tables 3, 8, 12)"
    ),
    "no_id": (
        "ID labels read as O; gold ID tokens dropped unless predicted as another category "
        "(the IdentiFinder comparison, §6)"
    ),
}

#: Category-restricted subsets: name -> the categories kept.
_KEPT_CATEGORIES: dict[str, frozenset[str]] = {
    "people_locations_organizations": PEOPLE_LOCATIONS_ORGANIZATIONS,
    "no_id": frozenset(LABELS) - {"ID"},
}
_ENTITY_MATCHES = ("strict", "overlap")


@dataclass(frozen=True)
class ScoreRow:
    """One line of a results table: the counts and P/R/F1 for one label on one subset.

    ``level`` is ``"token"`` or ``"entity"``; ``match`` is ``"strict"``/``"overlap"`` for
    entity rows and empty for token rows.  ``label`` is ``"PHI"`` (binary), ``"non-PHI"``
    (binary, ``O`` positive) or a category of :data:`corpora.model.LABELS`.
    """

    level: str
    subset: str
    label: str
    tp: int
    fp: int
    fn: int
    precision: float
    recall: float
    f1: float
    match: str = ""

    @classmethod
    def from_counts(
        cls, level: str, subset: str, label: str, tp: int, fp: int, fn: int, match: str = ""
    ) -> ScoreRow:
        c = Counts(int(tp), int(fp), int(fn))
        return cls(level, subset, label, c.tp, c.fp, c.fn, c.precision, c.recall, c.f1, match)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def f1_from_counts(tp: float, fp: float, fn: float) -> float:
    """F1 from summed counts (0 when there is nothing to find and nothing found)."""
    return float(fbeta_from_counts(tp, fp, fn, 1.0))


def fbeta_from_counts(tp: Any, fp: Any, fn: Any, beta: float) -> Any:
    """F-beta from counts (scalars or arrays alike; 0 where nothing is found or to find).

    ``beta = 2`` weighs recall twice as much as precision: in de-identification a missed
    PHI token leaks while a false alarm only redacts a word.
    """
    b2 = beta * beta
    tp, fp, fn = (np.asarray(v, dtype=np.float64) for v in (tp, fp, fn))
    d = (1 + b2) * tp + b2 * fn + fp
    out = np.divide((1 + b2) * tp, d, out=np.zeros_like(d), where=d > 0)
    return out if out.ndim else float(out)


def merge_rows(rows: Iterable[ScoreRow]) -> list[ScoreRow]:
    """Micro-average rows of several folds: sum counts per (level, match, subset, label)."""
    sums: dict[tuple[str, str, str, str], list[int]] = {}
    for r in rows:
        acc = sums.setdefault((r.level, r.match, r.subset, r.label), [0, 0, 0])
        acc[0] += r.tp
        acc[1] += r.fp
        acc[2] += r.fn
    return [
        ScoreRow.from_counts(level, subset, label, tp, fp, fn, match)
        for (level, match, subset, label), (tp, fp, fn) in sums.items()
    ]


# --------------------------------------------------------------------------------------
# Token level
# --------------------------------------------------------------------------------------


def _check_subset(subset: str) -> None:
    if subset not in SUBSETS:
        raise ValueError(f"unknown subset {subset!r}; choose from {', '.join(SUBSETS)}")


def _flag_array(tokens: Sequence[Token], flag: str) -> np.ndarray:
    return np.fromiter((flag in t.flags for t in tokens), dtype=bool, count=len(tokens))


#: Integer codes of the labels: numpy compares small integers far faster than strings.
_NAMES: tuple[str, ...] = (OUTSIDE, PHI, *LABELS)
_CODE: dict[str, int] = {name: i for i, name in enumerate(_NAMES)}
_O, _PHI = _CODE[OUTSIDE], _CODE[PHI]


def _lookup(codes: Iterable[str]) -> np.ndarray:
    """Boolean table indexed by label code: ``table[codes]`` is a fast ``np.isin``."""
    table = np.zeros(len(_NAMES), dtype=bool)
    table[[_CODE[c] for c in codes]] = True
    return table


_IS_PLO = _lookup(PEOPLE_LOCATIONS_ORGANIZATIONS)
_IS_KEPT = {name: _lookup(cats) for name, cats in _KEPT_CATEGORIES.items()}


def _codes(labels: Sequence[str], doc: Document) -> np.ndarray:
    code = _CODE
    try:  # a list comprehension is ~2x faster than np.fromiter over a generator here
        return np.array([code[lab] for lab in labels], dtype=np.int8)
    except KeyError as err:
        raise ValueError(f"unknown label {err.args[0]!r} for document {doc.id!r}") from None


#: One document's predicted labels, or their codes (:func:`label_codes`), which every
#: token-level function here takes alike.
Labels = Sequence[str] | np.ndarray


def label_codes(
    documents: Sequence[Document], predictions: Sequence[Sequence[str]]
) -> list[np.ndarray]:
    """Each document's predicted labels as label codes, which every token-level function
    here also takes in place of the labels: a run's significance tests score each system
    against every other on every subset, and turning the same labels into codes again for
    each pair was half of their time."""
    return [_codes(p, d) for d, p in zip(documents, predictions, strict=True)]


#: Gold codes and flag masks per document fingerprint: a run scores every document once per
#: system, subset and test, and the gold side never changes (a bounded memo).
_GOLD: memo.Memo[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = memo.Memo(
    "metrics.gold", document=lambda fingerprint: fingerprint
)


def _gold(doc: Document) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(gold label codes, ambiguous flags, not-in-dictionary flags) of ``doc``, cached."""
    key = doc.fingerprint
    hit = _GOLD.get(key)
    if hit is None:
        tokens = doc.tokens
        hit = (
            _codes([t.label for t in tokens], doc),
            _flag_array(tokens, FLAG_AMBIGUOUS),
            _flag_array(tokens, FLAG_NOT_IN_DICTIONARY),
        )
        for arr in hit:
            arr.flags.writeable = False  # shared by every caller
        _GOLD.put(key, hit)
    return hit


def _view(
    doc: Document, pred: Labels | None, subset: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(gold, predicted, mask) of one document as the subset scores them (label codes)."""
    n = len(doc.tokens)
    gold, ambiguous, not_in_dictionary = _gold(doc)
    if pred is None:
        p = np.zeros(n, dtype=np.int8)
    else:
        if len(pred) != n:  # labels or their codes alike
            raise ValueError(
                f"{len(pred)} predicted labels for document {doc.id!r} with {n} tokens"
            )
        p = pred if isinstance(pred, np.ndarray) else _codes(pred, doc)
    if subset == "all":
        return gold, p, np.ones(n, dtype=bool)
    if subset == "ambiguous":
        keep = _IS_PLO[gold] | (gold == _O)
        return gold, p, ambiguous & keep
    if subset == "not_in_dictionary":
        return gold, p, not_in_dictionary & (gold != _O)
    kept = _IS_KEPT[subset]
    gold_kept = kept[gold]
    pred_kept = kept[p]
    mask = gold_kept | (gold == _O) | pred_kept
    gold2 = np.where(gold_kept, gold, _O).astype(np.int8)
    pred2 = np.where(pred_kept | (p == _PHI), p, _O).astype(np.int8)
    return gold2, pred2, mask


def _flatten(
    documents: Sequence[Document],
    predictions: Sequence[Labels] | None,
    subset: str,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Masked gold and predicted label codes of all documents, and each token's document."""
    _check_subset(subset)
    if predictions is not None and len(predictions) != len(documents):
        raise ValueError(f"{len(predictions)} prediction lists for {len(documents)} documents")
    golds, preds, owners = [], [], []
    for i, doc in enumerate(documents):
        g, p, m = _view(doc, None if predictions is None else predictions[i], subset)
        golds.append(g[m])
        preds.append(p[m])
        owners.append(np.full(int(m.sum()), i, dtype=np.int64))
    if not documents:
        empty = np.array([], dtype=np.int8)
        return empty, empty, np.array([], dtype=np.int64)
    return np.concatenate(golds), np.concatenate(preds), np.concatenate(owners)


def subset_mask(
    documents: Sequence[Document],
    subset: str,
    predictions: Sequence[Sequence[str]] | None = None,
) -> list[list[bool]]:
    """Which tokens of each document the subset scores.

    The category-restricted subsets depend on the predictions (a gold date predicted as a
    person stays in as a false positive); without ``predictions`` they keep the tokens whose
    gold label is ``O`` or a kept category.
    """
    _check_subset(subset)
    out = []
    for i, doc in enumerate(documents):
        _, _, m = _view(doc, None if predictions is None else predictions[i], subset)
        out.append(m.tolist())
    return out


def _binary_only(predictions: Sequence[Sequence[str]]) -> bool:
    """True when a system emits the binary ``PHI`` label and no category at all."""
    present: set[str] = set()
    for labels in predictions:
        present.update(labels)
    return PHI in present and not present & set(LABELS)


def _triples(
    gold: np.ndarray, pred: np.ndarray, owners: np.ndarray, label: str | None, n_docs: int
) -> np.ndarray:
    """Per-document (tp, fp, fn) for ``label`` (``None``/"PHI": binary; "non-PHI": O)."""
    if label is None or label == PHI_ROW:
        g, p = gold != _O, pred != _O
    elif label == NON_PHI_ROW:
        g, p = gold == _O, pred == _O
    elif label in _CODE:
        code = _CODE[label]
        g, p = gold == code, pred == code
    else:
        raise ValueError(f"unknown label {label!r}")
    out = np.zeros((n_docs, 3), dtype=np.int64)
    for col, sel in enumerate((g & p, p & ~g, g & ~p)):
        out[:, col] = np.bincount(owners[sel], minlength=n_docs)
    return out


def token_scores(
    documents: Sequence[Document],
    predictions: Sequence[Sequence[str]],
    *,
    subset: str = "all",
) -> list[ScoreRow]:
    """Token-level rows: binary ``PHI``, ``non-PHI``, then each category present.

    Category rows cover the categories of :data:`LABELS` that occur in the (subset's) gold
    or predicted labels, in that order; they are skipped for a system that only predicts
    the binary ``PHI`` label (anywhere), whose category scores would be meaningless.
    """
    return [row for row, _ in token_scores_by_document(documents, predictions, subset=subset)]


def token_scores_by_document(
    documents: Sequence[Document],
    predictions: Sequence[Sequence[str]],
    *,
    subset: str = "all",
) -> list[tuple[ScoreRow, np.ndarray]]:
    """The rows of :func:`token_scores`, each with its per-document (tp, fp, fn) array
    (shape ``(n_docs, 3)``, summing to the row's counts) -- what the bootstrap resamples,
    computed in the same pass."""
    gold, pred, owners = _flatten(documents, predictions, subset)
    labels: list[str] = [PHI_ROW, NON_PHI_ROW]
    if not _binary_only(predictions):
        present = set(np.bincount(gold, minlength=len(_NAMES)).nonzero()[0].tolist())
        present |= set(np.bincount(pred, minlength=len(_NAMES)).nonzero()[0].tolist())
        labels += [c for c in LABELS if _CODE[c] in present]
    rows = []
    for label in labels:
        per_doc = _triples(gold, pred, owners, label, len(documents))
        tp, fp, fn = per_doc.sum(axis=0)
        rows.append((ScoreRow.from_counts("token", subset, label, tp, fp, fn), per_doc))
    return rows


def token_correctness(
    documents: Sequence[Document],
    predictions: Sequence[Labels],
    *,
    subset: str = "all",
    binary: bool = True,
    other: Sequence[Labels] | None = None,
) -> np.ndarray:
    """Whether each scored token was labelled right: the paired decisions McNemar needs.

    ``binary`` compares PHI vs non-PHI, otherwise exact labels.  For the
    prediction-dependent subsets pass the other system's predictions as ``other`` so both
    systems are judged on the same tokens (the union of their two masks); a token outside
    a system's own mask counts as right for it, so its errors are exactly those
    :func:`token_scores` counts.
    """
    _check_subset(subset)
    out = []
    for i, doc in enumerate(documents):
        g, p, own = _view(doc, predictions[i], subset)
        m = own | _view(doc, other[i], subset)[2] if other is not None else own
        right = (g != _O) == (p != _O) if binary else g == p
        # a token only the other system's mask keeps is no error of this one
        out.append((right | ~own)[m])
    return np.concatenate(out) if out else np.array([], dtype=bool)


# --------------------------------------------------------------------------------------
# Entity level
# --------------------------------------------------------------------------------------

Entity = tuple[int, int, str]


def entities_from_labels(
    tokens: Sequence[Token], labels: Sequence[str], *, binary: bool = False
) -> list[Entity]:
    """Phrases from per-token labels: runs of consecutive tokens with one non-O label.

    The token interface has no B-/I- prefixes, so two adjacent phrases of the same kind
    cannot be told apart and become one entity.  ``binary`` reads every non-O label as
    ``PHI`` first (the type-agnostic view of the binary row).
    """
    if len(tokens) != len(labels):
        raise ValueError(f"{len(labels)} labels for {len(tokens)} tokens")
    out: list[Entity] = []
    cur: list[Any] | None = None
    for tok, lab in zip(tokens, labels, strict=True):
        if lab != OUTSIDE and binary:
            lab = PHI
        if cur is not None and lab == cur[2]:
            cur[1] = tok.end
            continue
        if cur is not None:
            out.append((cur[0], cur[1], cur[2]))
            cur = None
        if lab != OUTSIDE:
            cur = [tok.start, tok.end, lab]
    if cur is not None:
        out.append((cur[0], cur[1], cur[2]))
    return out


def _weigh_entities(key: tuple[str, bool], entities: list[Entity]) -> int:
    return 150 + 100 * len(entities)


_GOLD_ENTITIES: memo.Memo[tuple[str, bool], list[Entity]] = memo.Memo(
    "metrics.gold_entities", weigh=_weigh_entities, document=lambda key: key[0]
)


def _gold_entities_cached(doc: Document, binary: bool) -> list[Entity]:
    """:func:`gold_entities`, once per document (every system and match reuses them)."""
    key = (doc.fingerprint, binary)
    hit = _GOLD_ENTITIES.get(key)
    if hit is None:
        hit = _GOLD_ENTITIES.put(key, gold_entities(doc, binary=binary))
    return hit


def gold_entities(doc: Document, *, binary: bool = False) -> list[Entity]:
    """The gold phrases of ``doc`` from its spans, snapped to token boundaries.

    A span is widened to the tokens it overlaps (a span "Smith" inside the token
    "Smith's" becomes the token), because systems can only label whole tokens; spans of
    one kind with no token between them are merged for the reason given in
    :func:`entities_from_labels`.
    """
    tokens = doc.tokens
    starts = np.fromiter((t.start for t in tokens), dtype=np.int64, count=len(tokens))
    ends = np.fromiter((t.end for t in tokens), dtype=np.int64, count=len(tokens))
    snapped: list[tuple[int, int, str]] = []  # (first token, last token, category)
    for span in doc.spans:
        first = int(np.searchsorted(ends, span.start, side="right"))
        last = int(np.searchsorted(starts, span.end, side="left")) - 1
        if first > last:
            continue  # a span over whitespace only: nothing a system could label
        cat = PHI if binary else span.category
        if snapped and snapped[-1][2] == cat and snapped[-1][1] >= first - 1:
            snapped[-1] = (snapped[-1][0], max(last, snapped[-1][1]), cat)
        else:
            snapped.append((first, last, cat))
    return [(tokens[a].start, tokens[b].end, c) for a, b, c in snapped]


def _match_entities(gold: list[Entity], pred: list[Entity], match: str) -> tuple[int, int, int]:
    """(tp, fp, fn) for one document and one label (all entities already of that label).

    Strict: same start and end offsets.  Overlap: any shared character; matching is
    one-to-one (each gold and each predicted phrase used once, greedily in text order), so
    that tp + fp = #predicted and tp + fn = #gold.

    Overlap matching is a sort-and-sweep, linear in the phrases after sorting the gold
    ones (a 5 MB note has hundreds of thousands; comparing every pair took minutes).  The
    predicted phrases come from :func:`entities_from_labels`: disjoint and in text order,
    so the ones a gold phrase overlaps are a contiguous run of them, starting at the first
    whose end lies after the gold start -- a position that only moves forward as the gold
    phrases are taken in order of their start.  Each gold phrase takes the first unused
    predicted phrase of its run (the rule of the pairwise greedy, which the tests check it
    against); used ones are skipped through a "next unused" table with path halving.
    """
    if match == "strict":
        g = {(s, e) for s, e, _ in gold}
        p = {(s, e) for s, e, _ in pred}
        tp = len(g & p)
        return tp, len(p) - tp, len(g) - tp
    for (_, previous_end, _), (start, _, _) in itertools.pairwise(pred):
        if start < previous_end:
            raise ValueError("predicted phrases must be disjoint and in text order")
    n = len(pred)
    following = list(range(n + 1))  # following[j]: the first unused phrase >= j (n: none)

    def first_unused(j: int) -> int:
        while following[j] != j:
            following[j] = following[following[j]]
            j = following[j]
        return j

    tp = 0
    low = 0  # the first predicted phrase ending after the current gold start
    for gs, ge, _ in sorted(gold):
        while low < n and pred[low][1] <= gs:
            low += 1
        j = first_unused(low)
        if j < n and pred[j][0] < ge:
            following[j] = j + 1
            tp += 1
    return tp, len(pred) - tp, len(gold) - tp


def _entity_triples(
    documents: Sequence[Document],
    predictions: Sequence[Sequence[str]],
    labels: Sequence[str | None],
    match: str,
) -> dict[str | None, np.ndarray]:
    """Per-document entity (tp, fp, fn) for each of ``labels`` (``None``: binary), one pass."""
    if match not in _ENTITY_MATCHES:
        raise ValueError(f"unknown match {match!r}; choose strict or overlap")
    if len(predictions) != len(documents):
        raise ValueError(f"{len(predictions)} prediction lists for {len(documents)} documents")
    wanted = [None if lab == PHI_ROW else lab for lab in labels]
    for lab in wanted:
        if lab == NON_PHI_ROW:
            raise ValueError("entities are PHI phrases; there is no entity-level non-PHI row")
        if lab is not None and lab not in LABELS:
            raise ValueError(f"unknown label {lab!r}")
    out = {lab: np.zeros((len(documents), 3), dtype=np.int64) for lab in wanted}
    categories = [lab for lab in wanted if lab is not None]
    for i, (doc, labs) in enumerate(zip(documents, predictions, strict=True)):
        if len(labs) != len(doc.tokens):
            raise ValueError(
                f"{len(labs)} predicted labels for document {doc.id!r} "
                f"with {len(doc.tokens)} tokens"
            )
        if None in out:
            g = _gold_entities_cached(doc, True)
            p = entities_from_labels(doc.tokens, labs, binary=True)
            out[None][i] = _match_entities(g, p, match)
        if categories:
            g_all = _gold_entities_cached(doc, False)
            p_all = entities_from_labels(doc.tokens, labs)
            for cat in categories:
                g = [e for e in g_all if e[2] == cat]
                p = [e for e in p_all if e[2] == cat]
                out[cat][i] = _match_entities(g, p, match)
    return {PHI_ROW if lab is None else lab: arr for lab, arr in out.items()}


def entity_scores(
    documents: Sequence[Document],
    predictions: Sequence[Sequence[str]],
    *,
    match: str = "strict",
) -> list[ScoreRow]:
    """Entity-level rows (i2b2 2014 convention): binary ``PHI`` then each category present.

    Strict: same offsets and same category (the binary row ignores the category);
    overlap: any character overlap and same category.  Gold phrases come from
    :func:`gold_entities`, predicted ones from :func:`entities_from_labels`.  Category rows
    are skipped for a binary-only system, as in :func:`token_scores`.
    """
    return [row for row, _ in entity_scores_by_document(documents, predictions, match=match)]


def entity_scores_by_document(
    documents: Sequence[Document],
    predictions: Sequence[Sequence[str]],
    *,
    match: str = "strict",
) -> list[tuple[ScoreRow, np.ndarray]]:
    """The rows of :func:`entity_scores`, each with its per-document (tp, fp, fn) array."""
    labels: list[str] = [PHI_ROW]
    if not _binary_only(predictions):
        present = {lab for labs in predictions for lab in labs}
        present |= {s.category for d in documents for s in d.spans}
        labels += [c for c in LABELS if c in present]
    triples = _entity_triples(documents, predictions, labels, match)
    return [
        (
            ScoreRow.from_counts("entity", "all", lab, *triples[lab].sum(axis=0), match=match),
            triples[lab],
        )
        for lab in labels
    ]


# --------------------------------------------------------------------------------------
# Per-document counts for resampling
# --------------------------------------------------------------------------------------


def per_document_counts(
    documents: Sequence[Document],
    predictions: Sequence[Labels],
    label: str | None = None,
    subset: str = "all",
    *,
    match: str | None = None,
) -> np.ndarray:
    """(tp, fp, fn) of each document, shape ``(n_docs, 3)``, for resampling documents.

    ``label`` ``None`` or ``"PHI"`` is the binary row, ``"non-PHI"`` has ``O`` positive,
    otherwise a category.  With ``match`` (``"strict"``/``"overlap"``) the counts are
    entity-level (subset ``"all"`` only, from labels, not codes).  Summing the rows gives
    the micro-averaged counts.
    """
    if match is not None:
        if subset != "all":
            raise ValueError("entity-level counts are only defined on the 'all' subset")
        key = PHI_ROW if label is None else label
        return _entity_triples(documents, predictions, [key], match)[key]
    gold, pred, owners = _flatten(documents, predictions, subset)
    return _triples(gold, pred, owners, label, len(documents))


# --------------------------------------------------------------------------------------
# Operating points: what a given recall costs in precision
# --------------------------------------------------------------------------------------

#: Recall levels the report gives precision at (a hospital's question: what does 95 %
#: recall cost?).
RECALL_LEVELS: tuple[float, ...] = (0.90, 0.95, 0.99)


def precision_recall_points(
    gold_phi: np.ndarray, scores: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(precision, recall, threshold) at every distinct score, thresholds descending.

    A token is PHI when its score is *above* the threshold, as in the systems' own
    ``threshold`` parameter; each threshold lies halfway between a distinct score and the
    next lower one, so passing it to the system reproduces the point.
    """
    y = np.asarray(gold_phi, dtype=bool)
    s = np.asarray(scores, dtype=np.float64)
    if y.shape != s.shape:
        raise ValueError(f"{y.shape} gold labels for {s.shape} scores")
    order = np.argsort(-s, kind="stable")
    s, y = s[order], y[order]
    last = np.r_[np.flatnonzero(np.diff(s)), len(s) - 1] if len(s) else np.empty(0, int)
    tp = np.cumsum(y)[last]
    predicted = last + 1
    positives = int(y.sum())
    precision = tp / predicted
    recall = tp / positives if positives else np.zeros(len(tp))
    below = np.r_[s[last[1:]], s[last[-1]] - 1.0] if len(last) else np.empty(0)
    return precision, recall, (s[last] + below) / 2


def precision_at_recall(
    gold_phi: np.ndarray, scores: np.ndarray, levels: Sequence[float] = RECALL_LEVELS
) -> list[dict[str, float]]:
    """For each recall level, the best precision of any threshold reaching it, and that
    threshold (NaN when no threshold reaches the level, e.g. a system that gives some PHI
    tokens the lowest score of all)."""
    precision, recall, thresholds = precision_recall_points(gold_phi, scores)
    rows = []
    for level in levels:
        ok = np.flatnonzero(recall >= level - 1e-12)
        if len(ok):
            best = ok[np.argmax(precision[ok])]
            rows.append(
                {
                    "recall_level": level,
                    "precision": float(precision[best]),
                    "recall": float(recall[best]),
                    "threshold": float(thresholds[best]),
                }
            )
        else:
            rows.append(
                {"recall_level": level, "precision": np.nan, "recall": np.nan, "threshold": np.nan}
            )
    return rows


def gold_phi(documents: Sequence[Document]) -> np.ndarray:
    """Whether each token of ``documents`` is gold PHI, flattened in order."""
    return np.fromiter(
        (t.label != OUTSIDE for d in documents for t in d.tokens),
        dtype=bool,
        count=sum(len(d.tokens) for d in documents),
    )


def pooled_binary_scores(
    documents: Sequence[Document], scores: Sequence[np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """(gold is PHI, score) of every token of ``documents``, flattened in order."""
    gold = gold_phi(documents)
    flat = np.concatenate([np.asarray(s, dtype=np.float64) for s in scores]) if scores else []
    return gold, np.asarray(flat, dtype=np.float64)

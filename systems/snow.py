"""``snow``: a SNoW-style entity recognizer, the second global-context baseline.

Sibanda & Uzuner (2006, §4.2) compare their local-context SVM with the NER component of
SNoW (Sparse Network of Winnows) as used by Roth & Yih (2002, "Probabilistic reasoning for
entity & relation recognition").  SNoW first forms a hypothesis about each entity's type from
"words, tags, conjunctions of words and tags, bigram and trigram of words and tags", the
number of words in the entity, bigrams of words in the entity, prefixes and suffixes and
dictionary presence; then the *global* step revises those hypotheses from the other entities
of the sentence (and their possible relations).  It recognizes only people, locations and
organizations, so the paper scores it only on PATIENT/DOCTOR, LOCATION and HOSPITAL
(Tables 3, 5, 8, 12) -- :attr:`SnowNER.evaluated_labels` tells the runner to do the same.

The pipeline here:

1. **Token network** -- one Winnow target node per class (``O`` and each of the four
   categories) over sparse boolean token features (:func:`token_features`; the shared
   primitives of :mod:`systems.features.common` plus :class:`WordTagNgrams` and
   :class:`Affixes`).  Winner-take-all over the activations marks candidate entity tokens;
   maximal runs of them (within a sentence, same hypothesised type) are the entity phrases.
2. **Entity network** -- a second network of Winnows over *phrase* features (the words and
   word bigrams in the phrase, its length, affixes, dictionary presence, and the words, tags
   and word|tag conjunctions around it) gives each phrase a distribution over the four types
   (SNoW's sigmoid-normalized activations, as Roth & Yih use them).
3. **Sentence-level inference** -- each sentence's entity types are chosen jointly.

Winnow (Littlestone 1988, as in SNoW): positive weights; a target predicts positive when the
summed weights of its active features exceed ``threshold``; on a missed positive the active
weights are multiplied by ``promotion``, on a false positive by ``demotion``.  As in SNoW the
network is *sparse*: a feature is linked to a target only if it was active in a training
example of that target, and unlinked features never contribute.  Training uses SNoW's "thick
separator" (promote below ``θ(1+margin)``, demote above ``θ(1-margin)``) and starts linked
weights below the threshold; without both, one-vs-all nodes over ~40 active features start
above ``θ`` and never learn which context features matter.

Deviations, stated so results are read correctly:

* Roth & Yih's global inference uses relation classifiers (``born_in``, ``kill``, ...) and
  constraints between relation arguments, none of which exist for clinical notes (there are
  no annotated relations).  The substitute is a learned type-compatibility model: the
  pointwise mutual information of entity types co-occurring in one training sentence, added
  (weighted by ``inference_weight``) to the entity network's log-beliefs, and the sentence's
  joint type assignment maximizing the sum is found exhaustively (iterated conditional modes
  beyond :data:`MAX_EXHAUSTIVE` entities).  Like the original, a sentence with one entity gets
  no help from global context -- the paper's argument for why it fails on fragmented notes.
* Roth & Yih assume entity boundaries are given; the paper's harness needs SNoW to find them,
  so step 1 (a token-level network) segments the text.
* Word case: SNoW used case-sensitive words; the shared word primitives are lower-cased, so
  the :class:`~systems.features.common.Orthography` primitive carries capitalization.
* Dictionaries: the original consulted its own gazetteers of people, organizations and
  locations; we use :func:`corpora.dictionaries.system_dictionaries` (names, locations,
  hospitals), i.e. the same lists every system of the harness sees.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from typing import TYPE_CHECKING, ClassVar

import numpy as np
from scipy import sparse

from corpora import nlp
from corpora.model import OUTSIDE, PEOPLE_LOCATIONS_ORGANIZATIONS
from infra.memo import memoize
from systems.base import System, register
from systems.features.base import FEATURE_SPACE, FeatureClass, TokenFeatures, extract_cached
from systems.features.common import (
    BOS,
    EOS,
    DictionaryWindow,
    Orthography,
    PosWindow,
    WordWindow,
)
from systems.features.illinois import Affixes

if TYPE_CHECKING:
    from corpora.model import Document

#: Categories SNoW recognizes (people, locations, organizations), in output order.
SNOW_LABELS: tuple[str, ...] = ("PATIENT", "DOCTOR", "LOCATION", "HOSPITAL")
#: Sentences with more entities than this use iterated conditional modes, not enumeration.
MAX_EXHAUSTIVE = 6
#: Dictionary groups SNoW consults: people, locations, organizations (2006 paper §4.2).
SNOW_DICTIONARY_GROUPS: tuple[str, ...] = ("first_name", "last_name", "location", "hospital")


# ---------------------------------------------------------------------------- features
def _window_words(document: Document, lower: bool = True) -> tuple[list[str], list[int]]:
    toks = document.tokens
    return [t.text.lower() if lower else t.text for t in toks], [t.sentence for t in toks]


class WordTagNgrams(FeatureClass):
    """Roth & Yih's "conjunctions of words and tags, bigram and trigram of words and tags".

    Word|tag conjunctions at -1, 0, +1; word and tag bigrams ending and starting at the
    target; the word and tag trigrams centred on it.  With ``use_pos=False`` only the word
    n-grams are produced (no NLTK needed).
    """

    name = "snow_word_tag_ngrams"

    def __init__(self, use_pos: bool = True) -> None:
        self.use_pos = use_pos

    def extract(self, document: Document) -> list[TokenFeatures]:
        words, sents = _window_words(document)
        tags = list(nlp.pos_tags(document)) if self.use_pos else None
        n = len(words)
        out: list[TokenFeatures] = []
        for i in range(n):
            # Neighbours across a sentence boundary (or the text's ends) read as BOS / EOS.
            prev_in = i > 0 and sents[i - 1] == sents[i]
            next_in = i + 1 < n and sents[i + 1] == sents[i]
            wp = words[i - 1] if prev_in else BOS
            w = words[i]
            wn = words[i + 1] if next_in else EOS
            row: TokenFeatures = {
                f"wb-={wp}_{w}": 1.0,
                f"wb+={w}_{wn}": 1.0,
                f"wt={wp}_{w}_{wn}": 1.0,
            }
            if tags is not None:
                tp = tags[i - 1] if prev_in else BOS
                t = tags[i]
                tn = tags[i + 1] if next_in else EOS
                row[f"w|t-1={wp}|{tp}"] = 1.0
                row[f"w|t0={w}|{t}"] = 1.0
                row[f"w|t+1={wn}|{tn}"] = 1.0
                row[f"tb-={tp}_{t}"] = 1.0
                row[f"tb+={t}_{tn}"] = 1.0
                row[f"tt={tp}_{t}_{tn}"] = 1.0
            out.append(row)
        return out


def token_features(use_pos: bool = True, dictionaries: str | None = None) -> list[FeatureClass]:
    """The token network's feature classes (shared primitives reused, never copied)."""
    feats: list[FeatureClass] = [
        WordWindow(offsets=(-2, -1, 0, 1, 2)),
        WordTagNgrams(use_pos=use_pos),
        Affixes(max_len=3),
        Orthography(),
        DictionaryWindow(
            offsets=(-1, 0, 1), groups=SNOW_DICTIONARY_GROUPS, dictionaries=dictionaries
        ),
    ]
    if use_pos:
        feats.insert(1, PosWindow(offsets=(-2, -1, 0, 1, 2)))
    return feats


def phrase_features(
    document: Document,
    start: int,
    end: int,
    tags: Sequence[str] | None,
    dict_hits: Sequence[set[str]],
) -> list[str]:
    """Features of the phrase ``tokens[start:end]`` (Roth & Yih's entity-level features)."""
    toks = document.tokens
    n = len(toks)
    sent = toks[start].sentence
    words = [t.text.lower() for t in toks[start:end]]
    feats = [f"len={min(end - start, 5)}"]
    feats += [f"pw={w}" for w in words]
    feats += [f"pbg={a}_{b}" for a, b in itertools.pairwise(words)]
    for pos, w in (("first", words[0]), ("last", words[-1])):
        feats += [f"{pos}pre={w[:k]}" for k in range(1, min(3, len(w)) + 1)]
        feats += [f"{pos}suf={w[-k:]}" for k in range(1, min(3, len(w)) + 1)]
    first_text = toks[start].text
    if first_text[:1].isupper():
        feats.append("init_cap")
    if first_text.isupper():
        feats.append("all_caps")
    for k in range(start, end):
        feats += [f"pd={g}" for g in dict_hits[k]]
    for name, j in (("L2", start - 2), ("L1", start - 1), ("R1", end), ("R2", end + 1)):
        if 0 <= j < n and toks[j].sentence == sent:
            w = toks[j].text.lower()
            feats.append(f"{name}={w}")
            if tags is not None:
                feats.append(f"{name}t={tags[j]}")
                feats.append(f"{name}w|t={w}|{tags[j]}")
            feats += [f"{name}d={g}" for g in dict_hits[j]]
        else:
            feats.append(f"{name}=<none>")
    if tags is not None:
        feats.append("ptags=" + "_".join(tags[start:end][:4]))
    return feats


class _Indexer:
    """Feature name -> column, fixed after training (unseen features are dropped)."""

    def __init__(self) -> None:
        self.columns: dict[str, int] = {}

    def matrix(self, rows: Sequence[Collection[str]], grow: bool) -> sparse.csr_matrix:
        """Rows of feature names as a 0/1 CSR matrix, each row's columns in its feature order.

        Why it is written this way: a corpus has millions of (token, feature) pairs, and a
        Python loop over them cost seconds per fold.  Here the names are flattened once and
        mapped with C-level ``map``/``dict`` calls.  New names get the next free columns in
        order of first occurrence (what a loop appending them would do), and a row keeps its
        features in their given order, repeats included: Winnow sums a row's weights in that
        order, so the trained weights depend on it bit for bit.
        """
        cols = self.columns
        flat = list(itertools.chain.from_iterable(rows))
        lengths = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
        if grow:
            unseen = [f for f in dict.fromkeys(flat) if f not in cols]
            cols.update(zip(unseen, itertools.count(len(cols))))
            indices = np.fromiter(map(cols.__getitem__, flat), dtype=np.int64, count=len(flat))
        else:
            found = np.fromiter(
                map(cols.get, flat, itertools.repeat(-1)), dtype=np.int64, count=len(flat)
            )
            known = found >= 0
            indices = found[known]
            row_of = np.repeat(np.arange(len(rows)), lengths)
            lengths = np.bincount(row_of[known], minlength=len(rows))
        indptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        data = np.ones(len(indices), dtype=np.float64)
        return sparse.csr_matrix((data, indices, indptr), shape=(len(rows), len(cols)))


class _IdIndexer:
    """:class:`_Indexer` for rows of :data:`FEATURE_SPACE` ids instead of names: the same
    columns (each id's at its first occurrence in training) and the same matrices, without
    building the names: building every token's names as dicts and mapping them is over
    half of a fit by names (56 % of its samples on the default corpus, under py-spy).  The
    ids are this process's (:attr:`generation`), as an SVM's columns are."""

    def __init__(self) -> None:
        self.lookup = np.empty(0, dtype=np.int64)  # id -> column, -1 where none
        self.size = 0
        self.generation = -1

    def matrix(self, indptr: np.ndarray, ids: np.ndarray, grow: bool) -> sparse.csr_matrix:
        """CSR rows ``(indptr, ids)`` as a 0/1 matrix over the columns, each row's columns in
        its ids' order; ``grow``: new ids get the next free columns in order of first
        occurrence, else unseen ids are dropped."""
        if grow and not self.size:
            self.generation = FEATURE_SPACE.generation
        elif self.generation != FEATURE_SPACE.generation:
            raise RuntimeError("snow: fitted on a feature vocabulary since released")
        ids = np.asarray(ids, dtype=np.int64)
        n_rows = len(indptr) - 1
        if grow:
            top = int(ids.max(initial=-1)) + 1
            if len(self.lookup) < top:
                grown = np.full(top, -1, dtype=np.int64)
                grown[: len(self.lookup)] = self.lookup
                self.lookup = grown
            distinct, first = np.unique(ids[self.lookup[ids] < 0], return_index=True)
            fresh = distinct[np.argsort(first, kind="stable")]
            self.lookup[fresh] = np.arange(self.size, self.size + len(fresh))
            self.size += len(fresh)
        columns = np.full(len(ids), -1, dtype=np.int64)
        inside = ids < len(self.lookup)
        columns[inside] = self.lookup[ids[inside]]
        known = columns >= 0
        if not known.all():
            row = np.repeat(np.arange(n_rows), np.diff(indptr))
            indptr = np.zeros(n_rows + 1, dtype=np.int64)
            np.cumsum(np.bincount(row[known], minlength=n_rows), out=indptr[1:])
            columns = columns[known]
        data = np.ones(len(columns), dtype=np.float64)
        return sparse.csr_matrix(
            (data, columns, np.asarray(indptr, dtype=np.int64)), shape=(n_rows, self.size)
        )


# ---------------------------------------------------------------------------- Winnow
def _padded_rows(X: sparse.csr_matrix, fill: int) -> np.ndarray:
    """Each row's columns in their CSR order, padded with ``fill`` to the longest row, and
    stored transposed (position, row) so that gathering a block of rows yields the
    (position, row, target) layout :meth:`WinnowNetwork._epoch` sums over."""
    lengths = np.diff(X.indptr)
    width = max(int(lengths.max(initial=0)), 1)
    padded = np.full((X.shape[0], width), fill, dtype=np.intp)
    padded[np.arange(width) < lengths[:, None]] = X.indices[X.indptr[0] : X.indptr[-1]]
    return np.ascontiguousarray(padded.T)


class WinnowNetwork:
    """A sparse network of Winnow target nodes (one per class), trained online.

    ``fit`` presents the examples ``epochs`` times in a seeded random order.  Every target
    node sees every example: promoted (``w *= promotion`` on the active, linked features)
    when the example is of its class but its activation is at most ``threshold``, demoted
    (``w *= demotion``) when the example is of another class and the activation exceeds it.
    """

    def __init__(
        self,
        n_targets: int,
        promotion: float = 1.35,
        demotion: float = 0.8,
        threshold: float = 1.0,
        epochs: int = 3,
        seed: int = 0,
        initial_weight: float = 0.5,
        margin: float = 0.3,
    ) -> None:
        self.n_targets = n_targets
        #: SNoW's "thick separator": promote below ``θ(1+margin)``, demote above ``θ(1-margin)``.
        self.margin = margin
        #: Initial weight of a linked feature, as a fraction of threshold / mean active count.
        self.initial_weight = initial_weight
        self.promotion = promotion
        self.demotion = demotion
        self.threshold = threshold
        self.epochs = epochs
        self.seed = seed

    def fit(self, X: sparse.csr_matrix, y: np.ndarray) -> WinnowNetwork:
        n, n_features = X.shape
        T = self.n_targets
        # Sparse network: link a feature to a target only if they co-occur in training.
        onehot = sparse.csr_matrix((np.ones(n), (np.arange(n), y)), shape=(n, T))
        linked = (X.T @ onehot).toarray() > 0
        mean_active = max(float(np.diff(X.indptr).mean()) if n else 1.0, 1.0)
        # Start below the threshold so that every target is shaped by promotions.  Row-major
        # (``linked`` comes out column-major) since every example reads whole rows, and with
        # one extra row of zeros that pads examples to a common length (see ``_epoch``).
        W = np.zeros((n_features + 1, T))
        W[:n_features] = np.where(linked, self.initial_weight * self.threshold / mean_active, 0.0)
        padded = _padded_rows(X, fill=n_features)
        y = np.asarray(y)
        rng = np.random.default_rng(self.seed)
        lengths = np.diff(X.indptr)
        for _ in range(self.epochs):
            order = rng.permutation(n)
            # Examples without features are never mistakes; skipping them changes nothing.
            if self._epoch(W, X, padded, y, order[lengths[order] > 0]) == 0:
                break
        self.weights_ = W[:n_features]
        return self

    #: Examples scored per vectorized step of :meth:`_epoch`.  Any value gives the same
    #: weights; this one was fastest on the default corpus (a mistake every ~5-20 examples).
    block_size: ClassVar[int] = 16

    def _epoch(
        self,
        W: np.ndarray,
        X: sparse.csr_matrix,
        padded: np.ndarray,
        y: np.ndarray,
        order: np.ndarray,
    ) -> int:
        """One online pass over the examples ``order`` (none empty), updating ``W`` in place.

        Returns the number of mistakes (examples on which some target was promoted or demoted).

        Why blocks: presenting one example at a time cost ~20 µs of numpy call overhead per
        example.  The weights change only on a mistake, so the activations of the next
        ``block_size`` examples are computed together.  Examples before the block's first
        mistake are final (they update nothing); the mistake's update is applied and scoring
        resumes just after it, exactly as the plain online loop would.

        Why zero-padded rows summed over the first axis: an activation is the example's
        weight rows added one after another in feature order -- ``W[idx].sum(0)`` adds them
        so, since numpy reduces an outer axis row by row.  Laying a block out as (position,
        example x target) and reducing over the positions is the same row-by-row addition,
        and the padding's zero rows change no sum.  Other ways to sum a block
        (``np.add.reduceat``, or a sum along a contiguous run, which numpy does pairwise)
        can differ in the last bit, and an activation exactly at ``hi`` or ``lo`` would then
        flip an update.
        """
        T = self.n_targets
        hi = self.threshold * (1 + self.margin)
        lo = self.threshold * (1 - self.margin)
        # Thick separator: the example's own target is wrong at or below ``hi``, every other
        # target above ``lo``.  With ``bound`` per cell, "wrong" is ``(act > bound) != own``.
        labels = y[order]
        own = np.zeros((len(order), T), dtype=bool)
        own[np.arange(len(order)), labels] = True
        bound = np.where(own, hi, lo)

        indptr, indices = X.indptr.tolist(), X.indices
        mistakes = start = 0
        while start < len(order):
            stop = min(start + self.block_size, len(order))
            # (position, example, target): each example's weight rows, then zero rows.
            rows = W.take(padded.take(order[start:stop], axis=1), axis=0)
            act = np.add.reduce(rows.reshape(len(rows), -1), axis=0).reshape(-1, T)
            wrong = (act > bound[start:stop]) != own[start:stop]
            k = int(wrong.argmax())  # first wrong cell, row-major: the first mistake
            if not wrong.flat[k]:
                start = stop
                continue
            mistakes += 1
            i = int(order[start + k // T])
            factor = [
                (self.promotion if t == y[i] else self.demotion) if bad else 1.0
                for t, bad in enumerate(wrong[k // T].tolist())
            ]
            W[indices[indptr[i] : indptr[i + 1]]] *= factor
            start += k // T + 1
        return mistakes

    def activations(self, X: sparse.csr_matrix) -> np.ndarray:
        return np.asarray(X @ self.weights_)

    def beliefs(self, X: sparse.csr_matrix) -> np.ndarray:
        """SNoW's confidence: sigmoid of (activation - threshold), normalized per row."""
        act = self.activations(X)
        sig = 1.0 / (1.0 + np.exp(-(act - self.threshold) / max(self.threshold, 1e-9) * 4))
        sig = np.maximum(sig, 1e-6)
        return sig / sig.sum(1, keepdims=True)


# ---------------------------------------------------------------------------- inference
def _pmi(type_sets: Sequence[Sequence[int]], n_types: int, smoothing: float = 1.0) -> np.ndarray:
    """PMI of two entity types sharing a sentence, from the training sentences.

    ``type_sets`` lists, per sentence, the types of its entities (with repeats).
    """
    co = np.full((n_types, n_types), smoothing)
    marg = np.full(n_types, smoothing)
    for types in type_sets:
        for t in types:
            marg[t] += 1
        for a, b in itertools.permutations(range(len(types)), 2):
            co[types[a], types[b]] += 1
    p_cond = co / co.sum(1, keepdims=True)
    p_marg = marg / marg.sum()
    return np.log(p_cond / p_marg[None, :])


@memoize("snow.assignments", max_entries=16)
def _assignments(m: int, n_types: int) -> np.ndarray:
    return np.asarray(list(itertools.product(range(n_types), repeat=m)), dtype=np.int64)


def sentence_inference(beliefs: np.ndarray, compat: np.ndarray, weight: float) -> np.ndarray:
    """Jointly chosen types for one sentence's entities.

    Maximizes ``Σ log belief_i(t_i) + weight/(m-1) Σ_{i≠j} compat[t_i, t_j]`` -- each
    entity's type is strengthened or weakened by the others' (2006 paper §4.2).  With one
    entity (or ``weight == 0``) this is the local argmax.
    """
    m, T = beliefs.shape
    local = np.log(np.maximum(beliefs, 1e-12))
    if m <= 1 or weight == 0:
        return local.argmax(1)
    scale = weight / (m - 1)

    if m <= MAX_EXHAUSTIVE:
        grid = _assignments(m, T)  # (T**m, m): every joint assignment
        scores = local[np.arange(m), grid].sum(1)
        for i, j in itertools.permutations(range(m), 2):
            scores = scores + scale * compat[grid[:, i], grid[:, j]]
        return grid[int(scores.argmax())].copy()
    assign = local.argmax(1)
    for _ in range(5):  # iterated conditional modes
        changed = False
        for i in range(m):
            others = np.delete(assign, i)
            gain = local[i] + scale * (compat[:, others].sum(1) + compat[others, :].sum(0))
            t = int(gain.argmax())
            if t != assign[i]:
                assign[i], changed = t, True
        if not changed:
            break
    return assign


# ---------------------------------------------------------------------------- system
@register
class SnowNER(System):
    """SNoW-style NER for people, locations and organizations (see module docstring)."""

    relative_cost: ClassVar[float | None] = 2.0  # measured, for scheduling only
    name: ClassVar[str] = "snow"
    description: ClassVar[str] = (
        "SNoW-style NER (Roth & Yih 2002): Winnow networks over word/tag features plus "
        "sentence-level type inference; people, locations, organizations only (§4.2)"
    )
    citation: ClassVar[str] = "Roth & Yih 2002; Sibanda & Uzuner 2006 §4.2"
    departures: ClassVar[str] = (
        "Roth & Yih's relational inference unavailable: learned entity-type "
        "co-occurrence constraints; a token network finds entity boundaries"
    )
    requires_training: ClassVar[bool] = True
    predicts_categories: ClassVar[bool] = True
    #: The runner scores this system only on these categories (2006 paper §6, Tables 3/5).
    evaluated_labels: ClassVar[frozenset[str]] = PEOPLE_LOCATIONS_ORGANIZATIONS

    def __init__(
        self,
        promotion: float = 1.35,
        demotion: float = 0.8,
        threshold: float = 1.0,
        epochs: int = 3,
        margin: float = 0.3,
        inference_weight: float = 1.0,
        use_pos: bool = True,
        dictionaries: str | None = None,
        seed: int = 0,
    ) -> None:
        self.promotion = promotion
        self.demotion = demotion
        self.threshold = threshold
        self.epochs = epochs
        #: Thickness of the Winnow separator, as a fraction of the threshold.
        self.margin = margin
        #: Weight of the sentence-level compatibility term (0 = no global inference).
        self.inference_weight = inference_weight
        #: POS-tag features (NLTK); off only for environments without the tagger.
        self.use_pos = use_pos
        #: Extra dictionary directory (as ``--dictionaries``).
        self.dictionaries = dictionaries
        self.seed = seed

    def _network(self, n_targets: int, seed_offset: int) -> WinnowNetwork:
        return WinnowNetwork(
            n_targets,
            promotion=self.promotion,
            demotion=self.demotion,
            threshold=self.threshold,
            epochs=self.epochs,
            seed=self.seed + seed_offset,
            margin=self.margin,
        )

    def _token_ids(self, documents: Sequence[Document]) -> tuple[np.ndarray, np.ndarray]:
        """Every token's feature ids (all documents, in order) as CSR ``(indptr, ids)``: its
        names in :func:`combine`'s order (each once, at its first class), the order Winnow
        sums their weights in (:meth:`FeatureSpace.token_ids`)."""
        feats = token_features(self.use_pos, self.dictionaries)
        parts = [FEATURE_SPACE.token_ids(feats, doc) for doc in documents]
        if not parts:
            return np.zeros(1, dtype=np.int64), np.empty(0, dtype=np.int64)
        lengths = np.concatenate([np.diff(indptr) for indptr, _ in parts])
        indptr = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        return indptr, np.concatenate([ids for _, ids in parts])

    def _dict_hits(self, document: Document, positions: Iterable[int]) -> list[set[str]]:
        """Dictionary groups of the tokens at ``positions`` (empty elsewhere), read from the
        (cached) token features -- only where phrase features look, which saved ~0.4 s a fit."""
        window = token_features(self.use_pos, self.dictionaries)[-1]
        rows = extract_cached(window, document)
        hits: list[set[str]] = [set() for _ in rows]
        for k in positions:
            hits[k] = {f[len("dict0=") :] for f in rows[k] if f.startswith("dict0=")}
        return hits

    def _phrase_rows(
        self, document: Document, phrases: Sequence[tuple[int, int]]
    ) -> list[list[str]]:
        if not phrases:
            return []
        tags = nlp.pos_tags(document) if self.use_pos else None
        n = len(document.tokens)
        # phrase_features reads the phrase and two tokens either side.
        near = {k for s, e in phrases for k in range(max(s - 2, 0), min(e + 2, n))}
        hits = self._dict_hits(document, near)
        return [phrase_features(document, s, e, tags, hits) for s, e in phrases]

    def fit(self, documents: Sequence[Document]) -> SnowNER:
        docs = list(documents)
        self.token_classes_ = (OUTSIDE, *SNOW_LABELS)
        cls_id = {c: i for i, c in enumerate(self.token_classes_)}
        y_tok = np.asarray([cls_id.get(t.label, 0) for d in docs for t in d.tokens], dtype=np.int64)
        self.token_index_ = _IdIndexer()
        X_tok = self.token_index_.matrix(*self._token_ids(docs), grow=True)
        self.token_net_ = self._network(len(self.token_classes_), 0).fit(X_tok, y_tok)

        phrase_rows: list[list[str]] = []
        y_phrase: list[int] = []
        sentence_types: list[list[int]] = []
        for doc in docs:
            phrases = gold_phrases(doc)
            phrase_rows += self._phrase_rows(doc, [(s, e) for s, e, _ in phrases])
            by_sentence: dict[int, list[int]] = {}
            for s, _e, label in phrases:
                t = SNOW_LABELS.index(label)
                y_phrase.append(t)
                by_sentence.setdefault(doc.tokens[s].sentence, []).append(t)
            sentence_types += list(by_sentence.values())
        self.phrase_index_ = _Indexer()
        X_ph = self.phrase_index_.matrix(phrase_rows, grow=True)
        self.phrase_net_ = self._network(len(SNOW_LABELS), 1).fit(
            X_ph, np.asarray(y_phrase, dtype=np.int64)
        )
        self.compat_ = _pmi(sentence_types, len(SNOW_LABELS))
        counts = Counter(len(t) for t in sentence_types)
        self.sentences_with_entities_ = dict(sorted(counts.items()))
        return self

    def candidate_phrases(self, document: Document, token_pred: Sequence[int]) -> list:
        """Maximal runs of tokens with one hypothesised non-``O`` class, within a sentence."""
        toks = document.tokens
        phrases: list[tuple[int, int]] = []
        i, n = 0, len(toks)
        while i < n:
            if token_pred[i] == 0:
                i += 1
                continue
            j = i + 1
            while j < n and token_pred[j] == token_pred[i] and toks[j].sentence == toks[i].sentence:
                j += 1
            phrases.append((i, j))
            i = j
        return phrases

    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        docs = list(documents)
        X = self.token_index_.matrix(*self._token_ids(docs), grow=False)
        token_pred = self.token_net_.activations(X).argmax(1) if X.shape[0] else np.zeros(0)
        out: list[list[str]] = []
        offset = 0
        for doc in docs:
            n = len(doc.tokens)
            pred = token_pred[offset : offset + n].tolist()
            offset += n
            labels = [OUTSIDE] * n
            phrases = self.candidate_phrases(doc, pred)
            if phrases:
                Xp = self.phrase_index_.matrix(self._phrase_rows(doc, phrases), grow=False)
                beliefs = self.phrase_net_.beliefs(Xp)
                by_sentence: dict[int, list[int]] = {}
                for k, (s, _e) in enumerate(phrases):
                    by_sentence.setdefault(doc.tokens[s].sentence, []).append(k)
                for members in by_sentence.values():
                    types = sentence_inference(
                        beliefs[members], self.compat_, self.inference_weight
                    )
                    for k, t in zip(members, types, strict=True):
                        s, e = phrases[k]
                        labels[s:e] = [SNOW_LABELS[int(t)]] * (e - s)
            out.append(labels)
        return out


def gold_phrases(document: Document) -> list[tuple[int, int, str]]:
    """Gold entity phrases of SNoW's categories: maximal same-label token runs in a sentence."""
    toks = document.tokens
    out: list[tuple[int, int, str]] = []
    i, n = 0, len(toks)
    while i < n:
        label = toks[i].label
        if label not in SNOW_LABELS:
            i += 1
            continue
        j = i + 1
        while j < n and toks[j].label == label and toks[j].sentence == toks[i].sentence:
            j += 1
        out.append((i, j, label))
        i = j
    return out


__all__ = [
    "SNOW_LABELS",
    "Affixes",
    "SnowNER",
    "WinnowNetwork",
    "WordTagNgrams",
    "gold_phrases",
    "phrase_features",
    "sentence_inference",
    "token_features",
]

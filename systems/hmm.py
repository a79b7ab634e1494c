"""``hmm``: an IdentiFinder-style HMM, the first global-context baseline.

Sibanda & Uzuner (2006, §4.3) compare their local-context SVM with IdentiFinder (Bikel,
Schwartz & Weischedel 1999, "An algorithm that learns what's in a name"; the Nymble model).
IdentiFinder captures a *simplified* local context -- one word-feature per word and word
bigrams inside a name -- and a *global* context: the most likely sequence of name classes
over the whole sentence, found with Viterbi.  The paper's point (§5, §6) is that fragmented
clinical text, where most sentences hold at most one entity, leaves that global context with
little to work on.

The model, as in Bikel et al. (1999, §3):

* one state per name class: every PHI category seen in training plus ``O`` (Bikel's
  NOT-A-NAME), with START/END-OF-SENTENCE pseudo-classes;
* a new class instance is entered with ``P(NC | NC₋₁, w₋₁)`` (previous class, previous word);
* its first word is generated with ``P(⟨w,f⟩ | NC, NC₋₁)``;
* each following word with the within-class bigram ``P(⟨w,f⟩ | ⟨w,f⟩₋₁, NC)``, whose outcome
  ``+end+`` closes the instance;
* ``f`` is Bikel's word feature (:func:`word_feature`: twoDigitNum ... lowerCase, other);
* every distribution backs off (class: ``P(NC|NC₋₁) → P(NC) → uniform``; words:
  ``P(⟨w,f⟩|NC) → P(w|NC)·P(f|NC) → uniform``) with Witten-Bell weights
  ``λ = c(h) / (c(h) + u(h))`` (history count over history count plus distinct outcomes) -- the
  same shape as Bikel's ``λ`` without its "old count" correction;
* decoding is Viterbi over the sentence (:attr:`corpora.model.Token.sentence`), vectorized:
  all scores of a document are one ``(n, K, K)`` array and only the max-product recursion is a
  Python loop over tokens.

Token scores.  The same model gives each token's posterior ``P(NC_i | sentence)`` by
forward-backward (the sum-product twin of the Viterbi recursion, in log space);
:meth:`IdentiFinderHMM.score_tokens` is ``1 - P(NC_i = NOT-A-NAME)``.  The hidden structure
is the class sequence *and* where instances start: two tokens of one class are either one
instance continued (the within-class bigram) or an instance ended and a new one of the same
class entered (``+end+``, then ``P(NC | NC₋₁, w₋₁)`` and the first-word model).  Viterbi keeps
the better of the two; the posterior, a sum over all analyses, adds them.  ``threshold=None``
keeps the Viterbi labels; a number ``t`` labels a token PHI when its score exceeds ``t``.

Deviations, stated so results are read correctly:

* The original was pre-trained on news and is not available; this model is trained on the
  training folds, so it has in-domain data the paper's IdentiFinder lacked (it will do better
  than the paper's 67.4% F, Table 2, on the same kind of data).
* Unknown words: Bikel trains a separate unknown-word model on held-out halves of the
  training data.  We use the common simplification of mapping words seen fewer than
  ``min_count`` times to ``_UNK_`` (keeping their word feature), so the ``_UNK_`` statistics
  come from rare training words -- which in de-identification are mostly names.
* Words are lower-cased; case information lives in the word feature.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from corpora.model import LABELS, OUTSIDE
from infra.memo import memoize
from systems.base import System, register

if TYPE_CHECKING:
    from corpora.model import Document, Token

#: Bikel et al. (1999), Table 3.1, in their order of precedence.
WORD_FEATURES: tuple[str, ...] = (
    "twoDigitNum",
    "fourDigitNum",
    "containsDigitAndAlpha",
    "containsDigitAndDash",
    "containsDigitAndSlash",
    "containsDigitAndComma",
    "containsDigitAndPeriod",
    "otherNum",
    "allCaps",
    "capPeriod",
    "firstWord",
    "initCap",
    "lowerCase",
    "other",
)
_FEATURE_ID = {f: i for i, f in enumerate(WORD_FEATURES)}
_CAP_PERIOD = re.compile(r"^[A-Z]\.$")

UNK = "_UNK_"
_UNK_ID, _BOS_ID = 0, 1


@memoize("hmm.word_features", max_entries=200_000)
def word_feature(word: str, first: bool = False) -> str:
    """Bikel et al.'s word feature of ``word`` (``first``: it starts the sentence).

    The first matching feature of :data:`WORD_FEATURES` wins, so ``"1997"`` is
    ``fourDigitNum``, ``"7/22"`` is ``containsDigitAndSlash``, ``"M."`` is ``capPeriod`` and a
    capitalized word opening a sentence is ``firstWord``, not ``initCap``.
    """
    if word.isdigit():
        if len(word) == 2:
            return "twoDigitNum"
        if len(word) == 4:
            return "fourDigitNum"
        return "otherNum"
    if any(c.isdigit() for c in word):
        if any(c.isalpha() for c in word):
            return "containsDigitAndAlpha"
        for mark, feature in (
            ("-", "containsDigitAndDash"),
            ("/", "containsDigitAndSlash"),
            (",", "containsDigitAndComma"),
            (".", "containsDigitAndPeriod"),
        ):
            if mark in word:
                return feature
        return "otherNum"
    if _CAP_PERIOD.match(word):
        return "capPeriod"
    if word.isupper():
        return "allCaps"
    if first:
        return "firstWord"
    if word[:1].isupper():
        return "initCap"
    if word.islower():
        return "lowerCase"
    return "other"


def _sentence_starts(tokens: Sequence[Token]) -> np.ndarray:
    sent = np.fromiter((t.sentence for t in tokens), dtype=np.int64, count=len(tokens))
    starts = np.ones(len(tokens), dtype=bool)
    if len(tokens) > 1:
        starts[1:] = sent[1:] != sent[:-1]
    return starts


def _witten_bell(count: np.ndarray, unique: np.ndarray) -> np.ndarray:
    """``λ = c / (c + u)``, 0 where the history was never seen."""
    denom = count + unique
    return np.divide(count, denom, out=np.zeros_like(count, dtype=float), where=denom > 0)


def _safe_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.divide(a, b, out=np.zeros(np.broadcast(a, b).shape), where=b > 0)


class _SparseTable:
    """Integer keys -> rows of a dense array, looked up in bulk with ``searchsorted``."""

    def __init__(self, rows: dict[int, np.ndarray], shape: tuple[int, ...]) -> None:
        keys = sorted(rows)
        self.keys = np.asarray(keys, dtype=np.int64)
        self.values = np.zeros((len(keys) + 1, *shape))  # last row: "not found" (zeros)
        for i, k in enumerate(keys):
            self.values[i] = rows[k]

    def lookup(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rows for ``keys`` (zeros where absent) and a found mask."""
        if len(self.keys) == 0:
            return np.broadcast_to(self.values[-1], (len(keys), *self.values.shape[1:])), (
                np.zeros(len(keys), dtype=bool)
            )
        pos = np.searchsorted(self.keys, keys)
        pos = np.minimum(pos, len(self.keys) - 1)
        found = self.keys[pos] == keys
        idx = np.where(found, pos, len(self.keys))
        return self.values[idx], found


@dataclass
class _Counts:
    """The training events :meth:`IdentiFinderHMM._count` counts, gathered so the steps
    that estimate each distribution from them can be separate methods.  ``K`` states;
    class histories add START and class outcomes add END (index ``K`` of each)."""

    #: Previous word id -> (previous class or START, class or END) transition counts.
    trans: defaultdict[int, np.ndarray]
    #: Item id -> (previous class or START, class) counts of items entering a class.
    first: defaultdict[int, np.ndarray]
    #: (previous item, item; 0: +end+) -> per-class counts inside a class instance.
    bigram: defaultdict[tuple[int, int], np.ndarray]
    #: Item id -> per-class counts.
    items: defaultdict[int, np.ndarray]
    #: (word id, class) counts.
    words: np.ndarray
    #: (word feature id, class) counts.
    feats: np.ndarray
    #: Per-class counts of instances closed (+end+).
    ends: np.ndarray


@register
class IdentiFinderHMM(System):
    """Nymble/IdentiFinder HMM trained on the training folds (see module docstring)."""

    relative_cost: ClassVar[float | None] = 0.7  # measured, for scheduling only
    name: ClassVar[str] = "hmm"
    description: ClassVar[str] = (
        "IdentiFinder-style HMM (Bikel et al. 1999): per-class bigram word models with "
        "word-feature back-off, Viterbi over sentences (2006 paper §4.3)"
    )
    citation: ClassVar[str] = "Bikel et al. 1999; Sibanda & Uzuner 2006 §4.3"
    departures: ClassVar[str] = (
        "IdentiFinder's news-trained model unavailable: trained on the training folds "
        "(in-domain, so stronger than the paper's); simplified unknown-word model"
    )
    #: IdentiFinder was not trained on IDs, so the 2006 paper compares every system with
    #: it on everything else (§6, Tables 2, 4, 7, 11).
    compared_on: ClassVar[tuple[str, ...]] = ("no_id",)
    requires_training: ClassVar[bool] = True
    predicts_categories: ClassVar[bool] = True

    def __init__(self, min_count: int = 2, seed: int = 0, threshold: float | None = None) -> None:
        #: Words seen fewer times than this in training are ``_UNK_``.
        self.min_count = min_count
        #: Accepted for a uniform interface; training and decoding are deterministic.
        self.seed = seed
        #: ``None``: Viterbi labels; a number: PHI where :meth:`score_tokens` exceeds it.
        self.threshold = threshold

    def search_space(self) -> dict[str, list[Any]]:
        """``min_count``, the stand-in for Bikel et al.'s unknown-word model (1999, §3; theirs
        is trained on held-out halves): it decides which training words teach ``_UNK_``,
        i.e. how an unseen surname is scored.  It matters: on the embedded ``authentic``
        corpus (first 300 notes, 3 folds of 200/100) min_count 1, 2, 3, 5, 8 gave token PHI
        F1 0.963, 0.971, 0.973, 0.972, 0.961.  A fit is a fraction of a second, so the grid
        is cheap; the threshold is chosen by the tuner from the scores."""
        return {"min_count": [1, 2, 3, 5]}

    #: Documents decoded as one sequence (bounds the ``(n, K, K)`` score array's memory).
    _BATCH_DOCUMENTS: ClassVar[int] = 64

    # ------------------------------------------------------------------ encoding
    def _encode(
        self, docs: Sequence[Document], *, training: bool = False
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Word ids, feature ids, item ids (``-1``: unseen ⟨w,f⟩) and sentence starts of the
        documents' tokens, concatenated (each document starts a sentence)."""
        toks: list[Token] = []
        doc_starts = []
        for doc in docs:
            doc_starts.append(len(toks))
            toks.extend(doc.tokens)
        starts = _sentence_starts(toks)
        starts[[i for i in doc_starts if i < len(toks)]] = True
        vocab = self.vocab_
        words = np.fromiter(
            (vocab.get(t.text.lower(), _UNK_ID) for t in toks), dtype=np.int64, count=len(toks)
        )
        feats = np.fromiter(
            (
                _FEATURE_ID[word_feature(t.text, bool(s))]
                for t, s in zip(toks, starts.tolist(), strict=True)
            ),
            dtype=np.int64,
            count=len(toks),
        )
        if training:
            items_map = self.items_
            item_list = []
            for w, f in zip(words.tolist(), feats.tolist(), strict=True):
                x = items_map.get((w, f))
                if x is None:
                    x = items_map[(w, f)] = len(items_map) + 1  # 0 is +end+
                item_list.append(x)
            items = np.asarray(item_list, dtype=np.int64)
        else:
            get = self.items_.get
            items = np.fromiter(
                (get((w, f), -1) for w, f in zip(words.tolist(), feats.tolist(), strict=True)),
                dtype=np.int64,
                count=len(toks),
            )
        return words, feats, items, starts

    # ------------------------------------------------------------------ training
    def fit(self, documents: Sequence[Document]) -> IdentiFinderHMM:
        docs = list(documents)
        self._fit_vocabulary(docs)
        counts = self._count(docs)
        self.n_items_ = len(self.items_) + 1  # item ids 1..X-1, 0 = +end+
        self._fit_class_unigrams(counts)
        self._fit_bigrams(counts)
        self._fit_first_words(counts)
        self._fit_transitions(counts)
        return self

    def _fit_vocabulary(self, docs: Sequence[Document]) -> None:
        """The states (``O`` and every category seen) and the word ids (words seen
        ``min_count`` times), which must be fixed before a token can be counted."""
        seen = {t.label for d in docs for t in d.tokens}
        self.states_: tuple[str, ...] = (OUTSIDE, *(lab for lab in LABELS if lab in seen))
        counts = Counter(t.text.lower() for d in docs for t in d.tokens)
        self.vocab_: dict[str, int] = {UNK: _UNK_ID, "<s>": _BOS_ID}
        for w, c in sorted(counts.items()):
            if c >= self.min_count:
                self.vocab_[w] = len(self.vocab_)
        self.items_: dict[tuple[int, int], int] = {}

    def _count(self, docs: Sequence[Document]) -> _Counts:
        """One pass over the training tokens counting every event the model's
        distributions are estimated from; item ids are given out in the order met."""
        state_id = {s: i for i, s in enumerate(self.states_)}
        K = len(self.states_)
        S = K + 1  # histories: states + START
        n_out = K + 1  # outcomes of the class model: states + END
        START = END = K
        counts = _Counts(
            trans=defaultdict(lambda: np.zeros((S, n_out))),
            first=defaultdict(lambda: np.zeros((S, K))),
            bigram=defaultdict(lambda: np.zeros(K)),
            items=defaultdict(lambda: np.zeros(K)),
            words=np.zeros((len(self.vocab_), K)),
            feats=np.zeros((len(WORD_FEATURES), K)),
            ends=np.zeros(K),
        )
        trans, first, bigram = counts.trans, counts.first, counts.bigram
        item_counts, end_counts = counts.items, counts.ends
        for doc in docs:
            words, feats, items, starts = self._encode([doc], training=True)
            labels = [state_id[t.label] for t in doc.tokens]
            n = len(labels)
            np.add.at(counts.words, (words, labels), 1)
            np.add.at(counts.feats, (feats, labels), 1)
            for i in range(n):
                c, x = labels[i], int(items[i])
                item_counts[x][c] += 1
                new_sentence = bool(starts[i])
                if new_sentence:
                    prev_c, prev_w = START, _BOS_ID
                else:
                    prev_c, prev_w = labels[i - 1], int(words[i - 1])
                if new_sentence or prev_c != c:
                    trans[prev_w][prev_c, c] += 1
                    first[x][prev_c, c] += 1
                else:
                    bigram[(int(items[i - 1]), x)][c] += 1
                last_in_sentence = i == n - 1 or bool(starts[i + 1])
                if last_in_sentence or labels[i + 1] != c:
                    bigram[(x, 0)][c] += 1  # +end+ closes the instance
                    end_counts[c] += 1
                if last_in_sentence:
                    trans[int(words[i])][c, END] += 1
        return counts

    def _fit_class_unigrams(self, counts: _Counts) -> None:
        """Class unigrams P(<w,f>|NC) -> P(w|NC) P(f|NC) -> uniform: the back-off that the
        first-word and bigram models end in."""
        K, W, X = len(self.states_), len(self.vocab_), self.n_items_
        word_counts, feat_counts = counts.words, counts.feats
        item_arr = np.zeros((X + 1, K))  # last row: unseen item (zeros)
        for x, v in counts.items.items():
            item_arr[x] = v
        item_arr[0] = counts.ends
        n_c = item_arr.sum(0)
        lam_u = _witten_bell(n_c, (item_arr > 0).sum(0))
        lam_w = _witten_bell(word_counts.sum(0), (word_counts > 0).sum(0))
        lam_f = _witten_bell(feat_counts.sum(0), (feat_counts > 0).sum(0))
        self.p_word_ = lam_w * _safe_div(word_counts, word_counts.sum(0)) + (1 - lam_w) / W
        self.p_feat_ = lam_f * _safe_div(feat_counts, feat_counts.sum(0)) + (1 - lam_f) / len(
            WORD_FEATURES
        )
        self.item_spec_ = lam_u * _safe_div(item_arr, n_c)
        self.lam_u_ = lam_u
        self.p_uni_end_ = self.item_spec_[0] + (1 - lam_u) / W

    def _fit_bigrams(self, counts: _Counts) -> None:
        """Within-class bigrams P(<w,f> | <w,f>-1, NC), +end+ included: the model of a
        name's following words, and of where it ends."""
        K, X = len(self.states_), self.n_items_
        hist = np.zeros((X + 1, K))
        uniq = np.zeros((X + 1, K))
        for (xp, _x), v in counts.bigram.items():
            hist[xp] += v
            uniq[xp] += v > 0
        lam_b = _witten_bell(hist, uniq)
        self.lam_b_ = lam_b
        self.bigram_ = _SparseTable(
            {
                xp * X + x: lam_b[xp] * _safe_div(v, hist[xp])
                for (xp, x), v in counts.bigram.items()
            },
            (K,),
        )

    def _fit_first_words(self, counts: _Counts) -> None:
        """First words P(<w,f> | NC, NC-1): the model of the word that enters a class."""
        K = len(self.states_)
        S = K + 1
        f_hist = np.zeros((S, K))
        f_uniq = np.zeros((S, K))
        for v in counts.first.values():
            f_hist += v
            f_uniq += v > 0
        lam_first = _witten_bell(f_hist, f_uniq)
        self.lam_first_ = lam_first
        self.first_ = _SparseTable(
            {x: lam_first * _safe_div(v, f_hist) for x, v in counts.first.items()}, (S, K)
        )

    def _fit_transitions(self, counts: _Counts) -> None:
        """Class transitions P(NC | NC-1, w-1) -> P(NC | NC-1) -> P(NC) -> uniform, kept
        as log probabilities by previous word: what Viterbi and forward-backward step with."""
        K = len(self.states_)
        S = K + 1
        n_out = K + 1
        t2 = np.zeros((S, n_out))
        for v in counts.trans.values():
            t2 += v
        t3 = t2.sum(0)
        lam3 = _witten_bell(t3.sum(), (t3 > 0).sum())
        p3 = lam3 * _safe_div(t3, t3.sum()) + (1 - lam3) / n_out
        n2 = t2.sum(1, keepdims=True)
        lam2 = _witten_bell(n2, (t2 > 0).sum(1, keepdims=True))
        p2 = lam2 * _safe_div(t2, n2) + (1 - lam2) * p3
        rows = {}
        for w, v in counts.trans.items():
            n1 = v.sum(1, keepdims=True)
            lam1 = _witten_bell(n1, (v > 0).sum(1, keepdims=True))
            rows[w] = np.log(lam1 * _safe_div(v, n1) + (1 - lam1) * p2)
        self.trans_ = _SparseTable(rows, (S, n_out))
        self.log_trans_default_ = np.log(p2)
        self.log_trans_bos_ = rows.get(_BOS_ID, self.log_trans_default_)

    # ------------------------------------------------------------------ decoding
    def _log_transitions(self, prev_words: np.ndarray) -> np.ndarray:
        table, found = self.trans_.lookup(prev_words)
        return np.where(found[:, None, None], table, self.log_trans_default_[None])

    def _scores(
        self, docs: Sequence[Document]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Scores of the documents' concatenated tokens: per sentence the initial ``(K,)`` and
        final ``(K,)`` scores, per token the step score ``(K, K)`` from the previous token,
        and the sentence lengths.

        Batching documents removes the per-document overhead of the numpy calls; sentences
        are decoded independently, exactly as in Bikel's model.  The diagonal of a step is
        the better of "new instance of the same class" and "instance continued" (the
        max-product choice; :meth:`_posterior_scores` adds them instead).
        """
        init, steps, log_cont, final, lengths = self._step_parts(docs)
        _join_diagonal(steps, log_cont, np.maximum)
        return init, steps, final, lengths

    def _posterior_scores(
        self, docs: Sequence[Document]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`_scores` with each diagonal step the log of the *sum* of its two analyses
        (new instance, continuation), the step scores of forward-backward."""
        init, steps, log_cont, final, lengths = self._step_parts(docs)
        _join_diagonal(steps, log_cont, np.logaddexp)
        return init, steps, final, lengths

    def _step_parts(
        self, docs: Sequence[Document]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Initial scores, new-instance step scores ``(n, K, K)``, continuation scores
        ``(n, K)`` (of staying in class ``c`` inside one instance), final scores and
        sentence lengths: what :meth:`_scores` and :meth:`_posterior_scores` combine."""
        K = len(self.states_)
        START = END = K
        X = self.n_items_
        words, feats, items, starts = self._encode(docs)
        n = len(words)
        p_wf = self.p_word_[words] * self.p_feat_[feats]
        p_uni = self.item_spec_[items] + (1 - self.lam_u_) * p_wf

        prev_items = np.empty_like(items)
        prev_items[0] = -1
        prev_items[1:] = items[:-1]
        valid = (prev_items >= 0) & (items >= 0) & ~starts
        cont_spec, _ = self.bigram_.lookup(np.where(valid, prev_items * X + items, -1))
        p_cont = cont_spec + (1 - self.lam_b_[prev_items]) * p_uni
        end_spec, _ = self.bigram_.lookup(np.where(items >= 0, items * X, -1))
        p_end = end_spec + (1 - self.lam_b_[items]) * self.p_uni_end_
        first_spec, _ = self.first_.lookup(items)
        p_first = first_spec + (1 - self.lam_first_)[None] * p_uni[:, None, :]

        with np.errstate(divide="ignore"):
            log_cont, log_end, log_first = np.log(p_cont), np.log(p_end), np.log(p_first)
        prev_words = np.empty_like(words)
        prev_words[0] = _BOS_ID
        prev_words[1:] = words[:-1]
        log_t = self._log_transitions(prev_words)  # history: the previous token's word
        bos = self.log_trans_bos_

        # Step scores from token i-1 to token i inside a sentence: a new instance (end the
        # previous class, transition, first word) or, on the diagonal, the within-class bigram.
        steps = np.empty((n, K, K))
        if n > 1:
            steps[1:] = log_end[:-1, :, None] + log_t[1:, :K, :K] + log_first[1:, :K, :]
        # Sentence boundaries: START -> first class, last class -> END.
        first_tok = np.flatnonzero(starts)
        last_tok = np.append(first_tok[1:] - 1, n - 1)
        init = bos[START, :K][None, :] + log_first[first_tok, START]
        final = log_end[last_tok] + self._log_transitions(words[last_tok])[:, :K, END]
        return init, steps, log_cont, final, last_tok - first_tok + 1

    @staticmethod
    def _viterbi(
        init: np.ndarray, steps: np.ndarray, final: np.ndarray, lengths: np.ndarray
    ) -> np.ndarray:
        """Best class sequence of every sentence, all sentences decoded in lock-step.

        Sentences are independent (Bikel's model restarts at START-OF-SENTENCE), so the
        recursion runs over positions *within* sentences: sentences sorted longest first are
        a shrinking prefix at each position, and the Python loop is as long as the longest
        sentence, not the document.
        """
        n, K = steps.shape[0], steps.shape[1]
        order, starts_sorted, _, active = _lockstep(lengths)
        max_len = len(active)
        back = np.zeros((n, K), dtype=np.int64)
        delta = init[order].copy()
        for t in range(1, max_len):
            c = int(active[t])
            tok = starts_sorted[:c] + t
            m = delta[:c, :, None] + steps[tok]
            best = m.argmax(1)
            back[tok] = best
            delta[:c] = np.take_along_axis(m, best[:, None, :], 1)[:, 0, :]
        state = (delta + final[order]).argmax(1)
        path = np.empty(n, dtype=np.int64)
        for t in range(max_len - 1, -1, -1):
            c = int(active[t])
            tok = starts_sorted[:c] + t
            path[tok] = state[:c]
            if t:
                state[:c] = back[tok, state[:c]]
        return path

    @staticmethod
    def _posteriors(
        init: np.ndarray, steps: np.ndarray, final: np.ndarray, lengths: np.ndarray
    ) -> np.ndarray:
        """``P(class of token i = k | its sentence)`` as an ``(n, K)`` array, by
        forward-backward in log space over the scores of :meth:`_posterior_scores`.

        The same lock-step schedule as :meth:`_viterbi` (sentences longest first, a
        shrinking prefix per position), with log-sum-exp where Viterbi takes the max.  Each
        row is normalized by its own ``log Σ_k α·β``, which for every token of a sentence is
        that sentence's log-likelihood.
        """
        n, K = steps.shape[0], steps.shape[1]
        order, starts_sorted, len_sorted, active = _lockstep(lengths)
        max_len = len(active)
        alpha = np.empty((n, K))
        beta = np.empty((n, K))
        a = init[order]
        alpha[starts_sorted] = a
        for t in range(1, max_len):
            c = int(active[t])
            tok = starts_sorted[:c] + t
            a = _logsumexp(a[:c, :, None] + steps[tok], axis=1)
            alpha[tok] = a
        beta[starts_sorted + len_sorted - 1] = final[order]
        for t in range(max_len - 2, -1, -1):
            c = int(active[t + 1])  # sentences that go on after position t
            tok = starts_sorted[:c] + t
            beta[tok] = _logsumexp(steps[tok + 1] + beta[tok + 1][:, None, :], axis=2)
        log_post = alpha + beta
        log_post -= _logsumexp(log_post, axis=1)[:, None]
        return np.exp(log_post)

    def _batches(self, documents: Sequence[Document]) -> list[list[Document]]:
        docs = list(documents)
        return [
            docs[b : b + self._BATCH_DOCUMENTS] for b in range(0, len(docs), self._BATCH_DOCUMENTS)
        ]

    def _split(self, batch: Sequence[Document], flat: Sequence[Any]) -> list[Any]:
        out, offset = [], 0
        for doc in batch:
            out.append(flat[offset : offset + len(doc.tokens)])
            offset += len(doc.tokens)
        return out

    def _thresholded(self, posteriors: np.ndarray, threshold: float) -> list[str]:
        """PHI where the score exceeds ``threshold``, as the PHI class of highest
        posterior; ``O`` elsewhere (and everywhere when training saw no PHI)."""
        if len(self.states_) < 2:
            return [OUTSIDE] * len(posteriors)
        phi = np.asarray(self.states_[1:], dtype=object)
        best = phi[posteriors[:, 1:].argmax(1)]
        return [str(c) for c in np.where(_phi_score(posteriors) > threshold, best, OUTSIDE)]

    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        if self.threshold is not None:
            return self.predict_scored(documents)[0]
        out: list[list[str]] = []
        for batch in self._batches(documents):
            if not any(d.tokens for d in batch):
                out.extend([] for _ in batch)
                continue
            labels = [self.states_[s] for s in self._viterbi(*self._scores(batch)).tolist()]
            out.extend(self._split(batch, labels))
        return out

    def score_tokens(self, documents: Sequence[Document]) -> list[np.ndarray]:
        """Per document, each token's posterior probability of being PHI,
        ``1 - P(NOT-A-NAME at i | sentence)`` (see the module docstring)."""
        out: list[np.ndarray] = []
        for batch in self._batches(documents):
            if not any(d.tokens for d in batch):
                out.extend(np.zeros(0) for _ in batch)
                continue
            posteriors = self._posteriors(*self._posterior_scores(batch))
            out.extend(self._split(batch, _phi_score(posteriors)))
        return out

    def predict_scored(
        self, documents: Sequence[Document]
    ) -> tuple[list[list[str]], list[np.ndarray]]:
        """Labels and scores with the step scores computed once per batch: Viterbi over the
        max-joined diagonal (labels identical to :meth:`predict` with ``threshold=None``),
        forward-backward over the sum-joined one."""
        labels_out: list[list[str]] = []
        scores_out: list[np.ndarray] = []
        for batch in self._batches(documents):
            if not any(d.tokens for d in batch):
                labels_out.extend([] for _ in batch)
                scores_out.extend(np.zeros(0) for _ in batch)
                continue
            init, steps, log_cont, final, lengths = self._step_parts(batch)
            if self.threshold is None:
                viterbi_steps = steps.copy()
                _join_diagonal(viterbi_steps, log_cont, np.maximum)
                path = self._viterbi(init, viterbi_steps, final, lengths)
                del viterbi_steps
                labels = [self.states_[s] for s in path.tolist()]
            _join_diagonal(steps, log_cont, np.logaddexp)
            posteriors = self._posteriors(init, steps, final, lengths)
            if self.threshold is not None:
                labels = self._thresholded(posteriors, self.threshold)
            labels_out.extend(self._split(batch, labels))
            scores_out.extend(self._split(batch, _phi_score(posteriors)))
        return labels_out, scores_out


def _join_diagonal(steps: np.ndarray, log_cont: np.ndarray, join: Any) -> None:
    """Set, in place, each step's diagonal (class ``c`` to class ``c``) to ``join`` of its
    new-instance score and the continuation score ``log_cont``."""
    if steps.shape[0] > 1:
        diag = np.arange(steps.shape[1])
        steps[1:, diag, diag] = join(steps[1:, diag, diag], log_cont[1:])


def _lockstep(lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The schedule of the lock-step recursions: the sentence order (longest first), each
    sorted sentence's first token and length, and per position ``t`` how many sorted
    sentences are longer than ``t`` (a prefix, since they are sorted)."""
    first_tok = np.empty(len(lengths), dtype=np.int64)
    first_tok[0] = 0
    np.cumsum(lengths[:-1], out=first_tok[1:])
    order = np.argsort(-lengths, kind="stable")
    len_sorted = lengths[order]
    active = np.searchsorted(-len_sorted, -np.arange(int(len_sorted[0])), side="left")
    return order, first_tok[order], len_sorted, active


def _logsumexp(x: np.ndarray, axis: int) -> np.ndarray:
    """``log Σ exp(x)`` along ``axis`` (removed), shifted by the maximum; ``-inf`` where
    every term is ``-inf``."""
    m = x.max(axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        out = np.log(np.exp(x - m).sum(axis=axis, keepdims=True)) + m
    return np.squeeze(out, axis=axis)


def _phi_score(posteriors: np.ndarray) -> np.ndarray:
    """``1 - P(O)`` per token, summed over the PHI classes (exact for small values, where
    ``1 - P(O)`` would round to 0) and clipped to [0, 1]."""
    return np.clip(posteriors[:, 1:].sum(1), 0.0, 1.0)

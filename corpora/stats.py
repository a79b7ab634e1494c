"""Corpus statistics: the paper's distribution tables for any corpus.

Sibanda & Uzuner (2006) describe each corpus by per-category word counts: Table 1 (words
per PHI category and non-PHI), Table 6 (of those, words ambiguous between PHI and non-PHI)
and Table 10 (words not found in a dictionary).  :func:`distribution_table` computes all
three from :attr:`Document.tokens` -- token counts by gold label and by the ``ambiguous``
/ ``not_in_dictionary`` flags the variants set -- so the same numbers come out for the
embedded corpus, PhysioNet or a user's data.  Only counts are reported, never PHI text.

Given the paper's own columns (``paper``, from :mod:`bench.reproduce.paper_figures`; this layer does
not import it), :func:`stats_markdown` prints them beside ours, with each class's share,
because the corpora differ in size: what should match is the proportions -- how much of
each class is ambiguous or missing from the dictionaries, and what share of the ambiguous
words is PHI (22 % in Table 6).

:func:`site_list_coverage` adds one more count where the dictionaries hold a site's own
lists (:data:`corpora.dictionaries.SITE_LISTS`, e.g. deid-1.1's clinician names): how many
clinician-name occurrences of the corpus those lists already contain -- the share a rule
system finds by look-up alone on its own hospital's notes, and loses at another hospital.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from corpora.dictionaries import SITE_LISTS, Dictionaries, normalize
from corpora.model import (
    FLAG_AMBIGUOUS,
    FLAG_NOT_IN_DICTIONARY,
    LABELS,
    OUTSIDE,
    PEOPLE_LOCATIONS_ORGANIZATIONS,
    Corpus,
    Document,
    Token,
)

NON_PHI = "Non-PHI"
PHI_TOTAL = "PHI (all)"
TOTAL = "Total"
COLUMNS = ("tokens", "share", "ambiguous", "not_in_dictionary")


def distribution_table(corpus: Corpus) -> pd.DataFrame:
    """Token counts per class: total, share of all tokens, ambiguous, not in a dictionary.

    Rows: ``Non-PHI``, each PHI category of :data:`LABELS` (in order), ``PHI (all)`` and
    ``Total``; the category rows sum to ``PHI (all)`` and ``Non-PHI`` + ``PHI (all)`` is
    ``Total``.
    """
    total: Counter[str] = Counter()
    ambiguous: Counter[str] = Counter()
    missing: Counter[str] = Counter()
    for doc in corpus:
        for tok in doc.tokens:
            total[tok.label] += 1
            if tok.flags:
                if FLAG_AMBIGUOUS in tok.flags:
                    ambiguous[tok.label] += 1
                if FLAG_NOT_IN_DICTIONARY in tok.flags:
                    missing[tok.label] += 1
    rows = [NON_PHI, *LABELS]
    keys = {NON_PHI: OUTSIDE, **{label: label for label in LABELS}}
    data = {r: [total[keys[r]], 0.0, ambiguous[keys[r]], missing[keys[r]]] for r in rows}
    phi = [sum(data[label][i] for label in LABELS) for i in range(4)]
    data[PHI_TOTAL] = phi
    data[TOTAL] = [data[NON_PHI][i] + phi[i] for i in range(4)]
    frame = pd.DataFrame.from_dict(data, orient="index", columns=list(COLUMNS))
    n = max(int(frame.loc[TOTAL, "tokens"]), 1)
    frame["share"] = frame["tokens"] / n
    for col in ("tokens", "ambiguous", "not_in_dictionary"):
        frame[col] = frame[col].astype(int)
    frame.index.name = "class"
    return frame


#: Keys of the ``paper`` columns :func:`stats_markdown` prints: class (a row of
#: :func:`distribution_table`; ``PHI (all)`` and ``Total`` are summed) -> words.
PAPER_COLUMNS = (
    "table1_reidentified",
    "table1_authentic",
    "table6_total",
    "table6_ambiguous",
    "table10_total",
    "table10_not_in_dictionary",
)


def _percent(part: float, whole: float) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def _paper_column(paper: Mapping[str, Mapping[str, int]], key: str) -> dict[str, int | None]:
    """One paper column over our rows; classes the paper does not have are ``None``."""
    column = paper[key]
    out: dict[str, int | None] = {NON_PHI: column.get(NON_PHI)}
    out.update({label: column.get(label) for label in LABELS})
    phi = [column[label] for label in LABELS if label in column]
    out[PHI_TOTAL] = sum(phi)
    out[TOTAL] = sum(phi) + column.get(NON_PHI, 0)
    return out


def _cell(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


def _subset_table(
    frame: pd.DataFrame,
    column: str,
    title: str,
    paper_total: dict[str, int | None] | None,
    paper_subset: dict[str, int | None] | None,
) -> list[str]:
    """A Markdown table: per class, tokens and the subset (count and share of the class),
    ours and, if given, the paper's."""
    head = ["class", "tokens", title, "share of class"]
    if paper_total is not None and paper_subset is not None:
        head += ["paper: words", f"paper: {title}", "paper: share of class"]
    lines = [
        "| " + " | ".join(head) + " |",
        "|" + "|".join([":---"] + ["---:"] * (len(head) - 1)) + "|",
    ]
    for row in frame.index:
        n, k = int(frame.loc[row, "tokens"]), int(frame.loc[row, column])
        cells = [row, f"{n:,}", f"{k:,}", _percent(k, n)]
        if paper_total is not None and paper_subset is not None:
            pn, pk = paper_total.get(row), paper_subset.get(row)
            share = _percent(pk, pn) if pn is not None and pk is not None else "-"
            cells += [_cell(pn), _cell(pk), share]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def table6_markdown(
    frame: pd.DataFrame, columns: Mapping[str, Mapping[str, int | None]] | None = None
) -> list[str]:
    """Table 6's columns for a corpus's :func:`distribution_table`: per class, tokens, of them
    ambiguous, and the share -- beside the paper's words, ambiguous words and share when
    ``columns`` holds them (:func:`stats_markdown`'s ``paper`` columns)."""
    columns = columns or {}
    amb, amb_phi = int(frame.loc[TOTAL, "ambiguous"]), int(frame.loc[PHI_TOTAL, "ambiguous"])
    summary = f"{amb:,} tokens are uses of ambiguous words, {_percent(amb_phi, amb)} of them PHI"
    if columns:
        p_amb = columns["table6_ambiguous"][TOTAL] or 0
        p_phi = columns["table6_ambiguous"][PHI_TOTAL] or 0
        summary += f" (paper: {p_amb:,} words, {_percent(p_phi, p_amb)} PHI)"
    return [
        summary + ".",
        "",
        *_subset_table(
            frame,
            "ambiguous",
            "ambiguous",
            columns.get("table6_total"),
            columns.get("table6_ambiguous"),
        ),
        "",
    ]


def paper_columns(paper: Mapping[str, Mapping[str, int]]) -> dict[str, dict[str, int | None]]:
    """The paper's word counts as the columns of the tables here (:data:`PAPER_COLUMNS`)."""
    return {key: _paper_column(paper, key) for key in PAPER_COLUMNS}


def _list_form(word: str) -> str:
    """A token as list entries are written: lower case, no final period or possessive."""
    form = normalize(word)
    if form.endswith(("'s", "\u2019s")) and len(form) > 3:
        form = form[:-2]
    return form[:-1] if form.endswith(".") and len(form) > 1 else form


def site_list_coverage(
    corpus: Corpus, dicts: Dictionaries, category: str = "DOCTOR"
) -> tuple[int, int]:
    """(covered, total): gold ``category`` phrases of ``corpus``, and how many of them have a
    word in the site lists of ``dicts`` (:data:`~corpora.dictionaries.SITE_LISTS`).

    A phrase counts once, however many of its words are listed; words are compared as the
    lists write them (lower case, without a final period or "'s").
    """
    listed = dicts.union(SITE_LISTS)
    covered = total = 0
    for doc in corpus:
        spans = [s for s in doc.spans if s.category == category]
        if not spans:
            continue
        toks = doc.tokens
        starts = [t.start for t in toks]
        ends = [t.end for t in toks]
        for span in spans:
            total += 1
            words = toks[bisect_right(ends, span.start) : bisect_left(starts, span.end)]
            if any(_list_form(t.text) in listed for t in words):
                covered += 1
    return covered, total


def stats_markdown(
    corpus: Corpus,
    paper: Mapping[str, Mapping[str, int]] | None = None,
    dicts: Dictionaries | None = None,
) -> str:
    """Markdown with the paper's Tables 1, 6 and 10 for ``corpus`` (counts only), beside
    the paper's own figures when ``paper`` holds the :data:`PAPER_COLUMNS`, and the
    clinician names the site lists of ``dicts`` hold when it has any."""
    frame = distribution_table(corpus)
    n_docs = len(corpus)
    kinds = Counter(str(d.metadata.get("kind", "note")) for d in corpus)
    columns = paper_columns(paper) if paper else {}
    lines = [
        f"# Corpus `{corpus.name}`",
        "",
        f"{n_docs} documents ({', '.join(f'{v} {k}' for k, v in sorted(kinds.items()))}), "
        f"{int(frame.loc['Total', 'tokens'])} tokens, "
        f"{frame.loc[PHI_TOTAL, 'share']:.1%} of them PHI.  Counts are tokens"
        + ("; the paper's are words (Sibanda & Uzuner 2006)." if paper else "."),
        "",
        "## Table 1 -- distribution of PHI (tokens)",
        "",
    ]
    head = ["class", "tokens", "share"]
    if columns:
        head += ["paper: re-identified", "share", "paper: authentic", "share"]
    lines += [
        "| " + " | ".join(head) + " |",
        "|" + "|".join([":---"] + ["---:"] * (len(head) - 1)) + "|",
    ]
    total = int(frame.loc[TOTAL, "tokens"])
    for row in frame.index:
        n = int(frame.loc[row, "tokens"])
        cells = [row, f"{n:,}", _percent(n, total)]
        for key in ("table1_reidentified", "table1_authentic") if columns else ():
            value, whole = columns[key].get(row), columns[key][TOTAL]
            cells += [_cell(value), "-" if value is None else _percent(value, whole or 0)]
        lines.append("| " + " | ".join(cells) + " |")
    # the single-cue table needs a corpus with ambiguous words and a note per fold
    cues = int(frame.loc[TOTAL, "ambiguous"]) > 0 and len(corpus) >= CUE_FOLDS
    lines += [
        "",
        "## Table 6 -- ambiguous tokens (PHI and non-PHI uses of ambiguous words)",
        "",
        *table6_markdown(frame, columns),
        *(ambiguity_markdown(corpus) if cues else []),
        "## Table 10 -- tokens not found in the system dictionaries",
        "",
        *_subset_table(
            frame,
            "not_in_dictionary",
            "not in dictionary",
            columns.get("table10_total"),
            columns.get("table10_not_in_dictionary"),
        ),
        "",
    ]
    if dicts is not None and dicts.union(SITE_LISTS):
        covered, phrases = site_list_coverage(corpus, dicts)
        share = f"{covered / phrases:.0%}" if phrases else "n/a"
        lines += [
            "## Clinician names in the site lists",
            "",
            f"{covered} of {phrases} clinician-name occurrences ({share}) have a word in the "
            f"dictionaries' site lists ({', '.join(SITE_LISTS)}): what a rule system finds by "
            "look-up alone on this corpus, and would not at another hospital.",
            "",
        ]
    return "\n".join(lines)


# --------------------------------------------------------------------------- ambiguity


def _table9_tokens(corpus: Corpus) -> list[list[Token]]:
    """Per document, the tokens Table 9 scores: uses of ambiguous words whose gold label is
    non-PHI or a person, place or organization (:data:`bench.score.metrics.SUBSETS`'s
    ``ambiguous``; ambiguous dates left out, as the table's title says)."""
    keep = {OUTSIDE, *PEOPLE_LOCATIONS_ORGANIZATIONS}
    return [
        [t for t in doc.tokens if FLAG_AMBIGUOUS in t.flags and t.label in keep] for doc in corpus
    ]


@dataclass(frozen=True)
class AmbiguityShares:
    """How much of a corpus Table 9's subset of ambiguous tokens covers (token counts)."""

    phi_tokens: int
    non_phi_tokens: int
    ambiguous_phi: int
    ambiguous_non_phi: int

    @property
    def of_phi(self) -> float:
        """Share of all PHI tokens that are ambiguous people, places or organizations."""
        return self.ambiguous_phi / self.phi_tokens if self.phi_tokens else float("nan")

    @property
    def of_non_phi(self) -> float:
        """Share of all non-PHI tokens that are uses of ambiguous words."""
        return self.ambiguous_non_phi / self.non_phi_tokens if self.non_phi_tokens else float("nan")

    @property
    def phi_share(self) -> float:
        """Share of the subset that is PHI (Table 6: 22 %, dates included)."""
        total = self.ambiguous_phi + self.ambiguous_non_phi
        return self.ambiguous_phi / total if total else float("nan")


def ambiguity_shares(corpus: Corpus) -> AmbiguityShares:
    """Table 9's subset against the whole corpus: the figures issue 27 asks the embedded
    ambiguous corpus to reach (its PHI at least 25 % of all PHI, its non-PHI at least 12 %
    of all non-PHI, 15-30 % of it PHI)."""
    labels = Counter(t.label == OUTSIDE for doc in corpus for t in doc.tokens)
    subset = Counter(t.label == OUTSIDE for toks in _table9_tokens(corpus) for t in toks)
    return AmbiguityShares(labels[False], labels[True], subset[False], subset[True])


def written_out_uses(corpus: Corpus) -> tuple[int, int]:
    """(non-PHI uses of ambiguous words that are written-out shorthand, distinct words used
    both as PHI and as ordinary words) of an ambiguous corpus."""
    from corpora.ambiguity import SUBSTITUTED_KEY, word_of

    written = 0
    words: set[str] = set()
    for doc in corpus:
        stretches = doc.metadata.get(SUBSTITUTED_KEY, ())
        for t in doc.tokens:
            if FLAG_AMBIGUOUS not in t.flags:
                continue
            words.add(word_of(t.text))
            if t.label == OUTSIDE and any(a <= t.start < b for a, b in stretches):
                written += 1
    return written, len(words)


#: The single cues :func:`cue_accuracy` tries, by name.
CUES = ("base rate", "the word itself", "previous token", "capitalisation")


def _capitalisation(text: str) -> str:
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return "none"
    if len(letters) > 1 and all(c.isupper() for c in letters):
        return "upper"
    return "capitalised" if letters[0].isupper() else "lower"


def _cue_values(doc: Document, tokens: list[Token]) -> list[tuple[str, str, str, bool]]:
    """(word, previous token, capitalisation, is PHI) of each token."""
    from corpora.ambiguity import word_of

    everything = doc.tokens
    return [
        (
            word_of(t.text),
            everything[t.index - 1].text.lower() if t.index else "<start>",
            _capitalisation(t.text),
            t.label != OUTSIDE,
        )
        for t in tokens
    ]


def cue_accuracy(corpus: Corpus, folds: int = 5, seed: int = 0) -> dict[str, float]:
    """Held-out accuracy of telling the PHI uses of ambiguous words from their ordinary uses
    (Table 9's tokens) by one cue alone, per cue of :data:`CUES`.

    Each cue predicts, for a value (the word, the token before it, its capitalisation), the
    label most tokens with that value have in the training documents, and the training
    majority for a value it never saw; "base rate" always predicts the majority.  Folds are
    by document (:func:`corpora.folds.document_folds`), accuracy pooled over the test folds.
    What a cue adds over the base rate is how easy the corpus makes the ambiguity.
    """
    from corpora.folds import document_folds

    rows = [
        _cue_values(doc, toks) for doc, toks in zip(corpus, _table9_tokens(corpus), strict=True)
    ]
    right = Counter[str]()
    total = 0
    for train, test in document_folds(len(rows), folds, seed):
        seen = [r for i in train for r in rows[i]]
        majority = sum(r[3] for r in seen) * 2 > len(seen)
        for k, cue in enumerate(CUES):
            votes: dict[str, Counter[bool]] = {}
            for r in seen:
                votes.setdefault(r[k - 1] if k else "", Counter())[r[3]] += 1
            for r in (r for i in test for r in rows[i]):
                counts = votes.get(r[k - 1] if k else "")
                guess = counts.most_common(1)[0][0] if counts and k else majority
                right[cue] += guess == r[3]
        total += sum(len(rows[i]) for i in test)
    return {cue: right[cue] / total if total else float("nan") for cue in CUES}


#: Folds of :func:`cue_accuracy` in the corpus statistics.
CUE_FOLDS = 5


def ambiguity_markdown(corpus: Corpus, folds: int = CUE_FOLDS, seed: int = 0) -> list[str]:
    """Markdown lines: the share of the corpus Table 9's subset covers, and how well one
    cue alone tells its PHI from its ordinary uses (:func:`cue_accuracy`)."""
    shares = ambiguity_shares(corpus)
    accuracy = cue_accuracy(corpus, folds, seed)
    rows = [f"| {cue} | {100 * accuracy[cue]:.1f}% |" for cue in CUES]
    written, words = written_out_uses(corpus)
    return [
        "## Table 9's subset: ambiguous people, places and organizations, and their ordinary uses",
        "",
        f"{shares.ambiguous_phi:,} PHI tokens ({_percent(shares.ambiguous_phi, shares.phi_tokens)}"
        f" of all PHI tokens) and {shares.ambiguous_non_phi:,} non-PHI tokens "
        f"({_percent(shares.ambiguous_non_phi, shares.non_phi_tokens)} of all non-PHI tokens); "
        f"{100 * shares.phi_share:.1f}% of the subset is PHI. {words:,} words are used both "
        f"ways; {written:,} of the non-PHI uses are shorthand the notes write out in full "
        "(`corpora/data/ambiguous_substitutions.txt`), the rest the notes' own words.",
        "",
        "What one cue alone predicts on these tokens (held-out accuracy, "
        f"{folds}-fold by document, seed {seed}; each cue's value -> its majority label in the "
        "training documents):",
        "",
        "| cue | accuracy |",
        "|:---|---:|",
        *rows,
        "",
    ]

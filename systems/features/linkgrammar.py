"""Syntactic bigrams from the Link Grammar parser (optional Stat De-id feature class).

Lexical bigrams miss long-range cues: in "John, who had a hernia, was admitted" the name is
far from "was admitted".  Stat De-id (Uzuner et al. 2008; Stat De-id re-implementation
report §4.3.1; Tafvizi 2011 §3.3, §4.1.5) therefore adds *syntactic bigrams*: for each
word, the link to its nearest left (right) neighbour in the Link Grammar linkage and that
neighbour's own nearest left (right) link -- two hops of dependency context.

We call the CMU Link Grammar parser through its Python bindings (Debian packages
``link-grammar`` and ``python3-link-grammar``; on Debian the bindings live in
``/usr/lib/python3/dist-packages`` and are picked up from there for a matching Python).
Like Tafvizi (§4.1.5) we take the first linkage and skip sentences longer than 50 words;
parsing is the slowest step, so linkages are cached on disk per document
(:func:`infra.cache.cached`).  Where the bindings are missing, :func:`unavailable_reason`
says why and the ``svm`` system leaves this class out with that reason logged.

Feature names: ``sb-1=<label>:<word>`` and ``sb-2=<label>:<word>|<label>:<word>`` for the
left side, ``sb+1`` / ``sb+2`` for the right side; words are lower-cased with Link
Grammar's ``.v``/``.n`` subscripts kept (as in Tafvizi's Figure 3-1 example).
"""

from __future__ import annotations

import importlib
import os
import sys
import threading
from typing import TYPE_CHECKING, Any

from infra.memo import memoize
from systems.features.base import FeatureClass, TokenFeatures

if TYPE_CHECKING:
    from corpora.model import Document

#: Where Debian installs the bindings (tried when ``import linkgrammar`` fails).
DEBIAN_DIST_PACKAGES = "/usr/lib/python3/dist-packages"
#: Tafvizi (2011, §4.1.5) does not parse sentences longer than this.
MAX_SENTENCE_WORDS = 50

_lock = threading.Lock()


@memoize("linkgrammar.module", max_entries=1)
def _module() -> tuple[Any, str | None]:
    """(linkgrammar module or None, reason it is unavailable)."""
    if os.environ.get("DEID_BENCH_NO_LINKGRAMMAR"):
        return None, "disabled by DEID_BENCH_NO_LINKGRAMMAR"
    try:
        return importlib.import_module("linkgrammar"), None
    except ImportError:
        pass
    if os.path.isdir(os.path.join(DEBIAN_DIST_PACKAGES, "linkgrammar")):
        sys.path.append(DEBIAN_DIST_PACKAGES)
        try:
            return importlib.import_module("linkgrammar"), None
        except ImportError as exc:
            return None, (
                f"the Link Grammar bindings in {DEBIAN_DIST_PACKAGES} do not load in this "
                f"Python ({exc})"
            )
        finally:
            sys.path.remove(DEBIAN_DIST_PACKAGES)
    return None, (
        "the Link Grammar parser's Python bindings are not installed (Debian: "
        "`apt-get install link-grammar python3-link-grammar`)"
    )


def unavailable_reason() -> str | None:
    """None when the parser can be used, else a one-line reason."""
    return _module()[1]


@memoize("linkgrammar.parser", max_entries=1)
def _parser() -> tuple[Any, Any]:
    lg = _module()[0]
    if lg is None:
        raise RuntimeError(f"syntactic_bigrams unavailable: {unavailable_reason()}")
    dictionary = lg.Dictionary("en")
    options = lg.ParseOptions(
        verbosity=0, linkage_limit=1, max_null_count=MAX_SENTENCE_WORDS, max_parse_time=2
    )
    return dictionary, options


def parse_sentence(words: list[str]) -> list[tuple[int, int, str, str, str]]:
    """Links of the first linkage of ``words`` joined by spaces.

    Returns ``(left token index, right token index, link label, left word, right word)``;
    walls and words the parser split or skipped are mapped back to the input tokens by
    byte offset, links to the walls are dropped.
    """
    if not words or len(words) > MAX_SENTENCE_WORDS:
        return []
    lg = _module()[0]
    dictionary, options = _parser()
    text = " ".join(words)
    starts: list[int] = []
    pos = 0
    for w in words:
        starts.append(len(text[:pos].encode("utf-8")))
        pos += len(w) + 1
    with _lock:
        try:
            linkages = lg.Sentence(text, dictionary, options).parse()
            linkage = next(iter(linkages), None)
        except Exception:  # the parser gives up on some fragments: no links for them
            return []
        if linkage is None:
            return []
        n_words = linkage.num_of_words()
        token_of: list[int | None] = []
        for w in range(n_words):
            start = linkage.word_byte_start(w)
            token = None
            if not linkage.word(w).endswith("-WALL"):
                for t in range(len(starts) - 1, -1, -1):
                    if starts[t] <= start:
                        token = t
                        break
            token_of.append(token)
        links = []
        for link in linkage.links():
            lw, rw = link.left_word, link.right_word
            a = _word_index(linkage, link, left=True)
            b = _word_index(linkage, link, left=False)
            ta, tb = token_of[a], token_of[b]
            if ta is None or tb is None or ta == tb or "WALL" in lw or "WALL" in rw:
                continue
            links.append((ta, tb, link.left_label, lw.lower(), rw.lower()))
    return links


def _word_index(linkage: Any, link: Any, *, left: bool) -> int:
    from linkgrammar import clinkgrammar as clg

    fn = clg.linkage_get_link_lword if left else clg.linkage_get_link_rword
    return int(fn(linkage._obj, link.index))


class SyntacticBigrams(FeatureClass):
    """Two-hop Link Grammar dependencies on each side of the TW (report §4.3.1)."""

    name = "syntactic_bigrams"
    version = 1

    def links(self, document: Document) -> list[list[tuple[int, int, str, str, str]]]:
        """Per sentence, the links of its first linkage (cached on disk by fingerprint)."""
        from infra.cache import cached, make_key

        lg = _module()[0]
        if lg is None:
            raise RuntimeError(f"syntactic_bigrams unavailable: {unavailable_reason()}")
        version = getattr(lg, "__version__", "?")

        def compute() -> list[list[tuple[int, int, str, str, str]]]:
            out = []
            for sent in _sentences(document):
                out.append(parse_sentence([document.tokens[i].text for i in sent]))
            return out

        return cached("linkgrammar", make_key(document.fingerprint, version, self.version), compute)

    def extract(self, document: Document) -> list[TokenFeatures]:
        toks = document.tokens
        out: list[TokenFeatures] = [{} for _ in toks]
        for sent, links in zip(_sentences(document), self.links(document), strict=True):
            if not sent:
                continue
            base = sent[0]
            left: dict[int, tuple[int, str, str]] = {}  # token -> nearest left (idx, lab, w)
            right: dict[int, tuple[int, str, str]] = {}
            for a, b, label, lw, rw in links:
                # for b, the link points left to a; for a, it points right to b
                if b not in left or a > left[b][0]:
                    left[b] = (a, label, lw)
                if a not in right or b < right[a][0]:
                    right[a] = (b, label, rw)
            for i in range(len(sent)):
                row = out[base + i]
                for side, table in (("-", left), ("+", right)):
                    hop = table.get(i)
                    if hop is None:
                        row[f"sb{side}1=NONE"] = 1.0
                        continue
                    j, label, word = hop
                    row[f"sb{side}1={label}:{word}"] = 1.0
                    hop2 = table.get(j)
                    second = f"{hop2[1]}:{hop2[2]}" if hop2 else "NONE"
                    row[f"sb{side}2={label}:{word}|{second}"] = 1.0
        return out


def _sentences(document: Document) -> list[list[int]]:
    """Token indices grouped by sentence (consecutive)."""
    groups: list[list[int]] = []
    current = None
    for tok in document.tokens:
        if tok.sentence != current:
            groups.append([])
            current = tok.sentence
        groups[-1].append(tok.index)
    return groups

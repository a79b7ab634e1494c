"""The local-context feature set of Stat De-id, as named, switchable feature classes.

Sibanda & Uzuner (2006, §5) classify each target word (TW) from its immediate context:

* the TW, the word before and the word after, all lemmatized  -> ``word``, ``neighbours``
* the (lemmatized) bigram before and after the TW             -> ``lexical_bigrams``
* the POS of the TW, the previous and the next word            -> ``pos``
* capitalization, length, "-" or "/" inside the TW             -> ``orthography``
* the MeSH ID of the noun phrase containing the TW             -> ``medical_vocabulary``
* presence of TW/previous/next in name, location, hospital and month dictionaries
                                                               -> ``dictionaries``
* the heading of the section the TW sits in                    -> ``section``

The Stat De-id re-implementation report (§4.2-4.4) groups the same information into the
feature classes of its ablation figures (word itself, lexical bigrams, syntactic bigrams,
orthography, part of speech, section heading); the split above keeps each of the 2006
paper's features in exactly one class so that "one class on / one class off" (report
Figs 2-5) and the information-gain ranking (2006 paper §6.4) line up with the paper's list.

Everything except the medical-vocabulary class is a composition of the shared primitives in
:mod:`systems.features.common` -- no feature is written twice, which is what lets the Mega
SVM (Tafvizi 2011, §1.2) take the union of several systems' feature classes.

Substitutes for unavailable resources
-------------------------------------
* **MeSH** (part of the UMLS, licence-restricted, not shippable) is replaced by
  :class:`MedicalVocabulary`: for the noun phrase containing the TW (a maximal run of
  adjective/noun tags), the WordNet 3.0 *lexicographer class* of its head noun
  (``noun.body``, ``noun.state``, ``noun.substance``, ...) -- a coarse semantic category
  in the spirit of MeSH's top-level trees -- plus a flag when a word of the phrase is in the
  ``medical_terms`` / ``medical_phrases`` dictionaries (empty unless such lists are
  installed).  The report (§4.4.2) notes that nouns with a MeSH category are less likely to
  be PHI; the WordNet class carries the same kind of signal.
* **POS tags** come from NLTK's averaged perceptron instead of the OpenNLP tagger (report
  §4.3.2) or Brill's tagger; **lemmas** from WordNet's morphy.
* **Syntactic bigrams** (Link Grammar, Uzuner et al. 2008) live in
  :mod:`systems.features.linkgrammar` and are optional: the 2006 paper's feature list does
  not contain them and the parser is a system package that may be missing.
* **Word form** (``shape``, ``char_ngrams``, :data:`WORD_FORM_FEATURES`) is optional too:
  not the paper's, but what lets a model recognise names it has never seen.
* The 2006 paper counts 12 dictionary features (4 dictionaries x 3 positions); we keep first
  and last names as separate dictionaries, giving 15.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from corpora import nlp
from corpora.dictionaries import normalize, system_dictionaries
from infra.memo import memoize
from infra.registry import Registry
from systems.features.base import FeatureClass, TokenFeatures
from systems.features.common import (
    BigramContext,
    CharNgrams,
    DictionaryWindow,
    Orthography,
    PosWindow,
    Section,
    ShapeWindow,
    WordWindow,
)

if TYPE_CHECKING:
    from corpora.model import Document

#: Penn tags that may sit inside a (base) noun phrase for the MeSH substitute.
_NP_TAGS = frozenset({"NN", "NNS", "NNP", "NNPS", "JJ", "JJR", "JJS"})
_NOUN_TAGS = frozenset({"NN", "NNS", "NNP", "NNPS"})


@memoize("statdeid.wordnet_classes", max_entries=100_000)
def wordnet_class(lemma: str) -> str | None:
    """WordNet lexicographer file of the first noun sense of ``lemma`` (None if unknown).

    WordNet orders senses by frequency, so the first sense is the usual reading.
    """
    if not lemma.isalpha() or len(lemma) < 2:
        return None
    nlp.require("wordnet")
    from nltk.corpus import wordnet

    synsets = wordnet.synsets(lemma, pos="n")
    return synsets[0].lexname() if synsets else None


class MedicalVocabulary(FeatureClass):
    """Semantic class of the noun phrase containing the TW (our stand-in for its MeSH ID).

    Sibanda & Uzuner (2006, §5) give every token the MeSH ID of its noun phrase; the report
    (§4.4.2) keeps one indicator per MeSH category.  MeSH is not shippable, so we emit
    ``np_class=<WordNet lexicographer class of the NP head>`` and ``np_med`` when a word of
    the phrase is in the ``medical_terms`` or ``medical_phrases`` lists.  Tokens outside any
    noun phrase get ``np_class=NONE``.
    """

    name = "medical_vocabulary"
    version = 1

    def __init__(self, dictionaries: str | None = None) -> None:
        self.dictionaries = dictionaries

    def extract(self, document: Document) -> list[TokenFeatures]:
        toks = document.tokens
        tags = nlp.pos_tags(document)
        lemmas = nlp.lemmas(document)
        d = system_dictionaries(self.dictionaries)
        medical = d.get("medical_terms") | d.get("medical_phrases")
        out: list[TokenFeatures] = [{"np_class=NONE": 1.0} for _ in toks]
        n = len(toks)
        i = 0
        while i < n:
            if tags[i] not in _NP_TAGS:
                i += 1
                continue
            j = i
            sent = toks[i].sentence
            while j + 1 < n and tags[j + 1] in _NP_TAGS and toks[j + 1].sentence == sent:
                j += 1
            heads = [k for k in range(i, j + 1) if tags[k] in _NOUN_TAGS]
            if heads:
                head = heads[-1]
                row: TokenFeatures = {f"np_class={wordnet_class(lemmas[head]) or 'UNKNOWN'}": 1.0}
                if medical and (
                    any(lemmas[k] in medical for k in range(i, j + 1))
                    or normalize(" ".join(t.text for t in toks[i : j + 1])) in medical
                ):
                    row["np_med"] = 1.0
                for k in range(i, j + 1):
                    out[k] = row
            i = j + 1
        return out


FeatureFactory = Callable[..., FeatureClass]

#: Every Stat De-id feature class by name -> factory taking ``dictionaries`` (a dictionary
#: directory or None): the 2006 paper's classes (§5) in the paper's order, then the optional
#: ones.  The order is the order of the feature columns.
ALL_FEATURES: Registry[FeatureFactory] = Registry("feature class", ordered=True)
_feature = ALL_FEATURES.register


@_feature("word", "the target word, lemmatized")
def _word(dictionaries: str | None = None) -> FeatureClass:
    return WordWindow(offsets=(0,), lemmatized=True, prefix="lw")


@_feature("neighbours", "the words before and after, lemmatized")
def _neighbours(dictionaries: str | None = None) -> FeatureClass:
    return WordWindow(offsets=(-1, 1), lemmatized=True, prefix="lw")


@_feature("lexical_bigrams", "the lemmatized bigrams before and after")
def _lexical_bigrams(dictionaries: str | None = None) -> FeatureClass:
    return BigramContext(lemmatized=True)


@_feature("pos", "part of speech of the target, previous and next word")
def _pos(dictionaries: str | None = None) -> FeatureClass:
    return PosWindow(offsets=(-1, 0, 1))


@_feature("orthography", "capitalization, length, '-' or '/' inside the word")
def _orthography(dictionaries: str | None = None) -> FeatureClass:
    return Orthography()


@_feature(
    "medical_vocabulary", "WordNet class of the word's noun phrase (stands in for its MeSH ID)"
)
def _medical_vocabulary(dictionaries: str | None = None) -> FeatureClass:
    return MedicalVocabulary(dictionaries=dictionaries)


@_feature("dictionaries", "target, previous and next word in name, place, hospital, month lists")
def _dictionaries(dictionaries: str | None = None) -> FeatureClass:
    return DictionaryWindow(offsets=(-1, 0, 1), dictionaries=dictionaries)


@_feature("section", "the heading of the section the word sits in")
def _section(dictionaries: str | None = None) -> FeatureClass:
    return Section()


#: The 2006 paper's feature classes (§5): those registered above, in the paper's order.
#: Ablations and Mega enumerate these.
STATDEID_FEATURES: tuple[str, ...] = tuple(ALL_FEATURES)


@_feature(
    "syntactic_bigrams", "Link Grammar syntactic bigrams (Uzuner et al. 2008; needs the parser)"
)
def _syntactic_bigrams(dictionaries: str | None = None) -> FeatureClass:
    from systems.features.linkgrammar import SyntacticBigrams

    return SyntacticBigrams()


@_feature("shape", "word shape of the target, previous and next word (Xxxx, dd/dd)")
def _shape(dictionaries: str | None = None) -> FeatureClass:
    return ShapeWindow(offsets=(-1, 0, 1))


@_feature("char_ngrams", "character 2- to 4-grams of the target")
def _char_ngrams(dictionaries: str | None = None) -> FeatureClass:
    return CharNgrams(min_n=2, max_n=4)


#: Word-form classes: what a word looks like rather than which word it is.  Not in the 2006
#: list (its orthography is capitalization, length and "-"/"/" only); Stanford NER's word
#: shapes and character n-grams (Finkel et al. 2005), the feature classes Mega's ``stanford``
#: source uses (there with n-grams up to 6).  A name never seen in training has no ``word``
#: or ``dictionaries`` feature to fire, but its shape and affixes do.  Trained on the 87
#: evaluation patients of PhysioNet deid and tested on the 22 tuning ones, they raise the
#: binary SVM's precision at 90 % recall from 27.3 % to 58.5 % (report *Operating points*
#: of ``python -m bench run --systems svm,svm-wf=svm --param svm.C=0.1 --param
#: svm.class_weight=balanced --param svm-wf.C=0.1 --param svm-wf.class_weight=balanced
#: --param svm-wf.word_form=True --train-corpus
#: evaluation:physionet:../shared/corpora/physionet-deid --corpora
#: tuning:physionet:../shared/corpora/physionet-deid --dictionaries
#: ../shared/dictionaries/deid-1.1 --seed 0``).
WORD_FORM_FEATURES: tuple[str, ...] = ("shape", "char_ngrams")


#: Optional classes, not in the 2006 list: Uzuner et al. (2008)'s Link Grammar syntactic
#: bigrams (need a system package) and the word-form classes.
OPTIONAL_FEATURES: tuple[str, ...] = tuple(n for n in ALL_FEATURES if n not in STATDEID_FEATURES)


class FeatureUnavailable(RuntimeError):
    """A feature class cannot run here (e.g. its parser is not installed)."""


def unavailable_reason(name: str) -> str | None:
    """Why feature class ``name`` cannot be used on this machine, or None if it can."""
    if name == "syntactic_bigrams":
        from systems.features.linkgrammar import unavailable_reason as lg_reason

        return lg_reason()
    if name not in ALL_FEATURES:
        return f"unknown feature class {name!r}; known: {', '.join(ALL_FEATURES)}"
    return None


def build(
    names: tuple[str, ...] | list[str] | None = None, *, dictionaries: str | None = None
) -> list[tuple[str, FeatureClass]]:
    """Instantiate the named feature classes (default: the 2006 paper's set).

    ``names`` may use ``"all"`` for every class including the optional ones.  Unknown names
    raise ``ValueError``; an optional class that cannot run raises :class:`FeatureUnavailable`
    with the reason (callers that want to skip it check :func:`unavailable_reason` first).
    """
    if names is None:
        names = tuple(STATDEID_FEATURES)
    elif isinstance(names, str):
        names = (names,)
    expanded: list[str] = []
    for n in names:
        expanded.extend(ALL_FEATURES if n == "all" else [n])
    out: list[tuple[str, FeatureClass]] = []
    for n in dict.fromkeys(expanded):
        if n not in ALL_FEATURES:
            raise ValueError(f"unknown feature class {n!r}; known: {', '.join(ALL_FEATURES)}")
        reason = unavailable_reason(n)
        if reason is not None:
            raise FeatureUnavailable(f"feature class {n!r} unavailable: {reason}")
        out.append((n, ALL_FEATURES[n](dictionaries=dictionaries)))
    return out


def feature_template(feature: str) -> str:
    """The template (feature *type*) of an indicator: ``lw-1=the`` -> ``lw-1``.

    The 2006 paper's "26 features" (§6.4) are templates; information gain ranks them.
    """
    head, sep, _ = feature.partition("=")
    if not sep or head.startswith("dict"):  # binary indicators are their own template
        return feature
    return head

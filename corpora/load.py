"""Corpus specifications: the one place a command-line corpus name becomes a :class:`Corpus`.

Grammar (documented in the README)::

    SPEC    := EMBEDDED | VARIANT ":" SPEC | SUBSET ":" SPEC | KIND ":" PATH
    EMBEDDED:= authentic | surrogate | ambiguous | unseen     (the generated default corpus)
    VARIANT := authentic | surrogate | ambiguous | unseen | foreign   (a transform of SPEC)
    SUBSET  := tuning | evaluation                            (patients of SPEC, see below)
    KIND    := physionet | i2b2-2006 | i2b2-2014 | jsonl      (a reader)

so ``physionet:../shared/corpora/physionet-deid`` reads the PhysioNet notes and
``unseen:physionet:../shared/corpora/physionet-deid`` builds the paper's unseen-names variant
of them (Sibanda & Uzuner 2006, §6.3).  ``tuning:SPEC`` keeps the notes of the patients set
apart for hand-tuning rules and ``evaluation:SPEC`` the notes of all other patients
(:func:`corpora.folds.tuning_split`): rule-based systems are reported on ``evaluation:``.

Readers and variants register themselves, with a one-line description, in the registries
:data:`READERS` and :data:`VARIANTS` (:func:`reader`, :func:`variant`), so a new format is one
module in ``corpora/readers/`` and ``python -m bench list`` shows it.  A package outside this
repository adds a reader through the ``deid_bench.readers`` entry-point group
(``mine = "mypkg.module:read"``: the entry point's name is the KIND, the function's first
docstring line its description), as systems do through ``deid_bench.systems``
(``docs/extending.md``).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from corpora.model import Corpus, CorpusError, Document
from infra.registry import Registry

#: Patient subsets of a corpus: the tuning patients and everyone else.
SUBSET_NAMES = ("tuning", "evaluation")


@dataclass
class ReadResult:
    """What a reader returns: the documents, and the records ``--lenient`` skipped."""

    documents: list[Document]
    skipped: list[CorpusError] = field(default_factory=list)


class Reader(Protocol):
    def __call__(self, path: str, *, lenient: bool = False) -> ReadResult: ...


class Variant(Protocol):
    def __call__(self, corpus: Corpus, *, seed: int) -> Corpus: ...


#: The entry-point group through which installed packages add readers.
READER_ENTRY_POINT_GROUP = "deid_bench.readers"


def _first_line(obj: object) -> str:
    """A reader's description when it names none: the first line of its docstring."""
    return (getattr(obj, "__doc__", None) or "").strip().split("\n")[0]


#: Corpus readers by KIND (``KIND:PATH`` specs); every module of :mod:`corpora.readers`
#: registers one with :func:`reader`, and is imported on the first lookup, as is every
#: reader of the :data:`READER_ENTRY_POINT_GROUP` entry-point group.
READERS: Registry[Reader] = Registry(
    "corpus kind",
    package="corpora.readers",
    entry_point_group=READER_ENTRY_POINT_GROUP,
    describe=_first_line,
)
#: Corpus transforms by name (``VARIANT:SPEC`` specs and the embedded corpora), registered with
#: :func:`variant` by :mod:`corpora.variants`, in the papers' order (authentic first), then by
#: :mod:`corpora.foreign` (the test variant of names and places of other countries).
VARIANTS: Registry[Variant] = Registry(
    "corpus variant", package=("corpora.variants", "corpora.foreign"), ordered=True
)


def reader(kind: str, description: str) -> Callable[[Reader], Reader]:
    """Decorator registering a reader function for ``KIND:PATH`` specs, with the line
    ``python -m bench list`` shows for it."""
    return READERS.register(kind, description)


def variant(name: str, description: str) -> Callable[[Variant], Variant]:
    """Decorator registering a corpus transform ``Corpus -> Corpus``, with the line
    ``python -m bench list`` shows for it."""
    return VARIANTS.register(name, description)


def get_reader(kind: str) -> Reader:
    try:
        return READERS.get(kind)
    except KeyError:
        raise CorpusError(f"unknown corpus kind {kind!r}; known: {', '.join(READERS)}") from None


def get_variant(name: str) -> Variant:
    try:
        return VARIANTS.get(name)
    except KeyError:
        raise CorpusError(
            f"unknown corpus variant {name!r}; known: {', '.join(VARIANTS)}"
        ) from None


@dataclass
class LoadOptions:
    """Options every corpus spec is loaded with (from the CLI)."""

    seed: int = 0
    lenient: bool = False
    n_documents: int | None = None  # size of the embedded corpus (None = default)
    phi_rate: float = 1.0  # PHI share knob of the embedded corpus (1.0 = Table 1-like)
    category_weights: tuple[tuple[str, float], ...] = ()  # category mix overrides


def load_corpus(spec: str, options: LoadOptions | None = None) -> tuple[Corpus, list[CorpusError]]:
    """Resolve ``spec`` into a corpus; also return the records a lenient read skipped."""
    options = options or LoadOptions()
    head, _, rest = spec.partition(":")
    if not rest:
        if head not in VARIANTS:
            raise CorpusError(
                f"unknown corpus {spec!r}: use one of {', '.join(VARIANTS)} or KIND:PATH "
                f"with KIND in {', '.join(READERS)}"
            )
        from corpora.generator import default_corpus

        check_generator_options(options)
        try:
            base = default_corpus(
                seed=options.seed,
                n_documents=options.n_documents,
                phi_rate=options.phi_rate,
                category_weights=options.category_weights,
            )
        except ValueError as exc:  # a knob out of range, e.g. weights that overflow
            raise CorpusError(f"cannot generate the {spec} corpus: {exc}") from None
        corpus = get_variant(head)(base, seed=options.seed)
        return _renamed(corpus, spec), []
    if head in SUBSET_NAMES:
        base, skipped = load_corpus(rest, options)
        return _subset(base, head, spec), skipped
    if head in VARIANTS:
        base, skipped = load_corpus(rest, options)
        return _renamed(get_variant(head)(base, seed=options.seed), spec), skipped
    read = get_reader(head)
    if not os.path.lexists(rest):
        # the reader contract, held here for every reader (a plug-in's too): a missing path
        # is one line naming it, lenient or not
        raise CorpusError("missing file", file=rest)
    result = read(rest, lenient=options.lenient)
    if not result.documents:
        raise CorpusError("no documents could be read", file=rest)
    corpus = Corpus(name=spec, documents=tuple(result.documents), metadata={"kind": head})
    return corpus, result.skipped


def uses_generator(spec: str) -> bool:
    """Whether ``spec`` is made from the embedded corpus (``authentic``,
    ``foreign:unseen``...), the only corpus the generator's options size and shape."""
    head, _, rest = spec.partition(":")
    if not rest:
        return head in VARIANTS
    if head in SUBSET_NAMES or head in VARIANTS:
        return uses_generator(rest)
    return False


def _subset(corpus: Corpus, which: str, name: str) -> Corpus:
    """The tuning patients' notes of ``corpus``, or every other patient's."""
    from corpora.folds import tuning_split

    tuning, evaluation = tuning_split(corpus.documents)
    keep = tuning if which == "tuning" else evaluation
    if not keep:
        raise CorpusError(f"corpus {corpus.name!r} has no {which} patients")
    documents = tuple(corpus.documents[i] for i in keep)
    return Corpus(name=name, documents=documents, metadata={**corpus.metadata, "subset": which})


def check_generator_options(options: LoadOptions) -> None:
    """Reject generator knobs that cannot make a corpus (NaN and infinity included)."""
    if options.n_documents is not None and options.n_documents < 1:
        raise CorpusError(f"n_documents must be at least 1, not {options.n_documents}")
    if not (math.isfinite(options.phi_rate) and options.phi_rate > 0):
        raise CorpusError(f"phi_rate must be a positive finite number, not {options.phi_rate}")
    for category, weight in options.category_weights:
        if not (math.isfinite(weight) and weight >= 0):
            raise CorpusError(
                f"the weight of {category} must be a finite number >= 0, not {weight}"
            )


def _renamed(corpus: Corpus, name: str) -> Corpus:
    return Corpus(name=name, documents=corpus.documents, metadata=dict(corpus.metadata))

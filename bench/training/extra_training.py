"""Training notes that are never scored (``--extra-training CORPUS``).

A hospital trains its de-identifier on every annotated note it has, but a benchmark can only
report on notes its models never saw.  The PhysioNet deid corpus is split by patient into an
*evaluation* subset (the reported notes) and a *tuning* subset kept apart so that rules can
be adjusted on notes nobody reports on (:func:`corpora.folds.tuning_split`).  Learned systems
need no such protection: the tuning patients' notes can join every training set while the
cross-validation still scores the evaluation patients only.  ``--extra-training
tuning:physionet:DIR`` does that -- closer to how a model is trained in practice, with the
reported notes untouched.

:class:`ExtraTraining` adds the documents of ``corpus`` to whatever a learned system is
trained on: each outer training fold and, inside ``--tune``, each inner training part (the
held-out inner parts, on which selection is judged, stay what they were).  With
``--augment``, the extra documents are augmented like the others.  The run refuses an extra
corpus that shares a document, a patient or a note's text with a scored corpus
(:mod:`bench.run.overlap`): that would be training on the test notes.
"""

from __future__ import annotations

from corpora.model import Corpus, Document
from infra.memo import memoize
from systems.base import ExtendedTraining, System


@memoize("training.extra_corpora", max_entries=4)
def extra_corpus(spec: str) -> Corpus:
    """The corpus ``spec``, loaded once per process (plan and workers alike)."""
    from corpora.load import load_corpus

    corpus, _ = load_corpus(spec)
    return corpus


class ExtraTraining(ExtendedTraining):
    """``system`` trained on its training documents plus every document of ``corpus``.

    Parameters
    ----------
    system:
        The system to train (unfitted; a clone is fitted).
    corpus:
        Corpus spec of the extra documents (``tuning:physionet:DIR``).
    fingerprint:
        The extra corpus's :attr:`~corpora.model.Corpus.fingerprint` when the run was
        planned: part of the prediction-cache key, and checked when the documents are
        loaded, so edited files are never mixed with predictions made from the old ones.
    """

    added_key = "extra_documents"

    def __init__(self, system: System, corpus: str = "", fingerprint: str = ""):
        self.system = system
        self.corpus = corpus
        self.fingerprint = fingerprint

    def check_params(self) -> None:
        if not self.corpus:
            raise ValueError("extra training needs a corpus spec")
        super().check_params()

    def added_documents(self, documents: list[Document]) -> list[Document]:
        """The extra documents, refused if the corpus changed since the run was planned."""
        corpus = extra_corpus(self.corpus)
        if self.fingerprint and corpus.fingerprint != self.fingerprint:
            raise RuntimeError(
                f"--extra-training {self.corpus}: the corpus changed since the run was planned"
            )
        return list(corpus.documents)

"""The Multi-deidentifier learns whom to trust, and never trains on decisions a base system
made about documents it had seen."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import pytest

from corpora.model import Document, Span
from systems import multi as multi_module
from systems import prediction_cache
from systems.base import System, register, unregister
from systems.multi import DEFAULT_BASES, MultiDeidentifier, parse_bases


class Memorizer(System):
    """Labels perfectly the documents it was trained on, and nothing else."""

    name = "test-memorizer"

    def __init__(self) -> None:
        pass

    def fit(self, documents: Sequence[Document]) -> Memorizer:
        self.seen_ = {d.fingerprint for d in documents}
        return self

    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        return [
            [t.label if d.fingerprint in self.seen_ else "O" for t in d.tokens] for d in documents
        ]


class CountingMemorizer(Memorizer):
    """A memorizer that records every training set it was fitted on."""

    name = "test-counting-memorizer"
    fitted: ClassVar[list[set[str]]] = []

    def fit(self, documents: Sequence[Document]) -> CountingMemorizer:
        CountingMemorizer.fitted.append({d.fingerprint for d in documents})
        return super().fit(documents)


class CapsArePatients(System):
    """Rule: capitalized words after 'Mr.' are PATIENT; digits with '/' are DATE."""

    name = "test-caps"
    requires_training = False

    def __init__(self) -> None:
        pass

    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        out = []
        for d in documents:
            labels = []
            for i, t in enumerate(d.tokens):
                if "/" in t.text:
                    labels.append("DATE")
                elif t.text[:1].isupper() and i and d.tokens[i - 1].text == "Mr.":
                    labels.append("PATIENT")
                else:
                    labels.append("O")
            out.append(labels)
        return out


class NoisyDigits(System):
    """Rule that is wrong about dates: calls every number PHONE."""

    name = "test-noisy"
    requires_training = False

    def __init__(self) -> None:
        pass

    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        return [["PHONE" if "/" in t.text else "O" for t in d.tokens] for d in documents]


class PatientSpy(Memorizer):
    """Records, for every fit, which patients it trained on and which it then labelled."""

    name = "test-patient-spy"
    log: ClassVar[list[tuple[set[str], set[str]]]] = []

    def fit(self, documents: Sequence[Document]) -> PatientSpy:
        self.patients_ = {d.metadata["patient"] for d in documents}
        return super().fit(documents)

    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        PatientSpy.log.append((self.patients_, {d.metadata["patient"] for d in documents}))
        return super().predict(documents)


@pytest.fixture
def toys(tmp_path, monkeypatch):
    monkeypatch.setenv("DEID_BENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("DEID_BENCH_NO_CACHE", raising=False)
    classes = (Memorizer, CountingMemorizer, CapsArePatients, NoisyDigits, PatientSpy)
    for cls in classes:
        register(cls)
    CountingMemorizer.fitted = []
    PatientSpy.log = []
    yield
    for cls in classes:
        unregister(cls.name)


def _docs(n: int) -> list[Document]:
    names = ["Lee", "Park", "Cole", "Hart", "Wynn", "Dunn", "Ross", "Tate"]
    docs = []
    for i in range(n):
        name = names[i % len(names)]
        text = f"Mr. {name} seen on {i % 12 + 1}/{i % 27 + 1} for chest pain, stable."
        s = text.index(name)
        d = text.index("/") - len(str(i % 12 + 1))
        e = text.index(" for")
        docs.append(
            Document(
                f"d{i}",
                text,
                (Span(s, s + len(name), "PATIENT"), Span(d, e, "DATE")),
                metadata={"patient": f"p{i // 3}"},
            )
        )
    return docs


def test_meta_training_decisions_come_from_bases_that_never_saw_the_document(toys) -> None:
    multi = MultiDeidentifier(bases=(("memo", "test-memorizer", ()),), inner_folds=3)
    docs = _docs(9)
    multi.fit(docs)
    out_of_fold = multi._cross_fitted(docs, None)[0].labels
    assert all(label == "O" for doc in out_of_fold for label in doc)


def test_inner_folds_keep_each_patient_on_one_side(toys) -> None:
    docs = _docs(18)  # six patients, three notes each
    MultiDeidentifier(bases="test-patient-spy", inner_folds=3).fit(docs)
    inner = [(trained, labelled) for trained, labelled in PatientSpy.log]
    assert len(inner) == 3
    for trained, labelled in inner:
        assert trained.isdisjoint(labelled)


def test_bases_labelling_the_test_documents_train_on_every_training_document(toys) -> None:
    """The fair contest of Hypothesis 4: the same training data as every other system."""
    docs = _docs(20)
    train, test = docs[:16], docs[16:]
    bases = (("memo", "test-counting-memorizer", ()), ("caps", "test-caps", ()))
    multi = MultiDeidentifier(bases=bases, inner_folds=2).fit(train)
    predictions = multi.predict(test)
    train_fps = {d.fingerprint for d in train}
    test_fps = {d.fingerprint for d in test}
    # two inner fits on complementary parts (whole patients), then one fit on all of them
    inner = CountingMemorizer.fitted[:2]
    assert len(CountingMemorizer.fitted) == 3
    assert inner[0].isdisjoint(inner[1]) and inner[0] | inner[1] == train_fps
    assert CountingMemorizer.fitted[-1] == train_fps
    assert all(f.isdisjoint(test_fps) for f in CountingMemorizer.fitted)
    assert len(predictions) == 4


def test_base_fits_are_shared_through_the_prediction_cache(toys) -> None:
    docs = _docs(20)
    bases = (("memo", "test-counting-memorizer", ()),)
    first = MultiDeidentifier(bases=bases).fit(docs[:16]).predict(docs[16:])
    n_fits = len(CountingMemorizer.fitted)
    again = MultiDeidentifier(bases=bases).fit(docs[:16]).predict(docs[16:])
    assert again == first and len(CountingMemorizer.fitted) == n_fits


def test_learns_to_trust_the_right_system_per_class(toys) -> None:
    bases = (("caps", "test-caps", ()), ("noisy", "test-noisy", ()))
    multi = MultiDeidentifier(bases=bases).fit(_docs(12))
    test = _docs(14)[12:]
    pred = multi.predict(test)
    gold = [[t.label for t in d.tokens] for d in test]
    assert pred == gold  # DATE comes from "caps", never PHONE from "noisy"


def test_scores_and_threshold_agree_with_the_labels(toys) -> None:
    bases = (("caps", "test-caps", ()), ("noisy", "test-noisy", ()))
    multi = MultiDeidentifier(bases=bases).fit(_docs(12))
    test = _docs(16)[12:]
    labels, scores = multi.predict_scored(test)
    assert multi.tags().scores_tokens
    for doc_labels, doc_scores in zip(labels, scores, strict=True):
        assert [lab != "O" for lab in doc_labels] == [s > 0 for s in doc_scores]
    everything = multi.set_params(threshold=-1e9).predict(test)
    assert all(lab != "O" for doc in everything for lab in doc)


def test_bases_from_a_string_and_parameter_checks(toys) -> None:
    assert parse_bases("test-caps, test-noisy") == (
        ("test-caps", "test-caps", ()),
        ("test-noisy", "test-noisy", ()),
    )
    MultiDeidentifier(bases="test-caps,test-noisy").check_params()
    with pytest.raises(KeyError, match="unknown system 'nope'"):
        MultiDeidentifier(bases="test-caps,nope").check_params()
    with pytest.raises(ValueError, match="cannot stack itself"):
        MultiDeidentifier(bases="multi").check_params()
    with pytest.raises(ValueError, match="inner_folds"):
        MultiDeidentifier(bases="test-caps", inner_folds=1).check_params()


def test_default_illinois_base_is_the_two_stage_averaged_perceptron() -> None:
    """The Illinois base uses its own features, the second stage and LBJNET's learner."""
    multi = MultiDeidentifier()
    ((system, params),) = [(s, p) for n, s, p in parse_bases(DEFAULT_BASES) if n == "illinois"]
    base = multi._make_base(system, params)
    assert base.feature_set == "illinois" and base.two_stage
    assert base._make_learner().algorithm == "ap"
    names = [n for n, _, _ in parse_bases(multi.bases)]
    assert names == ["statdeid", "stanford", "mist", "illinois", "mimic"]
    # its jackknife groups as the run does: the runner gives multi the run's --group-by
    from bench.run.plan import resolve_systems
    from bench.run.run_types import RunConfig

    config = RunConfig(systems=("multi", "mega"), group_by="directory")
    specs = resolve_systems(["multi", "mega"], config)
    assert specs["mega"].params["group_by"] == "directory"  # mega's two-stage jackknife
    grouped = MultiDeidentifier(**specs["multi"].params)
    assert grouped._make_base(system, params).group_by == "directory"
    pinned = MultiDeidentifier(group_by="directory")._make_base("crf", (("group_by", "patient"),))
    assert pinned.group_by == "patient"  # a base's own setting wins


def _training_sets(result) -> list[set[str]]:
    """The training documents (fingerprints) of every cell of a run."""
    out = []
    for splits in result.splits.values():
        for split in splits:
            train_docs = result.corpora[split.train_corpus].documents
            out.append({train_docs[i].fingerprint for i in split.train})
    return out


@pytest.mark.parametrize("protocol", ["split", "cross", "learning-curve"])
def test_bases_train_on_the_cells_own_training_documents_under_every_protocol(
    toys, protocol
) -> None:
    """Own splits, cross-corpus and learning curves stack by inner cross-fitting too: each
    cell's bases see exactly the documents the compared systems train on, never blends."""
    from bench.run.runner import RunConfig, run
    from tests.bench.toy import make_corpus

    options = dict(
        systems=["multi,test-counting-memorizer"],
        show_progress=False,
        n_resamples=20,
        n_shuffles=20,
        folds=3,
        system_params={"multi": {"bases": "test-counting-memorizer"}},
    )
    if protocol == "split":
        config = RunConfig(corpora=["s"], protocol="split", **options)
        corpora = {"s": make_corpus(16, name="s", with_split=True)}
    elif protocol == "cross":
        config = RunConfig(corpora=["b"], train_corpus="a", **options)
        corpora = {"a": make_corpus(10, name="a"), "b": make_corpus(6, name="b", first=100)}
    else:
        config = RunConfig(
            corpora=["t"], protocol="learning-curve", fractions=(0.5, 1.0), **options
        )
        corpora = {"t": make_corpus(12, name="t")}
    result = run(config, corpora)
    assert not result.failures
    fits = CountingMemorizer.fitted
    cells = _training_sets(result)
    for train in cells:
        assert train in fits  # the bases labelling the test notes: all training documents
        inner = [f for f in fits if f < train]
        assert any(a.isdisjoint(b) and a | b == train for a in inner for b in inner)
    # no fit ever saw a document outside the training set of the cell it served
    assert all(any(f <= train for train in cells) for f in fits)


def test_external_tools_are_legitimate_bases(toys, tmp_path) -> None:
    """A command-line tool (registered as a preset, as a TOML file would) stacked with a
    rule system; the tool's script is part of multi's cache key."""
    import sys
    from pathlib import Path

    from systems.base import register_preset
    from systems.command import CommandSystem

    tool = Path(__file__).parent / "peer_tools" / "fake_deid.py"
    register_preset(
        "test-tool", CommandSystem, {"cmd": f"{sys.executable} {tool} spans"}, "fake tool"
    )
    try:
        multi = MultiDeidentifier(bases="test-caps,test-tool", inner_folds=2)
        multi.check_params()
        assert str(tool) not in multi.tool_fingerprint() and multi.tool_fingerprint()
        docs = _docs(12)
        predictions = multi.fit(docs[:8]).predict(docs[8:])
        gold = [[t.label for t in d.tokens] for d in docs[8:]]
        assert predictions == gold
        info = multi.fitted_info()
        assert info["bases"] == ["test-caps", "test-tool"]
        assert set(info["seconds"]) == {"inner_cross_fitting", "bases_on_all_training", "meta"}
    finally:
        unregister("test-tool")


def test_collapsed_meta_rows_fit_the_same_svm_as_one_row_per_token() -> None:
    """Identical rows merged into one weighted row: the same liblinear problem, so the
    same decisions and (within the solver's tolerance) the same weights."""
    import numpy as np
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.svm import LinearSVC

    rng = np.random.default_rng(0)
    votes = ["O", "DATE", "DOCTOR"]
    rows, labels = [], []
    for _ in range(3000):
        a, b = rng.choice(votes), rng.choice(votes)
        rows.append({f"a={a}": 1.0, f"b={b}": 1.0})
        truth = a if rng.random() < 0.9 else b
        labels.append(str(truth))
    collapsed, y, w = multi_module.collapse_rows(rows, labels)
    assert len(collapsed) <= 27 and w.sum() == len(rows)
    vec = DictVectorizer().fit(rows)
    full = LinearSVC(C=0.5, class_weight="balanced", random_state=0, tol=1e-8, max_iter=100000)
    X = multi_module._int32(vec.transform(rows))
    full.fit(X, labels)
    small = LinearSVC(
        C=0.5,
        class_weight=multi_module.balanced_weights(labels),
        random_state=0,
        tol=1e-8,
        max_iter=100000,
    )
    small.fit(multi_module._int32(vec.transform(collapsed)), y, sample_weight=w)
    assert (full.predict(X) == small.predict(X)).all()
    np.testing.assert_allclose(full.coef_, small.coef_, atol=1e-3)


def test_cross_validation_shares_the_inner_fits_between_outer_folds(toys) -> None:
    """Under cross-validation the runner tells multi the outer folds: one inner fit per
    base and block of outer folds for the whole run (six at six outer folds,
    :func:`systems.cross_fitting.blocks`), none of them on a document of an outer fold it
    serves, and the bases' full fits shared with their own cells."""
    from bench.run.runner import RunConfig, run
    from tests.bench.toy import make_corpus

    corpus = make_corpus(36, name="t", notes_per_patient=2)
    config = RunConfig(
        systems=["multi,test-counting-memorizer"],
        corpora=["t"],
        folds=6,
        show_progress=False,
        n_resamples=20,
        n_shuffles=20,
        system_params={"multi": {"bases": "test-counting-memorizer", "cross_fitting": "shared"}},
    )
    result = run(config, {"t": corpus})
    assert not result.failures
    cells = [frozenset(t) for t in _training_sets(result)]
    fits = [frozenset(f) for f in CountingMemorizer.fitted]
    assert sorted(fits.count(c) for c in cells) == [1] * 6  # full fits, once each
    inner = [f for f in fits if f not in cells]
    assert len(inner) == len(set(inner)) == 6  # each shared model fitted once
    tests = [{corpus.documents[i].fingerprint for i in s.test} for s in result.splits["t"]]
    assert all(any(f.isdisjoint(t) for t in tests) for f in inner)
    infos = [o.info for o in result.outcomes if o.system == "multi"]
    assert {i["cross_fitting"] for i in infos} == {"shared between outer folds"}


def test_tuning_multi_costs_meta_fits_only(toys) -> None:
    """``--tune`` judges multi's candidates (the meta-SVM's cost) on the cross-fitted
    decisions its fit needs anyway: no base is fitted more often than without tuning."""
    from bench.run.runner import RunConfig, run
    from tests.bench.toy import make_corpus

    corpus = make_corpus(36, name="t", notes_per_patient=2)
    counts = []
    for tune in (True, False):
        CountingMemorizer.fitted = []
        config = RunConfig(
            systems=["multi"],
            corpora=["t"],
            folds=6,
            tune=tune,
            show_progress=False,
            n_resamples=20,
            n_shuffles=20,
            system_params={
                "multi": {"bases": "test-counting-memorizer,test-caps", "cross_fitting": "shared"}
            },
        )
        result = run(config, {"t": corpus})
        assert not result.failures
        counts.append(len(CountingMemorizer.fitted))
        if tune:
            chosen = [o.info["chosen"] for o in result.outcomes]
            assert all(set(c) == {"C", "threshold"} for c in chosen)
            assert all(o.info["candidates"] == 3 for o in result.outcomes)
    # tuned: six full fits and six shared inner fits, as many as without tuning, which
    # then finds every one of them in the prediction cache
    assert counts == [6 + 6, 0]


class ScoredMemorizer(Memorizer):
    """A memorizer that also scores tokens: 1 for a remembered PHI token, else 0."""

    name = "test-scored-memorizer"

    def score_tokens(self, documents: Sequence[Document]) -> list:
        import numpy as np

        return [np.array([float(lab != "O") for lab in p]) for p in self.predict(documents)]


def test_tokens_with_alike_meta_rows_are_ranked_by_the_bases_scores(toys) -> None:
    import numpy as np

    from systems.multi import SCORE_CLIP, TIE_BREAK

    doc = Document("s", "alpha beta gamma delta")
    got = prediction_cache.Prediction([["O"] * 4], [np.array([0.5, 1.5, 99.0, -99.0], np.float32)])
    multi = MultiDeidentifier(bases="test-caps", stack_on="scores")
    multi.cuts_ = {"test-caps": np.array([1000.0])}  # every token below the cut: alike rows
    rows = multi._meta_features([doc], [got])
    assert all(r == rows[0] for r in rows)
    tie = multi._tie_break([got])
    assert tie is not None
    expected = TIE_BREAK * np.array([0.5, 1.5, SCORE_CLIP, -SCORE_CLIP])
    np.testing.assert_allclose(tie, expected, rtol=1e-6)
    assert list(np.argsort(-tie)) == [2, 1, 0, 3]
    assert np.ptp(tie) < 1e-3  # never enough to reorder rows the meta-SVM tells apart
    assert multi._tie_break([got], which=[]).shape == (0,)
    # a stack on decisions, or of bases without scores, is left as the SVM ranks it
    assert MultiDeidentifier(bases="test-caps")._tie_break([got]) is None


def test_stacking_on_scores_and_token_features(toys) -> None:
    """``stack_on="scores"`` adds thresholds of a scoring base's score to the meta rows (a
    rule system has none); ``meta_features`` adds the token's own features."""
    register(ScoredMemorizer)
    try:
        docs = _docs(24)
        multi = MultiDeidentifier(
            bases="test-scored-memorizer,test-caps",
            stack_on="scores",
            meta_features=("shape", "section"),
        ).fit(docs[:18])
        assert set(multi.cuts_) == {"test-scored-memorizer"}
        names = set(multi.vectorizer_.feature_names_)
        assert any(n.startswith("test-scored-memorizer>=q") for n in names)
        assert not any(n.startswith("test-caps>=q") for n in names)
        assert any(n.startswith("shape") for n in names)
        labels = multi.predict(docs[18:])
        assert len(labels) == 6
        with pytest.raises(ValueError, match="stack_on"):
            MultiDeidentifier(bases="test-caps", stack_on="votes").check_params()
        with pytest.raises(ValueError, match="meta features"):
            MultiDeidentifier(bases="test-caps", meta_features=("nope",)).check_params()
    finally:
        unregister(ScoredMemorizer.name)


def test_selecting_the_stacking_refits_no_base(toys) -> None:
    """``select_from="stacking"``: what to stack on, which token features and which bases
    are chosen inside the training folds from the same cross-fitted decisions."""
    from bench.run.runner import RunConfig, run
    from tests.bench.toy import make_corpus

    multi = MultiDeidentifier(bases="test-counting-memorizer,test-caps", select_from="stacking")
    space = multi.search_space()
    assert set(space) == {"C", "stack_on", "meta_features", "bases"} and len(space["bases"]) == 3
    corpus = make_corpus(36, name="t", notes_per_patient=2)
    config = RunConfig(
        systems=["multi"],
        corpora=["t"],
        folds=6,
        tune=True,
        show_progress=False,
        n_resamples=20,
        n_shuffles=20,
        system_params={
            "multi": {
                "bases": "test-counting-memorizer,test-caps",
                "select_from": "stacking",
                "cross_fitting": "shared",
            }
        },
    )
    result = run(config, {"t": corpus})
    assert not result.failures
    assert len(CountingMemorizer.fitted) == 6 + 6  # as without tuning (and without choice)
    assert all(o.info["candidates"] == 36 for o in result.outcomes)


def test_all_runs_the_systems_not_their_presets() -> None:
    """``--systems all`` (the default run) is every system once: a named preset such as
    ``recommended`` is a configuration of one of them, run only when named."""
    from bench.run.plan import resolve_systems
    from systems.base import SYSTEMS

    presets = [n for n, e in SYSTEMS.as_dict().items() if e.preset]
    assert "recommended" in presets
    everything = resolve_systems(["all"])
    assert not set(presets) & set(everything)
    assert "multi" in everything and "mega" in everything
    assert "recommended" in resolve_systems(["recommended"])


def test_the_default_multi_shares_its_inner_models_between_outer_folds() -> None:
    """Block models shared between outer folds gave the default run the same F as per-fold
    cross-fitting (docs/speed.md) at 1.5x the bases' fits instead of 2.3x: the default,
    and the stack-with-the-rules preset's scheme."""
    from systems.base import SYSTEMS

    assert MultiDeidentifier().cross_fitting == "shared"
    assert dict(SYSTEMS.get("mega-rules-stack").params)["cross_fitting"] == "shared"


class CountingCaps(CapsArePatients):
    """The capitalization rule, recording every document it labels."""

    name = "test-counting-caps"
    labelled: ClassVar[list[str]] = []

    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        CountingCaps.labelled.extend(d.id for d in documents)
        return super().predict(documents)


def test_no_model_is_fitted_twice_and_no_note_ruled_twice_over_the_outer_folds(toys) -> None:
    """A shared block model labels the test notes of the outer fold it was fitted in as
    soon as ``multi`` labels them, so the later outer folds of its block find every label
    remembered: with no fitted model kept between outer folds (as when the models outgrow
    their memory), each is still fitted once.  A rule base labels each note once, whatever
    number of outer folds it is a training or test note of."""
    from tests.systems.forgetful_folds import forgetful_cross_validation

    register(CountingCaps)
    CountingCaps.labelled = []
    try:
        docs = _docs(36)
        outer = forgetful_cross_validation(
            lambda: MultiDeidentifier(bases="test-counting-caps,test-counting-memorizer"), docs
        )
        ids = {d.id: d.fingerprint for d in docs}
        cells = [frozenset(ids[i] for i in training) for training in outer]
        fits = [frozenset(f) for f in CountingMemorizer.fitted]
        inner = [f for f in fits if f not in cells]
        assert sorted(fits.count(c) for c in cells) == [1] * 6
        assert len(inner) == len(set(inner)) == 6
        assert sorted(CountingCaps.labelled) == sorted(d.id for d in docs)
    finally:
        unregister(CountingCaps.name)


def test_featurizing_is_counted_apart_from_stacking_and_the_bases(toys) -> None:
    """A note's features are computed once per process, in whichever fit meets it first
    (the cross-fitting, here): their seconds go to ``featurize_seconds``, not to the cost
    of stacking that ``cost_vs_bases`` measures."""
    import time

    from infra import stages

    featurized: set[str] = set()

    class SlowFeatures(System):
        """Featurizes each note once per process (20 ms), then memorizes nothing."""

        name = "test-slow-features"

        def __init__(self) -> None:
            pass

        def fit(self, documents: Sequence[Document]) -> SlowFeatures:
            for d in documents:
                if d.fingerprint not in featurized:
                    with stages.stage(stages.FEATURIZE):
                        time.sleep(0.02)
                    featurized.add(d.fingerprint)
            return self

        def predict(self, documents: Sequence[Document]) -> list[list[str]]:
            return [["O"] * len(d.tokens) for d in documents]

    register(SlowFeatures)
    try:
        multi = MultiDeidentifier(bases="test-caps,test-slow-features", inner_folds=2)
        multi.fit(_docs(10))
        info = multi.fitted_info()
        assert info["featurize_seconds"] >= 10 * 0.02  # every note, met in the cross-fitting
        assert info["seconds"]["inner_cross_fitting"] < info["featurize_seconds"]
    finally:
        unregister("test-slow-features")

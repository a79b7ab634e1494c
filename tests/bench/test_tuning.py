"""Model selection inside the training folds (``--tune``) and training-set augmentation
(``--augment``): what they choose, and that the test fold never reaches them."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pytest

from bench.report.outputs import run_info
from bench.report.render import render_report
from bench.run.plan import resolve_systems
from bench.run.run_types import CellOutcome, RunResult, UsageError
from bench.run.runner import RunConfig, run
from bench.training.augment import (
    Augmented,
    describe_augment,
    parse_augment,
    parse_augment_choices,
)
from bench.training.tuning import FINALISTS, Objective, Tuned, candidates
from corpora.model import OUTSIDE, Corpus
from corpora.variants import NAME_CATEGORIES
from systems.cross_fitting import SHARED
from tests.bench.toy import MemorySystem, RecordingSystem, VolumeSystem, make_corpus

# ------------------------------------------------------------------------ objectives

#: Ten tokens, four PHI; scores rank three PHI first, then a false alarm, then the last PHI.
GOLD = np.array([1, 1, 1, 0, 1, 0, 0, 0, 0, 0], dtype=bool)
SCORES = np.array([9, 8, 7, 6, 5, 4, 3, 2, 1, 0], dtype=float)


def test_f2_buys_recall_that_f1_would_not() -> None:
    # above 6.5: P 1, R 0.75 (F1 0.857, F2 0.789); above 4.5: P 0.8, R 1 (F1 0.889, F2 0.952)
    f1 = Objective.parse("f1").best_threshold(GOLD, SCORES)
    f2 = Objective.parse("f2").best_threshold(GOLD, SCORES)
    assert f2.threshold == pytest.approx(4.5) and f2.value == pytest.approx(0.952, abs=1e-3)
    assert f1.threshold == pytest.approx(4.5) and f1.value == pytest.approx(0.889, abs=1e-3)
    assert (f2.precision, f2.recall) == (pytest.approx(0.8), pytest.approx(1.0))
    late = np.array([1, 1, 1, 0, 0, 0, 1, 0, 0, 0], dtype=bool)  # the last PHI after 3 others
    t1 = Objective.parse("f1").best_threshold(late, SCORES).threshold
    t2 = Objective.parse("f2").best_threshold(late, SCORES).threshold
    assert t1 == pytest.approx(6.5)  # F1 0.857 stops before the false alarms (0.727 after)
    assert t2 == pytest.approx(2.5)  # F2 pays three false alarms for it (0.869 vs 0.789)


def test_precision_at_recall_ranks_reaching_the_level_first() -> None:
    objective = Objective.parse("precision@recall=0.95")
    best = objective.best_threshold(GOLD, SCORES)
    assert best.threshold == pytest.approx(4.5) and best.value == pytest.approx(1.8)  # 1 + P
    # fixed decisions that miss a PHI token rank below any that reach the level
    missing = objective.of_labels(GOLD, np.array([1, 1, 1, 0, 0, 0, 0, 0, 0, 0], bool)).value
    reaching = objective.of_labels(GOLD, np.ones(10, bool)).value
    assert missing == pytest.approx(0.75) and reaching == pytest.approx(1.4)
    assert reaching > missing


def test_recall_at_precision_ranks_holding_the_floor_first() -> None:
    objective = Objective.parse("recall@precision=0.9")
    # above 6.5: P 1, R 0.75 holds the floor; above 4.5 (P 0.8, R 1) does not
    best = objective.best_threshold(GOLD, SCORES)
    assert best.threshold == pytest.approx(6.5) and best.value == pytest.approx(1.75)  # 1 + R
    assert (best.precision, best.recall) == (pytest.approx(1.0), pytest.approx(0.75))
    # a lower floor buys the last PHI at one false alarm
    assert Objective.parse("recall@precision=0.8").best_threshold(GOLD, SCORES).recall == 1.0
    # fixed decisions below the floor rank below any that hold it, by their precision
    loose = objective.of_labels(GOLD, np.ones(10, bool)).value
    tight = objective.of_labels(GOLD, np.array([1, 0, 0, 0, 0, 0, 0, 0, 0, 0], bool)).value
    assert loose == pytest.approx(0.4) and tight == pytest.approx(1.25)


def test_no_phi_means_no_threshold() -> None:
    none = Objective.parse("f2").best_threshold(np.zeros(4, bool), np.arange(4.0))
    assert none.threshold is None and none.value == 0.0
    with pytest.raises(ValueError, match="unknown objective"):
        Objective.parse("f3")
    with pytest.raises(ValueError, match="0 < P < 1"):
        Objective.parse("recall@precision=1")


def test_grid_in_sorted_parameter_order_without_threshold() -> None:
    grid = candidates({"C": [1, 2], "class_weight": ["x"], "threshold": [0.0]})
    assert grid == [{"C": 1, "class_weight": "x"}, {"C": 2, "class_weight": "x"}]


# ------------------------------------------------------------------------ the wrapper


def _fits(log: list[tuple[str, tuple[str, ...]]]) -> list[tuple[set[str], set[str]]]:
    """(documents fitted on, documents labelled by that model) for each fit in the log."""
    out: list[tuple[set[str], set[str]]] = []
    for what, ids in log:
        if what == "fit":
            out.append((set(ids), set()))
        else:
            out[-1][1].update(ids)
    return out


@pytest.fixture
def recorded():
    RecordingSystem.LOG.clear()
    yield RecordingSystem.LOG
    RecordingSystem.LOG.clear()


def test_selection_sees_only_training_documents_grouped_by_patient(recorded) -> None:
    corpus = make_corpus(16, notes_per_patient=2)
    docs = list(corpus.documents)
    train, test = docs[:12], docs[12:]
    patient = {d.id: d.metadata["patient"] for d in docs}
    tuned = Tuned(RecordingSystem(), objective="f2", seed=0).fit(train)
    seen_in_fit = {i for _, ids in recorded for i in ids}
    assert seen_in_fit <= {d.id for d in train}  # the test notes never reached selection
    # every inner fit and what that model labelled: no patient on both sides
    *inner, final = _fits(recorded)
    assert len(inner) == 2 * 2  # two candidates x two inner folds
    for fitted_on, labelled in inner:
        assert labelled and {patient[i] for i in fitted_on}.isdisjoint(patient[i] for i in labelled)
    assert final == ({d.id for d in train}, set())  # the chosen candidate refitted on all
    info = tuned.fitted_info()
    assert info["candidates"] == 2 and info["inner_folds"] == 2
    assert set(info["chosen"]) == {"min_count", "threshold"}
    # the toy corpus cycles through ten names, so held-out notes have names the inner model
    # never saw: only a threshold below the capitalized-word score (1) finds them
    assert 0.0 < info["chosen"]["threshold"] < 1.0
    recorded.clear()
    labels_out = tuned.predict(test)
    assert len(labels_out) == len(test)
    assert {ids for _, ids in recorded} == {tuple(d.id for d in test)}


class WideGrid(RecordingSystem):
    """Four candidates: enough for successive halving to drop two."""

    FITS: ClassVar[list[int]] = []

    def search_space(self) -> dict[str, list[object]]:
        return {"min_count": [1, 2, 50, 100]}

    def fit(self, documents):
        self.FITS.append(self.min_count)
        return super().fit(documents)


def test_selection_halves_the_grid_after_the_first_inner_fold(recorded) -> None:
    WideGrid.FITS.clear()
    docs = list(make_corpus(16, notes_per_patient=2).documents)
    tuned = Tuned(WideGrid(), seed=0).fit(docs)
    *inner, final = WideGrid.FITS
    first, rest = inner[:4], inner[4:]
    assert first == [1, 2, 50, 100]  # every candidate on the first inner fold
    assert len(rest) == FINALISTS == 2 and len(set(rest)) == 2  # two finalists go on
    info = tuned.fitted_info()
    assert (info["candidates"], info["finalists"]) == (4, 2)
    assert final == info["chosen"]["min_count"] in rest
    # a candidate that memorises nothing (seen 50 times) loses on the first fold already
    assert set(rest) == {1, 2}


def test_more_inner_folds_train_each_inner_model_on_more_patients(recorded) -> None:
    docs = list(make_corpus(16, notes_per_patient=2).documents)
    patient = {d.id: d.metadata["patient"] for d in docs}
    tuned = Tuned(RecordingSystem(), seed=0, inner_folds=4).fit(docs)
    *inner, final = _fits(recorded)
    assert len(inner) == 2 * 4  # both candidates are finalists: each on all four folds
    held_out: list[str] = []
    for fitted_on, labelled in inner:
        assert {patient[i] for i in fitted_on}.isdisjoint(patient[i] for i in labelled)
        assert len(fitted_on) == 12  # three of the four parts of 8 patients x 2 notes
        held_out += sorted(labelled)
    # each candidate labels every training note exactly once, out of fold
    assert sorted(held_out) == sorted(2 * [d.id for d in docs])
    assert tuned.fitted_info()["inner_folds"] == 4
    assert final == ({d.id for d in docs}, set())


def test_tuning_a_system_without_scores_or_grid_just_fits() -> None:
    docs = list(make_corpus(6).documents)
    tuned = Tuned(MemorySystem()).fit(docs)
    assert tuned.fitted_info()["candidates"] == 0
    assert tuned.predict(docs[:1]) == MemorySystem().fit(docs).predict(docs[:1])


def test_augmented_training_adds_transformed_copies_of_training_documents(recorded) -> None:
    docs = list(make_corpus(6).documents)
    model = Augmented(RecordingSystem(), variants=("unseen", "surrogate"), seed=0).fit(docs)
    (what, ids), *_ = recorded
    assert what == "fit" and len(ids) == 3 * len(docs)
    assert ids[: len(docs)] == tuple(d.id for d in docs)
    assert {i.rsplit("+", 1)[1] for i in ids[len(docs) :]} == {"unseen", "surrogate"}
    assert model.fitted_info()["augmented_copies"] == 2 * len(docs)
    # the copies carry other names: the memorizer learned words no original holds
    names = {t.text.lower() for d in docs for t in d.tokens if t.label != OUTSIDE}
    assert set(model.fitted_.memory_) - names


def test_a_variant_named_twice_adds_a_second_copy_with_other_names(recorded) -> None:
    docs = list(make_corpus(6).documents)
    model = Augmented(RecordingSystem(), variants=parse_augment("unseen:2,surrogate")).fit(docs)
    (_, ids), *_ = recorded
    suffixes = [i.rsplit("+", 1)[1] for i in ids[len(docs) :]]
    assert suffixes == ["unseen"] * 6 + ["unseen2"] * 6 + ["surrogate"] * 6
    assert model.fitted_info()["augmented_copies"] == 3 * len(docs)
    # the first copy is the plain variant's; the second replaces the same words otherwise
    single = Augmented(RecordingSystem(), variants=("unseen",)).added_documents(docs)
    first, second = model.added_documents(docs)[:6], model.added_documents(docs)[6:12]
    assert [d.text for d in first] == [d.text for d in single]
    for doc, a, b in zip(docs, first, second, strict=True):
        assert (
            [t.label for t in a.tokens]
            == [t.label for t in b.tokens]
            == [t.label for t in doc.tokens]
        )
        names = [
            (x.text, y.text)
            for x, y in zip(a.tokens, b.tokens, strict=True)
            if x.label in NAME_CATEGORIES
        ]
        assert names and all(x != y for x, y in names)
        plain = [
            (x.text, y.text) for x, y in zip(a.tokens, b.tokens, strict=True) if x.label == OUTSIDE
        ]
        assert all(x == y for x, y in plain)


def test_augment_option_counts_copies() -> None:
    assert parse_augment(" unseen:3, surrogate ,") == ("unseen",) * 3 + ("surrogate",)
    assert describe_augment(("unseen",) * 3 + ("surrogate",)) == "unseen ×3, surrogate"
    for bad in ("unseen:0", "unseen:-2", "unseen:two"):
        with pytest.raises(ValueError, match="whole number"):
            parse_augment(bad)


def test_augmentation_inside_tuning_copies_each_inner_training_part_only(recorded) -> None:
    corpus = make_corpus(12, notes_per_patient=3)
    docs = list(corpus.documents)
    Tuned(Augmented(RecordingSystem(), variants=("unseen",)), seed=0).fit(docs)
    *inner, (final, _) = _fits(recorded)
    assert len(inner) == 2 * 2 and len(final) == 2 * len(docs)  # 2 candidates x 2 folds
    for fitted_on, labelled in inner:
        originals = {i for i in fitted_on if "+" not in i}
        assert {i.split("+")[0] for i in fitted_on} == originals  # copies of its own part
        assert labelled and originals.isdisjoint(labelled)
        assert all("+" not in i for i in labelled)  # held-out notes are never transformed


def test_selection_also_scores_the_held_out_parts_transformed_copies(recorded) -> None:
    corpus = make_corpus(12, notes_per_patient=3)
    docs = list(corpus.documents)
    system = Augmented(RecordingSystem(), variants=("unseen",))
    tuned = Tuned(system, seed=0, selection_variants=("unseen",)).fit(docs)
    *inner, _ = _fits(recorded)
    assert len(inner) == 2 * 2  # still one fit per candidate and inner fold
    for fitted_on, labelled in inner:
        held = {i for i in labelled if "+" not in i}
        assert held and held.isdisjoint(fitted_on)
        # the model also labels the unseen copies of exactly its held-out part
        assert {i for i in labelled if "+" in i} == {f"{i}+unseen" for i in held}
    assert tuned.fitted_info()["selected_on"] == ["authentic", "unseen"]
    with pytest.raises(ValueError, match="selection variants"):
        Tuned(system, selection_variants=("reversed",)).fit(docs)


def test_a_range_of_copies_offers_each_count_and_only_tuning_takes_it() -> None:
    choices = parse_augment_choices("unseen:1-3, surrogate")
    assert choices == (
        ("unseen", "surrogate"),
        ("unseen", "unseen", "surrogate"),
        ("unseen", "unseen", "unseen", "surrogate"),
    )
    assert parse_augment_choices("unseen:2") == (("unseen", "unseen"),)
    assert (
        describe_augment(choices[0], choices)
        == "unseen ×1–3, surrogate (copies chosen inside the training folds)"
    )
    with pytest.raises(ValueError, match="a range of copies is a choice --tune makes"):
        parse_augment("unseen:1-3")  # a fixed augmentation (a stacked system's base)
    for bad in ("unseen:3-1", "unseen:2-2", "unseen:1-21", "unseen:1-x"):
        with pytest.raises(ValueError, match="range LOW-HIGH"):
            parse_augment_choices(bad)
    with pytest.raises(ValueError, match="9 augmentations to choose from; at most 6"):
        parse_augment_choices("unseen:1-3,surrogate:1-3")


def test_tuning_chooses_the_number_of_copies_on_the_inner_folds(recorded) -> None:
    """A range of copies is one more axis of the grid: each candidate's inner models train
    on their part with its number of copies, every candidate is judged on the same held-out
    parts (and the same one copy of them), and the chosen count is refitted."""
    docs = list(make_corpus(12, notes_per_patient=3).documents)
    choices = (("unseen",), ("unseen", "unseen"))
    tuned = Tuned(
        Augmented(RecordingSystem(), variants=choices[0]),
        seed=0,
        selection_variants=("unseen",),
        variant_choices=choices,
    ).fit(docs)
    *inner, (final, _) = _fits(recorded)
    copies_seen = set()
    held_by_part: dict[frozenset[str], set[frozenset[str]]] = {}
    for fitted_on, labelled in inner:
        originals = {i for i in fitted_on if "+" not in i}
        per_note = {sum(i.split("+")[0] == o for i in fitted_on) - 1 for o in originals}
        assert len(per_note) == 1  # every note of the part has the same number of copies
        copies_seen |= per_note
        held_by_part.setdefault(frozenset(originals), set()).add(frozenset(labelled))
        held = {i for i in labelled if "+" not in i}
        assert {i for i in labelled if "+" in i} == {f"{i}+unseen" for i in held}
    assert copies_seen == {1, 2}
    assert all(len(held) == 1 for held in held_by_part.values())  # the same held-out tokens
    info = tuned.fitted_info()
    assert info["candidates"] == 4  # min_count 1, 2 x one or two copies
    chosen = info["chosen"]["variants"]
    assert chosen in choices and len(final) == (1 + len(chosen)) * len(docs)

    # a learner that needs data: two copies of each inner part reach it, one does not
    volume = Tuned(
        Augmented(VolumeSystem(enough=15), variants=choices[0]),
        seed=0,
        selection_variants=("unseen",),
        variant_choices=choices,
    ).fit(docs)
    assert volume.fitted_info()["chosen"] == {"variants": ("unseen", "unseen")}
    assert volume.fitted_info()["system"]["augmented_copies"] == 2 * len(docs)
    with pytest.raises(ValueError, match="no augmentation to set them on"):
        Tuned(VolumeSystem(), variant_choices=choices).fit(docs)


def test_candidates_sharing_a_training_set_are_fitted_together_in_first_appearance_order(
) -> None:
    from bench.training.tuning import _by_training_set

    space = {"C": [0.1, 0.5], "variants": [("unseen",), ("unseen", "unseen")]}
    grid = candidates(space)
    assert [g["variants"] for g in grid] == [("unseen",), ("unseen", "unseen")] * 2
    order = _by_training_set(grid)
    assert order == [0, 2, 1, 3]  # each augmentation's matrix built once, the first first
    assert _by_training_set(candidates({"C": [0.1, 0.5, 1.0]})) == [0, 1, 2]


# ------------------------------------------------------------------------ through the runner


def _tuned_run(systems: str, augment: tuple[str, ...], **options: Any) -> list[CellOutcome]:
    """Outcomes of a tuned, augmented 3-fold run on 18 toy notes (two per patient)."""
    return _tuned_result(systems, augment, **options).outcomes


def _tuned_result(
    systems: str,
    augment: tuple[str, ...],
    corpus: Corpus | None = None,
    folds: int = 3,
    **options: Any,
) -> RunResult:
    """A tuned, augmented run of ``folds`` folds on ``corpus`` (default 18 toy notes, two
    per patient)."""
    config = RunConfig(
        **options,
        systems=[systems],
        corpora=["toy"],
        folds=folds,
        show_progress=False,
        n_resamples=0,
        n_shuffles=50,
        tune=True,
        augment=augment,
    )
    return run(config, {"toy": corpus or make_corpus(18, notes_per_patient=2)})


def test_run_records_what_each_fold_chose(toy_systems) -> None:
    outcomes = _tuned_run("toy-recording,toy-capitals", ("unseen",))
    tuned = [o for o in outcomes if o.system == "toy-recording"]
    assert len(tuned) == 3
    for o in tuned:
        assert set(o.info["chosen"]) == {"min_count", "threshold"}
        assert o.info["system"]["augmented_copies"] > 0
    rules = [o for o in outcomes if o.system == "toy-capitals"]
    assert all("chosen" not in o.info for o in rules)  # rule systems are not wrapped


def test_a_run_lets_tuning_choose_the_copies_and_refuses_a_range_without_it(
    toy_systems,
) -> None:
    choices = parse_augment_choices("unseen:1-2")
    result = _tuned_result(
        "toy-recording,fixed=toy-recording",
        choices[0],
        augment_choices=choices,
        system_params={"fixed": {"augment": "unseen:2"}},
    )
    chosen = {o.info["chosen"]["variants"] for o in result.outcomes if o.system == "toy-recording"}
    assert chosen <= set(choices)
    assert all("variants" not in o.info["chosen"] for o in result.outcomes if o.system == "fixed")
    systems = result.systems
    assert systems["toy-recording"]["augment_choices"] == [list(c) for c in choices]
    assert "augment_choices" not in systems["fixed"]
    text = render_report(result, run_info(result, ["python", "-m", "bench", "run"]))
    assert "unseen ×1–2 (copies chosen inside the training folds)" in text
    picked = sorted({describe_augment(c) for c in chosen})
    assert all(f"variants=({p})" in text for p in picked)
    # the wrappers: the first choice trained unless tuning says otherwise; a fixed
    # augmentation's tuning has no choices at all, so its configuration is unchanged
    specs = resolve_systems(
        ["toy-recording,fixed=toy-recording"],
        RunConfig(
            tune=True,
            augment=choices[0],
            augment_choices=choices,
            system_params={"fixed": {"augment": "unseen:2"}},
        ),
    )
    ranged, fixed = dict(specs["toy-recording"].wrappers), dict(specs["fixed"].wrappers)
    assert ranged[Augmented]["variants"] == ("unseen",)
    assert ranged[Tuned]["variant_choices"] == choices
    assert "variant_choices" not in fixed[Tuned]
    with pytest.raises(UsageError, match="a range of copies is a choice"):
        resolve_systems(
            ["toy-recording"],
            RunConfig(system_params={"toy-recording": {"augment": "unseen:1-2"}}),
        )
    with pytest.raises(UsageError, match="--augment: a range of copies is a choice"):
        run(
            RunConfig(systems=["toy-recording"], corpora=["toy"], augment_choices=choices),
            {"toy": make_corpus(6)},
        )


def test_the_run_passes_its_inner_folds_to_every_tuned_cell(toy_systems) -> None:
    outcomes = _tuned_run("toy-recording", (), inner_folds=3)
    assert [o.info["inner_folds"] for o in outcomes] == [3, 3, 3]


@pytest.mark.parametrize(
    ("systems", "options", "refused"),
    [
        ("toy-capitals", {"tune": True}, "--tune: none of the chosen systems"),
        ("toy-capitals", {"augment": ("unseen",)}, "--augment: none of the chosen systems"),
        ("toy-recording", {"objective": "f1"}, "--objective f1: it steers --tune"),
        ("toy-recording", {"inner_folds": 3}, "--inner-folds 3: it steers --tune"),
    ],
)
def test_an_option_no_chosen_system_honours_is_refused_before_any_cell(
    toy_systems, systems: str, options: dict[str, Any], refused: str
) -> None:
    """A report must not say a run tuned, augmented or chose by an objective when nothing
    did: rules learn nothing, and the objective and inner folds only steer ``--tune``."""
    RecordingSystem.LOG.clear()
    config = RunConfig(systems=[systems], corpora=["toy"], folds=3, show_progress=False, **options)
    with pytest.raises(UsageError, match=refused):
        run(config, {"toy": make_corpus(6)})
    assert RecordingSystem.LOG == []
    # the same option beside a system it applies to is honoured
    tuned = run(
        RunConfig(
            systems=[f"{systems},learner=toy-recording"],
            corpora=["toy"],
            folds=3,
            show_progress=False,
            **{**options, "tune": True},
        ),
        {"toy": make_corpus(6)},
    )
    assert all(o.ok for o in tuned.outcomes)


def test_repeated_copies_train_more_but_selection_judges_one_copy_per_variant(
    toy_systems,
) -> None:
    for o in _tuned_run("toy-recording", ("unseen", "unseen")):
        assert o.info["selected_on"] == ["authentic", "unseen"]
        assert o.info["system"]["augmented_copies"] == 2 * 12  # two copies of 12 training notes


def test_a_system_can_have_its_own_augmentation_in_the_run(toy_systems) -> None:
    """``--param NAME.augment``: one run holds the same system with and without copies, on
    the same folds, so their difference gets a paired test."""
    result = _tuned_result(
        "toy-recording,copies=toy-recording,plain=toy-recording,toy-capitals",
        ("unseen",),
        system_params={"copies": {"augment": "unseen:2,surrogate"}, "plain": {"augment": "none"}},
    )
    info = {o.system: o.info for o in result.outcomes if o.fold == 0}
    assert info["toy-recording"]["system"]["augmented_copies"] == 12  # the run's --augment
    assert info["toy-recording"]["selected_on"] == ["authentic", "unseen"]
    assert info["copies"]["system"]["augmented_copies"] == 3 * 12
    assert info["copies"]["selected_on"] == ["authentic", "unseen", "surrogate"]
    assert "augmented_copies" not in info["plain"].get("system", {})
    assert info["plain"]["selected_on"] == ["authentic"]
    systems = result.systems
    assert systems["copies"]["augment"] == ["unseen", "unseen", "surrogate"]
    assert systems["plain"]["augment"] == [] and systems["toy-capitals"]["augment"] == []
    assert "augment" not in systems["copies"]["params"]  # a run option, not the system's
    pairs = {(r.system_a, r.system_b) for r in result.significance.itertuples()}
    assert ("copies", "plain") in pairs or ("plain", "copies") in pairs
    text = render_report(result, run_info(result, ["python", "-m", "bench", "run"]))
    assert "copies: unseen ×2, surrogate; plain: none" in text
    with pytest.raises(UsageError, match=r"toy-capitals\.augment: 'toy-capitals' is not trained"):
        resolve_systems(
            ["toy-capitals"],
            RunConfig(system_params={"toy-capitals": {"augment": "unseen"}}),
        )


class BlockRecorder(RecordingSystem):
    """Records each fit and what each fitted model labels, by the documents it was fitted
    on (a kept model labels again later, after other fits)."""

    name = "toy-block-recorder"
    FITS: ClassVar[list[tuple[int, frozenset[str]]]] = []
    LABELLED: ClassVar[dict[tuple[int, frozenset[str]], set[str]]] = {}

    def fit(self, documents):
        self.fitted_on_ = frozenset(d.id for d in documents)
        self.FITS.append((self.min_count, self.fitted_on_))
        return super().fit(documents)

    def score_tokens(self, documents):
        key = (self.min_count, self.fitted_on_)
        self.LABELLED.setdefault(key, set()).update(d.id for d in documents)
        return super().score_tokens(documents)


def _recorded_tuned_run() -> tuple[Any, Any]:
    """A tuned :class:`BlockRecorder` cross-validated over six outer folds of 18 patients,
    its records emptied first; the corpus and the run's result (no failure)."""
    from systems.base import register, unregister

    BlockRecorder.FITS.clear()
    BlockRecorder.LABELLED.clear()
    corpus = make_corpus(36, notes_per_patient=2)
    register(BlockRecorder)
    try:
        result = _tuned_result("toy-block-recorder", (), corpus, folds=6)
    finally:
        unregister(BlockRecorder.name)
    assert not result.failures
    return corpus, result


def test_cross_validated_tuning_shares_its_inner_models_between_outer_folds(
    toy_systems,
) -> None:
    """Under cross-validation every candidate's inner models are the block models of
    :mod:`systems.cross_fitting`: each fitted once for the whole run whatever the number
    of outer folds it serves, none trained on a note it labels or on the test notes of an
    outer fold whose selection reads it."""
    corpus, result = _recorded_tuned_run()
    patient = {d.id: d.metadata["patient"] for d in corpus.documents}
    tests = [{corpus.documents[i].id for i in s.test} for s in result.splits["toy"]]
    trainings = [set(patient) - t for t in tests]
    inner = [(c, f) for c, f in BlockRecorder.FITS if set(f) not in trainings]
    assert len(BlockRecorder.FITS) - len(inner) == 6  # the chosen candidates, refitted
    # two candidates, six blocks: each candidate's block model fitted once (the run
    # keeps it), where each outer fold's own inner folds would have cost 6 x 2 x 2 fits
    assert len(inner) == len(set(inner)) == 2 * 6
    assert len({f for _, f in inner}) == 6
    for key in inner:
        fitted_on, labelled = key[1], BlockRecorder.LABELLED[key]
        assert {patient[i] for i in fitted_on}.isdisjoint(patient[i] for i in labelled)
        assert len([t for t in tests if t.isdisjoint(fitted_on)]) == 3  # three outer folds
    for o in result.outcomes:
        assert o.info["inner_scheme"] == SHARED == "shared between outer folds"
    # the report says block models, not "inner folds" for the number of blocks
    text = render_report(result, run_info(result, ["python", "-m", "bench", "run"]))
    assert "inner models shared between the outer folds: 3 block models per outer fold" in text
    assert "3 inner folds" not in text


def test_no_block_model_is_fitted_twice_when_none_is_kept_between_outer_folds(
    toy_systems, monkeypatch
) -> None:
    """The candidates' block models label the test notes of the outer fold they were
    fitted in when the tuned system labels them, so a later outer fold of the block finds
    every label it needs remembered: with every fitted model forgotten between outer
    folds (as when they outgrow their memory), each is still fitted once."""
    from bench.training.tuning import Tuned
    from systems import prediction_cache

    fit = Tuned.fit

    def forgetful(self, documents, context=None):
        prediction_cache._MODELS.clear()
        return fit(self, documents, context)

    monkeypatch.setattr(Tuned, "fit", forgetful)
    corpus, result = _recorded_tuned_run()
    tests = [{corpus.documents[i].id for i in s.test} for s in result.splits["toy"]]
    trainings = [{d.id for d in corpus.documents} - t for t in tests]
    inner = [(c, f) for c, f in BlockRecorder.FITS if set(f) not in trainings]
    assert len(inner) == len(set(inner)) == 2 * 6


def test_a_preset_keeps_its_own_objective_and_refuses_another(toy_systems) -> None:
    """A preset whose operating point is part of what it promises (``recall@precision``) is
    tuned by it in any run, beside systems tuned by the run's objective; an ``--objective``
    that differs cannot be honoured for it and is refused before any work; the report says
    which system chose by what."""
    from systems.base import register_preset, unregister

    register_preset(
        "toy-floor", RecordingSystem, {}, "floored", tuned=True, objective="recall@precision=0.9"
    )
    try:
        result = _tuned_result("toy-floor,toy-recording", ())
        info = {o.system: o.info for o in result.outcomes if o.fold == 0}
        assert info["toy-floor"]["objective"] == "recall@precision=0.9"
        assert info["toy-recording"]["objective"] == "f2"  # the run's default
        assert result.systems["toy-floor"]["objective"] == "recall@precision=0.9"
        meta = run_info(result, ["python", "-m", "bench", "run"])
        assert meta["objective"] == "f2"
        text = render_report(result, meta)
        assert "objective `f2` (`recall@precision=0.9` for `toy-floor`)" in text
        with pytest.raises(UsageError, match="'toy-floor' chooses by its own objective"):
            resolve_systems(["toy-floor"], RunConfig(objective="f1"))
        assert resolve_systems(["toy-floor"], RunConfig(objective="recall@precision=0.9"))
    finally:
        unregister("toy-floor")


def test_the_recommended_preset_is_declared_with_its_copies_and_operating_point() -> None:
    """``recommended`` is the Mega SVM with date features, trained with one to three
    random-string copies and a dictionary-surrogate copy of each note, tuned for the most
    recall at 87.5 % precision in any run, the number of copies included (every choice inside
    the training folds); ``--param recommended.augment`` still replaces its copies, and the
    run's ``--augment`` does not."""
    from bench.training.augment import Augmented as AugmentedWrapper
    from systems.mega import MEGA_WITH_DATES, MegaSVM

    spec = resolve_systems(["recommended"], RunConfig(augment=("surrogate",)))["recommended"]
    assert spec.cls is MegaSVM and spec.params["sources"] == MEGA_WITH_DATES
    choices = tuple(("unseen",) * n + ("surrogate",) for n in (1, 2, 3))
    assert spec.augment == choices[0] and spec.augment_choices == choices
    wrappers = dict(spec.wrappers)
    assert wrappers[AugmentedWrapper]["variants"] == choices[0]
    assert wrappers[Tuned]["variant_choices"] == choices
    assert wrappers[Tuned]["objective"] == "recall@precision=0.875"
    assert wrappers[Tuned]["selection_variants"] == ("unseen", "surrogate")
    plain = resolve_systems(
        ["recommended"], RunConfig(system_params={"recommended": {"augment": "none"}})
    )["recommended"]
    assert plain.augment == () and AugmentedWrapper not in dict(plain.wrappers)

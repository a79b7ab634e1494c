"""Overlap matching of entities: the sort-and-sweep gives exactly the matches of the
pairwise greedy it replaced (kept here as the reference), on seeded random documents."""

from __future__ import annotations

import random

import pytest

from bench.score.metrics import Entity, _match_entities, entities_from_labels
from corpora.model import OUTSIDE, Token


def _pairwise_greedy(gold: list[Entity], pred: list[Entity]) -> tuple[int, int, int]:
    """The former quadratic matcher: each gold phrase in sorted order takes the first
    unused predicted phrase (in list order) that shares a character with it."""
    used = [False] * len(pred)
    tp = 0
    for gs, ge, _ in sorted(gold):
        for j, (ps, pe, _) in enumerate(pred):
            if not used[j] and ps < ge and gs < pe:
                used[j] = True
                tp += 1
                break
    return tp, len(pred) - tp, len(gold) - tp


def _tokens(rng: random.Random, n: int) -> list[Token]:
    tokens, pos = [], 0
    for i in range(n):
        pos += rng.randint(0, 2)  # tokens may touch
        length = rng.randint(1, 6)
        tokens.append(Token("x" * length, pos, pos + length, i, 0, ""))
        pos += length
    return tokens


def _gold(rng: random.Random, tokens: list[Token]) -> list[Entity]:
    """Phrases over token boundaries, some nested or overlapping (gold spans of several
    categories may overlap after snapping), in random order."""
    out = []
    for _ in range(rng.randint(0, len(tokens))):
        a = rng.randrange(len(tokens))
        b = min(len(tokens) - 1, a + rng.randint(0, 3))
        out.append((tokens[a].start, tokens[b].end, "X"))
    rng.shuffle(out)
    return out


@pytest.mark.parametrize("seed", range(300))
def test_sort_and_sweep_matches_the_pairwise_greedy(seed: int) -> None:
    rng = random.Random(seed)
    tokens = _tokens(rng, rng.randint(1, 40))
    labels = [rng.choice([OUTSIDE, OUTSIDE, "X", "Y"]) for _ in tokens]
    pred = [e for e in entities_from_labels(tokens, labels) if e[2] == "X"]
    gold = _gold(rng, tokens)
    assert _match_entities(gold, pred, "overlap") == _pairwise_greedy(gold, pred)


def test_predicted_phrases_out_of_text_order_are_refused() -> None:
    with pytest.raises(ValueError, match="disjoint and in text order"):
        _match_entities([(0, 3, "X")], [(5, 8, "X"), (0, 3, "X")], "overlap")

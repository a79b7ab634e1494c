"""The one verdict rule of every ``reproduce`` report, and the tests a claim's parts use.

``docs/reproduce.md`` states the rule once; :func:`judge` is the only code that applies it.
A claim of a paper is split into *parts* (:class:`Part`), each a statement our numbers can
make true or false ("the SVM's F is above IdentiFinder's on Table 2's corpus", "the
held-out F is at most one point below the cross-validated one") with a test of its own.
Then, with Holm's correction over the claim's parts (its family):

* **supported**: every part goes the claim's way and every part's test is significant at α;
* **partly supported**: some part goes the claim's way, but not all of them do, or not all
  significantly -- the evidence names each part that falls short;
* **not supported**: no part goes the claim's way;
* **not tested**: no part could be measured.

Tests are on documents, never on tokens as if they were independent
(:mod:`bench.score.significance`): approximate randomization when two systems (or settings)
labelled the same documents, a randomization test that deals documents again between the
two sets when they did not, and a bootstrap over documents when the part is about a size
("at most one point lower", "within one point of", "above 81 %").  The token z-test of
Tafvizi (2011, eqs. 3.4-3.5) is printed in her tables as *her* test and decides nothing.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from bench.reproduce.common import (
    NOT_SUPPORTED,
    NOT_TESTED,
    PARTLY,
    SUPPORTED,
    Verdict,
    aligned,
    fmt_p,
    measure,
)

if TYPE_CHECKING:
    from bench.reproduce.common import Options

Counts = Mapping[str, np.ndarray]

#: Names of the tests, as the reports print them.
RANDOMIZATION = "approximate randomization over documents"
UNPAIRED_RANDOMIZATION = "randomization test dealing documents between the two sets"
BOOTSTRAP = "bootstrap over documents"


@dataclass(frozen=True)
class Part:
    """One part of a claim: what it says, whether our numbers go its way, its test's p."""

    label: str
    #: our point estimate goes the claim's way (None: not measured)
    holds: bool | None
    #: the part's test, before Holm's correction (nan: not measured)
    p: float
    #: the numbers behind it ("98.5 vs 98.0")
    detail: str = ""

    @property
    def measured(self) -> bool:
        return self.holds is not None and not math.isnan(self.p)


def judge(parts: Sequence[Part], alpha: float) -> tuple[str, str]:
    """(verdict, evidence) of a claim made of ``parts``, by the rule of ``docs/reproduce.md``.

    Holm's correction runs over the measured parts; the evidence says how many parts hold
    significantly and names every other part with its numbers and corrected p.
    """
    from bench.score.significance import holm_adjusted

    measured = [p for p in parts if p.measured]
    if not measured:
        return NOT_TESTED, "not measured"
    adjusted = holm_adjusted({p.label: p.p for p in measured})
    strong = [p for p in measured if p.holds and adjusted[p.label] < alpha]
    weak = [p for p in measured if p.holds and adjusted[p.label] >= alpha]
    against = [p for p in measured if not p.holds]
    missing = [p for p in parts if not p.measured]
    if len(strong) == len(parts):
        verdict = SUPPORTED
    elif strong or weak:
        verdict = PARTLY
    else:
        verdict = NOT_SUPPORTED
    reversed_ = [p for p in against if adjusted[p.label] < alpha]
    against = [p for p in against if adjusted[p.label] >= alpha]
    return verdict, _evidence(parts, strong, weak, (reversed_, against), missing, adjusted)


def verdict_of(
    claim: str, source: str, parts: Sequence[Part], alpha: float, test: str, what: str, reason=""
) -> Verdict:
    """A paper's claim with its place, test and parts, judged by :func:`judge`: what every
    claims module returns, so each states its claim and leaves the rule to one place."""
    verdict, evidence = judge(parts, alpha)
    test = f"{test}; Holm over {len(parts)}, α = {alpha}"
    return Verdict(claim, source, verdict, evidence, test, what, reason)


def _evidence(
    parts: Sequence[Part],
    strong: Sequence[Part],
    weak: Sequence[Part],
    against: tuple[Sequence[Part], Sequence[Part]],
    missing: Sequence[Part],
    adjusted: Mapping[str, float],
) -> str:
    """The evidence: how many parts hold significantly, then every other part by name --
    holding but not significantly, reversed significantly (ours goes against the paper), or
    not holding."""
    reversed_, against_ = against

    def named(group: Sequence[Part]) -> str:
        return "; ".join(
            f"{p.label} ({p.detail + ', ' if p.detail else ''}p {fmt_p(adjusted.get(p.label))})"
            for p in group
        )

    if len(parts) == 1:
        p = parts[0]
        state = (
            "holds, significant"
            if strong
            else "holds, not significant"
            if weak
            else "reversed, significantly"
            if reversed_
            else "does not hold, not significantly"
            if against_
            else "not measured"
        )
        numbers = f"{p.detail}, " if p.detail else ""
        return f"{p.label}: {state} ({numbers}p {fmt_p(adjusted.get(p.label))})"
    out = [f"{len(strong)} of {len(parts)} parts hold significantly"]
    if strong and len(strong) <= 4 and len(strong) < len(parts):
        out.append("they are: " + named(strong))
    if weak:
        out.append("hold, not significant: " + named(weak))
    if reversed_:
        out.append("reversed, significantly: " + named(reversed_))
    if against_:
        out.append("do not hold, not significantly: " + named(against_))
    if missing:
        out.append("not measured: " + "; ".join(p.label for p in missing))
    return "; ".join(out)


# --------------------------------------------------------------------------- part tests


def _detail(a: float, b: float, unit: str = "") -> str:
    return f"{100 * a:.1f} vs {100 * b:.1f}{unit}"


def higher(
    label: str,
    a: Counts,
    b: Counts,
    options: Options,
    statistic: str = "f1",
    lower: bool = False,
) -> Part:
    """The part "``a``'s statistic is above ``b``'s" (below, with ``lower``): approximate
    randomization when both labelled the same documents, else the two-sample
    randomization test."""
    from bench.score.significance import approximate_randomization, unpaired_randomization

    if not a or not b:
        return Part(label, None, float("nan"))
    pair = aligned(a, b)
    if pair is not None:
        diff, p = approximate_randomization(
            pair[0], pair[1], n_shuffles=options.n_shuffles, seed=options.seed, statistic=statistic
        )
    else:
        diff, p = unpaired_randomization(
            _stack(a),
            _stack(b),
            n_shuffles=options.n_shuffles,
            seed=options.seed,
            statistic=statistic,
        )
    holds = diff < 0 if lower else diff > 0
    return Part(label, holds, p, _detail(measure(a, statistic), measure(b, statistic)))


def from_test(label: str, value_a: float, value_b: float, p: float, lower: bool = False) -> Part:
    """A part whose test ran elsewhere (the runner's cached approximate randomization)."""
    if any(math.isnan(x) for x in (value_a, value_b, p)):
        return Part(label, None, float("nan"))
    holds = value_a < value_b if lower else value_a > value_b
    return Part(label, holds, p, _detail(value_a, value_b))


def either(label: str, parts: Sequence[Part]) -> Part:
    """The part "one of ``parts`` holds" (the report's "precision and/or recall"): it holds if any
    does, and its p is the smallest p of those that hold times their number (Bonferroni
    within the part, so choosing the better measure after the fact costs its price)."""
    measured = [p for p in parts if p.measured]
    if not measured:
        return Part(label, None, float("nan"))
    holding = [p for p in measured if p.holds]
    p = min(1.0, min(q.p for q in holding) * len(measured)) if holding else 1.0
    return Part(label, bool(holding), p, "; ".join(f"{q.label} {q.detail}" for q in measured))


def within(
    label: str,
    a: Counts,
    b: Counts,
    options: Options,
    margin: float,
    side: str = "both",
    statistic: str = "f1",
) -> Part:
    """A part about the size of ``a - b`` (``margin`` in points): ``"both"``, within
    ``margin`` either way (two one-sided bootstrap tests, the larger p); ``"not lower"``,
    ``a`` at most ``margin`` below ``b``; ``"not higher"``, at most ``margin`` above."""
    from bench.score.significance import share_at_least, share_at_most

    if not a or not b:
        return Part(label, None, float("nan"))
    diff, replicates = _difference_replicates(a, b, options, statistic)
    m = margin / 100
    low, high = share_at_most(replicates, -m), share_at_least(replicates, m)
    p, holds = {
        "both": (max(low, high), abs(diff) < m),
        "not lower": (low, diff > -m),
        "not higher": (high, diff < m),
    }[side]
    numbers = _detail(measure(a, statistic), measure(b, statistic))
    unit = "point" if round(margin, 1) == 1 else "points"
    detail = f"{numbers}, margin {round(margin, 1):g} {unit}"
    return Part(label, holds, p, detail)


def beyond(
    label: str,
    counts: Counts,
    value: float,
    options: Options,
    statistic: str = "f1",
    below: bool = False,
) -> Part:
    """The part "the statistic is above ``value``" (below, with ``below``): bootstrap over
    documents."""
    from bench.score.significance import STATISTICS, paired_bootstrap, share_at_least, share_at_most

    if not counts:
        return Part(label, None, float("nan"))
    f = STATISTICS[statistic]
    observed, replicates = paired_bootstrap(
        [_stack(counts)], lambda s: f(s[0]), n_resamples=options.n_shuffles, seed=options.seed
    )
    p = share_at_least(replicates, value) if below else share_at_most(replicates, value)
    holds = observed < value if below else observed > value
    return Part(label, holds, p, f"{100 * observed:.1f} vs {100 * value:.1f}")


def sized(
    label: str,
    counts: Sequence[Counts],
    combine: Callable[[list[np.ndarray]], np.ndarray],
    bound: float,
    options: Options,
    below: bool = False,
    share: bool = False,
) -> Part:
    """The part "a statistic of several paired counts is above ``bound``" (below, with
    ``below``), e.g. a difference of two gains (``share``: a share, such as of sentences with
    one entity): bootstrap over the documents they share."""
    from bench.score.significance import paired_bootstrap, share_at_least, share_at_most

    arrays = aligned(*counts)
    if arrays is None:
        return Part(label, None, float("nan"))
    observed, replicates = paired_bootstrap(
        arrays, combine, n_resamples=options.n_shuffles, seed=options.seed
    )
    p = share_at_least(replicates, bound) if below else share_at_most(replicates, bound)
    holds = observed < bound if below else observed > bound
    detail = _detail(observed, bound, " %") if share else f"{100 * observed:+.1f} points"
    return Part(label, holds, p, detail)


def _difference_replicates(
    a: Counts, b: Counts, options: Options, statistic: str
) -> tuple[float, np.ndarray]:
    from bench.score.significance import STATISTICS, paired_bootstrap, unpaired_bootstrap

    f = STATISTICS[statistic]
    pair = aligned(a, b)
    if pair is not None:
        return paired_bootstrap(
            pair, lambda s: f(s[0]) - f(s[1]), n_resamples=options.n_shuffles, seed=options.seed
        )
    return unpaired_bootstrap(
        _stack(a),
        _stack(b),
        lambda x, y: f(x) - f(y),
        n_resamples=options.n_shuffles,
        seed=options.seed,
    )


def _stack(counts: Counts) -> np.ndarray:
    ids = sorted(counts)
    return np.array([counts[i] for i in ids], dtype=np.float64).reshape(len(ids), 3)

"""What the three ``reproduce`` commands share: their options, the runner calls, per-document
counts, verdicts, and the Markdown pieces of the reports.

A reproduction is the paper's experiments run through the one runner
(:func:`bench.run.runner.run`, cached per cell, so a repeated command or a ``run`` with the same
systems, corpora, folds and seed reuses every prediction), then each published table printed
beside ours and each claim of the paper judged by the one rule of ``docs/reproduce.md``
(:func:`bench.reproduce.verdicts.judge`) from the tests of its parts.  A verdict is one of
:data:`VERDICTS`; its parts and tests are printed with it, so a reader can check the verdict
against the numbers.
"""

from __future__ import annotations

import math
import platform
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from bench.report import markdown
from bench.report.markdown import pct
from bench.score.significance import DEFAULT_RESAMPLES, DEFAULT_SHUFFLES
from corpora.variants import PAPER_CORPORA

if TYPE_CHECKING:
    import pandas as pd

    from bench.reproduce.paper_figures import Published as PublishedRow
    from bench.run.run_types import RunConfig, RunResult
    from bench.score.scoring import Scorer

SUPPORTED = "supported"
PARTLY = "partly supported"
NOT_SUPPORTED = "not supported"
NOT_TESTED = "not tested"
#: Every verdict the rule can return.
VERDICTS = (SUPPORTED, PARTLY, NOT_SUPPORTED, NOT_TESTED)
#: The margin (points of a percentage) of every claim that two figures are "similar", "not
#: affected" or "not diminished" where the paper names none: Sibanda & Uzuner (2006,
#: footnote 8) treat a difference of 1 % as a real one.
SAME_POINTS = 1.0

#: ``--quick``: a smoke test of the whole command in about a minute (numbers meaningless).
QUICK = {"n_documents": 60, "folds": 3, "n_shuffles": 1000, "n_resamples": 200}


@dataclass(frozen=True)
class Options:
    """Everything a ``reproduce`` command depends on (the report names the command)."""

    base: str = "authentic"
    other: str | None = None
    out: Path = Path("reports")
    folds: int = 10
    seed: int = 0
    #: How documents are kept together in folds (:data:`corpora.folds.GROUP_BY_CHOICES`).
    group_by: str = "auto"
    n_documents: int | None = None
    phi_rate: float = 1.0
    category_weights: tuple[tuple[str, float], ...] = ()
    jobs: int = -1
    dictionaries: str | None = None
    alpha: float = 0.05
    n_shuffles: int = DEFAULT_SHUFFLES
    n_resamples: int = DEFAULT_RESAMPLES
    lenient: bool = False
    show_progress: bool = True
    command: tuple[str, ...] = ()
    #: System (or role) -> registry name and parameters, to swap in other systems (tests).
    systems: Mapping[str, Role] | None = None
    #: Feature classes the §6.4 information-gain ranking covers (None: the paper's set;
    #: empty: no ranking).
    ranked_features: tuple[str, ...] | None = None

    def quick(self) -> Options:
        """The ``--quick`` options: small corpus, few folds, few shuffles.  A corpus read
        from files keeps its size: only the embedded one is generated to a size."""
        from corpora.load import uses_generator

        embedded = any(uses_generator(s) for s in (self.base, self.other) if s)
        n = self.n_documents
        if n is None and embedded:
            n = QUICK["n_documents"]
        return replace(
            self,
            n_documents=n,
            folds=min(self.folds, QUICK["folds"]),
            n_shuffles=min(self.n_shuffles, QUICK["n_shuffles"]),
            n_resamples=min(self.n_resamples, QUICK["n_resamples"]),
        )

    def run_config(
        self,
        roles: Sequence[Role],
        corpora: Sequence[str],
        **overrides: Any,
    ) -> RunConfig:
        """The runner's configuration for ``roles`` on ``corpora`` with these options."""
        from bench.run.run_types import RunConfig

        systems = [r.system if r.name == r.system else f"{r.name}={r.system}" for r in roles]
        params = {r.name: dict(r.params) for r in roles if r.params}
        values: dict[str, Any] = dict(
            systems=[",".join(systems)],
            corpora=list(corpora),
            folds=self.folds,
            seed=self.seed,
            group_by=self.group_by,
            lenient=self.lenient,
            n_documents=self.n_documents,
            phi_rate=self.phi_rate,
            category_weights=self.category_weights,
            dictionaries=self.dictionaries,
            jobs=self.jobs,
            show_progress=self.show_progress,
            alpha=self.alpha,
            n_resamples=self.n_resamples,
            n_shuffles=self.n_shuffles,
            system_params=params,
        )
        values.update(overrides)
        return RunConfig(**values)


#: The embedded corpus's names (``--base`` values that need no data).
EMBEDDED = PAPER_CORPORA


def data_reason(base: str) -> str:
    """Why our numbers differ from any paper's whatever the system: the data."""
    if base in EMBEDDED:
        return (
            "Our notes are generated from templates whose pattern families recur across "
            "folds, so learned systems meet familiar contexts, and the corpus is smaller than "
            "the papers'; theirs were real Partners discharge summaries."
        )
    return (
        "Our notes are not the papers' Partners discharge summaries (another hospital, "
        "another kind of note, another annotation guideline)."
    )


@dataclass(frozen=True)
class Role:
    """A system playing a part in a paper's experiment.

    ``name`` is its name in the run and the report, ``system`` the registry name (the same
    system may play two parts with different ``params``), ``paper`` the paper's name for it.
    """

    name: str
    system: str
    params: Mapping[str, Any] = field(default_factory=dict)
    paper: str = ""


def roles_from(defaults: Mapping[str, Role], options: Options) -> dict[str, Role]:
    """The default roles, with any the options replace."""
    return {**defaults, **dict(options.systems or {})}


@dataclass(frozen=True)
class Verdict:
    """One claim of a paper, our verdict on it, and how the verdict was reached."""

    claim: str
    source: str
    verdict: str
    evidence: str
    test: str
    #: the claim's parts, each of which the rule tests
    parts: str
    #: why we believe ours differs from the paper (printed unless supported)
    reason: str = ""


@dataclass
class Report:
    """A finished reproduction: the Markdown, its figures (file name -> PNG bytes), and the
    verdicts (also in the Markdown)."""

    name: str
    markdown: str
    verdicts: list[Verdict]
    figures: dict[str, bytes] = field(default_factory=dict)
    #: Some system failed on some corpus (its rows say "not run"; exit code 1).
    failed: bool = False

    def write(self, out: Path) -> Path:
        """``out/<name>.md`` and its figures beside it, each written atomically."""
        from infra.cache import atomic_write_bytes, atomic_write_text

        out.mkdir(parents=True, exist_ok=True)
        for file_name, data in self.figures.items():
            atomic_write_bytes(out / file_name, data)
        path = out / f"{self.name}.md"
        atomic_write_text(path, self.markdown)
        return path


class Clock:
    """Start date and wall time of a reproduction (printed in its header)."""

    def __init__(self) -> None:
        self.started = datetime.now(UTC).isoformat(timespec="seconds")
        self._t0 = time.perf_counter()

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self._t0


# --------------------------------------------------------------------------- formatting


def fmt_p(p: float | None) -> str:
    """A p-value for a table."""
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return ""
    return "< 0.0001" if p < 1e-4 else f"{p:.4f}" if p < 0.01 else f"{p:.3f}"


def md_table(rows: Sequence[Sequence[Any]], headers: Sequence[str]) -> str:
    """:func:`bench.report.markdown.md_table` of the cells as text (``str(x)``, so a float
    reads as Python writes it)."""
    return markdown.md_table([[str(c) for c in r] for r in rows], headers)


def header(
    title: str,
    options: Options,
    clock: Clock,
    lines: Sequence[str] = (),
) -> list[str]:
    """The report's title and "How this was produced" section."""
    from bench.report.outputs import package_versions

    command = " ".join(options.command) if options.command else "(called from Python)"
    packages = ", ".join(f"{k} {v}" for k, v in package_versions().items() if v is not None)
    return [
        f"# {title}",
        "",
        "## How this was produced",
        "",
        f"- Command: `{command}`",
        f"- Seed: {options.seed}; folds: {options.folds} (grouped by: {options.group_by}); "
        f"α = {options.alpha}; "
        f"tests (approximate randomization, resampling): {options.n_shuffles:,} draws; "
        f"bootstrap intervals: {options.n_resamples:,} resamples",
        *lines,
        f"- Date (UTC): {clock.started}; wall time {clock.seconds:.0f} s (cached cells make a "
        "repeated command fast; the numbers do not depend on the cache, the job count or "
        "the backend)",
        f"- Packages: {packages}; Python {platform.python_version()}",
        "",
        "Published figures are the paper's own, measured on *its* data; ours are measured on "
        "the corpora named above. Every verdict is computed from this run's numbers by the one "
        "rule of `docs/reproduce.md` (`bench/reproduce/verdicts.py`) from the tests of the "
        "claim's parts, never chosen by hand.",
        "",
    ]


def verdict_section(verdicts: Sequence[Verdict]) -> list[str]:
    """The claims table, then each claim's parts (the rule itself is in docs/reproduce.md)."""
    rows = [
        [
            v.claim,
            v.source,
            f"**{v.verdict}**",
            v.evidence + (f". Why: {v.reason}" if v.reason and v.verdict != SUPPORTED else ""),
            v.test,
        ]
        for v in verdicts
    ]
    out = [
        "## Claims and verdicts",
        "",
        md_table(rows, ["Claim", "Where", "Verdict", "Our evidence", "Test"]),
        "",
        "The rule (`docs/reproduce.md`, applied by `bench/reproduce/verdicts.py`): a claim is "
        "*supported* when every one of its parts goes the claim's way and is significant at "
        "α after Holm's correction over the claim's parts, *partly supported* when some "
        "part goes its way but not every part, or not every part significantly (each named), "
        "*not supported* otherwise. The parts of each claim:",
        "",
    ]
    out += [f"- *{v.claim}*: {v.parts}" for v in verdicts]
    out.append("")
    return out


def figure_png(fig: Any) -> bytes:
    """A matplotlib figure as PNG bytes (closed afterwards)."""
    import io

    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


# --------------------------------------------------------------------------- runs


def run(config: RunConfig, preloaded: Mapping[str, Any] | None = None) -> RunResult:
    """:func:`bench.run.runner.run`, with progress on stderr.  A system that fails leaves its
    table rows "not run" and its claims "not tested"; :func:`failures_section` lists it."""
    from bench.run.runner import run as run_cells

    return run_cells(config, preloaded)


def failures_section(results: Sequence[RunResult]) -> list[str]:
    """Systems that did not run (skipped or failed) in any of ``results``."""
    seen: dict[tuple[str, str], str] = {}
    for result in results:
        for f in result.failures:
            first = (f["error"] or "failed").splitlines()[0]
            seen.setdefault((f["system"], f["corpus"]), first)
    if not seen:
        return []
    rows = [[s, c, e] for (s, c), e in sorted(seen.items())]
    return ["## Systems that did not run", "", md_table(rows, ["System", "Corpus", "Why"]), ""]


def scorer_for(result: RunResult) -> Scorer:
    """A :class:`bench.score.scoring.Scorer` over a finished run (for tests the runner does not
    make: other subsets, other pairs, the same system on two corpora)."""
    from bench.run.plan import resolve_systems
    from bench.score.scoring import Scorer

    specs = resolve_systems(result.config.systems, result.config)
    return Scorer(result.outcomes, result.corpora, result.splits, specs, result.config)


def row(
    df: pd.DataFrame,
    system: str,
    corpus: str,
    subset: str = "all",
    label: str = "PHI",
    level: str = "token",
) -> Any:
    """One results.csv row (a pandas Series) or None."""
    sel = df[
        (df.system == system)
        & (df.corpus == corpus)
        & (df.subset == subset)
        & (df.label == label)
        & (df.level == level)
    ]
    return None if sel.empty else sel.iloc[0]


def ar_p(scorer: Scorer, corpus: str, a: str, b: str, subset: str) -> tuple[float, float]:
    """(F1_a - F1_b, p) of approximate randomization on F1 over documents (cached)."""
    for t in scorer.test_pair(corpus, a, b, subset):
        if t["test"] == "approximate_randomization_f1":
            return float(t["statistic"]), float(t["p_value"])
    return float("nan"), float("nan")


def document_counts(
    scorer: Scorer,
    system: str,
    corpus: str,
    subset: str = "all",
    label: str | None = None,
    fraction: float = 1.0,
) -> dict[str, np.ndarray]:
    """Per-document (tp, fp, fn) of ``system`` on ``corpus``, by document id."""
    from bench.score import metrics

    got = scorer.pooled(system, corpus, fraction)
    if got is None:
        return {}
    counts = metrics.per_document_counts(got.documents, got.labels, label, subset)
    return {doc.id: counts[i] for i, doc in enumerate(got.documents)}


def aligned(*by_id: Mapping[str, np.ndarray]) -> list[np.ndarray] | None:
    """The per-document counts as arrays in one document order, or None when the mappings
    do not hold the same documents (so no paired test is possible)."""
    if not by_id or not by_id[0]:
        return None
    ids = sorted(by_id[0])
    if any(set(m) != set(ids) for m in by_id[1:]):
        return None
    return [np.array([m[i] for i in ids], dtype=np.float64).reshape(len(ids), 3) for m in by_id]


def measure(counts: Mapping[str, np.ndarray], statistic: str = "f1") -> float:
    """A statistic of summed per-document counts."""
    from bench.score.significance import STATISTICS

    if not counts:
        return float("nan")
    return float(STATISTICS[statistic](np.sum(list(counts.values()), axis=0)))


# --------------------------------------------------------------------------- paper vs ours


def side_by_side(
    entries: Sequence[tuple[PublishedRow, str, Any]],
    p_values: Mapping[str, float] | None = None,
) -> str:
    """Paper's P/R/F beside ours for each (published row, our system, our results row).

    ``p_values`` maps our system to the p-value shown for its PHI row (a test against the
    paper's local-context system).  The last column says whether the paper's F lies inside
    our 95 % confidence interval.
    """
    rows = []
    for pub, ours, r in entries:
        if r is None:
            rows.append(
                [
                    pub.paper_system,
                    ours,
                    pub.label,
                    *(_f(x) for x in (pub.precision, None, pub.recall, None, pub.f1, None)),
                    "",
                    "",
                    "not run",
                ]
            )
            continue
        ci = _ci(r)
        inside = _inside(pub.f1, r)
        p = (p_values or {}).get(ours) if pub.label == "PHI" else None
        rows.append(
            [
                pub.paper_system,
                ours,
                pub.label,
                _f(pub.precision),
                pct(float(r.precision)),
                _f(pub.recall),
                pct(float(r.recall)),
                _f(pub.f1),
                pct(float(r.f1)),
                ci,
                fmt_p(p) if p is not None else "",
                "" if inside is None else ("yes" if inside else "**no**"),
            ]
        )
    return md_table(
        rows,
        [
            "Paper",
            "Ours",
            "Class",
            "P paper",
            "P ours",
            "R paper",
            "R ours",
            "F paper",
            "F ours",
            "95% CI of our F",
            "p vs SVM (Holm)",
            "paper's F in our CI",
        ],
    )


def _f(x: float | None) -> str:
    return "" if x is None else f"{x:.1f}"


def _ci(r: Any) -> str:
    low, high = float(r.f1_ci_low), float(r.f1_ci_high)
    if math.isnan(low):
        return ""
    return f"{pct(low)}–{pct(high)}"


def _inside(published_f1: float | None, r: Any) -> bool | None:
    """Is the paper's F (percent) inside our CI (rounded to our printed precision)?"""
    if published_f1 is None or r is None or math.isnan(float(r.f1_ci_low)):
        return None
    low, high = round(100 * float(r.f1_ci_low), 1), round(100 * float(r.f1_ci_high), 1)
    return low <= published_f1 <= high


def disagreements(
    entries: Sequence[tuple[str, PublishedRow, str, Any]],
    reason: Callable[[str, bool], str],
    extra: Sequence[tuple[str, bool, str]] = (),
) -> list[str]:
    """Bullets for the rows whose published F lies outside our CI, one per (our system,
    direction), each with the reason we believe explains it (``reason(system, higher)``).

    ``entries`` are (table, published row, our system, our results row); ``extra`` are
    disagreements on other measures, as (our system, ours higher, "Table N ... x → y").
    """
    groups: dict[tuple[str, bool], list[str]] = {}
    for table, pub, ours, r in entries:
        if _inside(pub.f1, r) is False:
            f_ours = 100 * float(r.f1)
            higher = f_ours > (pub.f1 or 0.0)
            groups.setdefault((ours, higher), []).append(
                f"{table} {pub.label} {pub.f1:.1f} → {f_ours:.1f}"
            )
    for ours, higher, case in extra:
        groups.setdefault((ours, higher), []).append(case)
    return [
        f"- `{ours}` {'above' if higher else 'below'} the paper ({'; '.join(cases)}): "
        + reason(ours, higher)
        for (ours, higher), cases in groups.items()
    ]


def command_line(argv: Sequence[str] | None) -> tuple[str, ...]:
    """The command as typed (``python -m bench ...``)."""
    return ("python", "-m", "bench", *(sys.argv[1:] if argv is None else argv))

"""The runner: every chosen system on every chosen corpus, under one protocol, scored.

A run is a pipeline of small typed steps, each a module with one entry point::

    plan      bench.run.plan.make_plan       config -> systems, corpora, splits, cells
    execute   bench.run.cells.execute_plan   cells -> predictions (cached, in parallel)
    score     bench.score.scoring.Scorer       predictions -> results, tests, operating points
    write     bench.report.outputs              tables, run.json, report.md, plots

``python -m bench run`` is a thin shell around :func:`run` and
:func:`bench.report.outputs.write_outputs`.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from bench.report import ledger
from bench.run.cells import execute_plan
from bench.run.plan import Plan, make_plan, resolve_corpora, resolve_systems
from bench.run.run_types import (
    DEFAULT_CORPORA,
    RESULT_COLUMNS,
    SIGNIFICANCE_COLUMNS,
    CellOutcome,
    RunConfig,
    RunResult,
    SystemSpec,
    UsageError,
)
from bench.run.schedule import workers_for
from bench.score import dominance, generalization, peer_comparison
from bench.score.scoring import Scorer, headline_subset
from corpora.model import Corpus
from infra import cache


def run(config: RunConfig, preloaded: Mapping[str, Corpus] | None = None) -> RunResult:
    """Plan, execute every cell, score and test; the caller writes the outputs.

    ``preloaded`` maps corpus names to ready :class:`Corpus` objects (tests, notebooks);
    other names in ``config.corpora`` are loaded as corpus specs.
    """
    started = datetime.now(UTC).isoformat(timespec="seconds")
    t0 = time.perf_counter()
    plan = make_plan(config, preloaded)
    t_plan = time.perf_counter()
    outcomes = execute_plan(plan, config)
    t_execute = time.perf_counter()

    failures = _failures(outcomes)
    scorer = _scorer(plan, outcomes, config)
    results, learning = scorer.results()
    significance = scorer.significance()
    operating_points = scorer.operating_points()
    variant_comparison = scorer.variant_comparison()
    curves = {corpus: scorer.curves(corpus) for corpus in plan.splits}
    peers = peer_comparison.compare(scorer)
    variant_categories = generalization.category_comparison(scorer)
    pairs = dominance.dominance_table(scorer)
    t_score = time.perf_counter()
    result = RunResult(
        config=config,
        corpora=plan.corpora,
        skipped=plan.skipped,
        splits=plan.splits,
        systems=_system_descriptions(plan, outcomes),
        outcomes=outcomes,
        results=results,
        significance=significance,
        learning_curve=learning,
        failures=failures,
        started=started,
        wall_seconds=time.perf_counter() - t0,
        operating_points=operating_points,
        variant_comparison=variant_comparison,
        grouping=plan.grouping,
        curves=curves,
        peer_comparison=peers,
        overlap=plan.overlap.as_dict(),
        phases={
            "plan": round(t_plan - t0, 2),
            "execute": round(t_execute - t_plan, 2),
            "score": round(t_score - t_execute, 2),
        },
        variant_categories=variant_categories,
        dominance=pairs,
    )
    result.ledger = ledger.record(result, plan.systems)  # after scoring: what was looked at
    return result


def _failures(outcomes: list[CellOutcome]) -> list[dict[str, Any]]:
    """The cells that failed or were skipped, as run.json lists them: which cell and why."""
    return [
        {
            "system": o.system,
            "corpus": o.corpus,
            "protocol": o.protocol,
            "fold": o.fold,
            "fraction": o.fraction,
            "error": o.error,
            "skipped": o.skipped,
        }
        for o in outcomes
        if not o.ok
    ]


def _scorer(plan: Plan, outcomes: list[CellOutcome], config: RunConfig) -> Scorer:
    """The scorer of the cells' predictions, announced first (scoring a very long note
    takes seconds); with fresh cells, several corpora and several workers, each corpus is
    first scored in a worker of its own into the score cache, which the scoring in this
    process then only reads."""
    if config.show_progress:
        scored = sum(o.n_tokens for o in outcomes if o.ok)
        print(f"scoring {scored:,} labelled tokens of {len(outcomes)} cells", file=sys.stderr)
    scorer = Scorer(outcomes, plan.corpora, plan.splits, plan.systems, config)
    fresh = any(not o.cached for o in outcomes)  # else the scores are cached too, mostly
    if fresh and workers_for(config.jobs) > 1 and len(plan.splits) > 1:
        if cache.caching_enabled() and config.backend != "dask":
            scorer.prefetch(plan.tasks[0].env if plan.tasks else {})
    return scorer


def _system_descriptions(plan: Plan, outcomes: list[CellOutcome]) -> dict[str, dict[str, Any]]:
    """What run.json and the report say of each system: where it comes from, how it
    departs from its original, its parameters and tags, and how it ran."""
    return {
        name: {
            "description": spec.description,
            "citation": spec.cls.citation,
            "departures": spec.departures,
            "compared_on": list(spec.cls.compared_on),
            "registered": spec.cls.name,
            "params": dict(spec.params),
            "tags": spec.tags.as_dict(),
            "wrappers": [w.__name__ for w, _ in spec.wrappers],
            **_objective(spec),
            "augment": list(spec.augment),
            **({"augment_choices": [list(c) for c in spec.augment_choices]}
               if spec.augment_choices else {}),
            "requires_training": spec.tags.requires_training,
            "external": spec.cls.external,
            "predicts_categories": spec.tags.predicts_categories,
            "headline_subset": headline_subset(spec),
            **_external_setup(name, outcomes),
        }
        for name, spec in plan.systems.items()
    }


def _objective(spec: SystemSpec) -> dict[str, str]:
    """A tuned system's objective (a preset may keep its own, not the run's)."""
    for _, params in spec.wrappers:
        if "objective" in params:
            return {"objective": params["objective"]}
    return {}


def _external_setup(system: str, outcomes: list[CellOutcome]) -> dict[str, Any]:
    """How an external tool ran (its ``runs_as`` line: version, configuration, e.g.
    "pattern recognizers only") and on how many notes it failed, from its cells."""
    infos = [o.info for o in outcomes if o.system == system and o.info.get("runs_as")]
    if not infos:
        return {}
    failed = sum(len(i.get("note_failures", ())) for i in infos)
    return {"runs_as": infos[0]["runs_as"], "failed_notes": failed}


__all__ = [
    "DEFAULT_CORPORA",
    "RESULT_COLUMNS",
    "SIGNIFICANCE_COLUMNS",
    "CellOutcome",
    "RunConfig",
    "RunResult",
    "UsageError",
    "resolve_corpora",
    "resolve_systems",
    "run",
]

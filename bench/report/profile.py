"""``python -m bench profile RUN``: where a run's worker-seconds went, from its run.json.

Every computed cell records its seconds by stage (:mod:`infra.stages`: featurize, fit,
inner fits, predict); the run records the wall seconds of its own steps (plan, execute,
score).  This module adds them up per system (or per system and corpus) into the Markdown
table of ``docs/speed.md``, so the profile of a run is a command, not a hand count.

Cells read from the prediction cache cost nothing and are counted apart.  A stacked
system's bases fitted on the whole training fold are the same fits as the bases' own cells
(:mod:`systems.prediction_cache`), and they count for whichever cell computed them first.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tabulate import tabulate

from infra.stages import OTHER, STAGES

COLUMNS = (*STAGES, OTHER)


def load_run(path: str | Path) -> dict[str, Any]:
    """run.json of a report directory (or the file itself); ``ValueError`` naming it."""
    path = Path(path)
    if path.is_dir():
        path = path / "run.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"{path}: no such run.json") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: not a readable run.json ({type(exc).__name__})") from None
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise ValueError(f"{path}: not a run.json of `python -m bench run` (no cells)")
    return data


def stage_table(run: Mapping[str, Any], by: Sequence[str] = ("system",)) -> list[dict[str, Any]]:
    """One row per ``by`` group (``system``, ``corpus``): computed and cached cells, seconds
    per stage, and their total; the last row sums every group."""
    rows: dict[tuple[Any, ...], dict[str, Any]] = {}
    for cell in run["cells"]:
        key = tuple(cell.get(k, "") for k in by)
        row = rows.setdefault(key, {**dict(zip(by, key, strict=True)), "computed": 0, "cached": 0})
        if cell.get("cached"):
            row["cached"] += 1
            continue
        row["computed"] += 1
        spent = cell.get("stages") or {OTHER: cell.get("seconds", 0.0)}
        for name, seconds in spent.items():
            column = name if name in COLUMNS else OTHER
            row[column] = row.get(column, 0.0) + float(seconds)
    out = []
    for row in rows.values():
        row["total"] = sum(row.get(c, 0.0) for c in COLUMNS)
        out.append(row)
    out.sort(key=lambda r: (-r["total"], *(str(r[k]) for k in by)))
    total: dict[str, Any] = {k: "" for k in by}
    total[by[0]] = "all"
    for column in ("computed", "cached", *COLUMNS, "total"):
        total[column] = sum(r.get(column, 0) for r in out)
    return [*out, total]


def render(run: Mapping[str, Any], by: Sequence[str] = ("system",)) -> str:
    """The worker-seconds table and the run's own steps, as Markdown."""
    table = stage_table(run, by)
    headers = [*by, "cells computed", "cached", *COLUMNS, "total"]
    body = [
        [
            *(r[k] for k in by),
            r["computed"],
            r["cached"],
            *(_seconds(r.get(c, 0.0)) for c in COLUMNS),
            _seconds(r["total"]),
        ]
        for r in table
    ]
    lines = [
        "Worker-seconds by stage (featurize: POS tags, feature classes, CRF items, augmented "
        "copies; fit: the model scored; inner: selection and stacking fits; predict: "
        "labelling the test notes)",
        "",
        tabulate(body, headers=headers, tablefmt="github", disable_numparse=True),
    ]
    phases = run.get("phases") or {}
    wall = run.get("wall_seconds")
    if phases or wall is not None:
        steps = ", ".join(f"{k} {_seconds(v)} s" for k, v in phases.items())
        workers = run.get("jobs")
        lines += [
            "",
            f"Run wall time {_seconds(wall or 0.0)} s"
            + (f" ({steps})" if steps else "")
            + (f"; --jobs {workers}" if workers is not None else "")
            + ".",
        ]
    peaks = memory_peaks(run)
    if peaks:
        lines += [
            "",
            "Peak resident memory per process (MB), the cell during which it was reached, "
            "and the largest memos that process held after it (estimated MB):",
            "",
            tabulate(
                [
                    [
                        p["process"],
                        f"{p['peak_mb']:,}",
                        p["cell"],
                        ", ".join(f"{k} {v:,.0f}" for k, v in list(p["memos_mb"].items())[:5])
                        or "–",
                    ]
                    for p in peaks
                ],
                headers=["process", "peak", "reached in", "memos held"],
                tablefmt="github",
                disable_numparse=True,
            ),
        ]
    return "\n".join(lines)


def memory_peaks(run: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Per worker process (largest peak first): its peak resident MB, the cell during
    which memory rose to it and the memos held then (``cells[].memory``,
    :mod:`infra.memory`).  The cell is the one whose record took the memos' snapshot (a
    record takes one only where the peak rose), since run.json lists cells by system,
    not in the order they ran.  Processes are numbered in the order their first cell
    appears, never by pid, so two runs' tables line up."""
    by_pid: dict[int, dict[str, Any]] = {}
    for cell in run["cells"]:
        mem = cell.get("memory")
        if not isinstance(mem, dict) or "pid" not in mem:
            continue
        entry = by_pid.setdefault(
            mem["pid"], {"process": len(by_pid) + 1, "peak_mb": -1, "cell": "", "memos_mb": {}}
        )
        peak = mem.get("peak_mb", 0)
        rose_here = "memos_mb" in mem
        if peak > entry["peak_mb"] or (peak == entry["peak_mb"] and rose_here):
            fold = cell.get("fold")
            entry["peak_mb"] = peak
            entry["cell"] = f"{cell.get('system')} / {cell.get('corpus')} / fold {fold}"
            entry["memos_mb"] = dict(mem.get("memos_mb") or {})
    return sorted(by_pid.values(), key=lambda e: (-e["peak_mb"], e["process"]))


def _seconds(value: float) -> str:
    return f"{value:,.1f}" if value else "–"

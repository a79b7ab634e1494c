"""Write a run's outputs: results.csv, significance.csv, operating_points.csv, run.json,
report.md and the plots -- none with document text (except the explicit, owner-only
``--errors`` file, which may not live in the report directory).

The report directory never mixes two runs' files and is never half-written: the outputs
are written into a new hidden directory beside it, which then takes its place (a previous
report there is moved aside and deleted).  So ``--out`` must be new, empty, or a previous
report (it has a run.json); any other directory is refused before the run starts, because
replacing it would delete files the harness did not write.
"""

from __future__ import annotations

import os
import platform
import shutil
import stat
import tempfile
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from bench.run_types import RunResult, UsageError
from corpora import cache
from corpora.model import OUTSIDE, PHI

#: Package versions recorded in run.json.
VERSIONED_PACKAGES = (
    "deid-bench",
    "scikit-learn",
    "sklearn-crfsuite",
    "nltk",
    "numpy",
    "scipy",
    "pandas",
)


def package_versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for name in VERSIONED_PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def run_info(result: RunResult, command: Sequence[str]) -> dict[str, Any]:
    """The content of run.json (no document text anywhere)."""
    cfg = result.config
    cells = [
        {
            "system": o.system,
            "corpus": o.corpus,
            "train_corpus": o.train_corpus,
            "protocol": o.protocol,
            "fold": o.fold,
            "fraction": o.fraction,
            "seconds": round(o.seconds, 4),
            "tokens": o.n_tokens,
            "tokens_per_second": (
                round(o.tokens_per_second, 1) if o.tokens_per_second is not None else None
            ),
            "cached": o.cached,
            "ok": o.ok,
            **({"stages": o.stages} if o.stages else {}),
            **({"fitted": o.info} if o.info else {}),
        }
        for o in result.outcomes
    ]
    return {
        "command": list(command),
        "started": result.started,
        "wall_seconds": round(result.wall_seconds, 2),
        "phases": dict(result.phases),
        "seed": cfg.seed,
        "folds": cfg.folds,
        "protocol": cfg.protocol if not cfg.train_corpus else "cross",
        "train_corpus": cfg.train_corpus,
        "group_by": cfg.group_by,
        "grouping": result.grouping,
        "test_variant": cfg.test_variant,
        "tune": cfg.tune,
        "objective": cfg.objective if cfg.tune else None,
        "inner_folds": cfg.inner_folds if cfg.tune else None,
        "augment": list(cfg.augment),
        "extra_training": cfg.extra_training,
        "jobs": cfg.jobs,
        "backend": cfg.backend or ("sequential" if cfg.jobs == 1 else "joblib"),
        "alpha": cfg.alpha,
        "bootstrap_resamples": cfg.n_resamples,
        "randomization_shuffles": cfg.n_shuffles,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "packages": package_versions(),
        "corpora": {
            name: {
                "documents": len(c),
                "tokens": c.n_tokens,
                "fingerprint": c.fingerprint,
                "skipped_records": result.skipped.get(name, 0),
                "splits": len(result.splits.get(name, [])),
            }
            for name, c in result.corpora.items()
        },
        "systems": result.systems,
        "cells": cells,
        "failures": result.failures,
    }


#: The file that marks a directory as a deid-bench report (and names its command).
RUN_FILE = "run.json"


def _check_writable(path: Path, option: str) -> None:
    """The directory ``path`` will be created in -- its parent, or the nearest ancestor
    that exists -- is a directory this process can create files in."""
    base = path.absolute().parent
    while not base.exists() and base.parent != base:
        base = base.parent
    if not base.is_dir():
        raise UsageError(f"{option} {path}: {base} is not a directory")
    try:  # a real file, not os.access: root, read-only mounts and ACLs all answer truly
        with tempfile.TemporaryFile(dir=base):
            pass
    except OSError as exc:
        raise UsageError(f"{option} {path}: cannot write in {base} ({exc.strerror})") from None


def check_output_dir(out: Path, option: str = "--out") -> None:
    """Refuse, before the run, an output directory :func:`write_outputs` would not replace."""
    if out.exists() and not out.is_dir():
        raise UsageError(f"{option} {out}: exists and is not a directory")
    if out.is_dir() and any(out.iterdir()) and not (out / RUN_FILE).is_file():
        raise UsageError(
            f"{option} {out}: the directory is not empty and is not a previous report (no "
            f"{RUN_FILE}); choose a new directory"
        )
    _check_writable(out, option)  # the new report is staged beside it


def check_output_file(path: Path, option: str) -> None:
    """Refuse, before the run, a file path that cannot be written by an atomic rename."""
    if path.is_dir():
        raise UsageError(f"{option} {path}: is a directory, expected a file name")
    if path.exists() and not path.is_file():
        raise UsageError(f"{option} {path}: exists and is not a regular file")
    _check_writable(path, option)


def write_outputs(
    result: RunResult, out_dir: str | os.PathLike[str], command: Sequence[str]
) -> dict[str, Path]:
    """results.csv, significance.csv, run.json, report.md and plots, in ``out_dir``.

    Written into a hidden directory beside ``out_dir`` that then replaces it (see the
    module docstring), so ``out_dir`` holds one complete run at any moment.
    """
    out = Path(out_dir).absolute()  # "." has no name to stage beside
    if out.is_symlink():
        out = out.resolve()
    check_output_dir(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.new-"))
    try:
        written = _write_all(result, staging, command)
        os.chmod(staging, 0o777 & ~cache.current_umask())  # mkdtemp made it 0700
        _replace_dir(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return {name: Path(out_dir) / path.name for name, path in written.items()}


def _replace_dir(new: Path, target: Path) -> None:
    """Put directory ``new`` at ``target``; a previous ``target`` is renamed away first and
    deleted after, so ``target`` is never a mix of the two."""
    if not target.exists():
        os.replace(new, target)
        return
    old = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.old-"))
    os.replace(target, old / target.name)
    try:
        os.replace(new, target)
    except BaseException:
        os.replace(old / target.name, target)  # put the previous report back
        raise
    finally:
        shutil.rmtree(old, ignore_errors=True)


def _write_all(result: RunResult, out: Path, command: Sequence[str]) -> dict[str, Path]:
    import json

    from bench import report

    paths = {
        "results": out / "results.csv",
        "significance": out / "significance.csv",
        "run": out / "run.json",
        "report": out / "report.md",
    }
    cache.atomic_write_text(paths["results"], result.results.to_csv(index=False))
    cache.atomic_write_text(paths["significance"], result.significance.to_csv(index=False))
    if result.operating_points is not None and not result.operating_points.empty:
        paths["operating_points"] = out / "operating_points.csv"
        cache.atomic_write_text(
            paths["operating_points"], result.operating_points.to_csv(index=False)
        )
    if result.variant_comparison is not None:
        paths["variant_comparison"] = out / "variant_comparison.csv"
        cache.atomic_write_text(
            paths["variant_comparison"], result.variant_comparison.to_csv(index=False)
        )
    if result.peer_comparison is not None:
        paths["peer_comparison"] = out / "peer_comparison.csv"
        cache.atomic_write_text(
            paths["peer_comparison"], result.peer_comparison.to_csv(index=False)
        )
    if result.learning_curve is not None:
        paths["learning_curve"] = out / "learning_curve.csv"
        cache.atomic_write_text(paths["learning_curve"], result.learning_curve.to_csv(index=False))
    info = run_info(result, command)
    cache.atomic_write_text(paths["run"], json.dumps(info, indent=2, default=str) + "\n")
    plots = report.write_plots(result, out)
    paths.update(plots)
    cache.atomic_write_text(
        paths["report"], report.render_report(result, info, {k: p.name for k, p in plots.items()})
    )
    return paths


def write_error_analysis(result: RunResult, path: str | os.PathLike[str], context: int = 5) -> int:
    """Missed and spurious PHI with ±``context`` tokens, in a 0600 file; returns the count.

    This file *does* contain PHI (that is its purpose), so it is created owner-only from the
    start (no window with wider permissions) and begins with a warning header.  Failed cells
    follow as ``failed`` rows with their full error message and traceback (the report shows
    them with document text removed).
    """
    lines = [
        "# WARNING: this file contains protected health information (PHI) from the corpus.",
        "# It was created with owner-only permissions (0600). Do not share, commit or upload",
        "# it; delete it when the error analysis is done.",
        "#",
        "# kind\tsystem\tcorpus\tdocument\ttoken\tgold\tpredicted\tcontext",
        "# (kind 'failed': the document column names the fold and the context column holds",
        "# the full error message and traceback, line breaks written as \\n)",
    ]
    from bench.scoring import Scorer

    scorer = Scorer(result.outcomes, result.corpora, result.splits, {}, result.config)
    count = 0
    for corpus in result.splits:
        for system in result.systems:
            got = scorer.pooled(system, corpus)
            if got is None:
                continue
            for doc, labels in zip(got.documents, got.labels, strict=True):
                tokens = doc.tokens
                for i, (tok, pred) in enumerate(zip(tokens, labels, strict=True)):
                    gold_phi, pred_phi = tok.label != OUTSIDE, pred != OUTSIDE
                    if gold_phi == pred_phi:
                        continue
                    kind = "missed" if gold_phi else "spurious"
                    left = " ".join(t.text for t in tokens[max(0, i - context) : i])
                    right = " ".join(t.text for t in tokens[i + 1 : i + 1 + context])
                    ctx = f"{left} [[{tok.text}]] {right}".strip().replace("\t", " ")
                    ctx = ctx.replace("\n", " ")
                    lines.append(
                        f"{kind}\t{system}\t{corpus}\t{doc.id}\t{i}\t{tok.label}\t{pred}\t{ctx}"
                    )
                    count += 1
    for o in result.outcomes:
        if o.error_detail and not o.skipped:
            # the unscrubbed message and traceback of a failed cell, on one line
            detail = o.error_detail.strip().replace("\t", " ").replace("\n", "\\n")
            lines.append(f"failed\t{o.system}\t{o.corpus}\tfold {o.fold}\t\t\t\t{detail}")
    target = Path(path)
    cache.atomic_write_text(target, "\n".join(lines) + "\n", mode=stat.S_IRUSR | stat.S_IWUSR)
    return count


def summary_table(result: RunResult) -> str:
    """The one-screen summary printed at the end: headline PHI P/R/F per system and corpus."""
    from tabulate import tabulate

    df = result.results
    rows = []
    for corpus in result.splits:
        for system, info in result.systems.items():
            sub = df[
                (df.system == system)
                & (df.corpus == corpus)
                & (df.level == "token")
                & (df.subset == info["headline_subset"])
                & (df.label == PHI)
            ]
            if sub.empty:
                failure = next(
                    (f for f in result.failures if f["system"] == system and f["corpus"] == corpus),
                    None,
                )
                status = "SKIPPED" if failure and failure.get("skipped") else "FAILED"
                err = failure["error"] if failure else "no result"
                rows.append([corpus, system, status, "", "", err[:60]])
                continue
            r = sub.iloc[0]
            rows.append(
                [
                    corpus,
                    system,
                    f"{100 * r.precision:.1f}",
                    f"{100 * r.recall:.1f}",
                    f"{100 * r.f1:.1f}",
                    "" if info["headline_subset"] == "all" else info["headline_subset"],
                ]
            )
    return tabulate(rows, headers=["corpus", "system", "P", "R", "F", "note"], tablefmt="simple")

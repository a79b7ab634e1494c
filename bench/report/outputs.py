"""Write a run's outputs: results.csv, significance.csv, operating_points.csv,
documents.csv, run.json, report.md and the plots -- none with document text (except the
explicit, owner-only ``--errors`` file, which may not live in the report directory).

The report directory never mixes two runs' files and is never half-written: the outputs
are written into a new hidden directory beside it, which then takes its place (a previous
report there is moved aside and deleted).  The directory is the harness's own, so nothing
else is ever deleted (docs/cli.md, "The report directory"):

* every report holds a marker, :data:`MARKER`, naming its run id and every file the run
  wrote; ``--out`` may be new, empty, or a report whose every entry its marker lists;
* a report written before the marker existed (the ones under ``reports/``) is replaced
  only if its run.json is the harness's (``command``, ``started``, ``cells``) and every
  entry has a name the harness writes (:func:`_legacy_report`);
* any other directory -- one holding a Sacred run's ``metrics.json``, a corpus, a file a
  user added to a report -- is refused before the run starts;
* an ``--out`` that holds a run input (a corpus, a ``--peers`` file, dictionaries) is
  refused, since replacing it would delete that input;
* one run at a time: :class:`OutputLock` (``flock`` on a lock file beside ``--out``) is
  taken before the run starts and held until the report is in place, so a second run on
  the same ``--out`` stops at once with a message instead of replacing the first's report.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import re
import shutil
import stat
import tempfile
from collections.abc import Iterable, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from bench.report.documents import DOCUMENTS_FILE, document_counts
from bench.run.run_types import RunResult, UsageError, inner_fold_count, tuning_objective
from corpora.model import OUTSIDE, PHI
from infra import cache

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
    # a preset whose choices are always made inside the folds is tuned without --tune
    tuned = [n for n, s in result.systems.items() if "Tuned" in s.get("wrappers", ())]
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
            **({"memory": o.memory} if o.memory else {}),
        }
        for o in result.outcomes
    ]
    return {
        "command": list(command),
        "run_id": result.run_id,
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
        "tuned_systems": tuned,
        # the run's; a preset with its own says so in its system entry (``objective``)
        "objective": tuning_objective(cfg) if tuned else None,
        "inner_folds": inner_fold_count(cfg) if tuned else None,
        "augment": list(cfg.augment),
        **(
            {"augment_choices": [list(c) for c in cfg.augment_choices]}
            if cfg.augment_choices
            else {}
        ),
        "extra_training": cfg.extra_training,
        "overlap": result.overlap,
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
        "ledger": result.ledger,
    }


#: The file that records a run's command and configuration.
RUN_FILE = "run.json"
#: The file that marks a directory as a deid-bench report: its run id and the files the
#: run wrote (the only ones a later run may replace).
MARKER = ".deid-bench-report"
#: Names of the files a run writes (plots: f1_ci.png, learning_curve.png, pr_<corpus>.png).
KNOWN_OUTPUTS = re.compile(
    r"(results|significance|operating_points|variant_comparison|variant_categories|"
    r"peer_comparison|dominance|learning_curve)\.csv|run\.json|report\.md|f1_ci\.png|learning_curve\.png|pr_[\w.-]+\.png"
)
#: Keys of a run.json the harness wrote (how a report older than :data:`MARKER` is known).
_RUN_KEYS = ("command", "started", "cells")


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


def check_output_dir(
    out: Path, option: str = "--out", inputs: Iterable[str | os.PathLike[str]] = ()
) -> None:
    """Refuse, before the run, an output directory :func:`write_outputs` would not replace:
    one that is not the harness's report (see the module docstring), or that holds one of
    ``inputs`` (the run's corpus files and directories, ``--peers`` file ...)."""
    if out.exists() and not out.is_dir():
        raise UsageError(f"{option} {out}: exists and is not a directory")
    here = out.resolve()
    for item in inputs:
        path = Path(item).resolve()
        if path == here or path.is_relative_to(here):
            raise UsageError(
                f"{option} {out}: holds {item}, an input of this run; replacing the "
                "directory would delete it (choose another directory)"
            )
    if out.is_dir():
        foreign = _foreign_entries(out)
        if foreign:
            raise UsageError(
                f"{option} {out}: the directory holds {len(foreign)} file(s) this harness did "
                f"not write there (e.g. {foreign[0]}), and replacing it would delete them; "
                "choose a new directory"
            )
    _check_writable(out, option)  # the new report is staged beside it


def _foreign_entries(out: Path) -> list[str]:
    """The entries of ``out`` that no run wrote: all but those its :data:`MARKER` lists,
    or, without a marker, all of them unless ``out`` is a report from before the marker."""
    entries = sorted(p.name for p in out.iterdir())
    if not entries:
        return []
    marker = out / MARKER
    if marker.is_file():
        try:
            written = set(json.loads(marker.read_text(encoding="utf-8"))["files"])
        except (OSError, ValueError, KeyError, TypeError):
            return entries  # not a marker this harness wrote
        return [name for name in entries if name != MARKER and name not in written]
    if _legacy_report(out, entries):
        return []
    return entries


def _legacy_report(out: Path, entries: list[str]) -> bool:
    """A report written before :data:`MARKER`: a run.json with the harness's keys, and
    nothing but regular files of the names a run writes."""
    if RUN_FILE not in entries:
        return False
    for name in entries:
        path = out / name
        if not KNOWN_OUTPUTS.fullmatch(name) or path.is_symlink() or not path.is_file():
            return False
    try:
        info = json.loads((out / RUN_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(info, dict) and all(key in info for key in _RUN_KEYS)


class OutputLock:
    """One run at a time on an output directory: an exclusive ``flock`` on
    ``.NAME.lock`` beside it, taken before the run starts (:meth:`acquire`, a
    :class:`UsageError` when another run holds it) and released once the report is in
    place.  The kernel releases it when the process dies, whatever kills it."""

    def __init__(self, out: Path) -> None:
        out = out.absolute()
        self.path = out.parent / f".{out.name}.lock"
        self.fd: int | None = None

    def acquire(self, option: str = "--out") -> OutputLock:
        import fcntl

        self.path.parent.mkdir(parents=True, exist_ok=True)
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise UsageError(
                    f"{option} {self.path.parent / self.path.name[1:-5]}: another run is "
                    f"writing its report there (lock {self.path}); wait for it to finish or "
                    "choose another directory"
                ) from None
            # the holder before us may have removed the file after we opened it: lock the
            # file that is at the path now
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(self.path))
            except FileNotFoundError:
                same = False
            if same:
                os.ftruncate(fd, 0)
                os.write(fd, f"{os.getpid()}\n".encode())
                self.fd = fd
                return self
            os.close(fd)

    def release(self) -> None:
        if self.fd is None:
            return
        with contextlib.suppress(OSError):
            os.unlink(self.path)  # while still holding it: see acquire
        os.close(self.fd)
        self.fd = None


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
        _write_marker(staging, result.run_id)
        os.chmod(staging, 0o777 & ~cache.current_umask())  # mkdtemp made it 0700
        _replace_dir(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return {name: Path(out_dir) / path.name for name, path in written.items()}


def _write_marker(out: Path, run_id: str) -> None:
    """:data:`MARKER`: the run id and every file in ``out`` (all written by this run)."""
    files = sorted(p.name for p in out.iterdir() if p.name != MARKER)
    content = json.dumps({"deid_bench_report": True, "run_id": run_id, "files": files}, indent=1)
    cache.atomic_write_text(out / MARKER, content + "\n")


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
    from bench.report import render as report

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
    # bench.score.generalization, bench.score.dominance
    for name in ("variant_categories", "dominance"):
        frame = getattr(result, name)
        if frame is not None:
            paths[name] = out / f"{name}.csv"
            cache.atomic_write_text(paths[name], frame.to_csv(index=False))
    if result.peer_comparison is not None:
        paths["peer_comparison"] = out / "peer_comparison.csv"
        cache.atomic_write_text(
            paths["peer_comparison"], result.peer_comparison.to_csv(index=False)
        )
    # bench.report.documents: each scored note's counts, for paired comparisons of runs
    paths["documents"] = out / DOCUMENTS_FILE
    cache.atomic_write_text(paths["documents"], document_counts(result).to_csv(index=False))
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
    from bench.score.scoring import pooled_predictions

    count = 0
    for system, corpus, got in pooled_predictions(result):
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

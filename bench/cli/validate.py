"""Checks of the parsed options that argparse cannot make alone, run by :func:`bench.cli.main`
before any command does work, one function per concern; each raises
:class:`bench.run.run_types.UsageError` (or the backend's or cache's own error) with one line.

Option values argparse can check alone are checked by the option types
(:mod:`bench.cli.options`); what needs the file system, the environment or several options
together is checked here.  The system and corpus names, system parameters and protocol
options are checked by :func:`bench.run.plan.make_plan`, also before any corpus is loaded.
"""

from __future__ import annotations

import argparse
import os
from datetime import datetime
from pathlib import Path

from bench.cli.common import category_weights
from bench.cli.run import parse_params


def validate(args: argparse.Namespace) -> None:
    """Every check of the parsed options that argparse cannot make alone."""
    _validate_dictionaries(args)
    _validate_cache(args)
    _validate_outputs(args)
    _validate_backend(args)
    if getattr(args, "param", None) is not None:
        parse_params(args.param)
    if getattr(args, "category_weight", None):
        category_weights(args)


def _validate_dictionaries(args: argparse.Namespace) -> None:
    from bench.run.run_types import UsageError

    if getattr(args, "dictionaries", None):
        if not Path(args.dictionaries).is_dir():
            raise UsageError(f"--dictionaries {args.dictionaries}: not a directory")
        os.environ["DEID_BENCH_DICTIONARIES"] = str(Path(args.dictionaries).resolve())
    from_env = os.environ.get("DEID_BENCH_DICTIONARIES")
    if from_env and not Path(from_env).is_dir():
        raise UsageError(f"DEID_BENCH_DICTIONARIES={from_env}: not a directory")


def _validate_cache(args: argparse.Namespace) -> None:
    """``--no-cache``, else a cache directory that can be created (owner-only)."""
    from infra import cache

    if args.command == "list":  # reads no corpus, needs no cache
        return
    if getattr(args, "no_cache", False):
        os.environ["DEID_BENCH_NO_CACHE"] = "1"
    if cache.caching_enabled():
        cache.cache_dir()


def _validate_outputs(args: argparse.Namespace) -> None:
    """``--out``, ``--errors`` and ``--csv`` can be written, and do not collide."""
    from bench.report.outputs import OutputLock, check_output_dir, check_output_file
    from bench.run.run_types import UsageError

    if args.command in ("run", "learning-curve"):
        if args.out is None:
            args.out = str(Path("reports") / datetime.now().strftime("%Y%m%d-%H%M%S"))
        check_output_dir(Path(args.out), "--out", _input_paths(args))
        args._out_lock = OutputLock(Path(args.out)).acquire("--out")  # released by main
    if getattr(args, "errors", None):
        check_output_file(Path(args.errors), "--errors")
        out = Path(args.out).resolve()
        if Path(args.errors).resolve().is_relative_to(out):
            raise UsageError(
                f"--errors {args.errors}: the file holds PHI, so it may not be written into "
                f"the report directory {args.out} (which is meant to be shared)"
            )
    if getattr(args, "csv", None):
        check_output_file(Path(args.csv), "--csv")
    if args.command == "reproduce":  # files beside others in OUT, each written atomically
        check_output_file(Path(args.out) / f"{args.paper}.md", "--out")


def _input_paths(args: argparse.Namespace) -> list[str]:
    """The existing files and directories the run reads: each corpus spec's path (the part
    after ``KIND:``, after any ``VARIANT:`` prefixes), ``--peers``, ``--dictionaries``."""
    specs = [
        *str(getattr(args, "corpora", "") or "").split(","),
        getattr(args, "train_corpus", None) or "",
        getattr(args, "extra_training", None) or "",
    ]
    paths = []
    for spec in specs:
        parts = spec.strip().split(":")
        for i in range(len(parts)):
            candidate = ":".join(parts[i:])
            if candidate and Path(candidate).exists():
                paths.append(candidate)
                break
    for option in ("peers", "dictionaries"):
        value = getattr(args, option, None)
        if value and Path(value).exists():
            paths.append(value)
    return paths


def _validate_backend(args: argparse.Namespace) -> None:
    """``--scheduler`` only with dask; a dask scheduler that is reachable and has workers."""
    from bench.run.execution import dask_client
    from bench.run.run_types import UsageError

    backend = getattr(args, "backend", None)
    if getattr(args, "scheduler", None) and backend != "dask":
        raise UsageError("--scheduler is used only with --backend dask")
    if backend == "dask":
        with dask_client(args.scheduler):
            pass


def load_peers(args: argparse.Namespace) -> None:
    """Register the external systems of ``--peers`` / ``DEID_BENCH_PEERS`` (one line of error
    for a bad file), and pass the file on to worker processes through the environment."""
    from bench.run.run_types import UsageError
    from systems.command import ENV_PEERS, PeerFileError, load_presets

    path = getattr(args, "peers", None) or os.environ.get(ENV_PEERS)
    if not path:
        return
    os.environ[ENV_PEERS] = str(Path(path).resolve())
    try:
        load_presets(os.environ[ENV_PEERS])
    except PeerFileError as exc:
        raise UsageError(f"--peers: {exc}") from None

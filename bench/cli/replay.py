"""``--config FILE``: run a saved configuration again, from a report's run.json or a TOML file.

Why.  A report says which command made it; replaying it should not mean copying a long
command line by hand.  ``python -m bench run --config reports/X/run.json`` runs the
command that run.json records, and ``--config run.toml`` the options of a ``[run]`` table
(option names without their dashes, ``--param`` as a table of its own).  Options given
after ``--config`` on the command line win over the file's (argparse keeps the last value
of a single-valued option; repeated ones such as ``--param`` add up).

The saved ``--out`` is left out, so a replay writes a new report (``reports/<time>``, or
the ``--out`` given) and never replaces the one it replays.  The file is read before the
command line is parsed, so a file that cannot be read or holds an unknown option is a
one-line usage error before any work starts.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: The subcommands that take ``--config``.
REPLAYABLE = ("run", "learning-curve")


class ConfigError(ValueError):
    """A ``--config`` file that cannot be replayed (the CLI prints it as a usage error)."""


def expand(argv: Sequence[str]) -> list[str]:
    """``argv`` with ``--config FILE`` replaced by the options the file holds."""
    argv = list(argv)
    if not argv or argv[0] not in REPLAYABLE:
        return argv
    for i, arg in enumerate(argv):
        if arg == "--config" or arg.startswith("--config="):
            if arg == "--config":
                if i + 1 >= len(argv):
                    raise ConfigError("--config: expected a run.json or TOML file")
                path, rest = argv[i + 1], argv[i + 2 :]
            else:
                path, rest = arg.split("=", 1)[1], argv[i + 1 :]
            return [*argv[:i], *_options(argv[0], Path(path)), *rest]
    return argv


def _options(command: str, path: Path) -> list[str]:
    """The options a saved configuration holds, without ``--out``."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"--config {path}: cannot read it ({type(exc).__name__})") from None
    if path.suffix == ".json":
        return _from_run_json(command, path, text)
    return _from_toml(path, text)


def _from_run_json(command: str, path: Path, text: str) -> list[str]:
    try:
        saved = json.loads(text).get("command")
    except (ValueError, AttributeError):
        saved = None
    if not isinstance(saved, list) or not all(isinstance(a, str) for a in saved):
        raise ConfigError(f"--config {path}: not a run.json with the command that made it")
    try:
        start = saved.index(command) + 1
    except ValueError:
        raise ConfigError(f"--config {path}: its command is not `{command}`") from None
    return _without_out(saved[start:])


def _without_out(args: list[str]) -> list[str]:
    out, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg == "--out":
            skip = True
        elif not arg.startswith("--out="):
            out.append(arg)
    return out


def _from_toml(path: Path, text: str) -> list[str]:
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"--config {path}: not valid TOML ({exc})") from None
    run = table.get("run")
    if not isinstance(run, dict):
        raise ConfigError(f"--config {path}: expected a [run] table of options")
    args: list[str] = []
    for key, value in run.items():
        if key == "out":
            continue
        flag = "--" + key.replace("_", "-")
        if key == "param":
            if not isinstance(value, dict):
                raise ConfigError(f"--config {path}: [run.param] must be a table")
            args += _params(path, value)
        elif value is True:
            args.append(flag)
        elif value is False:
            continue
        else:
            args += [flag, _text(path, key, value)]
    return args


def _params(path: Path, table: dict[str, Any]) -> list[str]:
    """``[run.param.svm] C = 0.5`` -> ``--param svm.C=0.5`` (values as Python literals)."""
    args = []
    for system, params in table.items():
        if not isinstance(params, dict):
            raise ConfigError(f"--config {path}: [run.param.{system}] must be a table")
        for name, value in params.items():
            args += ["--param", f"{system}.{name}={value!r}"]
    return args


def _text(path: Path, key: str, value: Any) -> str:
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    if isinstance(value, str | int | float):
        return str(value)
    raise ConfigError(f"--config {path}: option {key!r} must be a value or a list")

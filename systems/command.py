"""``command`` -- any command-line de-identifier, run once per note.

A generic adapter for tools that exist outside this harness: given a command template it
feeds each note to the tool and reads back what the tool found, as character spans or as
the note redacted (:mod:`systems.span_recovery`), then maps the spans onto our tokens and
the tool's type names onto our labels (:mod:`systems.external`).

The command template (``cmd``) is split like a shell line (:func:`shlex.split`; no shell
runs, so pipes and redirections need an explicit ``sh -c '...'``) and these placeholders
are replaced in each argument:

``{input}``   a file holding the note (UTF-8); without it the note goes to the tool's stdin
``{output}``  a file the tool writes; without it the tool's stdout is read
``{python}``  the Python interpreter running the harness (for tools written in Python)

Each note runs in a fresh temporary directory (the tool's working directory), removed
afterwards, so a tool that writes files beside itself leaves nothing behind.  A relative
path in the command (``{python} redact.py``) is read from ``base_dir``: the directory of
the TOML file that names the tool, or else the directory the harness was started in.

A note the tool crashes on (non-zero exit), works past ``timeout`` CPU seconds on or
answers with output that reads neither as spans nor as the note redacted is a named error
for that note, scored as ``on_error`` says (:mod:`systems.external`); the other notes and
systems go on.

Several tools can be named in a TOML file (``--peers FILE`` or ``DEID_BENCH_PEERS``; format
in ``docs/peers.md``): each ``[systems.NAME]`` table becomes a registry preset ``NAME``
of this system (or of another external system named by its ``system`` key), listed by
``python -m bench list`` and chosen with ``--systems NAME`` or ``--systems peers``.

The prediction-cache key includes the command and the content of every file the command
names (a script edited -> its predictions are recomputed); a tool installed elsewhere and
upgraded in place needs ``--no-cache``.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import pkgutil
import shlex
import shutil
import sys
import tempfile
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from corpora.model import Document
from systems.base import (
    SYSTEMS,
    SystemEntry,
    SystemUnavailable,
    params_from_mapping,
    register,
    register_preset,
)
from systems.external import (
    OUTPUT_FACTOR,
    ExternalSystem,
    FoundSpan,
    NoteError,
    files_fingerprint,
    output_limit,
    run_tool,
)
from systems.span_recovery import FORMATS, OFFSET_UNITS, recover_spans

#: Environment variable naming the TOML file of external systems (``--peers`` sets it).
ENV_PEERS = "DEID_BENCH_PEERS"
#: Suffixes of the script files a command may name by a relative path (checked to exist).
SCRIPT_SUFFIXES = (".py", ".pl", ".pm", ".sh", ".rb", ".js", ".jar", ".R", ".r", ".lua", ".php")


@register
class CommandSystem(ExternalSystem):
    """A command-line de-identifier run once per note (see the module docstring).

    Parameters
    ----------
    cmd:
        The command template, e.g. ``"{python} scrub.py {input}"``.
    output:
        ``auto``, ``spans`` or ``redacted`` (:mod:`systems.span_recovery`).
    timeout:
        CPU seconds one note may take (:mod:`systems.external` on why CPU time).
    labels:
        The tool's type names -> our labels (``{"NAME": "PATIENT"}`` or
        ``"NAME=PATIENT,..."``), before the generic rules of :mod:`systems.external`.
    offsets:
        ``chars`` or ``bytes`` (of the UTF-8 note) in span output.
    min_kept:
        Redacted output sharing fewer of the note's words than this is garbage.
    on_error:
        ``redact`` or ``fail`` (:mod:`systems.external`).
    tool:
        The name used in messages (a preset's own name).
    base_dir:
        Where relative paths in ``cmd`` are found ("": the directory the harness was
        started in; a TOML file's presets: that file's directory).
    max_output:
        The most output a note may get, in bytes per byte of the note (plus 1 MiB,
        :func:`systems.external.output_limit`); a tool that writes more fails on the note.
    """

    name = "command"
    description = "any command-line de-identifier (--param command.cmd='...'), run per note"
    departures = (
        "an external tool run as it is; redacted output is aligned back to the note "
        "(docs/peers.md), type names read through a label table"
    )
    #: It runs nothing without a command: the contract is checked on a one-line tool that
    #: masks digits (:mod:`systems.conformance`).
    conformance_params: ClassVar[Mapping[str, Any]] = {
        "cmd": '{python} -c "import re, sys; '
        "sys.stdout.write(re.sub('[0-9]', 'X', sys.stdin.read()))\"",
        "output": "redacted",
    }
    relative_cost = 20.0  # a process per note; scheduling only

    def __init__(
        self,
        cmd: str = "",
        output: str = "auto",
        timeout: float = 60.0,
        labels: Mapping[str, str] | str | None = None,
        offsets: str = "chars",
        min_kept: float = 0.1,
        on_error: str = "redact",
        tool: str = "",
        base_dir: str = "",
        max_output: float = OUTPUT_FACTOR,
    ) -> None:
        self.cmd = cmd
        self.output = output
        self.timeout = timeout
        self.labels = labels
        self.offsets = offsets
        self.min_kept = min_kept
        self.on_error = on_error
        self.tool = tool
        self.base_dir = base_dir
        self.max_output = max_output

    def check_params(self) -> None:
        super().check_params()
        if not isinstance(self.cmd, str):
            raise ValueError(f"cmd {self.cmd!r}: a command line (a string)")
        try:
            shlex.split(self.cmd)
        except ValueError as exc:
            raise ValueError(f"cmd {self.cmd!r}: {exc}") from None
        if self.output not in FORMATS:
            raise ValueError(f"output {self.output!r}: use {', '.join(FORMATS)}")
        if self.offsets not in OFFSET_UNITS:
            raise ValueError(f"offsets {self.offsets!r}: use {', '.join(OFFSET_UNITS)}")
        if not (isinstance(self.timeout, int | float) and self.timeout > 0):
            raise ValueError(f"timeout {self.timeout!r}: a positive number of seconds")
        if not 0 <= self.min_kept <= 1:
            raise ValueError(f"min_kept {self.min_kept!r}: between 0 and 1")
        if not (isinstance(self.max_output, int | float) and self.max_output > 0):
            raise ValueError(f"max_output {self.max_output!r}: a positive number")

    def runs_as(self) -> str:
        return f"`{self.cmd}` once per note, output read as {self.output}"

    def _words(self) -> list[str]:
        """The command's words, with relative paths to existing files made absolute
        against ``base_dir`` (the tool runs in a temporary directory)."""
        base = Path(self.base_dir or os.getcwd())
        out = []
        for w in shlex.split(self.cmd):
            if "{" not in w and not os.path.isabs(w) and (base / w).is_file():
                w = str((base / w).resolve())
            out.append(w)
        return out

    def tool_fingerprint(self) -> str:
        try:
            words = self._words()
        except ValueError:
            return ""
        files = [w for w in words if "{" not in w and Path(w).is_file()]
        return files_fingerprint(files) if files else ""

    def _argv(self, workdir: Path) -> tuple[list[str], bool, bool]:
        """The command for one note, and whether it reads a file / writes a file."""
        words = self._words()
        uses_input = any("{input}" in w for w in words)
        uses_output = any("{output}" in w for w in words)
        values = {
            "{input}": str(workdir / "note.txt"),
            "{output}": str(workdir / "out.txt"),
            "{python}": sys.executable,
        }
        argv = []
        for w in words:
            for key, value in values.items():
                w = w.replace(key, value)
            argv.append(w)
        return argv, uses_input, uses_output

    def check_available(self) -> None:
        """The command is not empty, its program exists and is executable, and every
        script it names by a relative path (``{python} redact.py``) exists."""
        name = self.tool or self.name
        if not self.cmd.strip():
            raise SystemUnavailable(
                f"{name}: no command given: --param {name}.cmd='TOOL {{input}}' or a --peers "
                "file (docs/peers.md)"
            )
        words = self._words()
        program = words[0].replace("{python}", sys.executable)
        if "{" in program:
            return  # a placeholder the harness fills per note: nothing to check here
        if os.sep in program:
            path = Path(program) if os.path.isabs(program) else Path(self.base_dir or ".") / program
            found = str(path) if path.is_file() and os.access(path, os.X_OK) else None
        else:
            found = shutil.which(program)
        if found is None:
            raise SystemUnavailable(
                f"{name}: cannot start {Path(program).name}: no executable program by that "
                "name (check the command and PATH)"
            )
        for word in words[1:]:
            if "{" in word or word.startswith("-") or Path(word).suffix not in SCRIPT_SUFFIXES:
                continue
            if not Path(word).is_absolute() and not (Path(self.base_dir or ".") / word).is_file():
                raise SystemUnavailable(
                    f"{name}: the command names {Path(word).name}, which does not exist in "
                    f"{self.base_dir or 'the current directory'}"
                )

    def find_spans(self, documents: Sequence[Document]) -> list[list[FoundSpan] | NoteError]:
        self.check_available()
        return [self._one(doc) for doc in documents]

    def _one(self, doc: Document) -> list[FoundSpan] | NoteError:
        with tempfile.TemporaryDirectory(prefix="deid-bench-cmd-") as tmp:
            workdir = Path(tmp)
            argv, uses_input, uses_output = self._argv(workdir)
            data = doc.text.encode("utf-8", "surrogatepass")
            if uses_input:
                (workdir / "note.txt").write_bytes(data)
            limit = output_limit(len(data), float(self.max_output))
            try:
                out = run_tool(
                    argv,
                    stdin=None if uses_input else data,
                    cwd=workdir,
                    timeout=float(self.timeout),
                    max_output=limit,
                )
                if uses_output:
                    target = workdir / "out.txt"
                    if not target.is_file():
                        return NoteError("wrote no output file")
                    if target.stat().st_size > limit:
                        return NoteError(f"wrote more than {limit:,} bytes of output for the note")
                    out = target.read_bytes()
                try:
                    text = out.decode("utf-8")
                except UnicodeDecodeError as exc:
                    return NoteError(f"output is not UTF-8 (byte {exc.start})")
                return recover_spans(
                    doc.text,
                    text,
                    self.output,
                    offsets=self.offsets,
                    min_kept=self.min_kept,
                )
            except NoteError as exc:
                if _largest_file(workdir) >= limit:
                    # a tool that ignores SIGXFSZ (Python does) fails its write instead
                    return NoteError(f"wrote more than {limit:,} bytes of output for the note")
                return exc


def _largest_file(directory: Path) -> int:
    """The size of the largest file the tool left in its working directory."""
    sizes = [p.stat().st_size for p in directory.rglob("*") if p.is_file()]
    return max(sizes, default=0)


# --------------------------------------------------------------------------- TOML presets


class PeerFileError(ValueError):
    """A bad external-systems file: one line naming the file, the table and the problem."""


def load_presets(path: str | os.PathLike[str]) -> list[SystemEntry]:
    """Register every ``[systems.NAME]`` table of the TOML file at ``path`` as a preset.

    Each table's keys are the parameters of its ``system`` (default ``command``, or any
    registered external system such as ``deidpl``), plus an optional ``description``.
    """
    file = Path(path)
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise PeerFileError(f"{file}: cannot read: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise PeerFileError(f"{file}: not valid TOML: {exc}") from None
    tables = data.get("systems")
    if not isinstance(tables, dict) or not tables:
        raise PeerFileError(f"{file}: no [systems.NAME] tables")
    presets = []
    for name, table in tables.items():
        where = f"{file}: [systems.{name}]"
        if not isinstance(table, dict):
            raise PeerFileError(f"{where}: not a table")
        params = dict(table)
        kind = str(params.pop("system", CommandSystem.name))
        description = str(params.pop("description", "") or f"external tool ({kind})")
        cls = _external_class(kind)
        if cls is None:
            raise PeerFileError(f"{where}: {kind!r} is not a registered external system")
        if "tool" in cls._param_names():
            params.setdefault("tool", name)
        if "base_dir" in cls._param_names():
            params.setdefault("base_dir", str(file.resolve().parent))
        try:
            params = params_from_mapping(cls, params)
            cls(**params).check_params()
            presets.append(register_preset(name, cls, params, description, configured=True))
        except (TypeError, ValueError) as exc:
            raise PeerFileError(f"{where}: {exc}") from None
    return presets


def _external_class(kind: str) -> type[ExternalSystem] | None:
    """The external system class registered as ``kind``.  Looked up among this package's
    modules directly, because this runs while the registry is still importing them."""
    for module in _system_modules():
        importlib.import_module(module)
    try:
        cls = SYSTEMS.get(kind).cls
    except KeyError:
        return None
    if issubclass(cls, ExternalSystem):
        return cls
    return None


def _system_modules() -> list[str]:
    here = Path(__file__).resolve().parent
    return sorted(
        f"systems.{info.name}"
        for info in pkgutil.iter_modules([str(here)])
        if not info.name.startswith("_") and not info.ispkg
    )


def load_presets_from_env() -> list[SystemEntry]:
    """The presets of the file ``DEID_BENCH_PEERS`` names (none when unset)."""
    path = os.environ.get(ENV_PEERS)
    return load_presets(path) if path else []


def _register_from_env() -> None:
    """At import: register the configured file's presets.  A bad file registers nothing
    here; the command line checks the file first and reports it in one line."""
    with contextlib.suppress(PeerFileError):
        load_presets_from_env()


_register_from_env()

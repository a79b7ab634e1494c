"""What every adapter of a de-identifier written elsewhere shares: running the tool, turning
its character spans into our token labels, mapping its PHI types onto our label set, and
what happens when it fails on one note.

The peers (:mod:`systems.command`, :mod:`systems.deidpl`, :mod:`systems.philter`,
:mod:`systems.presidio`) are :class:`ExternalSystem` subclasses: each only says how to get
character spans with the tool's own type names out of its tool
(:meth:`ExternalSystem.find_spans`); everything after that is here, once.

**Spans to tokens.**  A token takes the label of the first predicted span it overlaps (the
rule that gives tokens their gold labels, :mod:`corpora.tokenize`), so a tool that marks
"Smith" inside "Smith's" marks our token ``Smith``; a token no span touches is ``O``.

**Type names to labels** (:func:`label_for`): an explicit mapping (``labels``, exact type
name, case-insensitive) first, then :data:`TYPE_RULES` -- words that name the kind of PHI in
the type ("Doctor Last Name" -> DOCTOR, "PHONE_NUMBER" -> PHONE, "DATE_TIME" -> DATE) -- and
finally the binary label ``PHI`` for a span without a type or with a type no rule knows
(masked text carries no type).  Binary ``PHI`` tokens count in the PHI-vs-non-PHI scores and
in no category (:mod:`bench.score.metrics`).  A mapping to ``O`` drops that type.

**Timeouts count the tool's CPU seconds** (``RLIMIT_CPU``; the kernel ends a process that
spends them), not wall-clock seconds: a note's fate must not depend on ``--jobs`` or on
whatever else the machine is running, or the same command would score a tool differently
from one run to the next.  Wall clock is only a backstop, at :data:`WALL_CLOCK_FACTOR`
times the timeout, for a tool that waits without working.

**A note the tool fails on** -- it crashes, hangs past the timeout, or writes output that
cannot be read as spans or as the note redacted -- is a :class:`NoteError`: one line naming
the system, the document id and what happened, never note text (a tool's stderr is not
shown, since tools echo their input).  ``on_error`` decides how the note is scored:

* ``"redact"`` (default): every token of the note is ``PHI``.  A de-identification
  pipeline does not release a note its tool failed on, so the note counts as withheld: all
  its PHI is caught and all its other words are lost (false positives).  It is never scored
  as "no PHI found", and the report lists every such note (:mod:`bench.report.render`).
* ``"fail"``: the whole cell fails with the list of notes, and the system is reported
  failed on that fold while the other systems finish.
"""

from __future__ import annotations

import bisect
import contextlib
import hashlib
import math
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from corpora.model import LABELS, OUTSIDE, PHI, Document, printable
from infra.memo import memoize
from systems.base import CannotStart, HarnessError, System

#: How a note the tool failed on is scored (see the module docstring).
ON_ERROR = ("redact", "fail")

#: Words in a tool's type name -> our label, tried in order (first match wins), on the
#: lower-cased name with ``_``/``-``/``/`` read as spaces.  Clinician words come before
#: generic name words ("Doctor Last Name" is a DOCTOR), places of care before places.
TYPE_RULES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), label)
    for pattern, label in (
        (r"\b(doctor|dr|md|physician|provider|hcp|hcpname|clinician|nurse|staff)\b", "DOCTOR"),
        (r"\b(phone|telephone|fax|pager|tel)\b", "PHONE"),
        (r"\b(age|ages)\b", "AGE"),
        (r"\b(hospital\w*|wardname|ward|facility|clinic|institution)\b", "HOSPITAL"),
        (
            r"\b(date|dates|datetime|year|month|day|time|holiday|dateyear)\b|^[\d\s./-]+$",
            "DATE",
        ),
        (r"\b(email|e mail|url|uri|ip|web|website)\b", "OTHER"),
        (
            r"\b(id|ids|ssn|mrn|number|record|account|license|licence|serial|passport|"
            r"itin|iban|bank|credit|card|unit number|identifier|social)\b",
            "ID",
        ),
        (
            r"\b(location|locations|address|street|city|state|states|country|countries|zip|"
            r"zipcode|gpe|loc|place|places)\b",
            "LOCATION",
        ),
        (
            r"\b(name\d*|names|first|last|surname|patient|person|per|relative|proxy|"
            r"initial|initials|firstname|lastname|ptname|ptnameinitial|relativeproxyname)\b",
            "PATIENT",
        ),
        (r"\b(other|organization|organisation|org|company|profession)\b", "OTHER"),
    )
)


def _normalize_type(kind: str) -> str:
    return re.sub(r"[_/\-]+", " ", kind.strip().lower())


def parse_label_map(labels: Mapping[str, str] | str | None) -> dict[str, str]:
    """``{"NAME": "PATIENT"}`` or ``"NAME=PATIENT,DATE=DATE"`` -> {normalized type: label};
    ``ValueError`` naming a label outside our set (``O`` drops a type, ``PHI`` is binary)."""
    if labels is None or labels == "":
        return {}
    if isinstance(labels, str):
        pairs: list[tuple[str, str]] = []
        for item in labels.split(","):
            if not item.strip():
                continue
            key, sep, value = item.partition("=")
            if not sep:
                raise ValueError(f"labels {item!r}: use TYPE=LABEL, e.g. NAME=PATIENT")
            pairs.append((key, value))
    elif isinstance(labels, Mapping):
        pairs = [(str(k), str(v)) for k, v in labels.items()]
    else:
        raise ValueError("labels: use a mapping {TYPE: LABEL} or 'TYPE=LABEL,...'")
    out: dict[str, str] = {}
    allowed = (*LABELS, PHI, OUTSIDE)
    for key, value in pairs:
        label = value.strip().upper()
        if label not in allowed:
            raise ValueError(f"labels: {value!r} is not one of {', '.join(allowed)}")
        out[_normalize_type(key)] = label
    return out


def label_for(
    kind: str | None,
    overrides: Mapping[str, str] | None = None,
    rules: Sequence[tuple[re.Pattern[str], str]] = (),
) -> str:
    """Our label for a tool's type name: ``overrides`` (exact names), then a tool's own
    ``rules``, then :data:`TYPE_RULES` (see the module docstring)."""
    if not kind or not kind.strip():
        return PHI
    norm = _normalize_type(kind)
    if overrides and norm in overrides:
        return overrides[norm]
    for pattern, label in (*rules, *TYPE_RULES):
        if pattern.search(norm):
            return label
    return PHI


@dataclass(frozen=True, slots=True)
class FoundSpan:
    """A span a tool marked as PHI: character offsets into the note and the tool's own type
    name (``None`` when the tool gives none, e.g. masked text)."""

    start: int
    end: int
    kind: str | None = None


class NoteError(Exception):
    """The tool failed on one note; the message says what happened, never note text."""


def spans_to_labels(document: Document, spans: Sequence[FoundSpan], label_of: Any) -> list[str]:
    """One label per token: the label (``label_of(kind)``) of the first span it overlaps."""
    tokens = document.tokens
    labels = [OUTSIDE] * len(tokens)
    if not tokens or not spans:
        return labels
    ends = [t.end for t in tokens]
    for span in sorted(spans, key=lambda s: (s.start, s.end)):
        label = label_of(span.kind)
        if label == OUTSIDE:
            continue
        i = bisect.bisect_right(ends, span.start)  # first token ending after the start
        while i < len(tokens) and tokens[i].start < span.end:
            if labels[i] == OUTSIDE:
                labels[i] = label
            i += 1
    return labels


def check_spans(spans: Sequence[FoundSpan], length: int) -> None:
    """``NoteError`` for a span outside a note of ``length`` characters or empty."""
    for s in spans:
        if not (0 <= s.start < s.end <= length):
            raise NoteError(f"span {s.start}-{s.end} is outside the note (length {length})")


def byte_to_char_offsets(text: str, encoding: str = "utf-8") -> list[int]:
    """``table[b]`` = the character offset of byte offset ``b`` of ``text`` encoded (a byte
    inside a multi-byte character maps to that character); ``len(table)`` is bytes + 1."""
    table: list[int] = []
    for i, ch in enumerate(text):
        table.extend([i] * len(ch.encode(encoding, "surrogatepass")))
    table.append(len(text))
    return table


@memoize("external.prctl", max_entries=1)
def _prctl() -> Any:
    """libc's ``prctl`` (Linux), looked up once in this process, or ``None``."""
    try:
        import ctypes

        return ctypes.CDLL("libc.so.6", use_errno=True).prctl
    except (OSError, AttributeError):
        return None


#: The wall-clock backstop of a timeout, as a multiple of its CPU seconds (a tool blocked
#: without working; a tool sharing a busy machine's cores still finishes within it).
WALL_CLOCK_FACTOR = 4.0


def limit_cpu(seconds: float) -> None:
    """Let this process spend at most ``seconds`` more CPU seconds: past them the kernel
    sends ``SIGXCPU``, which ends it (whole seconds, rounded up; nothing where the platform
    has no ``resource`` module)."""
    try:
        import resource
    except ImportError:  # not POSIX: the wall-clock backstop alone applies
        return
    usage = resource.getrusage(resource.RUSAGE_SELF)
    soft = math.ceil(usage.ru_utime + usage.ru_stime + seconds)
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def timeout_error(returncode: int | None, cpu_seconds: float, *, waited: bool) -> NoteError:
    """The error of a tool stopped by its CPU limit (``SIGXCPU``), by the wall-clock
    backstop (``waited``), or that died otherwise."""
    if returncode == -signal.SIGXCPU:
        return NoteError(f"timed out after {cpu_seconds:g} s of CPU time")
    if waited:
        return NoteError(
            f"timed out after {cpu_seconds * WALL_CLOCK_FACTOR:g} s of wall-clock time "
            f"({cpu_seconds:g} s of CPU allowed)"
        )
    return NoteError("crashed")


def die_with_parent() -> None:
    """Ask the kernel to kill this process when its parent dies (Linux ``PR_SET_PDEATHSIG``;
    elsewhere nothing), so a tool or child started for a run never outlives the run."""
    prctl = _prctl()
    if prctl is not None:
        prctl(1, signal.SIGKILL)  # 1 = PR_SET_PDEATHSIG


#: A tool's output for one note may be this many times the note's size in bytes ...
OUTPUT_FACTOR = 20
#: ... plus this many bytes (span lines for a short note with many PHI, a tool's banner).
OUTPUT_FLOOR = 1 << 20
#: Seconds to wait for the end of a tool's output after its process has exited: a helper
#: it left running may hold the pipe open for ever, and what it wrote before exiting is
#: its answer.
EXIT_GRACE_SECONDS = 1.0
#: Bytes of a tool's stderr kept (only its line count is ever shown).
STDERR_KEPT = 1 << 16


def output_limit(note_bytes: int, factor: float = OUTPUT_FACTOR) -> int:
    """The most bytes of output a tool may write for ``note_bytes`` of input (a generous
    multiple: span lines and redacted text are about the note's size or less)."""
    return int(OUTPUT_FLOOR + factor * note_bytes)


def run_tool(
    argv: Sequence[str],
    *,
    stdin: bytes | None = None,
    cwd: str | os.PathLike[str] | None = None,
    timeout: float | None = None,
    env: Mapping[str, str] | None = None,
    max_output: int | None = None,
) -> bytes:
    """Run a tool and return its stdout.

    Raises :class:`systems.base.CannotStart` when the program cannot be started, and
    :class:`NoteError` when it exits non-zero, spends more than ``timeout`` CPU seconds
    (each of its processes), outlives ``timeout x`` :data:`WALL_CLOCK_FACTOR` wall-clock
    seconds, or writes more than ``max_output`` bytes (to stdout, or to any file:
    ``RLIMIT_FSIZE``).

    Bounded whatever the tool does with its pipes: every read waits until a deadline, never
    for an end of output, so a helper the tool left behind holding stdout cannot keep the
    run waiting; once the tool's own process has exited, what it wrote is its answer
    (after :data:`EXIT_GRACE_SECONDS` for the rest to drain), and its process group is
    killed.  On Linux the tool is also killed when the harness dies (:func:`die_with_parent`).
    """

    def prepare() -> None:
        die_with_parent()
        if timeout is not None:
            limit_cpu(timeout)
        if max_output is not None:
            _limit_file_size(max_output)

    try:
        proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=None if env is None else dict(env),
            start_new_session=True,
            preexec_fn=prepare,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
        raise CannotStart(f"cannot start {Path(argv[0]).name}: {reason}") from None
    wall = None if timeout is None else timeout * WALL_CLOCK_FACTOR
    try:
        out, err, overflow, waited = _exchange(proc, stdin, wall, max_output)
    finally:
        _kill_group(proc)
    if overflow or (max_output is not None and proc.returncode == -signal.SIGXFSZ):
        raise NoteError(f"wrote more than {max_output:,} bytes of output for the note")
    if waited:  # the deadline passed with the tool still running (then killed)
        raise timeout_error(None, float(timeout or 0), waited=True)
    if timeout is not None and proc.returncode == -signal.SIGXCPU:
        raise timeout_error(proc.returncode, timeout, waited=False)
    if proc.returncode != 0:
        how = (
            f"killed by signal {-proc.returncode}"
            if proc.returncode is not None and proc.returncode < 0
            else f"exited with code {proc.returncode}"
        )
        lines = err.count(b"\n") + (1 if err and not err.endswith(b"\n") else 0)
        shown = f" ({lines} line(s) on stderr, not shown: they may quote the note)" if lines else ""
        raise NoteError(how + shown)
    return out


def _limit_file_size(limit: int) -> None:
    """In the tool's process: no file it writes may grow past ``limit`` bytes (the kernel
    sends ``SIGXFSZ``), so a runaway answer cannot fill the disk."""
    try:
        import resource
    except ImportError:
        return
    _, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    soft = limit if hard == resource.RLIM_INFINITY else min(limit, hard)
    resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))


def _exchange(
    proc: subprocess.Popen[bytes],
    data: bytes | None,
    wall: float | None,
    max_output: int | None,
) -> tuple[bytes, bytes, bool, bool]:
    """Feed ``data`` to the tool and read its stdout and stderr until both end, the tool
    exits (plus :data:`EXIT_GRACE_SECONDS`), the wall-clock deadline passes or stdout
    passes ``max_output`` bytes.  Returns (stdout, stderr, overflowed, deadline passed)."""
    import selectors

    deadline = None if wall is None else time.monotonic() + wall
    exited_at: float | None = None
    out, err = bytearray(), bytearray()
    pending = memoryview(data or b"")
    with selectors.DefaultSelector() as sel:
        assert proc.stdout is not None and proc.stderr is not None
        for stream in (proc.stdout, proc.stderr):
            os.set_blocking(stream.fileno(), False)
            sel.register(stream, selectors.EVENT_READ)
        if proc.stdin is not None:
            if pending:
                os.set_blocking(proc.stdin.fileno(), False)
                sel.register(proc.stdin, selectors.EVENT_WRITE)
            else:
                proc.stdin.close()
        while sel.get_map():
            now = time.monotonic()
            if exited_at is None and proc.poll() is not None:
                exited_at = now
            limits = [0.2]  # re-check the process now and then: it may exit silently
            if deadline is not None:
                limits.append(deadline - now)
            if exited_at is not None:
                limits.append(exited_at + EXIT_GRACE_SECONDS - now)
            wait = min(limits)
            if wait <= 0:
                break
            for key, _ in sel.select(wait):
                stream = key.fileobj
                if stream is proc.stdin:
                    try:
                        pending = pending[os.write(proc.stdin.fileno(), pending[: 1 << 16]) :]
                    except (BrokenPipeError, BlockingIOError) as exc:
                        if isinstance(exc, BlockingIOError):
                            continue
                        pending = memoryview(b"")  # the tool stopped reading: its business
                    if not pending:
                        sel.unregister(stream)
                        proc.stdin.close()
                    continue
                chunk = os.read(stream.fileno(), 1 << 16)  # type: ignore[union-attr]
                if not chunk:
                    sel.unregister(stream)
                elif stream is proc.stdout:
                    out += chunk
                    if max_output is not None and len(out) > max_output:
                        return bytes(out[:max_output]), bytes(err), True, False
                elif len(err) < STDERR_KEPT:
                    err += chunk[: STDERR_KEPT - len(err)]
    if proc.poll() is None and exited_at is None:
        # stdout and stderr ended but the tool still runs: wait for it, to the deadline
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(left)
    waited = proc.poll() is None
    return bytes(out), bytes(err), False, waited


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill the tool's process group (helpers it started included), close the pipes
    without waiting for their end, and reap the tool."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(5)


#: The child of :func:`run_isolated`: reads the parent's ``sys.path``, then the work.
_CHILD = (
    "import sys; from multiprocessing.connection import Connection; "
    "inbox = Connection(int(sys.argv[1]), writable=False); "
    "sys.path[:0] = inbox.recv(); "
    "from systems.external import _serve; "
    "_serve(inbox, Connection(int(sys.argv[2]), readable=False))"
)


def _serve(inbox: Any, outbox: Any) -> None:
    """The loop of :func:`run_isolated`'s child: ``func(state, item)`` per item received."""
    die_with_parent()
    init, initargs, func = inbox.recv()
    state = init(*initargs)
    while True:
        message = inbox.recv()
        if message is None:
            return
        item, cpu_seconds = message
        limit_cpu(cpu_seconds)
        try:
            outbox.send(("ok", func(state, item)))
        except Exception as exc:  # reported per item; the child goes on
            outbox.send(("error", type(exc).__name__))


class _Child:
    """A fresh interpreter serving :func:`_serve` over two pipes.

    Started with :mod:`subprocess`, not :mod:`multiprocessing`: inside a joblib (loky)
    worker the multiprocessing start method is loky's own, which a spawned child cannot
    restore, so every child died before its first note.  A plain interpreter reading
    pickles from a pipe works from the main process, loky workers and dask workers alike.
    """

    def __init__(self, init: Any, initargs: tuple[Any, ...], func: Any) -> None:
        from multiprocessing.connection import Connection

        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", _CHILD, str(to_child_r), str(from_child_w)],
                pass_fds=(to_child_r, from_child_w),
                stdin=subprocess.DEVNULL,
                start_new_session=True,
                preexec_fn=die_with_parent if _prctl() is not None else None,
            )
        finally:
            os.close(to_child_r)
            os.close(from_child_w)
        self.outbox = Connection(to_child_w, readable=False)
        self.inbox = Connection(from_child_r, writable=False)
        self.outbox.send([p for p in sys.path if isinstance(p, str)])
        self.outbox.send((init, initargs, func))

    def ask(self, item: Any, cpu_seconds: float, wall_seconds: float) -> tuple[str, Any]:
        """``("ok", result)``, ``("error", exception type)``, ``("timeout", None)`` (past
        ``wall_seconds``) or ``("died", None)`` (the CPU limit ends the child too)."""
        try:
            self.outbox.send((item, cpu_seconds))
            if not self.inbox.poll(wall_seconds):
                return "timeout", None
            return self.inbox.recv()
        except (EOFError, OSError):
            return "died", None

    def stop(self, *, kill: bool) -> None:
        if not kill:
            with contextlib.suppress(OSError, ValueError):
                self.outbox.send(None)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(5)
        if self.proc.poll() is None:
            _kill_group(self.proc)
        self.proc.wait()
        self.outbox.close()
        self.inbox.close()


def run_isolated(
    func: Any,
    items: Sequence[Any],
    *,
    init: Any,
    initargs: tuple[Any, ...] = (),
    timeout: float,
    startup: float = 120.0,
) -> list[Any]:
    """``func(init(*initargs), item)`` for each item, in a child process, with ``timeout``
    CPU seconds per item: a library that hangs on one note (a regular expression that
    backtracks forever) cannot be interrupted in-process, so it runs in a child that is
    ended and started again.  Returns each result, or a :class:`NoteError` for an item
    that timed out, raised, or killed the child.  ``func`` and ``init`` must be importable
    module-level functions (the child is a new interpreter, see :class:`_Child`)."""
    results: list[Any] = []
    child: _Child | None = None
    try:
        for item in items:
            fresh = child is None
            if child is None:
                child = _Child(init, initargs, func)
            wall = timeout * WALL_CLOCK_FACTOR + (startup if fresh else 0.0)
            status, value = child.ask(item, timeout, wall)
            if status == "ok":
                results.append(value)
                continue
            if status == "error":
                results.append(NoteError(f"raised {value}"))
                continue
            child.stop(kill=True)
            results.append(
                timeout_error(child.proc.returncode, timeout, waited=status == "timeout")
            )
            child = None
    finally:
        if child is not None:
            child.stop(kill=False)
    return results


@memoize("external.file_digests", max_entries=256)
def _file_digest(path: str, mtime_ns: int, size: int) -> str:
    h = hashlib.blake2b(digest_size=12)
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def files_fingerprint(paths: Sequence[str | os.PathLike[str]]) -> str:
    """A hash of the content of every existing file in ``paths`` (directories: their files,
    recursively), so editing a tool's script or word list changes the cache key."""
    h = hashlib.blake2b(digest_size=12)
    for p in paths:
        path = Path(p)
        files = sorted(f for f in path.rglob("*") if f.is_file()) if path.is_dir() else [path]
        for f in files:
            try:
                st = f.stat()
            except OSError:
                continue
            h.update(f"{f.name}\0{_file_digest(str(f), st.st_mtime_ns, st.st_size)}\0".encode())
    return h.hexdigest()


class ExternalSystem(System):
    """A de-identifier that exists outside this harness, run as it is (see the module
    docstring for what is shared).

    Subclasses implement :meth:`find_spans` and may set :attr:`type_labels` (their tool's
    own type names -> our labels) and :attr:`type_rules` (patterns on its type names),
    both consulted before :data:`TYPE_RULES`; their parameters include ``labels`` (user
    overrides, consulted first) and ``on_error``.
    """

    #: The ``peers`` group of ``--systems`` (:mod:`bench.run.plan`).
    external: ClassVar[bool] = True
    requires_training = False
    uses_nlp = False
    #: The tool's own type names -> our labels (before the generic rules).
    type_labels: ClassVar[Mapping[str, str]] = {}
    #: Patterns on the tool's lower-cased type names -> our labels (before the generic
    #: rules, after :attr:`type_labels`).
    type_rules: ClassVar[tuple[tuple[str, str], ...]] = ()
    #: The registered system this tool is the original of (``deidpl`` -> ``mimic``): the
    #: report then compares the two (:mod:`bench.score.peer_comparison`).
    original_of: ClassVar[str | None] = None

    labels: Mapping[str, str] | str | None
    on_error: str

    # -- to implement -----------------------------------------------------------------------
    def find_spans(self, documents: Sequence[Document]) -> list[list[FoundSpan] | NoteError]:
        """Per document, the tool's spans, or the :class:`NoteError` it failed with.
        Raise :class:`systems.base.SystemUnavailable` when the tool is not installed."""
        raise NotImplementedError

    def runs_as(self) -> str:
        """One line for the report: which tool, which version and configuration ran."""
        return type(self).description

    def check_available(self) -> None:
        """Raise :class:`systems.base.SystemUnavailable` (saying what is missing) when the
        tool cannot run here.  Called when a run is planned, so a tool that was asked for
        and cannot start is a usage error before any work, and again before each cell."""

    # -- shared ------------------------------------------------------------------------------
    @property
    def display_name(self) -> str:
        return str(getattr(self, "tool", "") or self.name)

    def check_params(self) -> None:
        if self.on_error not in ON_ERROR:
            raise ValueError(f"on_error {self.on_error!r}: use {', '.join(ON_ERROR)}")
        parse_label_map(self.labels)

    def _label_of(self) -> Any:
        table = {_normalize_type(k): v for k, v in self.type_labels.items()}
        table.update(parse_label_map(self.labels))
        rules = tuple((re.compile(p), label) for p, label in self.type_rules)
        return lambda kind: label_for(kind, table, rules)

    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        documents = list(documents)
        start = time.perf_counter()
        found = self.find_spans(documents)
        self.tool_seconds_ = time.perf_counter() - start
        if len(found) != len(documents):
            raise HarnessError(
                f"{self.display_name}: {len(found)} results for {len(documents)} notes"
            )
        label_of = self._label_of()
        withheld = self.on_error == "redact"
        failures: list[dict[str, str]] = []
        out: list[list[str]] = []
        for doc, got in zip(documents, found, strict=True):
            if not isinstance(got, NoteError):
                try:
                    check_spans(got, len(doc.text))
                except NoteError as exc:
                    got = exc
            if isinstance(got, NoteError):
                failures.append({"document": doc.id, "error": str(got)})
                scored = " (scored as withheld: every token PHI)" if withheld else ""
                line = f"{self.display_name}: note {doc.id}: {got}{scored}"
                print(printable(line), file=sys.stderr)
                out.append([PHI] * len(doc.tokens))
            else:
                out.append(spans_to_labels(doc, got, label_of))
        self.note_failures_ = failures
        if failures and len(failures) == len(documents):
            # no answer for any note: the tool does not run here, and scoring every note
            # as withheld would give it a recall of 100
            raise HarnessError(
                f"{self.display_name} failed on every note ({len(failures)}), e.g. "
                f"{failures[0]['document']}: {failures[0]['error']}"
            )
        if failures and self.on_error == "fail":
            listed = "; ".join(f"{f['document']}: {f['error']}" for f in failures[:5])
            more = f" and {len(failures) - 5} more" if len(failures) > 5 else ""
            raise HarnessError(
                f"{self.display_name} failed on {len(failures)} note(s): {listed}{more}"
            )
        self.runs_as_ = self.runs_as()
        return out

    def fitted_info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"runs_as": getattr(self, "runs_as_", self.runs_as())}
        failures = getattr(self, "note_failures_", [])
        if failures:
            info["note_failures"] = failures
            info["on_error"] = self.on_error
        if hasattr(self, "tool_seconds_"):
            info["tool_seconds"] = round(self.tool_seconds_, 3)
        return info

"""``deidpl`` -- the original MIMIC / PhysioNet de-identifier, ``deid.pl`` 1.1, run as it is.

Neamatullah et al. (2008) published the Perl program whose rules ``mimic`` re-implements
(Tafvizi 2011, §2.5).  Running the original beside the re-implementation shows how close
the re-implementation comes (the report's *Re-implementation vs original* table,
:mod:`bench.score.peer_comparison`).  The program is GPL-2 and is never copied into this
project: it is run from the user's own install (``--param deidpl.home=DIR``, else
``DEID_BENCH_DEIDPL``, else ``../shared/peers/deid-1.1`` beside the project or under
``DEID_BENCH_SHARED``); without one, or without ``perl``, the system is reported as not run
with how to get it.

How it is run.  deid.pl reads ``NAME.text`` in its working directory -- records
``START_OF_RECORD=<patient>||||<note>||||`` newline, the note, ``||||END_OF_RECORD`` -- and
writes ``NAME.phi`` (the PHI offsets of each record), ``NAME.res`` (the scrubbed text) and
``NAME.info`` (each PHI with the types its rules gave it).  Each call gets a fresh
temporary directory holding links to the install's files (it writes its outputs into its
working directory, never into the install), the configuration is ``config`` (default
``deid-output.config``, the output mode its README describes), and
all notes of the call go into one ``.text`` file (``batch=True``): the program loads its
word lists for a few seconds at start, so one process per note takes several times longer
(measured in the README).  Offsets in ``.phi`` are bytes of the note (Perl reads bytes)
and are converted to characters.

Patient context.  deid.pl remembers the names it found in a patient's notes and marks
their later occurrences in the same patient's other notes ("Name (Repeated
Occurrence)"); it assumes a patient's notes are consecutive.  With ``patient_context=True``
(default) the notes of a call are grouped by ``metadata["patient"]`` (records keep their
order within a patient) and numbered accordingly, as when the program runs on its own
corpus; documents without a patient key, or ``patient_context=False``, are each their own
patient.  Under cross-validation grouped by patient a patient's notes are all in one test
fold, so the program sees the same context as on the whole corpus.

Types.  A PHI span's label comes from the types deid.pl lists for it in ``.info``
(``Doctor Last Name``, ``Month/Day (4)``, ``Hospital1``, ``Telephone/Fax (2)`` ...; see
``docs/peers.md`` for the table), read through :data:`TYPE_RULES` of
:mod:`systems.external` plus this program's own names (:attr:`DeidPl.type_rules`); when a
span has several, the most specific wins (:data:`PRECEDENCE`: a clinician over a generic
name, a phone over a date ...).

Failures.  A note containing a record marker of its own cannot be written as a record and
fails alone.  When the program fails on a whole call (crash, ``timeout`` CPU seconds per
note exceeded), each note is run alone to find the ones it fails on; those are scored as
``on_error`` says (:mod:`systems.external`) and the others keep their result.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from corpora.model import LABELS, PHI, Document
from systems.base import SystemUnavailable, register
from systems.external import (
    ExternalSystem,
    FoundSpan,
    NoteError,
    byte_to_char_offsets,
    files_fingerprint,
    output_limit,
    run_tool,
)

#: Environment variable naming the deid.pl install directory.
ENV_HOME = "DEID_BENCH_DEIDPL"
#: The install inside ``../shared`` (or ``DEID_BENCH_SHARED``).
SHARED_SUBDIR = Path("peers") / "deid-1.1"
#: Which label wins when deid.pl gives one span several types.
PRECEDENCE: tuple[str, ...] = (
    "DOCTOR",
    "PHONE",
    "ID",
    "AGE",
    "DATE",
    "HOSPITAL",
    "LOCATION",
    "PATIENT",
    "OTHER",
    PHI,
)
#: CPU seconds a call may take on top of ``timeout`` per note (Perl loading its lists).
STARTUP_SECONDS = 120.0
_END = "||||END_OF_RECORD"
_START = "START_OF_RECORD="


def default_home() -> Path | None:
    """``DEID_BENCH_DEIDPL``, else ``$DEID_BENCH_SHARED/peers/deid-1.1``, else
    ``../shared/peers/deid-1.1`` beside the project, where it holds ``deid.pl``."""
    root = Path(__file__).resolve().parents[1]
    candidates = []
    if os.environ.get(ENV_HOME):
        candidates.append(Path(os.environ[ENV_HOME]))
    if os.environ.get("DEID_BENCH_SHARED"):
        candidates.append(Path(os.environ["DEID_BENCH_SHARED"]) / SHARED_SUBDIR)
    candidates.append(root.parent / "shared" / SHARED_SUBDIR)
    return next((c for c in candidates if (c / "deid.pl").is_file()), None)


@register
class DeidPl(ExternalSystem):
    """The original deid.pl 1.1 (Neamatullah et al. 2008), run in its output mode.

    Parameters
    ----------
    home:
        The deid.pl install (``deid.pl``, ``lists/``, ``dict/``, configs); ``None``: see
        :func:`default_home`.
    config:
        The configuration file, a name in ``home`` or a path.
    batch:
        All notes of a call in one run (``False``: one run per note, for measuring).
    patient_context:
        Group a call's notes by patient (see the module docstring).
    timeout:
        CPU seconds per note (a call may take ``120 + timeout x notes``).
    perl:
        The Perl interpreter.
    labels, on_error, tool:
        As for every external system (:mod:`systems.external`).
    """

    name = "deidpl"
    description = "the original PhysioNet deid.pl 1.1 (Perl; Neamatullah et al. 2008), run as it is"
    citation = "Neamatullah et al. 2008"
    departures = (
        "the original program, all notes of a call in one run; its PHI types mapped "
        "onto our labels (docs/peers.md)"
    )
    original_of = "mimic"
    # about 2,300 tokens/s (4.3e-4 s per token, BASE_SECONDS_PER_TOKEN = 1.3e-4); scheduling
    # and the progress estimate only
    relative_cost = 3.3
    type_rules = (
        (r"\(pre\)|\bsignature\b", "DOCTOR"),
        (r"provider number|medical record|unit number|social security", "ID"),
        (r"zipcode|\bpo box\b", "LOCATION"),
        (r"known patient", "PATIENT"),
        (r"\bcompany\b", "OTHER"),
    )

    def __init__(
        self,
        home: str | None = None,
        config: str = "deid-output.config",
        batch: bool = True,
        patient_context: bool = True,
        timeout: float = 30.0,
        perl: str = "perl",
        labels: Mapping[str, str] | str | None = None,
        on_error: str = "redact",
        tool: str = "",
    ) -> None:
        self.home = home
        self.config = config
        self.batch = batch
        self.patient_context = patient_context
        self.timeout = timeout
        self.perl = perl
        self.labels = labels
        self.on_error = on_error
        self.tool = tool

    # -- where the program is -----------------------------------------------------------
    def _home(self) -> Path | None:
        if self.home is not None:
            home = Path(self.home).expanduser()
            return home if (home / "deid.pl").is_file() else None
        return default_home()

    def _config_path(self, home: Path) -> Path:
        path = Path(self.config).expanduser()
        return path if path.is_absolute() or path.parent != Path(".") else home / path

    def _require(self) -> tuple[Path, Path, str]:
        home = self._home()
        if home is None:
            where = f"{self.home}" if self.home is not None else "any default location"
            raise SystemUnavailable(
                f"deid.pl not found at {where}: download PhysioNet's deid 1.1 "
                "(physionet.org/content/deid) and pass --param deidpl.home=DIR or set "
                f"{ENV_HOME}"
            )
        perl = shutil.which(self.perl)
        if perl is None:
            raise SystemUnavailable(f"{self.perl!r} not found: install Perl 5 (apt install perl)")
        config = self._config_path(home)
        if not config.is_file():
            raise SystemUnavailable(f"deid.pl configuration {config} not found")
        return home, config, perl

    def check_available(self) -> None:
        self._require()

    def check_params(self) -> None:
        super().check_params()
        if not (isinstance(self.timeout, int | float) and self.timeout > 0):
            raise ValueError(f"timeout {self.timeout!r}: a positive number of seconds")

    def tool_fingerprint(self) -> str:
        home = self._home()
        if home is None:
            return "not installed"
        paths = [home / "deid.pl", self._config_path(home), home / "lists", home / "dict"]
        if (home / "stat.pm").exists():
            paths.append(home / "stat.pm")
        return files_fingerprint(paths)

    def runs_as(self) -> str:
        home = self._home()
        mode = "all notes of a call in one run" if self.batch else "one run per note"
        context = ", patient context" if self.patient_context else ""
        return f"deid.pl from {home}, {Path(self.config).name}, {mode}{context}"

    # -- running it ---------------------------------------------------------------------
    def find_spans(self, documents: Sequence[Document]) -> list[list[FoundSpan] | NoteError]:
        home, config, perl = self._require()
        results: list[list[FoundSpan] | NoteError | None] = [None] * len(documents)
        runnable: list[int] = []
        for i, doc in enumerate(documents):
            if _END in doc.text or any(line.startswith(_START) for line in doc.text.splitlines()):
                results[i] = NoteError("the note contains a deid.pl record marker")
            else:
                runnable.append(i)
        groups = [runnable] if self.batch else [[i] for i in runnable]
        for group in groups:
            if not group:
                continue
            try:
                got = self._run(home, config, perl, [documents[i] for i in group])
            except NoteError as exc:
                if len(group) == 1:
                    results[group[0]] = exc
                    continue
                got = []  # find the notes it fails on, one at a time
                for i in group:
                    try:
                        got.extend(self._run(home, config, perl, [documents[i]]))
                    except NoteError as single:
                        got.append(single)
            for i, found in zip(group, got, strict=True):
                results[i] = found
        return [r if r is not None else NoteError("not run") for r in results]

    def _records(self, documents: Sequence[Document]) -> list[tuple[int, int, int]]:
        """(document index, patient number, note number) in the order deid.pl gets them:
        a patient's notes together, patients in order of their first note."""
        order: dict[Any, list[int]] = {}
        for i, doc in enumerate(documents):
            patient = doc.metadata.get("patient") if self.patient_context else None
            order.setdefault(("p", patient) if patient is not None else ("d", i), []).append(i)
        records = []
        for pid, members in enumerate(order.values(), 1):
            for note, i in enumerate(members, 1):
                records.append((i, pid, note))
        return records

    def _run(
        self, home: Path, config: Path, perl: str, documents: Sequence[Document]
    ) -> list[list[FoundSpan] | NoteError]:
        records = self._records(documents)
        parts = []
        for i, pid, note in records:
            text = documents[i].text
            parts.append(f"{_START}{pid}||||{note}||||\n{text}")
            parts.append(("" if text.endswith("\n") else "\n") + _END + "\n")
        with tempfile.TemporaryDirectory(prefix="deid-bench-deidpl-") as tmp:
            work = Path(tmp)
            for entry in home.iterdir():
                if not entry.name.startswith("id."):
                    (work / entry.name).symlink_to(entry.resolve())
            data = "".join(parts).encode("utf-8", "surrogatepass")
            (work / "notes.text").write_bytes(data)
            limit = output_limit(len(data))
            run_tool(
                [perl, "-I.", "deid.pl", "notes", str(config.resolve())],
                cwd=work,
                timeout=STARTUP_SECONDS + float(self.timeout) * len(documents),
                max_output=limit,
            )
            phi = _read(work / "notes.phi", limit)
            info = _read(work / "notes.info", limit)
        offsets = _sections(phi)
        types = _sections(info)
        label_of = self._label_of()
        out: list[list[FoundSpan] | NoteError] = [NoteError("not run")] * len(documents)
        for i, pid, note in records:
            key = (pid, note)
            if key not in offsets:
                out[i] = NoteError("deid.pl wrote no PHI list for the note")
                continue
            try:
                out[i] = _spans(documents[i].text, offsets[key], types.get(key, []), label_of)
            except NoteError as exc:
                out[i] = exc
        return out


def _read(path: Path, limit: int) -> str:
    if not path.is_file():
        raise NoteError(f"deid.pl wrote no {path.suffix} file")
    if path.stat().st_size > limit:
        raise NoteError(f"deid.pl wrote more than {limit:,} bytes to its {path.suffix} file")
    return path.read_bytes().decode("utf-8", "surrogateescape")


def _sections(content: str) -> dict[tuple[int, int], list[str]]:
    """``Patient P<TAB>Note N`` headers of a .phi / .info file -> the lines under each."""
    sections: dict[tuple[int, int], list[str]] = {}
    current: list[str] | None = None
    for line in content.split("\n"):
        if line.startswith("Patient "):
            head = line.split("\t")
            try:
                key = (int(head[0].split()[1]), int(head[1].split()[1]))
            except (IndexError, ValueError):
                current = None
                continue
            current = sections.setdefault(key, [])
        elif current is not None and line.strip():
            current.append(line)
    return sections


def _spans(
    text: str, phi_lines: list[str], info_lines: list[str], label_of: Any
) -> list[FoundSpan]:
    """The note's PHI spans in characters, each with its most specific deid type."""
    data = text.encode("utf-8", "surrogatepass")
    table = byte_to_char_offsets(text)
    limit = len(data) + len(_END) + 1  # deid.pl also reads the end-of-record line
    typed: list[tuple[int, int, list[str]]] = []
    for line in info_lines:
        fields = [f.strip() for f in line.split("\t")]
        if len(fields) < 4 or fields[2].startswith("#"):
            continue
        try:
            start, end = int(fields[0]), int(fields[1])
        except ValueError:
            continue
        tabs = data[start:end].count(b"\t")  # a PHI phrase with tabs spans more fields
        kinds = [f for f in fields[3 + tabs :] if f]
        typed.append((start, end, kinds))
    spans = []
    for line in phi_lines:
        fields = line.split("\t")
        try:
            start, end = int(fields[1]), int(fields[2])
        except (IndexError, ValueError):
            raise NoteError("deid.pl's PHI list has a line that is not 'start start end'") from None
        if not (0 <= start < end <= limit):
            raise NoteError(f"deid.pl's span {start}-{end} is outside the note")
        if start >= len(data):
            continue  # inside the end-of-record line
        end = min(end, len(data))
        kinds = [k for s, e, ks in typed if s >= start and e <= end for k in ks]
        spans.append(FoundSpan(table[start], table[end], _most_specific(kinds, label_of)))
    return spans


def _most_specific(kinds: list[str], label_of: Any) -> str | None:
    """The type whose label comes first in :data:`PRECEDENCE` (``None`` without types)."""
    if not kinds:
        return None
    rank = {label: n for n, label in enumerate(PRECEDENCE)}
    return min(kinds, key=lambda k: rank.get(label_of(k), len(LABELS) + 1))

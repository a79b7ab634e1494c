"""``philter`` -- UCSF's Philter (Norgeot et al. 2020), through philter-lite's library API.

Philter is a rule and regular-expression de-identifier built the other way round from the
MIMIC rules: its filters run in order, each either marking text *safe* (a whitelist of
common words, numbers, clinical patterns) or *PHI* (names from census lists with a proper-
noun tag, dates, addresses, name contexts), and its redacted output masks every letter and
digit that no safe filter kept.  ``philter-lite`` (PyPI, BSD-3) is the maintained fork
that installs on Python 3.11, where ``philter-ucsf`` 1.0.3 does not; it is in the
``peers`` extra (``pip install -e '.[peers]'``) and without it this system is reported as
not run with that command.  It POS-tags notes with NLTK's perceptron tagger (the same
resource as our learned systems: ``NLTK_DATA=../shared/nltk_data``).

Two configurations, both with Philter's own filter file (``filters``: default the
``philter_delta.toml`` that philter-lite ships, or a path to another):

``philter`` (``mode="shipped"``) -- as it ships: a token is PHI when any of its letters or
digits is left unmasked by no safe filter, exactly what Philter's asterisk output redacts.
On ICU shorthand most words are on no safe list, so it over-redacts heavily (philter-ucsf
1.0.3 measured P 0.055 / R 0.896 on the PhysioNet notes).

``philter-lenient`` (``mode="matched"``, a preset) -- **not as shipped**: only the spans
Philter's PHI filters positively match (its name lists and name contexts, date, address,
ID and contact patterns) are PHI, and text that is merely not on a safe list is kept.  A
user who needs usable precision would pick this: it is the part of Philter that claims
something is PHI.  Chosen by that reasoning, not tuned on any notes.

Types: the filter file gives few of its PHI filters a type (dates are ``DATE``); untyped
filters are ``OTHER`` in Philter, read here as binary ``PHI`` (it does not mean our
OTHER category), and masked text outside any PHI filter is binary ``PHI`` too.

Philter runs in a child process with ``timeout`` CPU seconds per note (default 60): some
of its regular expressions backtrack without end on some notes (one PhysioNet note ran for
over ten minutes), and a library call cannot be interrupted in-process.  Such a note is a
named error, scored as ``on_error`` says (:mod:`systems.external`).  Philter's detections of a
document (offsets only, never text) are cached on disk under the document, the filter file
and the philter-lite version, so both configurations -- and repeated runs -- tag each note
once.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from importlib import metadata, resources
from pathlib import Path
from typing import Any, ClassVar

from corpora import nlp
from corpora.model import Document
from infra import cache
from systems.base import SystemUnavailable, register, register_preset
from systems.external import (
    ExternalSystem,
    FoundSpan,
    NoteError,
    files_fingerprint,
    run_isolated,
)

#: What a user installs to get Philter.
INSTALL = "pip install -e '.[peers]' (philter-lite)"
MODES = ("shipped", "matched")
_ALNUM = re.compile(r"[A-Za-z0-9]+")
_CACHE = "philter"


def _version() -> str | None:
    try:
        return metadata.version("philter-lite")
    except metadata.PackageNotFoundError:
        return None


@register
class Philter(ExternalSystem):
    """Philter through philter-lite (see the module docstring).

    Parameters
    ----------
    mode:
        ``shipped`` (everything no safe filter keeps is PHI) or ``matched`` (only what a
        PHI filter matches).
    filters:
        A Philter filter file (TOML); ``None``: the one philter-lite ships.
    timeout:
        CPU seconds one note may take (Philter runs in a child process that is ended and
        restarted when a note exceeds them; :mod:`systems.external` on why CPU time).
    labels, on_error, tool:
        As for every external system (:mod:`systems.external`).
    """

    name = "philter"
    description = "UCSF Philter (philter-lite), as it ships: whatever its safe lists miss is PHI"
    citation = "Norgeot et al. 2020"
    departures = (
        "philter-lite (the maintained fork of philter-ucsf, which does not install on "
        "Python 3.11), its shipped filters"
    )
    # about 700 tokens/s (1.4e-3 s per token, BASE_SECONDS_PER_TOKEN = 1.3e-4); scheduling
    # and the progress estimate only
    relative_cost = 11.0
    type_labels: ClassVar[Mapping[str, str]] = {"OTHER": "PHI", "Name": "PATIENT"}

    def __init__(
        self,
        mode: str = "shipped",
        filters: str | None = None,
        timeout: float = 60.0,
        labels: Mapping[str, str] | str | None = None,
        on_error: str = "redact",
        tool: str = "",
    ) -> None:
        self.mode = mode
        self.filters = filters
        self.timeout = timeout
        self.labels = labels
        self.on_error = on_error
        self.tool = tool

    def check_params(self) -> None:
        super().check_params()
        if self.mode not in MODES:
            raise ValueError(f"mode {self.mode!r}: use {', '.join(MODES)}")
        if self.filters is not None and not Path(self.filters).is_file():
            raise ValueError(f"filters {self.filters!r}: no such file")
        if not (isinstance(self.timeout, int | float) and self.timeout > 0):
            raise ValueError(f"timeout {self.timeout!r}: a positive number of seconds")

    def _filter_path(self) -> Path:
        if self.filters is not None:
            return Path(self.filters)
        return Path(str(resources.files("philter_lite") / "configs" / "philter_delta.toml"))

    def tool_fingerprint(self) -> str:
        version = _version()
        if version is None:
            return "not installed"
        return f"philter-lite {version} " + files_fingerprint([self._filter_path()])

    def runs_as(self) -> str:
        which = "shipped filters" if self.filters is None else f"filters {Path(self.filters).name}"
        how = (
            "as shipped: whatever no safe filter keeps is PHI"
            if self.mode == "shipped"
            else "lenient (not as shipped): only spans its PHI filters match"
        )
        return f"philter-lite {_version()}, {which}, {how}"

    def check_available(self) -> None:
        if _version() is None:
            raise SystemUnavailable(f"philter-lite is not installed: {INSTALL}")

    def find_spans(self, documents: Sequence[Document]) -> list[list[FoundSpan] | NoteError]:
        self.check_available()
        nlp.require("averaged_perceptron_tagger_eng")
        path = self._filter_path()
        code = cache.make_key(_version(), files_fingerprint([path]))
        keys = [cache.make_key(code, doc.fingerprint) for doc in documents]
        found: dict[int, Any] = {}
        for i, key in enumerate(keys):
            hit = cache.load(_CACHE, key)
            if hit is not cache.MISSING:
                found[i] = hit
        todo = [i for i in range(len(documents)) if i not in found]
        detected = run_isolated(
            _detect,
            [documents[i].text for i in todo],
            init=_load_filters,
            initargs=(str(path),),
            timeout=float(self.timeout),
        )
        for i, got in zip(todo, detected, strict=True):
            found[i] = got
            if not isinstance(got, NoteError):
                cache.store(_CACHE, keys[i], got)
        out: list[list[FoundSpan] | NoteError] = []
        for i, doc in enumerate(documents):
            got = found[i]
            out.append(got if isinstance(got, NoteError) else self._spans(doc.text, *got))
        return out

    def _spans(
        self, text: str, safe: list[tuple[int, int]], phi: list[tuple[int, int, str]]
    ) -> list[FoundSpan]:
        typed = [FoundSpan(s, e, t) for s, e, t in phi if s < e]
        if self.mode == "matched":
            return typed
        kept = bytearray(len(text))
        for s, e in safe:
            kept[s:e] = b"\1" * (min(e, len(text)) - s)
        spans = []
        for m in _ALNUM.finditer(text):
            masked = [i for i in range(m.start(), m.end()) if not kept[i]]
            if masked:
                kind = next((t for s, e, t in phi if s <= masked[0] < e), None)
                spans.append(FoundSpan(masked[0], masked[-1] + 1, kind))
        return spans


def _load_filters(path: str) -> Any:
    """In the child process: Philter's filters, loaded once."""
    import philter_lite

    return philter_lite.load_filters(path)


def _detect(patterns: Any, text: str) -> tuple[list[tuple[int, int]], list[tuple[int, int, str]]]:
    """Philter's safe ranges and typed PHI ranges of one note (offsets only)."""
    import philter_lite

    include, _, tracker = philter_lite.detect_phi(text, patterns=patterns)
    safe = [(int(s), int(e)) for s, e in include.filecoords()]
    phi = [(int(p.start), int(p.stop), str(p.phi_type)) for p in tracker.phi]
    return safe, phi


register_preset(
    "philter-lenient",
    Philter,
    {"mode": "matched", "tool": "philter-lenient"},
    "UCSF Philter (philter-lite), lenient -- not as shipped: only spans its PHI filters match",
    departures="not as shipped: only spans Philter's PHI filters match count as PHI",
)

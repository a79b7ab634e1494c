"""Recover the PHI spans a tool found from what it wrote: span lists or redacted text.

Two kinds of output (``output`` parameter of :mod:`systems.command`):

``spans``
    JSON lines (one object per line with ``start``/``end`` -- or ``begin``/``end`` -- and
    optionally ``type``, ``label``, ``entity_type``, ``category`` or ``tag``), one JSON array
    of such objects, or plain lines ``start end [TYPE]`` (whitespace-separated).  Offsets
    are characters of the note (``offsets="bytes"``: bytes of its UTF-8 encoding).  Blank
    lines and lines starting with ``#`` are ignored; any other line that is neither is an
    error for that note.
``redacted``
    The note with its PHI replaced: mask characters of any kind (``*****``, ``XXXXX``,
    ``█████``), ``[**Hospital 1**]``-style tags, ``<PERSON>`` / ``[NAME]`` placeholders or
    surrogates.  The output is aligned with the note (:func:`align_redacted`) and what the
    tool changed is PHI.
``auto``
    ``spans`` when every non-blank line reads as a span (or the output is empty), else
    ``redacted``.  A redacted note whose every line is two numbers would be misread: name
    the format when that can happen.

**Alignment** (:func:`align_redacted`).  Both texts are cut into word tokens (runs of
letters and digits) and single punctuation marks -- whitespace is ignored, so a tool that
reflows lines does not matter; a whole tag of the output is one token, so the words inside
it never align with the note's -- and :class:`difflib.SequenceMatcher` (no junk heuristic)
finds the longest common subsequences of tokens.  Every stretch of the note that is
replaced or deleted in the output is a PHI span, from its first token's start to its last
token's end; its type is read from the first tag in the replacement (the words inside
``[**…**]``, ``<…>`` or ``[…]``; digits-only tag content such as deid's shifted
``[**02-07**]`` reads as a date), and a mask or surrogate gives no type (binary ``PHI``).
Limits: a replacement that happens to equal a neighbouring word of the note can align
with it (``Smith was`` -> ``[**Name**] was`` is fine, a surrogate "Was" before "was" is
not); two adjacent PHI phrases replaced together become one span with the first tag's
type; a word partly masked (``12***``) counts whole.  When the output has as many lines as
the note, lines are aligned pairwise (fast, and a replacement cannot drift to another
line); otherwise the whole texts are aligned at once, which is quadratic in the worst
case (about a second for a 1,500-word note of repeated lines).  Output that shares fewer than
``min_kept`` of the note's tokens (notes of 20 tokens or more) is taken for garbage -- not
the note redacted -- and is an error for that note.
"""

from __future__ import annotations

import difflib
import json
import re

from systems.external import FoundSpan, NoteError, byte_to_char_offsets

#: Output formats (see the module docstring).
FORMATS = ("auto", "spans", "redacted")
#: Offset units of span output.
OFFSET_UNITS = ("chars", "bytes")

_SPAN_LINE = re.compile(r"^\s*(\d+)[\s,]+(\d+)(?:[\s,]+(.*?))?\s*$")
_TYPE_KEYS = ("type", "label", "entity_type", "category", "tag", "kind")
_TOKEN = re.compile(r"\w+|[^\w\s]", re.UNICODE)
#: Tokens of the redacted side: a whole tag is one token, so the words and digits inside
#: ``[**DATE 1**]`` cannot align with the note's own words.
_REDACTED_TOKEN = re.compile(
    r"\[\*\*.*?\*\*\]|<\s*[A-Za-z][\w -]*?\s*>|\[\s*[A-Za-z][\w -]*?\s*\]"
    r"|\{\{?\s*[A-Za-z][\w -]*?\s*\}?\}|\w+|[^\w\s]",
    re.UNICODE | re.S,
)
_TAGS = (
    re.compile(r"\[\*\*\s*(.*?)\s*\*\*\]", re.S),  # deid.pl / MIMIC: [**Hospital 1**]
    re.compile(r"<\s*([A-Za-z][\w -]*?)\s*>"),  # <PERSON>
    re.compile(r"\[\s*([A-Za-z][\w -]*?)\s*\]"),  # [NAME]
    re.compile(r"\{\{?\s*([A-Za-z][\w -]*?)\s*\}?\}"),  # {NAME} / {{NAME}}
)
_DATE_LIKE = re.compile(r"^[\d\s./-]+$")


def recover_spans(
    text: str,
    output: str,
    fmt: str = "auto",
    *,
    offsets: str = "chars",
    min_kept: float = 0.1,
) -> list[FoundSpan]:
    """The spans a tool found in ``text``, from its ``output`` in format ``fmt``."""
    if fmt not in FORMATS:
        raise ValueError(f"output format {fmt!r}: use {', '.join(FORMATS)}")
    if fmt == "auto":
        fmt = "spans" if _looks_like_spans(output) else "redacted"
    if fmt == "spans":
        return parse_spans(output, text, offsets=offsets)
    return align_redacted(text, output, min_kept=min_kept)


def _looks_like_spans(output: str) -> bool:
    stripped = output.strip()
    if not stripped:
        return True
    if stripped.startswith("["):
        try:
            value = json.loads(stripped)
        except ValueError:
            return False
        return isinstance(value, list) and all(isinstance(v, dict) for v in value)
    for line in stripped.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if _SPAN_LINE.match(line):
            continue
        if line.startswith("{"):
            try:
                if isinstance(json.loads(line), dict):
                    continue
            except ValueError:
                pass
        return False
    return True


def parse_spans(output: str, text: str, *, offsets: str = "chars") -> list[FoundSpan]:
    """Spans from JSON lines, a JSON array or ``start end [TYPE]`` lines; ``NoteError``
    naming the first line that is none of these or a span outside the note."""
    if offsets not in OFFSET_UNITS:
        raise ValueError(f"offsets {offsets!r}: use {', '.join(OFFSET_UNITS)}")
    raw: list[tuple[int, int, str | None]] = []
    stripped = output.strip()
    if stripped.startswith("["):
        try:
            items = json.loads(stripped)
        except ValueError as exc:
            raise NoteError(f"output is not a JSON array of spans: {exc.msg}") from None
        if not isinstance(items, list):
            raise NoteError("output is not a JSON array of spans")
        for n, item in enumerate(items, 1):
            raw.append(_json_span(item, f"item {n}"))
    else:
        for n, line in enumerate(output.splitlines(), 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            m = _SPAN_LINE.match(line)
            if m:
                raw.append((int(m.group(1)), int(m.group(2)), m.group(3) or None))
                continue
            try:
                item = json.loads(line)
            except ValueError:
                raise NoteError(
                    f"output line {n} is neither a JSON span nor 'start end [TYPE]'"
                ) from None
            raw.append(_json_span(item, f"line {n}"))
    if offsets == "bytes":
        table = byte_to_char_offsets(text)
        limit = len(table) - 1
        converted = []
        for start, end, kind in raw:
            if not (0 <= start < end <= limit):
                raise NoteError(f"span {start}-{end} is outside the note ({limit} bytes)")
            converted.append((table[start], table[end], kind))
        raw = converted
    spans = [FoundSpan(s, e, k) for s, e, k in raw]
    for s in spans:
        if not (0 <= s.start < s.end <= len(text)):
            raise NoteError(f"span {s.start}-{s.end} is outside the note (length {len(text)})")
    return spans


def _json_span(item: object, where: str) -> tuple[int, int, str | None]:
    if not isinstance(item, dict):
        raise NoteError(f"output {where} is not a JSON object")
    start = item.get("start", item.get("begin"))
    end = item.get("end")
    if not isinstance(start, int) or not isinstance(end, int) or isinstance(start, bool):
        raise NoteError(f"output {where} has no integer 'start' and 'end'")
    kind = next((item[k] for k in _TYPE_KEYS if item.get(k) is not None), None)
    return start, end, None if kind is None else str(kind)


def _tokens(text: str, pattern: re.Pattern[str] = _TOKEN) -> list[tuple[str, int, int]]:
    return [(m.group(), m.start(), m.end()) for m in pattern.finditer(text)]


def tag_type(replacement: str) -> str | None:
    """The type named by the first tag in a replacement, ``None`` for masks/surrogates."""
    found = [(m.start(), m.group(1)) for rx in _TAGS for m in rx.finditer(replacement)]
    if not found:
        return None
    inner = min(found)[1].strip()
    if _DATE_LIKE.match(inner):
        return "date"
    words = re.sub(r"[\d\s]+$", "", inner)  # "Hospital 1" -> "Hospital"
    return words or None


def align_redacted(text: str, redacted: str, *, min_kept: float = 0.1) -> list[FoundSpan]:
    """Spans of ``text`` that ``redacted`` replaced or deleted (see the module docstring).

    When both have the same number of lines (tools that redact in place keep them), lines
    are aligned pairwise, which keeps the quadratic worst case of the matcher to one line.
    """
    a_lines, b_lines = text.split("\n"), redacted.split("\n")
    if len(a_lines) != len(b_lines):
        a_lines, b_lines = [text], [redacted]
    spans: list[FoundSpan] = []
    kept = total = offset = 0
    for a_line, b_line in zip(a_lines, b_lines, strict=True):
        got, k, n = _align(a_line, b_line, offset)
        spans.extend(got)
        kept, total = kept + k, total + n
        offset += len(a_line) + 1
    if total >= 20 and kept < min_kept * total:
        raise NoteError(
            f"output keeps {kept} of the note's {total} words: not the note redacted "
            "(or name the output format)"
        )
    return spans


def _align(text: str, redacted: str, offset: int) -> tuple[list[FoundSpan], int, int]:
    """Spans (shifted by ``offset``), tokens kept, tokens of ``text``."""
    a = _tokens(text)
    if not a:
        return [], 0, 0
    b = _tokens(redacted, _REDACTED_TOKEN)
    matcher = difflib.SequenceMatcher(None, [t for t, _, _ in a], [t for t, _, _ in b], False)
    spans: list[FoundSpan] = []
    kept = 0
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            kept += i2 - i1
        elif op in ("replace", "delete"):
            kind = tag_type(redacted[b[j1][1] : b[j2 - 1][2]]) if op == "replace" else None
            spans.append(FoundSpan(offset + a[i1][1], offset + a[i2 - 1][2], kind))
    return spans, kept, len(a)

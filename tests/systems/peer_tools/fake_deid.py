"""A tiny command-line de-identifier for the adapter tests (run with sys.executable).

    fake_deid.py MODE [--in FILE] [--out FILE]

Reads a note (FILE or stdin) and finds PHI: capitalized words that do not start a line
(NAME), d/d/d dates (DATE) and the word before "hospital" (Hospital).  MODE says what it
writes: ``spans`` (start end TYPE), ``json`` (JSON lines), ``array`` (one JSON array),
``bytes`` (spans in UTF-8 byte offsets), ``mask`` (PHI replaced by '*'), ``tags``
(``[**TYPE**]``), ``placeholders`` (``<TYPE>``) or ``reflow`` (masked, lines joined).  A
note containing CRASH makes it exit 3 (quoting the note on stderr), HANG makes it sleep,
SPIN makes it work without end, GARBAGE makes it print nonsense.
"""

import json
import re
import sys
import time

args = sys.argv[1:]
mode = args[0]
source = args[args.index("--in") + 1] if "--in" in args else None
target = args[args.index("--out") + 1] if "--out" in args else None
if source:
    with open(source, encoding="utf-8") as fh:
        text = fh.read()
else:
    text = sys.stdin.read()

if "CRASH" in text:
    print(f"cannot handle: {text[:40]}", file=sys.stderr)
    sys.exit(3)
if "HANG" in text:
    time.sleep(60)
if "SPIN" in text:
    while True:
        pass
if "GARBAGE" in text:
    print("lorem ipsum " * 50)
    sys.exit(0)

spans = []
for m in re.finditer(r"(?<![\n])\b[A-Z][a-z]+\b", text):
    if m.start() > 0 and text[m.start() - 1] != "\n":
        spans.append((m.start(), m.end(), "NAME"))
for m in re.finditer(r"\b\d{1,2}/\d{1,2}/\d{2,4}\b", text):
    spans.append((m.start(), m.end(), "DATE"))
spans = sorted(set(spans))
for m in re.finditer(r"\b(\w+) hospital\b", text):
    spans = [s for s in spans if s[0] != m.start(1)]
    spans.append((m.start(1), m.end(1), "Hospital"))
spans.sort()


def replaced(make):
    out, last = [], 0
    for start, end, kind in spans:
        out.append(text[last:start] + make(text[start:end], kind))
        last = end
    return "".join(out) + text[last:]


if mode == "spans":
    result = "".join(f"{s} {e} {k}\n" for s, e, k in spans)
elif mode == "json":
    result = "".join(json.dumps({"start": s, "end": e, "type": k}) + "\n" for s, e, k in spans)
elif mode == "array":
    result = json.dumps([{"begin": s, "end": e, "entity_type": k} for s, e, k in spans])
elif mode == "bytes":
    result = "".join(
        f"{len(text[:s].encode())} {len(text[:e].encode())} {k}\n" for s, e, k in spans
    )
elif mode == "mask":
    result = replaced(lambda word, kind: "*" * len(word))
elif mode == "tags":
    result = replaced(lambda word, kind: f"[**{kind} 1**]")
elif mode == "placeholders":
    result = replaced(lambda word, kind: f"<{kind.upper()}>")
elif mode == "reflow":
    result = replaced(lambda word, kind: "X" * len(word)).replace("\n", " ")
else:
    sys.exit(f"unknown mode {mode}")

if target:
    with open(target, "w", encoding="utf-8") as fh:
        fh.write(result)
else:
    sys.stdout.write(result)

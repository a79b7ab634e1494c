"""A stand-in for deid.pl in its output mode, for the adapter tests (run with Python).

    fake_deidpl.py NAME CONFIG

Reads NAME.text (deid.pl's record format) as bytes, as Perl does, and writes NAME.phi and
NAME.info with byte offsets: names after "Mr." (Last Name), d/d dates (Month/Day) and,
like deid.pl, later occurrences of a name found earlier for the same patient (Name
(Repeated Occurrence)).  A note containing CRASH makes it exit 2; one containing SILENT
gets no section in NAME.phi.
"""

import re
import sys

name = sys.argv[1]
with open(f"{name}.text", "rb") as fh:
    data = fh.read()
records = re.findall(
    rb"START_OF_RECORD=(\d+)\|\|\|\|(\d+)\|\|\|\|\n(.*?)\|\|\|\|END_OF_RECORD\n", data, re.S
)
phi, info = [], []
patient, remembered = None, set()
for pid, note, text in records:
    if b"CRASH" in text:
        sys.exit(2)
    if pid != patient:
        patient, remembered = pid, set()
    found = []
    for m in re.finditer(rb"Mr\. ([A-Z][a-z]+)", text):
        found.append((m.start(1), m.end(1), "Last Name (STitle)"))
        remembered.add(m.group(1))
    for m in re.finditer(rb"\b\d{1,2}/\d{1,2}\b", text):
        found.append((m.start(), m.end(), "Month/Day (4)\tMonth/Year (2)"))
    for word in remembered:
        for m in re.finditer(rb"\b" + word + rb"\b", text):
            if not any(s == m.start() for s, _, _ in found):
                found.append((m.start(), m.end(), "Name (Repeated Occurrence)"))
    info.append(f"Patient {int(pid)}\tNote {int(note)}")
    info.append("0\t2\t# pt ")
    for s, e, kinds in sorted(found):
        info.append(f"{s}\t{e}\t{text[s:e].decode()} \t{kinds}")
    if b"SILENT" in text:
        continue
    phi.append(f"\nPatient {int(pid)}\tNote {int(note)}")
    phi.extend(f"\n{s}\t{s}\t{e}" for s, e, _ in sorted(found))
with open(f"{name}.phi", "w") as fh:
    fh.write("".join(phi))
with open(f"{name}.info", "w") as fh:
    fh.write("\n".join(info) + "\n")
with open(f"{name}.res", "w") as fh:
    fh.write("")

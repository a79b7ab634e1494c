"""The embedded default corpus: synthetic clinical notes generated from a seed.

Why: the harness must run on a fresh machine with no clinical data, yet a corpus on which
every system scores 100% measures nothing.  So the generator writes notes that look like
the discharge summaries excerpted by Sibanda & Uzuner (2006, §3) and the ICU nursing notes
of the PhysioNet deid corpus: section headings, fragments, shorthand (q.o.d., b.i.d., s/p,
r/o), medication lists with doses, ALL-CAPS and all-lower-case nursing notes, a few
misspellings, and PHI of every category -- in over 150 context patterns
(:func:`corpora.templates.pattern_ids`), many without any cue word, next to hard
negatives (eponyms, devices, drug names, date-like lab values).

The generated corpus is the *base* (playing the part of the paper's authentic corpus);
:mod:`corpora.variants` derives the surrogate, ambiguous and unseen corpora from it.  The
category mix resembles Table 1 (re-identified column) of the paper: dates, patients,
doctors and hospitals in the thousands of tokens, phones, IDs, locations and ages in the
hundreds.  PHI values come from the generation-side lists
(:func:`corpora.dictionaries.surrogate_dictionaries`), so about a fifth of the names are
absent from the system dictionaries.

Each note belongs to one of :data:`TEMPLATE_FAMILIES` template families
(``metadata["template"]``): its PHI-bearing sentences come only from its family's share of
every pool of templates (:func:`_family_members`).  Notes of one family share phrasing,
notes of different families do not, so ``--group-by template`` measures how a learned
system does on phrasing it never saw in training -- the question real notes from another
hospital or author ask -- while ``--group-by document`` measures it on familiar phrasing.

Everything is drawn from one ``random.Random(seed)`` per document (seeded from the corpus
seed and the document index), so a seed gives the same corpus on any machine, and the
result is cached on disk (:func:`infra.cache.cached`) under the seed, size and
:data:`GENERATOR_VERSION`.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from corpora import templates as T
from corpora.model import Corpus, Document, Span
from corpora.surrogates import SurrogateFactory, default_pools
from infra.memo import memoize

#: Bump whenever the output for a given seed changes (invalidates the disk cache).
GENERATOR_VERSION = 6
#: Extra weight of pattern families (templates with ``[a|b]`` choices) over fixed templates:
#: they carry the varied, partly cue-less contexts that keep learners honest.
COMPOSITIONAL_BOOST = 10.0
#: Default number of documents (about 150,000+ tokens).
DEFAULT_N_DOCUMENTS = 475
#: Number of template families.  Document ``i`` belongs to family ``i % TEMPLATE_FAMILIES``
#: (``metadata["template"]``) and writes its PHI-bearing sentences only with its family's
#: templates, so ``--group-by template`` tests generalization to phrasing never seen in
#: training.  Ten, so that ten-fold cross-validation can keep every family in one fold.
TEMPLATE_FAMILIES = 10

#: Relative weight of PHI-bearing templates by the category of their first PHI slot,
#: tuned so the token mix resembles Table 1 (re-identified column) of the 2006 paper.
DEFAULT_CATEGORY_WEIGHTS: dict[str, float] = {
    "PATIENT": 6.0,
    "DOCTOR": 0.35,
    "HOSPITAL": 1.2,
    "LOCATION": 0.05,
    "DATE": 0.9,
    "ID": 0.5,
    "PHONE": 0.15,
    "AGE": 0.3,
}


@dataclass(frozen=True)
class GeneratorConfig:
    """Knobs of the generator (the CLI exposes ``n_documents``, ``phi_rate`` and
    ``category_weights``; the rest via Python).

    ``phi_rate`` multiplies the chance of choosing a PHI-bearing template over a plain
    one (1.0 gives a PHI share of roughly 10% of tokens); ``nursing_share`` is the share
    of nursing notes; ``misspelling_rate`` the chance that a longer word has two letters
    swapped.
    """

    n_documents: int = DEFAULT_N_DOCUMENTS
    nursing_share: float = 0.5
    phi_rate: float = 1.0
    misspelling_rate: float = 0.012
    name_misspelling_rate: float = 0.06
    category_weights: dict[str, float] = field(
        default_factory=lambda: dict(DEFAULT_CATEGORY_WEIGHTS)
    )


# ------------------------------------------------------------------------ entities


@dataclass
class _Person:
    first: str
    last: str
    middle: str
    sex: str


def _name(person: _Person, form: str) -> str:
    return form.format(F=person.first, L=person.last, Fi=person.first[0], Mi=person.middle)


_PAT_FORMS = {
    "{F} {L}": 4, "{L}": 1, "{Fi}. {L}": 1, "{Fi}. {Mi}. {L}": 1, "{L}, {F}": 1,
    "{F} {Mi}. {L}": 1,
}  # fmt: skip
_TITLED_FORMS = {"{L}": 6, "{Fi}. {L}": 2, "{Fi}. {Mi}. {L}": 1, "{F} {L}": 2}
_DOC_FORMS = {"{F} {L}": 4, "{Fi}. {L}": 2, "{F} {Mi}. {L}": 2, "{L}": 1, "{L}, {F}": 1}
_REL_FORMS = {"{F}": 5, "{F} {L}": 2}


def _hospital_abbreviation(name: str, rng: random.Random) -> str:
    letters = "".join(w[0] for w in re.findall(r"[A-Za-z]+", name) if w[0].isupper())
    if len(letters) < 2 or rng.random() < 0.3:
        letters = "".join(rng.choice("ABCDEFGHKLMNPRSTW") for _ in range(rng.randint(2, 3)))
        letters += rng.choice(["H", "MC", "GH", "H"])
    return letters[:5]


class _NoteWriter:
    """Renders templates for one note, keeping gold spans and the patterns used."""

    def __init__(self, rng: random.Random, config: GeneratorConfig, family: int = 0) -> None:
        self.rng = rng
        self.config = config
        self.family = family
        self.factory = SurrogateFactory(rng, default_pools())
        f = self.factory
        sex = rng.choice("FM")
        self.patient = self._person(sex)
        self.doctors = [self._person(rng.choice("FM")) for _ in range(rng.randint(2, 4))]
        self.relatives = [
            self._person(rng.choice("FM"), self.patient.last if rng.random() < 0.5 else None)
            for _ in range(rng.randint(1, 3))
        ]
        self.hospitals = [f.hospital() for _ in range(rng.randint(1, 3))]
        self.abbreviations = [_hospital_abbreviation(h, rng) for h in self.hospitals]
        self.cities = [f.city() for _ in range(2)]
        self.state = f.state()
        self.year = rng.randint(1999, 2011)
        self.parts: list[str] = []
        self.length = 0
        self.spans: list[Span] = []
        self.patterns: list[str] = []
        self.fillers = _fillers(rng, self)

    def _person(self, sex: str, last: str | None = None) -> _Person:
        f = self.factory
        return _Person(
            f.first_name(sex), last or f.last_name(), self.rng.choice("ABCDEFGHJKLMPRSTW"), sex
        )

    def _pick(self, forms: dict[str, int]) -> str:
        return self.rng.choices(list(forms), list(forms.values()))[0]

    def _misspell(self, word: str, rate: float) -> str:
        if len(word) >= 5 and word.isalpha() and self.rng.random() < rate:
            i = self.rng.randrange(1, len(word) - 2)
            return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
        return word

    def phi(self, slot: str) -> str:
        rng, f = self.rng, self.factory
        if slot in ("PAT", "PATN", "PATL", "PATF"):
            form = {"PAT": None, "PATN": None, "PATL": "{L}", "PATF": "{F}"}[slot]
            form = form or self._pick(_PAT_FORMS if slot == "PAT" else _TITLED_FORMS)
            text = _name(self.patient, form)
        elif slot == "REL":
            text = _name(rng.choice(self.relatives), self._pick(_REL_FORMS))
        elif slot in ("DOC", "DOCN", "DOCL"):
            doctor = rng.choice(self.doctors)
            forms = {"DOC": _DOC_FORMS, "DOCN": _TITLED_FORMS, "DOCL": {"{L}": 1}}[slot]
            text = _name(doctor, self._pick(forms))
        elif slot == "HOSP":
            text = rng.choice(self.hospitals)
        elif slot == "HOSPA":
            text = rng.choice(self.abbreviations)
        elif slot == "LOC":
            text = rng.choice(self.cities)
        elif slot == "STATE":
            text = self.state
        elif slot in ("DATE", "DATES", "DATEL", "YEAR"):
            fmt = {
                "DATE": None,
                "DATES": rng.choice(["m/d", "m/d", "m/d", "mm/dd", "Mon d", "m/d/yy"]),
                "DATEL": rng.choice(
                    ["Month d, yyyy", "dd Month, yyyy", "ddth of Month, yyyy", "Month dth"]
                ),
                "YEAR": "yyyy",
            }[slot]
            if fmt == "mm/dd":
                fmt = "mm/dd/yyyy" if rng.random() < 0.5 else "m/d"
            years = (self.year - 12, self.year - 1) if slot == "YEAR" else (self.year, self.year)
            text = f.date(fmt, years)
        elif slot == "ID":
            text = rng.choice(
                [
                    f.digits(rng.randint(6, 9)),
                    f"{f.digits(3)}-{f.digits(2)}-{f.digits(2)}",
                    f"{rng.choice('ABCDEFGHJKMNPRSTUVWXYZ')}{f.digits(7)}",
                    f"{f.digits(2)}-{f.digits(6)}",
                ]
            )
        elif slot == "PHONE":
            text = f.phone()
        elif slot == "PAGER":
            text = rng.choice([f.digits(5), f"#{f.digits(4)}", f"{f.digits(3)}-{f.digits(4)}"])
            if text.startswith("#"):
                self._write("#")
                text = text[1:]
        elif slot == "AGE":
            text = str(rng.randint(90, 103))
        else:  # pragma: no cover - templates are checked by tests
            raise KeyError(slot)
        if T.PHI_SLOTS[slot] in ("PATIENT", "DOCTOR"):
            text = " ".join(
                self._misspell(w, self.config.name_misspelling_rate) for w in text.split(" ")
            )
        return text

    def _write(self, text: str) -> None:
        self.parts.append(text)
        self.length += len(text)

    def _undo_separator(self) -> None:
        """Take back the separator written before a sentence that was not written."""
        self.length -= len(self.parts.pop())

    def emit(self, template: str, pattern: str | None = None) -> None:
        template = T.expand(template, self.rng.choice)
        pos = 0
        used_phi = False
        for m in T.SLOT_RE.finditer(template):
            literal = template[pos : m.start()]
            self._write(self._literal(literal))
            slot = m.group(1)
            if slot in T.PHI_SLOTS:
                value = self.phi(slot)
                start = self.length
                self._write(value)
                self.spans.append(Span(start, self.length, T.PHI_SLOTS[slot]))
                used_phi = True
            else:
                self._write(self.fillers[slot]())
            pos = m.end()
        self._write(self._literal(template[pos:]))
        if used_phi and pattern is not None:
            self.patterns.append(pattern)

    def _literal(self, text: str) -> str:
        rate = self.config.misspelling_rate
        if not rate or not text:
            return text
        return re.sub(r"[A-Za-z]{5,}", lambda m: self._misspell(m.group(0), rate), text)

    def text(self) -> str:
        return "".join(self.parts)


def _fillers(rng: random.Random, w: _NoteWriter) -> dict[str, Callable[[], str]]:
    """Non-PHI slot fillers (hard negatives included): one flat table, slot by slot, with
    the longer fillers as functions of their own.  Each draws from ``rng`` only when
    called, in the order its code reads (the corpus depends on it)."""
    c = rng.choice
    return {
        "NUM": lambda: str(rng.randint(1, 12)),
        "BRAND": lambda: c(T.BRANDS),
        "HARDNUM": lambda: _hard_number(rng),
        "KINWORD": lambda: c(T.KIN_WORDS),
        "TOPIC2": lambda: c(["plan", "transfer", "code status", "results", "meeting"]),
        "AGEY": lambda: str(rng.randint(19, 88)),
        "SEX": lambda: "woman" if w.patient.sex == "F" else "man",
        "SEXS": lambda: c(["F", "female", "woman"] if w.patient.sex == "F" else ["M", "male"]),
        "SEXL": lambda: w.patient.sex,
        "CC": lambda: c(T.CHIEF_COMPLAINTS),
        "DX": lambda: c(T.DIAGNOSES),
        "PROC": lambda: c(T.PROCEDURES),
        "EPON": lambda: c(T.EPONYMS),
        "SVC": lambda: c(T.SERVICES),
        "SYMPTOM": lambda: c(T.SYMPTOMS),
        "FINDING": lambda: c(T.FINDINGS),
        "PLAN": lambda: c(T.PLANS),
        "RHYTHM": lambda: c(T.RHYTHMS),
        "BUG": lambda: c(T.BUGS),
        "JOB": lambda: c(T.JOBS),
        "UNIT": lambda: c(T.UNITS),
        "TEST": lambda: c(T.TESTS),
        "SHIFT": lambda: c(T.SHIFTS),
        "DRUG": lambda: c(T_DRUGS),
        "MED": lambda: _medication(rng),
        "LAB": lambda: _lab_values(rng),
        "BP": lambda: f"{rng.randint(85, 190)}/{rng.randint(40, 110)}",
        "HR": lambda: str(rng.randint(48, 135)),
        "RR": lambda: str(rng.randint(10, 32)),
        "SAT": lambda: str(rng.randint(88, 100)),
        "TEMP": lambda: f"{rng.uniform(96.5, 103.2):.1f}",
        "EF": lambda: str(rng.choice(range(15, 70, 5))),
        "ABG": lambda: f"7.{rng.randint(18, 52)}/{rng.randint(28, 75)}/{rng.randint(55, 300)}",
        "O2": lambda: c(T.O2),
        "MURMUR": lambda: c(T.MURMURS),
        "LUNGS": lambda: c(T.LUNG_FINDINGS),
        "EDEMA": lambda: c(T.EDEMA),
        "EXAMGEN": lambda: c(T.EXAM_GENERAL),
        "EKG": lambda: c(T.EKG_FINDINGS),
        "EKGSHORT": lambda: c(["no ectopy", "rare PVCs", "occ PACs", "paced"]),
        "CXR": lambda: c(T.CXR_FINDINGS),
        "CATH": lambda: c(T.CATH_FINDINGS),
        "TIME": lambda: c(T.TIMES),
        "TIMEAMPM": lambda: f"{rng.randint(1, 12)}:{c(['00', '15', '30', '45'])} {c(['am', 'pm'])}",
        "ORD": lambda: c(["second", "third", "fourth", "fifth"]),
        "COUNTRYLOC": lambda: c(["Ireland", "Haiti", "Portugal", "Italy", "Vietnam", "Greece"]),
    }


def _medication(rng: random.Random) -> str:
    """A medication ("Lasix 40 mg PO daily"): drug, dose and unit, route (sometimes none)
    and frequency, drawn in that order; its own function as it is more than a choice."""
    c = rng.choice
    drug = c(T_DRUGS)
    unit = c(["mg", "mg", "mg", "mcg", "units"])
    dose = c(T.DOSES[unit])
    dose_s = f"{dose:g}"
    sep = c([" ", " ", ""])
    return " ".join(x for x in (drug, f"{dose_s}{sep}{unit}", c(T.ROUTES), c(T.FREQUENCIES)) if x)


def _lab_values(rng: random.Random) -> str:
    """A laboratory value ("K 4.1", "Plt 212"): every value is drawn, in this order, before
    the line that shows one of them is chosen, so the draws do not depend on the line."""
    values = {
        "k": f"{rng.uniform(2.8, 5.9):.1f}", "na": str(rng.randint(124, 148)),
        "cr": f"{rng.uniform(0.6, 4.5):.1f}", "bun": str(rng.randint(8, 90)),
        "inr": f"{rng.uniform(0.9, 4.2):.1f}", "hct": f"{rng.uniform(21, 45):.1f}",
        "wbc": f"{rng.uniform(2, 24):.1f}", "plt": str(rng.randint(40, 450)),
        "glc": str(rng.randint(60, 400)), "mg": f"{rng.uniform(1.2, 2.8):.1f}",
        "trop": f"{rng.uniform(0.01, 3):.2f}", "ck": str(rng.randint(40, 2400)),
        "hco3": str(rng.randint(14, 34)),
    }  # fmt: skip
    return rng.choice(T.LABS).format(**values)


def _hard_number(rng: random.Random) -> str:
    """A hard negative: a number that looks like a date or an ID ("BP 128/74", "pain 7/10",
    "rm 412"); every value is drawn, in this order, before the phrase is chosen."""
    values = {
        "n": rng.randint(1, 10), "a": rng.randint(100, 2400), "b": rng.randint(50, 1800),
        "bp": f"{rng.randint(85, 190)}/{rng.randint(40, 110)}", "m": rng.randint(55, 110),
        "r": rng.randint(100, 999), "g": rng.randint(60, 380), "h": rng.randint(21, 45),
        "abg": f"7.{rng.randint(18, 52)}/{rng.randint(28, 75)}/{rng.randint(55, 300)}",
        "k": f"{rng.uniform(1.0, 5.9):.1f}",
    }  # fmt: skip
    return rng.choice(T.HARD_NUMBERS).format(**values)


def _load_drugs() -> list[str]:
    from pathlib import Path

    from corpora.dictionaries import read_word_list

    words = read_word_list(Path(__file__).resolve().parent / "data" / "drugs.txt")
    return [w.upper() if len(w) <= 4 else w.capitalize() for w in words]


T_DRUGS = _load_drugs()


# ------------------------------------------------------------------------ documents


@memoize("generator.phi_categories")
def _phi_categories(template: str) -> tuple[str, ...]:
    return tuple(T.PHI_SLOTS[s] for s in T.SLOT_RE.findall(template) if s in T.PHI_SLOTS)


@memoize("generator.weights", max_entries=512)
def _weights(
    options: tuple[str, ...], phi_rate: float, category_weights: tuple[tuple[str, float], ...]
) -> list[float]:
    """Template weights: the geometric mean of the PHI categories' weights, or 1."""
    cw = dict(category_weights)
    weights = []
    for t in options:
        categories = _phi_categories(t)
        if categories:
            product = 1.0
            for c in categories:
                product *= cw.get(c, 1.0)
            boost = COMPOSITIONAL_BOOST if "[" in t else 1.0
            weights.append(boost * phi_rate * product ** (1 / len(categories)))
        else:
            weights.append(1.0)
    return weights


def _varied(template: str) -> bool:
    """A template with ``[a|b]`` choices or cue macros: many surface forms, one family."""
    return "[" in template or "<" in template


@memoize("generator.family_members", max_entries=1024)
def _family_members(options: tuple[str, ...], family: int) -> frozenset[int]:
    """Indices of the PHI-bearing templates of ``options`` that belong to ``family``.

    In a pool with at least as many PHI templates as there are families, the fixed ones and
    the varied ones (:func:`_varied`) are each dealt to the families in turn, ordered by
    their PHI categories: no two families share a PHI template, each gets a like share of
    every category's, and (where a pool has ten varied ones) each gets a varied template
    it may use more than once in a long section.  A smaller pool gives each family one of
    its fixed and one of its varied PHI templates, shared by several families, so every
    family still writes every kind of sentence.
    """
    phi = sorted(
        (k for k, t in enumerate(options) if _phi_categories(t)),
        key=lambda k: (_phi_categories(options[k]), k),
    )
    members: set[int] = set()
    for group in (
        [k for k in phi if not _varied(options[k])],
        [k for k in phi if _varied(options[k])],
    ):
        if len(phi) >= TEMPLATE_FAMILIES:
            members.update(k for j, k in enumerate(group) if j % TEMPLATE_FAMILIES == family)
        elif group:
            members.add(group[family % len(group)])
    return frozenset(members)


@memoize("generator.family_weights", max_entries=4096)
def _family_weights(
    options: tuple[str, ...],
    phi_rate: float,
    category_weights: tuple[tuple[str, float], ...],
    family: int,
) -> tuple[float, ...]:
    """Template weights of one family: the other families' PHI templates at zero, its own
    weighted up by (PHI templates in the pool / in the family), templates without PHI
    shared by all.  Each template keeps its category weight relative to the others, so
    :data:`DEFAULT_CATEGORY_WEIGHTS` set the category mix over the families together."""
    weights = _weights(options, phi_rate, category_weights)
    members = _family_members(options, family)
    n_phi = sum(1 for t in options if _phi_categories(t))
    scale = n_phi / len(members) if members else 0.0
    return tuple(
        (weights[k] * scale if k in members else 0.0) if _phi_categories(t) else weights[k]
        for k, t in enumerate(options)
    )


def _choose(
    writer: _NoteWriter,
    prefix: str,
    pool: str,
    options: list[str],
    offset: int = 0,
    used: set[int] | None = None,
    recur: bool = True,
) -> bool:
    """Pick one template of ``pool`` allowed in the note's family (PHI-bearing ones weighted
    by category) and emit it; False when every allowed template is weighted to zero.

    Whether the sentence bears PHI is drawn first, by the two kinds' total weights; then a
    template of that kind not in ``used`` (no sentence twice in a section while others are
    left), else a used one that may recur -- one with ``[a|b]`` choices (its surface differs
    each time) or one without PHI (list items such as ``{MED}``) -- else the same from the
    other kind.  So a family with few templates of a pool writes about as much PHI as the
    weights say without repeating a fixed PHI sentence.  ``recur=False`` (header lines)
    never repeats a template.
    """
    cfg = writer.config
    key = (tuple(options), cfg.phi_rate, tuple(sorted(cfg.category_weights.items())))
    weights = list(_family_weights(*key, writer.family))
    if used is not None and any(weights):
        phi = [bool(_phi_categories(t)) for t in options]
        kind = phi[writer.rng.choices(range(len(options)), weights)[0]]
        varied = [recur and (_varied(t) or not phi[j]) for j, t in enumerate(options)]
        preferences = [
            [
                w if phi[j] == same and (j not in used or (again and varied[j])) else 0.0
                for j, w in enumerate(weights)
            ]
            for same in (kind, not kind)
            for again in (False, True)
        ]
        weights = next((p for p in preferences if any(p)), preferences[-1])
    if not any(weights):  # every allowed template used, or weighted to zero
        return False
    i = writer.rng.choices(range(len(options)), weights)[0]
    if used is not None:
        used.add(i)
    writer.emit(options[i], f"{prefix}:{pool}:{i + offset}")
    return True


_LIST_SECTIONS = {"PAST MEDICAL HISTORY", "MEDICATIONS", "DISCHARGE MEDICATIONS"}
_DISCHARGE_SIZES = {
    "CHIEF COMPLAINT": (1, 1),
    "HISTORY OF PRESENT ILLNESS": (5, 10),
    "PAST MEDICAL HISTORY": (3, 8),
    "MEDICATIONS": (4, 10),
    "ALLERGIES": (1, 1),
    "SOCIAL HISTORY": (1, 3),
    "FAMILY HISTORY": (0, 1),
    "PHYSICAL EXAMINATION": (3, 6),
    "LABORATORY DATA": (1, 4),
    "HOSPITAL COURSE": (7, 14),
    "DISCHARGE MEDICATIONS": (4, 10),
    "DISCHARGE DISPOSITION": (1, 1),
    "FOLLOW UP": (1, 3),
}
_HEADING_ALIASES = {
    "MEDICATIONS": ["MEDICATIONS ON ADMISSION", "MEDICATIONS", "ADMISSION MEDICATIONS"],
    "HISTORY OF PRESENT ILLNESS": ["HISTORY OF PRESENT ILLNESS", "HPI"],
    "LABORATORY DATA": ["LABORATORY DATA", "PERTINENT RESULTS", "LABS"],
    "HOSPITAL COURSE": [
        "HOSPITAL COURSE", "HOSPITAL COURSE AND TREATMENT", "BRIEF HOSPITAL COURSE",
    ],
}  # fmt: skip


def _discharge(writer: _NoteWriter) -> None:
    rng = writer.rng
    header = T.DISCHARGE["header"]
    writer.emit(header[0], "d:header:0")
    writer._write("\n")
    used: set[int] = set()
    for _ in range(rng.randint(2, 5)):
        if not _choose(writer, "d", "header", header[1:], offset=1, used=used, recur=False):
            break
        writer._write("\n")
    writer._write("\n")
    for section, (lo, hi) in _DISCHARGE_SIZES.items():
        n = rng.randint(lo, hi)
        if n == 0:
            continue
        heading = rng.choice(_HEADING_ALIASES.get(section, [section]))
        writer._write(f"{heading}:")
        listed = section in _LIST_SECTIONS
        used = set()
        for k in range(n):
            writer._write(
                f"\n{k + 1}. " if listed and rng.random() < 0.7 else ("\n" if listed else " ")
            )
            if not _choose(writer, "d", section, T.DISCHARGE[section], used=used):
                writer._undo_separator()
                break
        writer._write("\n\n")
    for _ in range(rng.randint(1, 3)):
        _choose(writer, "d", "footer", T.DISCHARGE["footer"])
        writer._write("\n")


_NURSING_HEADS = {
    "Neuro": ["Neuro", "NEURO", "Neuro", "neuro", "N"],
    "CV": ["CV", "Cardiac", "CV", "C/V"],
    "Resp": ["Resp", "Pulm", "RESP", "Lungs"],
    "GI": ["GI", "GI", "Abd"],
    "GU": ["GU", "Renal", "GU"],
    "ID": ["ID", "ID", "Id"],
    "Skin": ["Skin", "Integ"],
    "Social": ["Social", "Soc", "Family", "Dispo"],
    "A/P": ["A/P", "Plan", "A", "P"],
}


def _nursing(writer: _NoteWriter) -> None:
    rng = writer.rng
    if rng.random() < 0.8:
        _choose(writer, "n", "header", T.NURSING["header"])
        writer._write("\n")
    used: set[int] = set()
    for _ in range(rng.randint(1, 3)):
        if not _choose(writer, "n", "intro", T.NURSING["intro"], used=used):
            break
        writer._write(" ")
    writer._write("\n")
    sep = rng.choice([": ", ": ", "- ", "="])
    for section, heads in _NURSING_HEADS.items():
        if section not in ("Social", "A/P") and rng.random() < 0.25:
            continue
        writer._write(f"{rng.choice(heads)}{sep}")
        lo, hi = 1, 3
        used = set()
        for _ in range(rng.randint(lo, hi)):
            if not _choose(writer, "n", section, T.NURSING[section], used=used):
                break
            writer._write(" ")
        writer._write("\n")


def _document(seed: int, index: int, config: GeneratorConfig) -> Document:
    rng = random.Random(f"deid-bench:{GENERATOR_VERSION}:{seed}:{index}")
    family = index % TEMPLATE_FAMILIES
    writer = _NoteWriter(rng, config, family)
    nursing = rng.random() < config.nursing_share
    if nursing:
        _nursing(writer)
        case = rng.choices(["lower", "upper", "mixed"], [0.4, 0.3, 0.3])[0]
    else:
        _discharge(writer)
        case = rng.choices(["upper", "mixed"], [0.15, 0.85])[0]
    text = writer.text()
    if case == "lower":
        text = text.lower()
    elif case == "upper":
        text = text.upper()
    kind = "nursing" if nursing else "discharge"
    return Document(
        id=f"gen-{seed}-{index:04d}",
        text=text,
        spans=tuple(writer.spans),
        metadata={
            "kind": kind,
            "case": case,
            "template": f"family-{family}",
            "patterns": tuple(writer.patterns),
        },
    )


def generate_corpus(seed: int = 0, config: GeneratorConfig | None = None) -> Corpus:
    """Generate the base corpus (uncached); see :func:`default_corpus`."""
    config = config or GeneratorConfig()
    docs = tuple(_document(seed, i, config) for i in range(config.n_documents))
    return Corpus(
        name="authentic",
        documents=docs,
        metadata={
            "kind": "generated",
            "seed": seed,
            "generator_version": GENERATOR_VERSION,
            "config": asdict(config),
        },
    )


def default_corpus(
    seed: int = 0,
    n_documents: int | None = None,
    phi_rate: float = 1.0,
    category_weights: tuple[tuple[str, float], ...] = (),
) -> Corpus:
    """The embedded default base corpus for ``seed`` (``authentic`` = as is), disk-cached.

    ``phi_rate`` and ``category_weights`` (pairs overriding
    :data:`DEFAULT_CATEGORY_WEIGHTS`) change the PHI share and the category mix, so users
    can match their own data (the CLI's ``--phi-rate`` and ``--category-weight``).  Keyed
    by seed, size, those knobs and :data:`GENERATOR_VERSION`.  Documents are stored without
    their (lazily computed) tokens: unpickling tokens costs more than re-tokenizing.
    """
    from infra.cache import cached, make_key

    n = DEFAULT_N_DOCUMENTS if n_documents is None else n_documents
    if n < 1:
        raise ValueError("n_documents must be at least 1")
    if phi_rate <= 0:
        raise ValueError("phi_rate must be positive")
    weights = dict(DEFAULT_CATEGORY_WEIGHTS)
    for category, weight in category_weights:
        if category not in weights:
            raise ValueError(
                f"unknown category {category!r} for a weight; known: {', '.join(weights)}"
            )
        if weight < 0:
            raise ValueError(f"the weight of {category} must not be negative")
        weights[category] = weight

    def compute() -> Corpus:
        config = GeneratorConfig(n_documents=n, phi_rate=phi_rate, category_weights=weights)
        return generate_corpus(seed, config)

    key = (
        make_key("default_corpus", GENERATOR_VERSION, seed, n)
        if phi_rate == 1.0 and not category_weights
        else make_key(
            "default_corpus", GENERATOR_VERSION, seed, n, phi_rate, sorted(weights.items())
        )
    )
    return cached("corpus-generated", key, compute)

"""Words ambiguous between PHI and non-PHI, and where a note uses them as ordinary words.

Sibanda & Uzuner (2006, §6.2) re-identified their corpus "with words that were ambiguous
between PHI and non-PHI, making sure to use each ambiguous word both as PHI and non-PHI";
in the result (Table 6) 4,849 words are ambiguous and 1,068 of them (22 %) are PHI.  A word
is then no evidence either way and only its context decides.  This module holds the two
things the ``ambiguous`` variant (:mod:`corpora.variants`) needs for that:

* the **candidates** (:func:`candidates`): words that are both a plausible name or place --
  a census first name, one of the :data:`~corpora.dictionaries.SURROGATE_LAST_NAMES_N`
  most frequent census surnames, a one-word US city -- and an ordinary or medical word --
  one of the ``wordfreq`` common English words, or a word of the medical vocabulary (our
  ``medical_terms`` and eponym ``medical_phrases``), minus function words and the
  kinship and title words the notes use as cues (``data/function_words.txt``) and the
  generic words of hospital names ("center", "general").  They are
  derived from the project's own lists, so there are thousands ("Brown", "Hall", "Will",
  "Good", "Reading", "Mobile", "Swan", "Foley");
* the **uses** (:func:`uses`, ``data/ambiguous_uses.txt``): hand-written note sentences
  with a slot for a candidate in its ordinary sense ("{W} stool, guaiac negative." for
  Brown, Green, Black; "Retired {w}." for Baker, Mason, Porter; "{W} catheter d/c'd." for
  Swan), each tagged with the sections it belongs in, so a non-PHI use is inserted where a
  note would have it (:func:`insertion_points`), not appended at the end.

Candidates that a corpus already uses as ordinary words ("will", "may", "brown stool",
"Foley") need no inserted use: their natural occurrences count.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from corpora.dictionaries import (
    SURROGATE_LAST_NAMES_N,
    census_names,
    default_dictionaries,
    english_words,
    gazetteer,
    normalize,
    read_word_list,
)
from corpora.model import FLAG_NOT_IN_DICTIONARY, Document
from corpora.surrogates import (
    HOSPITAL_WORDS,
    MONTH_NAMES,
    SurrogateFactory,
    apply_case,
    case_style,
    insert_text,
    parse_date,
    render_date,
    replace_spans,
    titlecase,
)

_DATA = Path(__file__).resolve().parent / "data"
USES_FILE = _DATA / "ambiguous_uses.txt"
FUNCTION_WORDS_FILE = _DATA / "function_words.txt"

#: What a candidate can stand for as PHI.
FIRST, LAST, PLACE = "first", "last", "place"
#: Month names that are also ordinary words of notes (the modal "may", the verb "march"):
#: a date written with them is ambiguous PHI (Table 6 counts 201 ambiguous DATE words).
MONTH_WORDS: tuple[str, ...] = ("may", "march")
#: Shortest candidate: two-letter names ("Ho", "Le") collide with abbreviations, not words.
MIN_LENGTH = 3

#: Section contexts of the uses file -> the normalized headings (as :func:`headings`
#: returns them) that open such a section, in the embedded corpus, PhysioNet nursing notes
#: and discharge summaries alike.
SECTION_CONTEXTS: dict[str, frozenset[str]] = {
    name: frozenset(heads.split("|"))
    for name, heads in {
        "NEURO": "NEURO|N|MS|MENTAL STATUS|PAIN|NEURO/PSYCH",
        "CV": "CV|C/V|CARDIAC|CARDIOVASCULAR|HEME|ACCESS|LINES",
        "RESP": "RESP|PULM|LUNGS|RESPIRATORY|RESP CARE|RESPIRATORY CARE|RESP CARE NOTE",
        "GI": "GI|ABD|GI/GU|NUTRITION|FEN",
        "GU": "GU|RENAL|GI/GU",
        "ID": "ID|INFECTIOUS DISEASE",
        "SKIN": "SKIN|INTEG|INTEGUMENT|WOUND|WOUNDS",
        "SOCIAL": "SOCIAL|SOC|FAMILY|DISPO|SOCIAL HISTORY",
        "HISTORY": "HPI|HISTORY OF PRESENT ILLNESS|PMH|PAST MEDICAL HISTORY",
        "PLAN": "PLAN|A/P|A|P|ASSESS|ASSESSMENT|ASSESSMENT AND PLAN|IMPRESSION|"
        "HOSPITAL COURSE|BRIEF HOSPITAL COURSE|HOSPITAL COURSE AND TREATMENT",
        "EXAM": "PHYSICAL EXAMINATION|EXAM|PE|O|GEN",
        "LABS": "LABORATORY DATA|LABS|PERTINENT RESULTS",
        "MEDS": "MEDICATIONS|MEDICATIONS ON ADMISSION|ADMISSION MEDICATIONS|"
        "DISCHARGE MEDICATIONS|MEDS",
    }.items()
}
_CONTEXT_OF: dict[str, tuple[str, ...]] = {}
for _context, _heads in SECTION_CONTEXTS.items():
    for _head in _heads:
        _CONTEXT_OF[_head] = (*_CONTEXT_OF.get(_head, ()), _context)

_WORD = re.compile(r"[a-z]+")


# --------------------------------------------------------------------------- candidates


@lru_cache(maxsize=1)
def function_words() -> frozenset[str]:
    return frozenset(w for line in read_word_list(FUNCTION_WORDS_FILE) for w in line.split())


@lru_cache(maxsize=1)
def medical_vocabulary() -> frozenset[str]:
    """Words of the packaged ``medical_terms`` and of the eponym ``medical_phrases``."""
    d = default_dictionaries()
    words = set(d.get("medical_terms"))
    for phrase in d.get("medical_phrases"):
        words.update(_WORD.findall(phrase))
    return frozenset(words)


@lru_cache(maxsize=1)
def candidates() -> dict[str, frozenset[str]]:
    """Every candidate ambiguous word (lower case) -> its PHI roles (first, last, place).

    Drawn from the generation-side lists (every census first name, the most frequent
    census surnames, one-word US cities) because those are the lists surrogate PHI comes
    from; built from packaged data only, so the same on every machine.
    """
    census = census_names()
    roles: dict[str, set[str]] = {}
    for name in (*census["female_first_names"], *census["male_first_names"]):
        roles.setdefault(name, set()).add(FIRST)
    for name in census["last_names"][:SURROGATE_LAST_NAMES_N]:
        roles.setdefault(name, set()).add(LAST)
    for city in gazetteer()["us_cities"]:
        roles.setdefault(normalize(city), set()).add(PLACE)
    vocabulary = set(english_words()) | medical_vocabulary()
    stop = function_words() | HOSPITAL_WORDS  # "Center" of a hospital name is not a name
    return {
        word: frozenset(r)
        for word, r in sorted(roles.items())
        if word in vocabulary and word not in stop and len(word) >= MIN_LENGTH and word.isalpha()
    }


# --------------------------------------------------------------------------- uses


@dataclass(frozen=True)
class Use:
    """One non-PHI use: a note sentence with ``word`` in its ordinary sense."""

    word: str
    phrase: str
    contexts: frozenset[str]

    def render(self) -> str:
        """The sentence, mixed case ("{W}" capitalized, "{w}" lower case)."""
        return self.phrase.replace("{W}", self.word.capitalize()).replace("{w}", self.word)


def parse_uses(lines: Iterable[str], *, source: str = "uses") -> tuple[Use, ...]:
    """Parse ``CONTEXTS | WORDS | PHRASE`` lines (the format of ``ambiguous_uses.txt``)."""
    out: list[Use] = []
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split("|")]
        where = f"{source} line {number}"
        if len(parts) != 3 or not all(parts):
            raise ValueError(f"{where}: expected 'CONTEXTS | WORDS | PHRASE'")
        contexts = frozenset(c.strip() for c in parts[0].split(","))
        unknown = contexts - set(SECTION_CONTEXTS)
        if unknown:
            raise ValueError(f"{where}: unknown contexts {sorted(unknown)}")
        if "{W}" not in parts[2] and "{w}" not in parts[2]:
            raise ValueError(f"{where}: the phrase has no {{W}} or {{w}} slot")
        for word in dict.fromkeys(w.strip().lower() for w in parts[1].split(",")):
            out.append(Use(word, parts[2], contexts))
    return tuple(out)


@lru_cache(maxsize=1)
def uses() -> tuple[Use, ...]:
    """The packaged uses (``data/ambiguous_uses.txt``), in file order."""
    return parse_uses(USES_FILE.read_text(encoding="utf-8").splitlines(), source=str(USES_FILE))


# --------------------------------------------------------------------------- placement

#: A section heading at the start of a line: "NEURO:", "CV- ", "Resp=", "HPI:".
_HEADING = re.compile(
    r"^[ \t]*(?:[A-Z]:[ \t]*)?(?P<head>[A-Za-z][A-Za-z/&]*(?:[ \t]+[A-Za-z/&]+){0,4})"
    r"[ \t]*(?::|=|-(?=[ \t]))",
    re.MULTILINE,
)
#: A sentence end a sentence may follow: a period after a word of two or more letters (or a
#: closing bracket or percent sign), then white space.
_SENTENCE_END = re.compile(r"(?:(?<=[A-Za-z]{2})|(?<=[)%]))[.!?](?=\s|$)")
#: Words whose final period is not a sentence end (titles, "pt.", month abbreviations).
_NOT_ENDS = frozenset(
    """dr mr mrs ms prof st jr sr rev fr pt pts vs etc approx no jan feb mar apr jun jul aug
    sep sept oct nov dec""".split()
)


def headings(text: str) -> list[tuple[int, str]]:
    """(offset where the section's text starts, normalized heading) of each heading."""
    return [
        (m.end(), " ".join(m.group("head").upper().split()))
        for m in _HEADING.finditer(text)
        if len(m.group("head")) <= 40
    ]


def insertion_points(
    text: str, spans: Iterable[tuple[int, int]]
) -> dict[str, dict[int, list[int]]]:
    """Section context -> section (its heading's offset) -> offsets right after a sentence
    end in that section, where a sentence may be inserted (never inside or right before a
    PHI span)."""
    starts = headings(text)
    blocked = list(spans)
    out: dict[str, dict[int, list[int]]] = {}
    for i, (start, head) in enumerate(starts):
        contexts = _CONTEXT_OF.get(head)
        if not contexts:
            continue
        stop = starts[i + 1][0] if i + 1 < len(starts) else len(text)
        points = []
        for m in _SENTENCE_END.finditer(text, start, stop):
            word = re.search(r"([A-Za-z]+)\W*$", text[max(0, m.start() - 12) : m.start()])
            if word and word.group(1).lower() in _NOT_ENDS:
                continue
            pos = m.end()
            if not any(s <= pos < e or s < pos <= e for s, e in blocked):
                points.append(pos)
        if points:
            for context in contexts:
                out.setdefault(context, {})[start] = points
    return out


# --------------------------------------------------------------------------- the corpus

#: Table 6 of the paper: (ambiguous words, all words) per PHI class.  Our per-class chance
#: of drawing an ambiguous surrogate is proportional to these shares, so the classes keep the
#: paper's order (every LOCATION, most DOCTOR names, about half the PATIENT names, a quarter
#: of the DATEs, few HOSPITALs).
TABLE6_AMBIGUOUS_WORDS: dict[str, tuple[int, int]] = {
    "PATIENT": (514, 1047),
    "DOCTOR": (247, 311),
    "LOCATION": (24, 24),
    "HOSPITAL": (82, 592),
    "DATE": (201, 736),
}
#: Table 6: 1,068 of the 4,849 ambiguous words are PHI.  Every candidate gets PHI uses in
#: this proportion to its non-PHI uses, so no word is more often PHI than not.
PHI_SHARE = 1068 / 4849
#: Inserted non-PHI text, as a share of the base's non-PHI tokens: the ambiguous corpus of
#: Table 6 has 19,296 non-PHI words, the re-identified corpus it was made from 17,872
#: (Table 1) -- the paper also "replaced some of the remaining text" with ambiguous words.
INSERTED_SHARE = (19296 - 17872) / 17872
#: Hospital names built on an ambiguous word.
HOSPITAL_PATTERNS = (
    "{w} Memorial Hospital",
    "{w} General Hospital",
    "{w} Medical Center",
    "{w} Clinic",
    "{w} Rehab",
)
#: Metadata key of the stretches a document got inserted ([start, end] pairs).
INSERTED_KEY = "ambiguous_inserted"

_LETTERS = re.compile(r"[A-Za-z]+")
_TOKENS = re.compile(r"\w+|[^\w\s]")


def _words(text: str, start: int = 0, end: int | None = None) -> list[str]:
    """Every run of letters of ``text[start:end]``, lower-cased."""
    return _LETTERS.findall(text[start:end].lower())


def _outside(document: Document) -> list[tuple[int, int]]:
    """The stretches of ``document`` between its spans."""
    out, pos = [], 0
    for span in document.spans:
        out.append((pos, span.start))
        pos = span.end
    out.append((pos, len(document.text)))
    return out


def natural_uses(documents: Iterable[Document], words: Collection[str]) -> Counter[str]:
    """How often each of ``words`` occurs outside PHI spans (its ordinary uses)."""
    counts: Counter[str] = Counter()
    for doc in documents:
        for start, end in _outside(doc):
            counts.update(w for w in _words(doc.text, start, end) if w in words)
    return counts


def _eligible(document: Document) -> Counter[str]:
    """Per class, the PHI words an ambiguous surrogate could replace (one per date)."""
    out: Counter[str] = Counter()
    for span in document.spans:
        if span.category == "DATE":
            out["DATE"] += parse_date(document.span_text(span)) is not None
        elif span.category == "HOSPITAL" and _abbreviation(document.span_text(span)):
            continue  # "BGH" is re-drawn letter by letter, never a word
        elif span.category in TABLE6_AMBIGUOUS_WORDS:
            out[span.category] += sum(
                1
                for w in _words(document.text, span.start, span.end)
                if len(w) > 1 and not (span.category == "HOSPITAL" and w in HOSPITAL_WORDS)
            )
    return out


def _abbreviation(text: str) -> bool:
    """A hospital abbreviation (what :meth:`SurrogateFactory.replace_hospital` reshapes)."""
    return " " not in text.strip() and case_style(text) == "upper" and len(text) <= 6


@dataclass
class _Plan:
    """Inserted non-PHI uses per document and the PHI quota of every candidate."""

    insertions: list[list[tuple[int, str]]]
    quota: dict[str, int]
    #: every candidate the corpus uses as an ordinary word (natural or inserted)
    reserved: frozenset[str]


def _plan(documents: list[Document], eligible: list[Counter[str]], rng: random.Random) -> _Plan:
    """Choose where non-PHI uses go, then each word's PHI quota (:data:`PHI_SHARE`).

    The PHI to make ambiguous is Table 6's share of each class of ``eligible`` PHI; the
    non-PHI uses it needs (at :data:`PHI_SHARE`) come from the base's own uses first, then
    from inserted sentences, up to :data:`INSERTED_SHARE` of the base.  A base with more
    ordinary uses than its PHI can balance (PhysioNet: 0.5 % of tokens are PHI) uses a
    random subset of the candidates and inserts nothing, so the share stays 22 %.
    """
    words = candidates()
    nonphi = natural_uses(documents, words)
    ratio = PHI_SHARE / (1 - PHI_SHARE)
    target = sum(
        a / n * sum(counts[c] for counts in eligible)
        for c, (a, n) in TABLE6_AMBIGUOUS_WORDS.items()
    )
    needed = target / ratio
    if sum(nonphi.values()) >= needed:
        order = sorted(nonphi)
        rng.shuffle(order)
        chosen: dict[str, int] = {}
        for word in order:
            if sum(chosen.values()) >= needed:
                break
            chosen[word] = nonphi[word]
        return _Plan([[] for _ in documents], _quotas(chosen, ratio, rng), frozenset(nonphi))
    styles = [case_style(d.text) for d in documents]
    points = [insertion_points(d.text, [(s.start, s.end) for s in d.spans]) for d in documents]
    by_word: dict[str, list[tuple[Use, list[int]]]] = {}
    for use in uses():
        if use.word not in words:
            continue
        docs = [i for i, p in enumerate(points) if use.contexts & p.keys()]
        if docs:
            by_word.setdefault(use.word, []).append((use, docs))
    base = sum(len(_TOKENS.findall(d.text[s:e])) for d in documents for s, e in _outside(d))
    budget = INSERTED_SHARE * base
    insertions: list[list[tuple[int, str]]] = [[] for _ in documents]
    taken: set[tuple[int, int]] = set()  # (document, section): one inserted sentence each
    inserted = 0
    choices = sorted(by_word)
    for _ in range(20 * len(documents) + 1000):
        if inserted >= budget or not choices or sum(nonphi.values()) >= needed:
            break
        word = rng.choice(choices)
        use, docs = rng.choice(by_word[word])
        i = rng.choice(docs)
        context = rng.choice(sorted(use.contexts & points[i].keys()))
        section = rng.choice(sorted(points[i][context]))
        if (i, section) in taken:
            continue
        taken.add((i, section))
        text = apply_case(use.render(), styles[i])
        insertions[i].append((rng.choice(points[i][context][section]), " " + text))
        nonphi[word] += 1
        inserted += len(_TOKENS.findall(text))
    return _Plan(insertions, _quotas(nonphi, ratio, rng), frozenset(nonphi))


def _quotas(nonphi: dict[str, int], ratio: float, rng: random.Random) -> dict[str, int]:
    """PHI uses per word: ``ratio`` times its non-PHI uses, rounded at random."""
    quota = {}
    for word, n in sorted(nonphi.items()):
        expected = ratio * n
        quota[word] = int(expected) + (rng.random() < expected - int(expected))
    return {w: q for w, q in quota.items() if q > 0}


class _Quotas:
    """The PHI quota left per candidate, and the draw of an ambiguous surrogate."""

    def __init__(self, quota: dict[str, int], rng: random.Random) -> None:
        self.left = dict(quota)
        self.rng = rng
        roles = candidates()
        self.by_role = {
            role: [w for w in self.left if role in roles.get(w, ())]
            for role in (FIRST, LAST, PLACE)
        }
        self.by_role["month"] = [w for w in MONTH_WORDS if w in self.left]

    def total(self) -> int:
        return sum(self.left.values())

    def draw(self, role: str, occurrences: int) -> str | None:
        """A word of ``role`` with quota left for ``occurrences`` PHI uses, chosen in
        proportion to its quota left; None when there is none."""
        pool = [w for w in self.by_role[role] if self.left[w] >= occurrences]
        if not pool:
            return None
        return self.rng.choices(pool, [self.left[w] for w in pool])[0]

    def spend(self, document: Document) -> None:
        """Subtract the PHI uses ``document`` makes of quota words."""
        for span in document.spans:
            for w in _words(document.text, span.start, span.end):
                if self.left.get(w):
                    self.left[w] -= 1


class _AmbiguousFactory(SurrogateFactory):
    """Surrogates that are ambiguous words with a per-class chance, else ordinary ones.

    An ambiguous word is drawn only if its quota covers every occurrence the replaced name
    has in the note (the factory keeps a name's surrogate for the whole note), and an
    ordinary surrogate is never a word the corpus uses as an ordinary word ("Mark",
    "Boston"), so a word's PHI uses are what its quota allows.
    """

    def __init__(
        self,
        rng: random.Random,
        quotas: _Quotas,
        chance: dict[str, float],
        document: Document,
        reserved: Collection[str],
    ) -> None:
        super().__init__(rng)
        self.quotas = quotas
        self.chance = chance
        self.style = case_style(document.text)
        self.reserved = reserved
        self.counts: Counter[str] = Counter()
        for span in document.spans:
            text = document.span_text(span).lower()
            self.counts[text] += 1
            self.counts.update(w for w in _words(text) if w != text)
        self.original = ""

    def _remember(self, kind: str, original: str, make: Callable[[], str]) -> str:
        self.original = original.lower()
        return super()._remember(kind, original, make)

    def _word(self, category: str, role: str) -> str | None:
        if self.rng.random() >= self.chance.get(category, 0.0):
            return None
        word = self.quotas.draw(role, max(1, self.counts[self.original]))
        return None if word is None else titlecase(word)

    def _plain(self, make: Callable[[], str]) -> str:
        """An ordinary surrogate with no word the corpus also uses as an ordinary word."""
        value = make()
        for _ in range(50):
            if not any(w in self.reserved for w in _words(value.lower())):
                break
            value = make()
        return value

    def replace(self, category: str, text: str) -> str:
        if category in ("PATIENT", "DOCTOR"):
            return self.replace_name(
                text,
                first=lambda: self._word(category, FIRST) or self._plain(self.first_name),
                last=lambda: self._word(category, LAST) or self._plain(self.last_name),
            )
        if category == "LOCATION":
            plain = self.state if text.lower() in _states() else self.city
            return self.replace_location(
                text, lambda: self._word(category, PLACE) or self._plain(plain)
            )
        if category == "HOSPITAL":

            def hospital() -> str:
                word = self._word(category, self.rng.choice((LAST, PLACE)))
                if word is None:
                    return self._plain(self.hospital)
                return self.rng.choice(HOSPITAL_PATTERNS).format(w=word)

            return self.replace_hospital(text, hospital)
        if category == "DATE":
            parsed = parse_date(text)
            self.original = text.lower()
            month = self._word(category, "month") if parsed is not None else None
            if parsed is not None and month is not None:
                date, fmt = parsed
                date = date + self.shift
                number = [m.lower() for m in MONTH_NAMES].index(month.lower()) + 1
                date = date.replace(month=number, day=min(date.day, 28))
                if "Mon" not in fmt and "Month" not in fmt:
                    fmt = "Mon d" if fmt == "m/d" else "Month d, yyyy"
                new = render_date(date, fmt)
                return apply_case(new, case_style(text) if text[:1].isalpha() else self.style)
        return super().replace(category, text)


@lru_cache(maxsize=1)
def _states() -> frozenset[str]:
    return frozenset(s.lower() for s in gazetteer()["us_states"])


def ambiguous_documents(documents: list[Document], seed: int, version: int) -> list[Document]:
    """The ambiguous corpus's documents (before flagging), see :mod:`corpora.variants`."""
    rng = random.Random(f"deid-bench:ambiguous-plan:{version}:{seed}")
    eligible = [_eligible(d) for d in documents]
    plan = _plan(documents, eligible, rng)
    quotas = _Quotas(plan.quota, rng)
    left = Counter[str]()
    for counts in eligible:
        left.update(counts)
    share = {c: a / n for c, (a, n) in TABLE6_AMBIGUOUS_WORDS.items()}
    out: list[Document] = []
    for doc, counts, insertions in zip(documents, eligible, plan.insertions, strict=True):
        weighted = sum(share[c] * left[c] for c in share)
        k = quotas.total() / weighted if weighted else 0.0
        chance = {c: min(1.0, share[c] * k) for c in share}
        doc_rng = random.Random(f"deid-bench:ambiguous:{version}:{seed}:{doc.id}")
        factory = _AmbiguousFactory(doc_rng, quotas, chance, doc, plan.reserved)
        replacements = {s: factory.replace(s.category, doc.span_text(s)) for s in doc.spans}
        new = replace_spans(doc, replacements, drop_flags=frozenset({FLAG_NOT_IN_DICTIONARY}))
        quotas.spend(new)
        left.subtract(counts)
        # insertion points lie outside spans: each moves by the length change of the
        # spans before it
        growth = [
            (old.end, (n.end - n.start) - (old.end - old.start))
            for old, n in zip(doc.spans, new.spans, strict=True)
        ]
        moved = [
            (offset + sum(d for end, d in growth if end <= offset), text)
            for offset, text in insertions
        ]
        out.append(insert_text(new, moved, metadata_key=INSERTED_KEY) if moved else new)
    return out

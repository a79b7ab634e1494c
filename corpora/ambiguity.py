"""Words ambiguous between PHI and non-PHI, and the ambiguous corpus built from them.

Sibanda & Uzuner (2006, §6.2) re-identified their corpus "with words that were ambiguous
between PHI and non-PHI, making sure to use each ambiguous word both as PHI and non-PHI";
Table 6 gives the result: 38 % of the PHI words and 20 % of the non-PHI words are such
words (1,068 and 3,781 of 4,849: 22 % of them PHI), with a share per class -- every
LOCATION, 79 % of the DOCTOR words, 49 % of the PATIENT words, 27 % of the DATE words, 14 %
of the HOSPITAL words.  :func:`ambiguous_documents` builds a corpus with those shares from
any base corpus:

* **the words** (:func:`name_words`): a token that the census lists as a first name or a
  surname, or GeoNames as a US place (:func:`corpora.dictionaries.us_places`), minus the
  function and cue words of ``data/function_words.txt`` and the fixed words of hospital
  names.  A name word is ambiguous when the corpus also uses it as an ordinary word: "Ng"
  and the NG tube, "Le" and the LE edema, "Daily" and q.d. written out, "Post" (a town in
  Texas) and "status post".  Dates have their own (:func:`is_date_word`): "May" and
  "March", and the short numeric dates the notes also write as scores ("5/5" strength,
  "6/10" pain, "2/6" murmur);
* **their ordinary uses** stand where the base note has them, or where it writes shorthand
  that clinicians also write out in full (``data/ambiguous_substitutions.txt``: "q.d." ->
  "daily", "BP" -> "blood pressure"), in the note's own sentence and capitalisation: no
  sentence is added, so no sentence template is shared between folds that the base does not
  already share.  Shorthand is written out only while the corpus has fewer ordinary uses
  than Table 6's ratio asks for (:func:`plan_ordinary_uses`);
* **their PHI uses** (:class:`_Draws`): PHI is replaced, class by class, so that the share
  of the class's tokens that are ambiguous words follows Table 6 as the notes go by; each
  word is drawn in proportion to its ordinary uses not yet matched, so that a word is PHI in
  about the same share of its uses whatever the word.  Names keep their format and the
  note's capitalisation (title case, or all capitals in an all-caps nursing note);
* **the flags** (:func:`ambiguous_marks`): every token, PHI or not, of every word the
  corpus uses both ways.
"""

from __future__ import annotations

import calendar
import random
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from corpora.dictionaries import census_names, read_word_list, us_places
from corpora.model import FLAG_AMBIGUOUS, FLAG_NOT_IN_DICTIONARY, OUTSIDE, Document, Mark
from corpora.surrogates import (
    MONTH_ABBR,
    MONTH_NAMES,
    SurrogateFactory,
    apply_case,
    case_style,
    edit_text,
    parse_date,
    render_date,
    replace_spans,
    titlecase,
)
from corpora.tokenize import token_spans
from infra.memo import memoize

_DATA = Path(__file__).resolve().parent / "data"
SUBSTITUTIONS_FILE = _DATA / "ambiguous_substitutions.txt"
FUNCTION_WORDS_FILE = _DATA / "function_words.txt"

#: What a word can stand for as PHI.
FIRST, LAST, PLACE, MONTH, DAY_MONTH = "first", "last", "place", "month", "day/month"
#: Month names that are also ordinary words of notes (the modal "may", the verb "march").
MONTH_WORDS: tuple[str, ...] = ("may", "march")
#: Table 6: (ambiguous words, all words) per class.
TABLE6_AMBIGUOUS_WORDS: dict[str, tuple[int, int]] = {
    "PATIENT": (514, 1047),
    "DOCTOR": (247, 311),
    "LOCATION": (24, 24),
    "HOSPITAL": (82, 592),
    "DATE": (201, 736),
}
#: Table 6's share of each class that is ambiguous -- what the corpus aims at.
CLASS_SHARES: dict[str, float] = {c: a / n for c, (a, n) in TABLE6_AMBIGUOUS_WORDS.items()}
#: Table 6: 1,068 of the 4,849 ambiguous words are PHI.
PHI_SHARE = 1068 / 4849
#: Hospital names built on an ambiguous word; their fixed words are never ambiguous words.
HOSPITAL_PATTERNS = (
    "{w} Memorial Hospital",
    "{w} General Hospital",
    "{w} Medical Center",
    "{w} Clinic",
    "{w} Rehab",
)
#: Metadata key of the stretches where shorthand was written out ([start, end] pairs).
SUBSTITUTED_KEY = "ambiguous_substituted"

_DATE_WORD = re.compile(r"^(\d{1,2})/(\d{1,2})$")
_FIXED_HOSPITAL_WORDS = frozenset(
    w.lower() for p in HOSPITAL_PATTERNS for w in p.split() if w != "{w}"
) | {"hospital", "hospitals", "center", "centre", "st", "saint"}


# --------------------------------------------------------------------------- the words


def data_fingerprint() -> str:
    """A hash of the data files this module reads (part of the corpus's cache key)."""
    import hashlib

    h = hashlib.blake2b(digest_size=8)
    for path in (SUBSTITUTIONS_FILE, FUNCTION_WORDS_FILE):
        h.update(path.read_bytes())
    return h.hexdigest()


@memoize("ambiguity.stop_words", max_entries=1)
def stop_words() -> frozenset[str]:
    """Words never used as ambiguous PHI: function and cue words, fixed hospital words."""
    words = (w for line in read_word_list(FUNCTION_WORDS_FILE) for w in line.split())
    return frozenset(words) | _FIXED_HOSPITAL_WORDS


@memoize("ambiguity.name_words", max_entries=1)
def name_words() -> dict[str, frozenset[str]]:
    """Every word that can be a name or a place (lower case) -> its roles (first, last,
    place): census first names and surnames, one-word US places.

    The whole census list, not only the surnames surrogates are drawn from: "Pain", "Ng" and
    "Post" are real surnames, and the ambiguity of such names is the point of §6.2.
    """
    census = census_names()
    roles: dict[str, set[str]] = {}
    for name in (*census["female_first_names"], *census["male_first_names"]):
        roles.setdefault(name, set()).add(FIRST)
    for name in census["last_names"]:
        roles.setdefault(name, set()).add(LAST)
    for place in us_places():
        roles.setdefault(place, set()).add(PLACE)
    stop = stop_words()
    return {
        w: frozenset(r)
        for w, r in roles.items()
        if len(w) >= 2 and w.isascii() and w.isalpha() and w not in stop
    }


def word_of(token: str) -> str:
    """The word a token stands for: lower case, without a possessive "'s" or final period."""
    word = token.lower()
    if word.endswith(("'s", "\u2019s")) and len(word) > 3:
        word = word[:-2]
    return word[:-1] if word.endswith(".") and len(word) > 1 else word


def is_date_word(word: str) -> bool:
    """A short numeric date that notes also write as a score or ratio ("5/5", "6/10")."""
    m = _DATE_WORD.match(word)
    if m is None:
        return False
    month, day = int(m.group(1)), int(m.group(2))
    return 1 <= month <= 12 and 1 <= day <= calendar.monthrange(2000, month)[1]


def roles_of(word: str) -> frozenset[str]:
    """What ``word`` can stand for as PHI (empty: it is never an ambiguous word)."""
    if is_date_word(word):
        return frozenset({DAY_MONTH})
    roles = name_words().get(word, frozenset())
    return roles | {MONTH} if word in MONTH_WORDS else roles


# --------------------------------------------------------------------------- ordinary uses


@dataclass(frozen=True)
class Substitution:
    """Shorthand (``forms``) and the full form a note may write instead."""

    forms: tuple[str, ...]
    full: str


def parse_substitutions(
    lines: Iterable[str], *, source: str = "substitutions"
) -> tuple[Substitution, ...]:
    """Parse ``FORMS | FULL FORM`` lines (the format of ``ambiguous_substitutions.txt``)."""
    out: list[Substitution] = []
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split("|")]
        if len(parts) != 2 or not all(parts):
            raise ValueError(f"{source} line {number}: expected 'FORMS | FULL FORM'")
        forms = tuple(f.strip() for f in parts[0].split(",") if f.strip())
        out.append(Substitution(forms, parts[1]))
    return tuple(out)


@memoize("ambiguity.substitutions", max_entries=1)
def substitutions() -> tuple[Substitution, ...]:
    """The packaged substitutions (``data/ambiguous_substitutions.txt``)."""
    text = SUBSTITUTIONS_FILE.read_text(encoding="utf-8")
    return parse_substitutions(text.splitlines(), source=str(SUBSTITUTIONS_FILE))


@memoize("ambiguity.substitution_pattern", max_entries=1)
def _substitution_pattern() -> tuple[re.Pattern[str], dict[str, str]]:
    full = {f.lower(): s.full for s in substitutions() for f in s.forms}
    forms = sorted(full, key=len, reverse=True)
    # a one-letter form ("R", "L") only before a word, where it is a side ("R TKR")
    alternatives = "|".join(
        re.escape(f) + (r"(?=\s[A-Za-z])" if len(f) == 1 else "") for f in forms
    )
    return re.compile(rf"(?<![\w./&'-])(?:{alternatives})(?![\w/&'-])", re.IGNORECASE), full


def _cased(full: str, written: str, note_style: str, sentence_start: bool) -> str:
    """``full`` in the capitalisation the note gives the shorthand it replaces: all caps in
    an all-caps note, lower case in a lower-case one; otherwise capitalised where the
    shorthand was ("Pt", "This am") or starts a line or sentence, lower case elsewhere."""
    if note_style in ("upper", "lower"):
        return apply_case(full, note_style)
    acronym = written.isupper()  # "BP", "R": capitalised only where a sentence starts
    capital = written[:1].isupper() and (not acronym or sentence_start)
    if full.isupper():  # a full form that is itself an abbreviation ("PO", "ED")
        return full
    lowered = full[:1].lower() + full[1:] if not full[:2].isupper() else full
    return lowered[:1].upper() + lowered[1:] if capital else lowered


def substitution_sites(document: Document) -> list[tuple[int, int, str]]:
    """Where ``document`` writes shorthand outside its PHI, and the full form to write there
    (``(start, end, full form)``, in the note's capitalisation)."""
    pattern, full = _substitution_pattern()
    style = case_style(document.text)
    text = document.text
    out = []
    for start, end in _outside(document):
        for m in pattern.finditer(text, start, end):
            before = text[max(0, m.start() - 2) : m.start()]
            at_start = m.start() == 0 or before.endswith(("\n", ". "))
            new = _cased(full[m.group(0).lower()], m.group(0), style, at_start)
            out.append((m.start(), m.end(), new))
    return out


def _outside(document: Document) -> list[tuple[int, int]]:
    """The stretches of ``document`` between its spans."""
    out, pos = [], 0
    for span in document.spans:
        out.append((pos, span.start))
        pos = span.end
    out.append((pos, len(document.text)))
    return out


def ordinary_uses(documents: Iterable[Document]) -> Counter[str]:
    """How often each word that can be ambiguous (:func:`roles_of`) occurs outside PHI."""
    counts: Counter[str] = Counter()
    for doc in documents:
        for tok in doc.tokens:
            if tok.label == OUTSIDE:
                word = word_of(tok.text)
                if roles_of(word):
                    counts[word] += 1
    return counts


def _words_in(text: str) -> list[str]:
    """The words of ``text`` that can be ambiguous, token by token."""
    return [w for a, b in token_spans(text) if roles_of(w := word_of(text[a:b]))]


# --------------------------------------------------------------------------- the plan


def phi_target(documents: Iterable[Document]) -> float:
    """How many ambiguous PHI tokens Table 6's class shares ask of ``documents``."""
    counts = Counter(tok.label for doc in documents for tok in doc.tokens)
    return sum(share * counts[c] for c, share in CLASS_SHARES.items())


@dataclass
class OrdinaryUses:
    """The ordinary uses the ambiguous corpus will have."""

    #: per document, the shorthand to write out: (start, end, full form)
    edits: list[list[tuple[int, int, str]]]
    #: per word, its ordinary uses once the shorthand is written out
    counts: Counter[str]
    #: the words PHI may be drawn from
    usable: frozenset[str]


def plan_ordinary_uses(documents: Sequence[Document], rng: random.Random) -> OrdinaryUses:
    """Which shorthand to write out, and which words PHI may use.

    Table 6 has 78 ordinary uses of ambiguous words for every 22 PHI uses.  A base whose
    own ordinary uses fall short of that for the PHI :func:`phi_target` asks (the embedded
    corpus: its notes are short on such words) has shorthand written out, in random order,
    until they suffice or none is left.  A base with more (PhysioNet's nursing notes, 0.5 %
    PHI) keeps its text, and PHI draws from a random subset of the words whose ordinary
    uses are about what the PHI needs, so the PHI share stays near Table 6's 22 %.
    """
    counts = ordinary_uses(documents)
    need = phi_target(documents) * (1 - PHI_SHARE) / PHI_SHARE
    edits: list[list[tuple[int, int, str]]] = [[] for _ in documents]
    if sum(counts.values()) >= need:
        return OrdinaryUses(edits, counts, _enough_words(counts, need, rng))
    sites = [(i, site) for i, doc in enumerate(documents) for site in substitution_sites(doc)]
    rng.shuffle(sites)
    total = sum(counts.values())
    for i, (start, end, full) in sites:
        if total >= need:
            break
        gained, lost = _words_in(full), _words_in(documents[i].text[start:end])
        edits[i].append((start, end, full))
        counts.update(gained)
        counts.subtract(lost)
        total += len(gained) - len(lost)
    counts = +counts
    return OrdinaryUses([sorted(e) for e in edits], counts, frozenset(counts))


def _enough_words(counts: Counter[str], need: float, rng: random.Random) -> frozenset[str]:
    """A random set of words whose ordinary uses add up to ``need``."""
    order = sorted(counts)
    rng.shuffle(order)
    chosen: list[str] = []
    total = 0
    for word in order:
        if total >= need:
            break
        chosen.append(word)
        total += counts[word]
    return frozenset(chosen)


# --------------------------------------------------------------------------- PHI uses


@dataclass
class _Draws:
    """Whether a class still needs an ambiguous word, and which word to use.

    A class needs one while its ambiguous tokens so far fall short of Table 6's share of its
    tokens so far (the current span included), so the shares hold note by note.  A word is
    drawn in proportion to the PHI uses its ordinary uses still ask for (every word PHI in
    the same share of its uses); when none asks for more, in proportion to its ordinary
    uses over its PHI uses, so no word becomes mostly PHI while others are not.
    """

    counts: Counter[str]
    usable: frozenset[str]
    phi_total: float
    rng: random.Random
    used: Counter[str] = field(default_factory=Counter)
    tokens: Counter[str] = field(default_factory=Counter)
    ambiguous: Counter[str] = field(default_factory=Counter)
    _pools: dict[tuple[str, ...], list[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.rate = self.phi_total / max(1, sum(self.counts[w] for w in self.usable))

    def wanted(self, category: str, pending_tokens: int, pending_ambiguous: int) -> bool:
        share = CLASS_SHARES.get(category, 0.0)
        have = self.ambiguous[category] + pending_ambiguous
        return have < share * (self.tokens[category] + pending_tokens)

    def pool(self, roles: tuple[str, ...]) -> list[str]:
        if roles not in self._pools:
            self._pools[roles] = sorted(w for w in self.usable if roles_of(w) & set(roles))
        return self._pools[roles]

    def draw(
        self,
        choices: Sequence[tuple[str, ...]],
        occurrences: int,
        allowed: Callable[[str], bool] | None = None,
    ) -> str | None:
        """A word of the first of ``choices`` (role groups) with PHI uses left to give (or,
        when none has, of the first with any word), or None."""
        pools = [
            [w for w in self.pool(roles) if allowed is None or allowed(w)] for roles in choices
        ]
        for pool in pools:  # the first group with PHI uses left to give
            weights = [max(self.rate * self.counts[w] - self.used[w], 0.0) for w in pool]
            if any(weights):
                break
        else:  # every word has had its share: the least used of the first group with any
            pool = next((p for p in pools if p), [])
            if not pool:
                return None
            weights = [self.counts[w] / (1 + self.used[w]) for w in pool]
        word = self.rng.choices(pool, weights)[0]
        self.used[word] += occurrences
        return word

    def record(self, category: str, tokens: int, ambiguous: int) -> None:
        self.tokens[category] += tokens
        self.ambiguous[category] += ambiguous


_LETTERS = re.compile(r"[a-z]+")
#: Role groups a name part is drawn from, best first (a surname may serve as a given name).
_FIRST = ((FIRST,), (LAST,))
_LAST = ((LAST,),)
_PLACE = ((PLACE,),)
_HOSPITAL = ((LAST, PLACE),)


class _AmbiguousFactory(SurrogateFactory):
    """Surrogates that are ambiguous words while their class needs them, else ordinary
    ones that are never a word the corpus also uses as an ordinary word (so a word's PHI
    uses are the ones drawn).  A name part keeps its surrogate for the whole note, so a
    draw counts every mention of the part in the note."""

    def __init__(
        self, rng: random.Random, draws: _Draws, document: Document, reserved: Collection[str]
    ) -> None:
        super().__init__(rng)
        self.draws = draws
        self.reserved = reserved
        self.counts: Counter[str] = Counter()
        for span in document.spans:
            text = document.span_text(span).lower()
            self.counts[text] += 1
            self.counts.update(w for w in _LETTERS.findall(text) if w != text)
        self.original = ""
        self.category = ""
        self.pending = (0, 0)  # tokens of the span being replaced, ambiguous words drawn

    def _remember(self, kind: str, original: str, make: Callable[[], str]) -> str:
        self.original = original.lower()
        return super()._remember(kind, original, make)

    def _word(self, choices: Sequence[tuple[str, ...]]) -> str | None:
        tokens, drawn = self.pending
        if not self.draws.wanted(self.category, tokens, drawn):
            return None
        word = self.draws.draw(choices, max(1, self.counts[self.original]))
        if word is not None:
            self.pending = (tokens, drawn + 1)
        return word

    def _plain(self, make: Callable[[], str]) -> str:
        """An ordinary surrogate with no word the corpus also uses as an ordinary word."""
        value = make()
        for _ in range(50):
            if not any(w in self.reserved for w in _LETTERS.findall(value.lower())):
                break
            value = make()
        return value

    def _named(self, choices: Sequence[tuple[str, ...]], plain: Callable[[], str]) -> str:
        word = self._word(choices)
        return titlecase(word) if word is not None else self._plain(plain)

    def _hospital(self) -> str:
        word = self._word(_HOSPITAL)
        if word is None:
            return self._plain(self.hospital)
        return self.rng.choice(HOSPITAL_PATTERNS).format(w=titlecase(word))

    def replace(self, category: str, text: str) -> str:
        self.category = category
        self.pending = (len(token_spans(text)), 0)
        if category in ("PATIENT", "DOCTOR"):
            return self.replace_name(
                text,
                first=lambda: self._named(_FIRST, self.first_name),
                last=lambda: self._named(_LAST, self.last_name),
            )
        if category == "LOCATION":
            plain = self.state if text.lower() in _states() else self.city
            return self.replace_location(text, lambda: self._named(_PLACE, plain))
        if category == "HOSPITAL":
            return self.replace_hospital(text, self._hospital)
        if category == "DATE":
            return self._date(text)
        return super().replace(category, text)

    def _date(self, text: str) -> str:
        """A date that is an ambiguous word while DATE needs one: a short numeric date
        becomes one the notes also write as a score, a date with a month name gets a
        month that is also a word; other dates are shifted as usual."""
        parsed = parse_date(text)
        if parsed is None or not self.draws.wanted("DATE", self.pending[0], 0):
            return super().replace("DATE", text)
        date, fmt = parsed
        if fmt == "m/d":
            word = self.draws.draw(((DAY_MONTH,),), 1)
            return word if word is not None else super().replace("DATE", text)
        if "Mon" not in fmt:
            return super().replace("DATE", text)
        month = self.draws.draw(((MONTH,),), 1, allowed=lambda w: _names_month(w, fmt))
        if month is None:
            return super().replace("DATE", text)
        number = [m.lower() for m in MONTH_NAMES].index(month) + 1
        new = render_date((date + self.shift).replace(month=number, day=min(date.day, 28)), fmt)
        return apply_case(new, case_style(text))


def _names_month(word: str, fmt: str) -> bool:
    """Does a date in ``fmt`` write month ``word`` as that word ("Mon d" writes "Mar")?"""
    number = [m.lower() for m in MONTH_NAMES].index(word) + 1
    written = MONTH_ABBR[number - 1] if "Month" not in fmt else MONTH_NAMES[number - 1]
    return written.lower() == word


@memoize("ambiguity.states", max_entries=1)
def _states() -> frozenset[str]:
    from corpora.dictionaries import gazetteer

    return frozenset(s.lower() for s in gazetteer()["us_states"])


def _reidentify(doc: Document, draws: _Draws, reserved: frozenset[str], seed: str) -> Document:
    """``doc`` with every span replaced, its ambiguous tokens counted per class."""
    factory = _AmbiguousFactory(random.Random(f"{seed}:{doc.id}"), draws, doc, reserved)
    replacements = {}
    for span in doc.spans:
        new = factory.replace(span.category, doc.span_text(span))
        replacements[span] = new
        words = [word_of(new[a:b]) for a, b in token_spans(new)]
        draws.record(span.category, len(words), sum(w in reserved for w in words))
    return replace_spans(doc, replacements, drop_flags=frozenset({FLAG_NOT_IN_DICTIONARY}))


def ambiguous_documents(documents: list[Document], seed: int, version: int) -> list[Document]:
    """The ambiguous corpus's documents (before flagging), see :mod:`corpora.variants`."""
    rng = random.Random(f"deid-bench:ambiguous-plan:{version}:{seed}")
    uses = plan_ordinary_uses(documents, rng)
    draws = _Draws(uses.counts, uses.usable, phi_target(documents), rng)
    reserved = frozenset(uses.counts)
    out = []
    for doc, edits in zip(documents, uses.edits, strict=True):
        # the written-out stretches ride as marks through the PHI replacement, which moves
        # them, and become metadata again
        edited = edit_text(doc, edits)
        stretches = [Mark(a, a + len(new), SUBSTITUTED_KEY) for a, new in _new_starts(edits)]
        edited = Document(
            doc.id, edited.text, edited.spans, (*edited.marks, *stretches), doc.metadata
        )
        new = _reidentify(edited, draws, reserved, f"deid-bench:ambiguous:{version}:{seed}")
        marks = [m for m in new.marks if m.flag != SUBSTITUTED_KEY]
        moved = [[m.start, m.end] for m in new.marks if m.flag == SUBSTITUTED_KEY]
        metadata = {**dict(new.metadata), SUBSTITUTED_KEY: moved} if moved else new.metadata
        out.append(Document(new.id, new.text, new.spans, tuple(marks), metadata))
    return out


def _new_starts(edits: Sequence[tuple[int, int, str]]) -> list[tuple[int, str]]:
    """(offset in the edited text, new text) of each of ``edits`` (sorted, disjoint)."""
    out, delta = [], 0
    for start, end, new in sorted(edits):
        out.append((start + delta, new))
        delta += len(new) - (end - start)
    return out


def ambiguous_marks(documents: Sequence[Document]) -> list[list[Mark]]:
    """``ambiguous`` marks on every token, PHI or not, of every word ``documents`` use both
    as PHI and as an ordinary word (§6.2; what Table 9 scores)."""
    as_phi: set[str] = set()
    as_other: set[str] = set()
    for doc in documents:
        for tok in doc.tokens:
            word = word_of(tok.text)
            if roles_of(word):
                (as_other if tok.label == OUTSIDE else as_phi).add(word)
    both = as_phi & as_other
    return [
        [Mark(t.start, t.end, FLAG_AMBIGUOUS) for t in doc.tokens if word_of(t.text) in both]
        for doc in documents
    ]

"""``mimic``: the MIMIC / PhysioNet rule-based de-identifier (Neamatullah et al. 2008).

A re-implementation of the rules of the deid 1.1 Perl program as Tafvizi (2011, §2.5)
summarises them, run over the token interface.  It learns nothing (``requires_training =
False``) and reads its word lists through
:func:`corpora.dictionaries.system_dictionaries` -- with ``dictionaries=".../deid-1.1"`` it
sees the original program's own lists (``lists/*_unambig.txt``, ``*_ambig.txt``,
``stripped_hospitals.txt``, ``dict/common_words.txt`` ...).  The published result this
re-creates is 0.967 PHI recall on the PhysioNet nursing notes (Neamatullah et al. 2008);
on the 1,560-note development set in ``../shared`` the harness measures token-level recall
0.946 and precision 0.873 with the deid-1.1 lists (0.785 / 0.476 with the packaged
defaults).

Rule families (each also names the rule in :meth:`MimicDeidentifier.annotate`, which the
Mega SVM sees as features through :class:`systems.features.mimic.MimicRuleFeatures`):

``name.*`` -- §2.5.1.  Census first/last names from the lists:

* ``name.unambiguous``: a name from an *unambiguous* list (not a common English word) is a
  name anywhere -- deid's ``*_unambig`` lists exist for exactly this;
* ``name.title``: any non-common word (or any listed name, ambiguous or not) after a title
  ("Mr.", "Mrs.", "Dr.", "Drs", "NP", "MD" ...), followed by initials and further names --
  the "preceded by Mr., Mrs., Dr." rule of §2.5.1;
* ``name.first_last``: a first name (ambiguous or not) directly followed by an unambiguous
  last name, or an initial and a period followed by a name ("E. Welsh");
* ``name.signature``: the names before a credential ("Joyce Jacobson, RN") -- deid marks
  clinician names around "RN", "MD", "RRT";
* ``name.relation``: a name after a relationship word ("daughter", "proxy", "husband"),
  deid's name-indicator context.

``date.*`` -- §2.5.2, Table 2.2 (:data:`systems.patterns.DATE_TABLE`), plus deid's
mm/dd-without-year, month-name and '84-style rules (:data:`~systems.patterns.DATE_EXTRA`)
and bare years next to a medical event (Table 2.2's last row,
:func:`~systems.patterns.year_tokens`).

``location.*`` -- §2.5.3.  ``location.unambiguous``: an entry of an unambiguous location
list anywhere (multi-word entries matched as phrases); ``location.context``: an ambiguous
location only when preceded by "cape", "fort", "lake", "mount", "los" or followed by
"street", "parkway", "town", "ville", "harbor" (the §2.5.3 words, plus their common
abbreviations "ft", "mt", "st", "ave"); ``location.indicator``: US states and countries only
after "in"/"from"/"lives in" (deid checks these lists only in context).

``hospital.*`` -- §2.5.4.  ``hospital.list``: entries of the hospital list (which in deid
1.1 also holds the hospital's ward names); single entries that are common words ("union",
"mercy") need a cue.  ``hospital.cue``: words directly before "hospital", "rehab center",
"medical center" ... .

``phone.*`` -- §2.5.5, Table 2.3 (:data:`~systems.patterns.PHONE_TABLE`) and deid's pager
rule.  ``id.ssn`` -- §2.5.6, Table 2.4.  ``age.*`` -- §2.5.7, Tables 2.5-2.6: ages 90-125
only.

Deviations: medical eponyms (deid's ``medical_phrases``: "Bell's palsy", "Swan Ganz") are
excluded as in deid; deid's e-mail, URL and provider-number rules are not implemented
(PhysioNet notes have none); the program's hand-made local ward list is only what
``stripped_hospitals.txt`` contains.  Without the deid lists (the packaged defaults), only
the pattern and context rules fire, so recall is lower.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from corpora.dictionaries import Dictionaries, system_dictionaries
from corpora.model import OUTSIDE
from systems.base import System, register
from systems.patterns import (
    AGE_TABLES,
    DATE_EXTRA,
    DATE_TABLE,
    PAGER,
    PHONE_TABLE,
    SSN_TABLE,
    Pattern,
    PatternSet,
    PhraseIndex,
    label_tokens,
    token_forms,
    year_tokens,
)

if TYPE_CHECKING:
    from corpora.model import Document

#: Pattern families in priority order (a token keeps the first label it gets).
PATTERNS: tuple[Pattern, ...] = (
    *PHONE_TABLE,
    *PAGER,
    *SSN_TABLE,
    *AGE_TABLES,
    *DATE_TABLE,
    *DATE_EXTRA,
)
_PATTERN_SET = PatternSet(PATTERNS)

#: Titles before a clinician's name (§2.5.1 "Dr.").
DOCTOR_TITLES = frozenset("dr drs dr's drs' doctor doc prof professor".split())
#: Clinician roles that precede a name ("per NP Carol", "w/MD Spears"); these words also
#: start ordinary phrases ("np 2l", "md aware"), so the name after them must look like one.
ROLE_TITLES = frozenset("np md attending resident fellow intern".split())
#: Titles before any person's name (§2.5.1 "Mr.", "Mrs.").
PERSON_TITLES = frozenset("mr mrs ms miss mister madam mme mssrs sir".split())
TITLES = DOCTOR_TITLES | ROLE_TITLES | PERSON_TITLES
#: Credentials after a clinician's name ("Irene Snell, RN").
CREDENTIALS = frozenset(
    "rn rrt np md lpn crna cna msw lcsw licsw pharmd bsn ccrn pa-c cnm rnc".split()
)
#: Words after which a person's name (a relative or proxy) follows.
RELATION_WORDS = frozenset(
    """son sons daughter daughters dtr dtrs dghtr wife husband hubby spouse sister sisters
    brother brothers niece nephew mother mom father dad aunt uncle cousin grandson
    granddaughter grandaughter grandchild friend proxy hcp spokesperson spokesman guardian
    fiance fiancee boyfriend girlfriend partner neighbor neighbour son-in-law
    daughter-in-law dtr-in-law sil dil stepson stepdaughter named""".split()
)
#: §2.5.3: context words before an ambiguous location.
LOCATION_BEFORE = frozenset("cape fort ft lake mount mt los san santa port".split())
#: §2.5.3: context words after an ambiguous location (plus street-name abbreviations).
LOCATION_AFTER = frozenset(
    """street st parkway pkwy town ville harbor harbour ave avenue road rd lane ln blvd
    county""".split()
)
#: §2.5.4: cues after a hospital's name.  The first set is part of the name itself.
HOSPITAL_NAME_CUES = frozenset("memorial general regional community adventist".split())
HOSPITAL_TYPE_CUES = frozenset(
    "hospital hosp hospitals rehab rehabilitation clinic infirmary campus va vamc".split()
)
#: Words never part of a hospital name found by a cue.
_HOSPITAL_STOP = frozenset(
    """to at from the a an of in and or for by with this that his her was is""".split()
)
#: ICU shorthand and clinical words that collide with census names ("riss": regular
#: insulin sliding scale, "nard": no acute respiratory distress, "vue": CareVue).
CLINICAL_STOP = frozenset(
    """coli aureus fib flutter epi pneumoniae difficile diff faecalis faecium fumigatus
    albicans glabrata influenzae nard riss poss sens vue carevue neice niece dtr sx cx
    quintin ines foley osh""".split()
)
#: Single letters that open SOAP sections ("S.", "O.", "A.", "P.") or mean right/left.
_NOT_INITIALS = frozenset("aoprslix")
#: Words that follow "son", "wife" ... without being a name ("son in to visit").
_NOT_RELATIVE_NAMES = frozenset(
    """in is was will may and to at an my so see else many soon ok long page numbers young
    man boy lady miss son love hope marry major manual loan chance desire angle star sun
    song season spring summer winter autumn king america january august september van
    faith carry hang hung""".split()
)
#: Indicators before a place name ("lives in Rome", "flying in from Rome").
LOCATION_INDICATORS = frozenset(
    {
        ("lives", "in"),
        ("living", "in"),
        ("live", "in"),
        ("resides", "in"),
        ("lives", "at"),
        ("", "from"),
    }
)
_SOFT_PUNCT = frozenset({".", ",", "-", ":", "'", "--", "(", ")"})

_ALPHA_RE = re.compile(r"[a-z][a-z'\-]*\Z")
_TRAILING_DIGITS = re.compile(r"([a-z]{3,})\d+\Z")
_NEWLINE_GAP = "\n"


def _is_word(form: str) -> bool:
    return _ALPHA_RE.match(form) is not None


class MimicLexicon:
    """The word lists, split the way the deid program uses them, as sets and phrase indexes.

    Built once per dictionary set (see :func:`lexicon`): set look-ups are what make the
    tagger run at hundreds of thousands of tokens per second.
    """

    def __init__(self, dicts: Dictionaries) -> None:
        common = dicts.get("common_words") | dicts.get("commonest_words")
        common |= dicts.get("medical_terms")
        self.common = frozenset(common)
        self.commonest = frozenset(dicts.get("commonest_words"))

        def unambiguous(name: str) -> set[str]:
            return dicts.get(name) - dicts.ambiguous(name)

        firsts = dicts.get("female_first_names") | dicts.get("male_first_names")
        lasts = dicts.get("last_names")
        doc_first = dicts.get("doctor_first_names")
        doc_last = dicts.get("doctor_last_names")
        self.first_names = frozenset(firsts | doc_first)
        self.last_names = frozenset(lasts | doc_last)
        self.any_names = self.first_names | self.last_names
        unambig = (
            unambiguous("female_first_names")
            | unambiguous("male_first_names")
            | unambiguous("last_names")
            | doc_first
            | doc_last
        )
        self.unambiguous_names = frozenset(
            n for n in unambig if n not in common and " " not in n and n not in CLINICAL_STOP
        )
        self.unambiguous_last = frozenset(
            n for n in (unambiguous("last_names") | doc_last) if n not in common
        )
        self.doctor_names = frozenset(doc_first | doc_last)
        self.name_prefixes = frozenset(dicts.get("last_name_prefixes") | dicts.get("name_titles"))

        loc_all = dicts.get("locations") | dicts.get("local_places")
        # unambiguous in at least one list ("baltimore" is unambiguous as a local place)
        loc_unambig = unambiguous("locations") | unambiguous("local_places")
        self.locations_unambiguous = frozenset(
            e for e in loc_unambig if " " not in e and e not in common
        )
        self.locations_ambiguous = frozenset(
            e
            for e in loc_all
            if " " not in e and e not in self.locations_unambiguous and e not in CLINICAL_STOP
        )
        self.location_phrases = PhraseIndex(e for e in loc_unambig if " " in e)
        self.context_locations = frozenset(
            dicts.get("us_states") | dicts.get("countries") | self.locations_ambiguous
        )
        self.context_location_phrases = PhraseIndex(
            e for e in dicts.get("us_states") | dicts.get("countries") if " " in e
        )

        hospitals = dicts.get("hospitals")
        self.hospitals = frozenset(e for e in hospitals if " " not in e and e not in common)
        self.hospitals_common = frozenset(e for e in hospitals if " " not in e and e in common)
        self.hospital_phrases = PhraseIndex(e for e in hospitals if " " in e)
        self.medical_phrases = PhraseIndex(dicts.get("medical_phrases"))
        # Common words that no rule can mark whatever their context: the tagger skips them.
        special = (
            self.first_names
            | self.hospitals_common
            | self.locations_ambiguous
            | self.locations_unambiguous
            | HOSPITAL_TYPE_CUES
            | HOSPITAL_NAME_CUES
        )
        listed = self.any_names - self.commonest
        self.boring = frozenset(
            w for w in common if w not in special and w not in listed and len(w) > 1
        )
        self.phrase_firsts = (
            set(self.hospital_phrases.by_first)
            | set(self.location_phrases.by_first)
            | set(self.medical_phrases.by_first)
        )


_LEXICONS: dict[int, tuple[Dictionaries, MimicLexicon]] = {}


def lexicon(dicts: Dictionaries) -> MimicLexicon:
    """The compiled lexicon of ``dicts`` (cached per dictionary object)."""
    hit = _LEXICONS.get(id(dicts))
    if hit is None or hit[0] is not dicts:
        hit = (dicts, MimicLexicon(dicts))
        _LEXICONS[id(dicts)] = hit
    return hit[1]


def _tag(lex: MimicLexicon, document: Document) -> tuple[list[str], list[str]]:
    """Labels and the rule that fired, one per token."""
    toks = document.tokens
    n = len(toks)
    labels = [OUTSIDE] * n
    rules = [""] * n
    if not n:
        return labels, rules
    text = document.text
    starts = [t.start for t in toks]
    ends = [t.end for t in toks]
    forms = token_forms(toks)

    # 1. patterns over the raw text (Tables 2.2-2.6)
    matches = _PATTERN_SET.find(text, forms, starts)
    label_tokens(toks, matches, labels, rules, starts=starts, ends=ends)
    for i in year_tokens(forms):
        if labels[i] == OUTSIDE:
            labels[i], rules[i] = "DATE", "date.year_event"

    # 2. multi-word entries: eponyms block, then hospitals and locations
    blocked = [False] * n
    phrase_firsts = lex.phrase_firsts
    for i in [i for i, f in enumerate(forms) if f in phrase_firsts]:
        if labels[i] != OUTSIDE:
            continue
        k = lex.medical_phrases.match_at(forms, i)
        if k:
            for j in range(i, i + k):
                blocked[j] = True
            continue
        k = lex.hospital_phrases.match_at(forms, i)
        label, rule = "HOSPITAL", "hospital.list"
        if not k:
            k = lex.location_phrases.match_at(forms, i)
            label, rule = "LOCATION", "location.unambiguous"
        for j in range(i, i + k):
            if labels[j] == OUTSIDE:
                labels[j], rules[j] = label, rule

    # 3. words in context
    is_word = [f[:1].isalnum() for f in forms]
    # line number of each token; next/previous word on the same line, across soft punctuation
    line = [0] * n
    count = 0
    find = text.find
    for i in range(1, n):
        if find("\n", ends[i - 1], starts[i]) != -1:
            count += 1
        line[i] = count
    next_of = [-1] * n
    cand = -1
    for i in range(n - 1, -1, -1):
        if cand >= 0 and line[cand] == line[i]:
            next_of[i] = cand
        if is_word[i]:
            cand = i
        elif forms[i] not in _SOFT_PUNCT:
            cand = -1
    prev_of = [-1] * n
    cand = -1
    for i in range(n):
        if cand >= 0 and line[cand] == line[i]:
            prev_of[i] = cand
        if is_word[i]:
            cand = i
        elif forms[i] not in _SOFT_PUNCT:
            cand = -1
    common = lex.common
    commonest = lex.commonest
    any_names = lex.any_names
    first_names = lex.first_names
    unambig = lex.unambiguous_names

    def newline_between(a: int, b: int) -> bool:
        return line[a] != line[b]

    next_word = next_of.__getitem__

    def unknown(f: str) -> bool:
        """Not an English word: in a name context, most likely a name."""
        return f not in common and len(f) > 1 and f not in CLINICAL_STOP and _is_word(f)

    def listed(f: str) -> bool:
        """A census name that is not one of the commonest English words."""
        return f in any_names and f not in commonest and f not in TITLES and f not in RELATION_WORDS

    def initial(i: int) -> bool:
        """ "E" or, as the tokenizer keeps an initial's period, "E." """
        t = toks[i].text
        return t[:1].isalpha() and (len(t) == 1 or (len(t) == 2 and t[1] == "."))

    def mark(i: int, label: str, rule: str) -> None:
        if labels[i] == OUTSIDE and not blocked[i]:
            labels[i], rules[i] = label, rule

    def chain(i: int, label: str, rule: str, lists: bool = False) -> None:
        """Extend a name at ``i`` over following initials and surnames; with ``lists``, over
        "X, Y and Z" too (relatives, "Drs X and Y").  A period is crossed only after an
        initial, a comma only in lists."""
        while True:
            j = i + 1
            if j < n and forms[j] == "." and initial(i):
                j += 1
            elif lists and j < n and forms[j] == ",":
                j += 1
            if j >= n or not is_word[j] or labels[j] != OUTSIDE or newline_between(i, j):
                return
            f = forms[j]
            if f in CREDENTIALS or f in TITLES or f in RELATION_WORDS:
                return
            if initial(j) and f not in ("a", "i"):
                pass
            elif f in unambig or listed(f) or unknown(f):
                pass
            elif f in any_names and toks[j].text[:1].isupper() and not toks[j].text.isupper():
                pass  # "Dr. Art White"
            elif f in lex.name_prefixes and f not in common:
                pass
            elif lists and f in ("and", "&"):
                k = next_word(j)
                if k < 0 or not (listed(forms[k]) or unknown(forms[k])):
                    return
                j = k
            else:
                return
            mark(j, label, rule)
            i = j

    # signatures first ("Joyce Jacobson, RN"), so a name there is a clinician's: the
    # credential must follow a comma or end its line, unless the name is unambiguous
    for c in [c for c, f in enumerate(forms) if f in CREDENTIALS]:
        i = prev_of[c]
        if i < 0 or labels[i] != OUTSIDE:
            continue
        f = forms[i]
        if not (unknown(f) or listed(f) or f in unambig):
            continue
        after = text[ends[c] : ends[c] + 3]
        signed = toks[c - 1].text == "," or not after.strip(" .") or "\n" in after
        if not (signed or f in unambig):
            continue
        j = i
        while j >= 0 and i - j < 5:
            fj = forms[j]
            if fj not in (".", ","):
                if not (initial(j) or unknown(fj) or listed(fj) or fj in unambig):
                    break
                mark(j, "DOCTOR", "name.signature")
            if j and newline_between(j - 1, j):
                break
            j -= 1

    boring = lex.boring
    # skip common words, except right after a title ("Dr. Price", "Mrs. Park")
    todo = [
        i
        for i, f in enumerate(forms)
        if (f not in boring or (i and forms[i - 1] in TITLES)) and f[:1].isalpha()
    ]
    for i in todo:
        if labels[i] != OUTSIDE or blocked[i]:
            continue
        f = forms[i]
        p = prev_of[i]
        pf = forms[p] if p >= 0 else ""
        if "/" in pf or "-" in pf:  # "w/md spears", "reasson-dr. williams"
            pf = pf.replace("/", "-").rsplit("-", 1)[1]

        # -- names (§2.5.1)
        if (
            pf in TITLES
            and f not in TITLES
            and p == i - 1
            and (pf != "ms" or toks[p].text in ("Ms", "Ms."))
        ):
            ok = unknown(f) or listed(f) or (pf not in ROLE_TITLES and initial(i))
            if pf not in ROLE_TITLES and f in any_names and f not in _HOSPITAL_STOP:
                ok = True  # "Dr. Price", "Mrs. Park": any census name after a title
            if ok:
                label = "PATIENT" if pf in PERSON_TITLES else "DOCTOR"
                mark(i, label, "name.title")
                chain(i, label, "name.title", lists=pf in ("drs", "drs'"))
                continue
        if initial(i) and f not in _NOT_INITIALS and toks[i].text.isupper():
            j = next_word(i)
            fj = forms[j] if j >= 0 else ""
            if (
                (
                    (j == i + 2 and toks[i + 1].text == ".")
                    or (j == i + 1 and toks[i].text.endswith("."))
                )
                and fj[1:2] not in ("-", ".", "")
                and fj not in CREDENTIALS
                and (listed(fj) or (unknown(fj) and toks[j].text[0].isupper()))
            ):
                if p >= 0 and (listed(pf) or pf in unambig):
                    mark(p, "DOCTOR", "name.initial")
                mark(i, "DOCTOR", "name.initial")
                mark(j, "DOCTOR", "name.initial")
                chain(j, "DOCTOR", "name.initial")
                continue
        if (
            pf in RELATION_WORDS
            and f not in RELATION_WORDS
            and (listed(f) or unknown(f) or (f in first_names and f not in _NOT_RELATIVE_NAMES))
        ):
            mark(i, "PATIENT", "name.relation")
            chain(i, "PATIENT", "name.relation", lists=True)
            continue
        if "-" in f:
            head, _, tail = f.partition("-")
            if head in RELATION_WORDS and (tail in first_names or unknown(tail)):
                mark(i, "PATIENT", "name.relation")  # "DAUGHTER-KRISSY"
                continue
        nx = next_word(i)
        nf = forms[nx] if nx >= 0 else ""
        if f in unambig and len(f) > 1:
            label = "DOCTOR" if f in lex.doctor_names else "PATIENT"
            mark(i, label, "name.unambiguous")
            if p >= 0 and (listed(pf) or pf in unambig):
                mark(p, label, "name.first_last")
            chain(i, label, "name.unambiguous")
            continue
        if f in first_names and f not in commonest and nx >= 0:
            # a first name followed by a surname: "Henry Jones", "Emily Canvan"
            t, nt = toks[i].text, toks[nx].text
            title_case = (
                t[:1].isupper() and t[1:].islower() and nt[:1].isupper() and nt[1:].islower()
            )
            if nf in lex.unambiguous_last or (title_case and (nf in lex.last_names or unknown(nf))):
                mark(i, "PATIENT", "name.first_last")
                mark(nx, "PATIENT", "name.first_last")
                continue
        if "-" in f:
            parts = f.split("-")
            if any(x in unambig for x in parts) and all(
                x in any_names or x not in common for x in parts
            ):
                mark(i, "PATIENT", "name.unambiguous")
                continue

        # -- hospitals (§2.5.4)
        m = _TRAILING_DIGITS.match(f)
        hf = m.group(1) if m is not None else f
        if hf in lex.hospitals:
            mark(i, "HOSPITAL", "hospital.list")
            continue
        if f in lex.hospitals_common and (nf in HOSPITAL_TYPE_CUES or nf in HOSPITAL_NAME_CUES):
            mark(i, "HOSPITAL", "hospital.list")
            if nf in HOSPITAL_NAME_CUES:
                mark(nx, "HOSPITAL", "hospital.list")
            continue
        if f in HOSPITAL_TYPE_CUES or f in HOSPITAL_NAME_CUES:
            # up to three name words directly before the cue ("Washington Adventist Hosp")
            j = i - 1
            found = False
            while j >= 0 and i - j <= 3 and is_word[j] and not newline_between(j, j + 1):
                fj = forms[j]
                if fj in _HOSPITAL_STOP or not fj[0].isalpha() or blocked[j]:
                    break
                if labels[j] != OUTSIDE:
                    found = labels[j] in ("HOSPITAL", "LOCATION")
                    break
                if not (unknown(fj) or listed(fj) or fj in lex.locations_unambiguous):
                    break
                mark(j, "HOSPITAL", "hospital.cue")
                found = True
                j -= 1
            if found and f in HOSPITAL_NAME_CUES:
                mark(i, "HOSPITAL", "hospital.cue")
            continue

        # -- locations (§2.5.3)
        if f in lex.locations_unambiguous:
            mark(i, "LOCATION", "location.unambiguous")
            continue
        if f in lex.locations_ambiguous and (pf in LOCATION_BEFORE or nf in LOCATION_AFTER):
            mark(i, "LOCATION", "location.context")
            continue
        if f in lex.locations_ambiguous and f not in commonest and p == i - 1:
            pp = forms[p - 1] if p >= 1 else ""
            if (pp, pf) in LOCATION_INDICATORS or ("", pf) in LOCATION_INDICATORS:
                mark(i, "LOCATION", "location.indicator")
                continue
    return labels, rules


def annotate(document: Document, dicts: Dictionaries) -> tuple[list[str], list[str]]:
    """Labels and fired rules for ``document`` with the word lists ``dicts`` (no registry,
    no directory: what tests and feature classes with their own lists use)."""
    return _tag(lexicon(dicts), document)


@register
class MimicDeidentifier(System):
    """The MIMIC / PhysioNet rule-based de-identifier (see the module docstring)."""

    relative_cost = 0.2  # measured, for scheduling only
    name = "mimic"
    description = "MIMIC/PhysioNet rule-based de-identifier (Neamatullah et al. 2008)"
    requires_training = False
    predicts_categories = True

    def __init__(self, dictionaries: str | None = None) -> None:
        self.dictionaries = dictionaries

    def _lexicon(self) -> MimicLexicon:
        return lexicon(system_dictionaries(self.dictionaries))

    def annotate(self, document: Document) -> tuple[list[str], list[str]]:
        """Per token: the label and the name of the rule that assigned it ("" for ``O``)."""
        return _tag(self._lexicon(), document)

    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        lex = self._lexicon()
        return [_tag(lex, doc)[0] for doc in documents]

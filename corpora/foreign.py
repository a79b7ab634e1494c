"""The ``foreign`` test variant: names and places from other countries.

Why it exists.  The ``unseen`` variant replaces names with random letter strings, and
``--augment unseen`` trains on copies made by that same generator, so a model trained that
way is tested on the transform it learned, not on names it never met.  A generalization
estimate needs a transform no training step used.  This one replaces every name and place
with *real* first names, surnames, cities, regions, countries and streets of other
countries, taken from the per-locale data the maintained `Faker
<https://pypi.org/project/Faker/>`_ package ships in its wheel (no network), and it is kept
out of every augmentation: ``--augment foreign`` is refused (:mod:`bench.score.generalization`).

What changes, what stays:

* ``PATIENT`` and ``DOCTOR`` (relatives are ``PATIENT``): each name part through
  :meth:`corpora.surrogates.SurrogateFactory.replace_name` with one locale's name lists,
  so the format ("F. Last", "Last, First", initials) and the case are kept, and one name
  is replaced the same way throughout the note;
* ``LOCATION``: a US state becomes a region of the locale, a state abbreviation an
  abbreviation of such a region, a country another country (in the locale's language),
  an address with digits keeps its numbers around a street of the locale, anything else a
  city of the locale;
* ``HOSPITAL``: the surrogate variant's hospital patterns ("{city} General Hospital",
  "{last} Clinic", ...) filled with the locale's cities and surnames;
* dates, IDs, phones, ages and ``OTHER``: kept as they are.

Each note draws one locale (a note about one patient from one country), recorded in its
metadata (``foreign_locale``).  Locales (:data:`LOCALES`) are those whose Faker data
writes names and places in the Latin script (with their diacritics: "Jäkel", "Łódź",
"Ševčíková"), so the tokenizer splits them as words, and whose cities come from a list of
real places rather than from name patterns (``fr_FR`` and ``tr_TR`` generate invented
towns; ``tr_TR`` falls back to US states).  Entries with characters other than letters,
spaces, hyphens and apostrophes ("Bourgondië, van", "Gg. R.E Martadinata") are left out.

Determinism.  The lists are drawn once per locale from a Faker instance seeded with
:data:`POOL_SEED`; each note's choices come from the harness's own stream (seeded by the
variant name, run seed and document id through SHA-512, never Python's ``hash``).  The
variant's output depends on the Faker version, which is part of its cache key and of the
corpus metadata, so a different Faker is a different set of test notes (and the ledger
counts it as such).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from corpora.dictionaries import gazetteer, system_dictionaries
from corpora.load import variant
from corpora.model import FLAG_NOT_IN_DICTIONARY, Corpus, CorpusError, Document, Span
from corpora.surrogates import Pools, SurrogateFactory
from corpora.variants import (
    cached_variant,
    document_rng,
    flagged,
    replace_spans,
    variant_corpus,
    vocabulary,
)
from infra.memo import memoize

#: Faker locales the names and places come from (language_COUNTRY): Latin-script data with
#: real city lists, eleven European countries and four beyond Europe.
LOCALES = (
    "de_DE",
    "nl_NL",
    "da_DK",
    "sv_SE",
    "fi_FI",
    "pl_PL",
    "cs_CZ",
    "hr_HR",
    "it_IT",
    "pt_PT",
    "ro_RO",
    "en_IN",
    "id_ID",
    "fr_DZ",
    "zu_ZA",
)
#: Seed of the Faker instance each locale's lists are drawn from.
POOL_SEED = 0
#: Draws per list and locale (duplicates removed): most lists hold a few hundred entries.
POOL_DRAWS = 600
#: Bump when the variant's output for a given input and Faker version changes.
FOREIGN_VERSION = 2
#: Categories replaced; every other category keeps its text.
REPLACED = frozenset({"PATIENT", "DOCTOR", "LOCATION", "HOSPITAL"})

_CLEAN = re.compile(r"[^\W\d_]+(?:[ '\-]+[^\W\d_]+)*")
_LETTER_RUN = re.compile(r"[^\W\d_]+(?:[ .'\-]+[^\W\d_]+)*")


@dataclass(frozen=True)
class LocalePools:
    """One locale's lists: names, cities and regions as :class:`Pools` (what
    :class:`SurrogateFactory` draws from), and the streets and countries it does not know."""

    locale: str
    pools: Pools
    streets: tuple[str, ...]
    countries: tuple[str, ...]


def faker_version() -> str:
    """The installed Faker's version, or a :class:`CorpusError` saying how to install it."""
    try:
        from faker import VERSION
    except ImportError:
        raise CorpusError(
            "the foreign variant needs the Faker package (pip install faker)"
        ) from None
    return str(VERSION)


def _latin(text: str) -> bool:
    """Every letter of ``text`` is a Latin letter (accented ones included)."""
    return all(not c.isalpha() or "LATIN" in unicodedata.name(c, "") for c in text)


def _draw(make: Callable[[], str]) -> tuple[str, ...]:
    """:data:`POOL_DRAWS` values of ``make``, each once, in the order first drawn, keeping
    only clean Latin-script words."""
    values = (make().strip() for _ in range(POOL_DRAWS))
    return tuple(v for v in dict.fromkeys(values) if _CLEAN.fullmatch(v) and _latin(v))


def _canonical_lists(fake: Any) -> None:
    """Sort, on this instance, every list of words its name and address providers draw
    from.  Some locales build such a list from a set (Faker's ``it_IT`` cities), whose order
    follows Python's string hashing: the same seed would then draw other places under
    another ``PYTHONHASHSEED``, and the variant would not reproduce.  Tuples and weighted
    dicts are written out in Faker's source, so their order is already fixed."""
    for provider in fake.providers:
        if type(provider).__module__.split(".")[2:3] not in (["person"], ["address"]):
            continue
        for name in dir(type(provider)):
            value = getattr(type(provider), name, None)
            if not name.startswith("_") and isinstance(value, list) and value:
                if all(isinstance(v, str) for v in value):
                    setattr(provider, name, sorted(value))


@memoize("foreign.pools", max_entries=len(LOCALES))
def locale_pools(locale: str) -> LocalePools:
    """The lists of ``locale``, drawn once per process from a seeded Faker instance."""
    faker_version()
    from faker import Faker

    fake = Faker(locale)
    _canonical_lists(fake)
    fake.seed_instance(POOL_SEED)
    female = _draw(fake.first_name_female)
    male = _draw(fake.first_name_male)
    last = _draw(fake.last_name)
    cities = _draw(fake.city)
    regions = _draw(fake.administrative_unit)
    streets = _draw(fake.street_name)
    countries = _draw(fake.country)
    if not (female and male and last and cities and regions):
        raise CorpusError(f"Faker {faker_version()} has no usable names or places for {locale}")
    pools = Pools(female=female, male=male, last=last, cities=cities, states=regions)
    return LocalePools(locale, pools, streets or cities, countries or cities)


@memoize("foreign.us_places", max_entries=1)
def _us_places() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """US state names and abbreviations, and country names, lower-cased (what a LOCATION
    is recognized as before it is replaced by its kind)."""
    geo = gazetteer()
    return (
        frozenset(s.lower() for s in geo["us_states"]),
        frozenset(s.lower() for s in geo["us_state_abbreviations"]),
        frozenset(c.lower() for c in geo["countries"]),
    )


def abbreviation(name: str, length: int) -> str:
    """An upper-case abbreviation of ``name`` of ``length`` letters: the initials of its
    words, then its first word's next letters ("Nordrhein-Westfalen" -> "NW", "Sachsen" ->
    "SA")."""
    words = [w for w in re.split(r"[\s\-']+", name) if w]
    letters = [w[0] for w in words][:length]
    rest = iter(words[0][1:]) if words else iter(())
    while len(letters) < length:
        letters.append(next(rest, "X"))
    return "".join(letters).upper()


def _place(text: str, rng_choice: Callable[[tuple[str, ...]], str], pools: LocalePools) -> str:
    """A place of ``pools``'s country of the kind ``text`` is (see the module docstring)."""
    states, abbreviations, countries = _us_places()
    stripped = text.strip()
    if any(c.isdigit() for c in stripped):
        street = rng_choice(pools.streets)
        return _LETTER_RUN.sub(lambda _: street, stripped, count=1)
    if stripped.isupper() and stripped.lower() in abbreviations:
        return abbreviation(rng_choice(pools.pools.states), len(stripped))
    if stripped.lower() in states:
        return rng_choice(pools.pools.states)
    if stripped.lower() in countries:
        return rng_choice(pools.countries)
    return rng_choice(pools.pools.cities)


def foreign_document(document: Document, seed: int) -> Document:
    """``document`` with its names and places from one other country (the module
    docstring says which categories change and how); ``metadata["foreign_locale"]``
    names the country's locale."""
    rng = document_rng("foreign", seed, document)
    locale = rng.choice(LOCALES)
    pools = locale_pools(locale)
    factory = SurrogateFactory(rng, pools.pools)
    replacements: dict[Span, str] = {}
    for span in document.spans:
        if span.category not in REPLACED:
            continue
        text = document.span_text(span)
        if span.category in ("PATIENT", "DOCTOR"):
            replacements[span] = factory.replace_name(text)
        elif span.category == "HOSPITAL":
            replacements[span] = factory.replace_hospital(text)
        else:
            make = lambda t=text: _place(t, rng.choice, pools)  # noqa: E731
            replacements[span] = factory.replace_location(text, make)
    new_doc = replace_spans(document, replacements, drop_flags=frozenset({FLAG_NOT_IN_DICTIONARY}))
    metadata = {**dict(new_doc.metadata), "foreign_locale": locale}
    return Document(new_doc.id, new_doc.text, new_doc.spans, new_doc.marks, metadata)


@variant(
    "foreign",
    "names and places from other countries (Faker's lists of 15 Latin-script locales); "
    "a test variant no training step may use",
)
def foreign(corpus: Corpus, *, seed: int) -> Corpus:
    """Names of people, places and hospitals replaced by real ones of other countries."""
    version = faker_version()

    def compute() -> Corpus:
        vocab = vocabulary(system_dictionaries())
        docs = (flagged(foreign_document(d, seed), vocab) for d in corpus)
        out = variant_corpus("foreign", corpus, seed, docs)
        metadata = {**dict(out.metadata), "faker": version, "locales": list(LOCALES)}
        return Corpus(out.name, out.documents, metadata)

    return cached_variant(f"foreign.{FOREIGN_VERSION}.faker-{version}", corpus, seed, compute)


__all__ = [
    "FOREIGN_VERSION",
    "LOCALES",
    "abbreviation",
    "foreign",
    "foreign_document",
    "locale_pools",
]

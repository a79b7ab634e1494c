"""``presidio`` -- Microsoft Presidio's analyzer, the most used open-source PII detector.

Presidio (``presidio-analyzer``, MIT) runs a registry of recognizers over a text: pattern
recognizers with checksums and context words (dates, phone numbers, e-mail, URLs, IP
addresses, US SSN / driver's licence / passport / bank numbers, credit cards, medical
licences ...) and a named-entity recognizer from a spaCy pipeline for names, places and
organizations.  It is in the ``peers`` extra (``pip install -e '.[peers]'``); without it the
system is reported as not run with that command.

The spaCy pipeline (``model``): ``auto`` uses an English pipeline the user has installed
(``en_core_web_lg``, ``_md``, ``_sm``, ``_trf``, then any other ``en_*`` package); a
package name or a pipeline directory picks one.  **Nothing is downloaded**: Presidio's
own default would fetch ``en_core_web_lg`` on first use, so where no English pipeline is
installed (or ``model="none"``) it runs with its pattern recognizers only -- no names or
places can then be found -- and the report and run.json say so ("pattern recognizers
only").  Likewise ``tldextract``, which Presidio's e-mail recognizer calls, is pointed at
the public-suffix snapshot it bundles (by default it downloads the list on first use).

As it ships: every recognizer, Presidio's default score threshold (0: every result), its
default context enhancement.  Entity types onto our labels: PERSON -> PATIENT (Presidio
cannot tell clinicians from patients; binary scores are unaffected), LOCATION ->
LOCATION, DATE_TIME -> DATE, PHONE_NUMBER -> PHONE, the number types (SSN, licences,
passports, bank and card numbers, medical licences) -> ID, e-mail / URL / IP address ->
OTHER, and NRP (nationality, religious or political group) is dropped: none of the HIPAA
identifiers or i2b2 categories.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any, ClassVar

from corpora.model import Document
from infra.memo import memoize
from systems.base import SystemUnavailable, register
from systems.external import ExternalSystem, FoundSpan, NoteError

#: What a user installs to get Presidio.
INSTALL = "pip install -e '.[peers]' (presidio-analyzer)"
#: English spaCy pipelines ``model="auto"`` looks for, in order.
PREFERRED_MODELS = ("en_core_web_lg", "en_core_web_md", "en_core_web_sm", "en_core_web_trf")
#: What ``runs_as`` says without a spaCy pipeline.
PATTERN_ONLY = "pattern recognizers only (no spaCy English pipeline installed)"


def _version() -> str | None:
    try:
        return metadata.version("presidio-analyzer")
    except metadata.PackageNotFoundError:
        return None


def installed_english_pipeline() -> str | None:
    """The first installed English spaCy pipeline package (see :data:`PREFERRED_MODELS`)."""
    try:
        import spacy
    except ImportError:
        return None
    installed = set(spacy.util.get_installed_models())
    for name in PREFERRED_MODELS:
        if name in installed:
            return name
    return next((n for n in sorted(installed) if n.startswith("en_")), None)


@register
class Presidio(ExternalSystem):
    """Presidio's analyzer with its recognizers as shipped (see the module docstring).

    Parameters
    ----------
    model:
        ``auto``, ``none`` (pattern recognizers only), an installed spaCy package name or
        a pipeline directory.
    score_threshold:
        Presidio's own threshold on its results' scores (0: every result, as shipped).
    labels, on_error, tool:
        As for every external system (:mod:`systems.external`).
    """

    name = "presidio"
    description = "Microsoft Presidio analyzer (PII recognizers + spaCy NER), as it ships"
    citation = "Microsoft Presidio (github.com/microsoft/presidio)"
    departures = (
        "as shipped; without an installed spaCy English pipeline, pattern "
        "recognizers only (no names or places)"
    )
    relative_cost = 20.0  # scheduling only
    type_labels: ClassVar[Mapping[str, str]] = {
        "NRP": "O",
        "PERSON": "PATIENT",
        "MEDICAL_LICENSE": "ID",
    }

    def __init__(
        self,
        model: str = "auto",
        score_threshold: float = 0.0,
        labels: Mapping[str, str] | str | None = None,
        on_error: str = "redact",
        tool: str = "",
    ) -> None:
        self.model = model
        self.score_threshold = score_threshold
        self.labels = labels
        self.on_error = on_error
        self.tool = tool

    def check_params(self) -> None:
        super().check_params()
        if not 0 <= float(self.score_threshold) <= 1:
            raise ValueError(f"score_threshold {self.score_threshold!r}: between 0 and 1")

    def pipeline(self) -> str | None:
        """The spaCy pipeline this instance runs with, ``None`` for pattern-only."""
        if self.model == "none":
            return None
        if self.model == "auto":
            return installed_english_pipeline()
        return self.model

    def tool_fingerprint(self) -> str:
        version = _version()
        if version is None:
            return "not installed"
        pipeline = self.pipeline()
        if pipeline is None:
            return f"presidio-analyzer {version}, patterns"
        if Path(pipeline).exists():
            from systems.external import files_fingerprint

            return f"presidio-analyzer {version}, {files_fingerprint([pipeline])}"
        try:
            return f"presidio-analyzer {version}, {pipeline} {metadata.version(pipeline)}"
        except metadata.PackageNotFoundError:
            return f"presidio-analyzer {version}, {pipeline} (not installed)"

    def runs_as(self) -> str:
        pipeline = self.pipeline()
        nlp = PATTERN_ONLY if pipeline is None else f"spaCy pipeline {Path(pipeline).name}"
        return f"presidio-analyzer {_version()}, {nlp}, score threshold {self.score_threshold:g}"

    def fitted_info(self) -> dict[str, Any]:
        info = super().fitted_info()
        info["nlp"] = self.pipeline() or "none: " + PATTERN_ONLY
        return info

    def check_available(self) -> None:
        if _version() is None:
            raise SystemUnavailable(f"presidio-analyzer is not installed: {INSTALL}")
        pipeline = self.pipeline()
        if pipeline is not None and not _loadable(pipeline):
            raise SystemUnavailable(
                f"spaCy pipeline {pipeline!r} is not installed (install it, or use "
                "--param presidio.model=none for the pattern recognizers only)"
            )

    def find_spans(self, documents: Sequence[Document]) -> list[list[FoundSpan] | NoteError]:
        self.check_available()
        pipeline = self.pipeline()
        analyzer = _analyzer(pipeline)
        keep = [e for e in analyzer.get_supported_entities() if self._label_of()(e) != "O"]
        out: list[list[FoundSpan] | NoteError] = []
        for doc in documents:
            try:
                results = analyzer.analyze(
                    doc.text,
                    language="en",
                    entities=keep,
                    score_threshold=float(self.score_threshold),
                )
            except Exception as exc:  # a recognizer failing on one note fails that note
                out.append(NoteError(f"presidio raised {type(exc).__name__}"))
                continue
            out.append([FoundSpan(r.start, r.end, r.entity_type) for r in results])
        return out


def _loadable(pipeline: str) -> bool:
    import spacy

    return spacy.util.is_package(pipeline) or Path(pipeline).is_dir()


@memoize("presidio.analyzers", max_entries=4)
def _analyzer(pipeline: str | None) -> Any:
    """Presidio's analyzer with every predefined recognizer, built once per process."""
    import tldextract.tldextract as tx
    from presidio_analyzer import AnalyzerEngine
    from presidio_analyzer.nlp_engine import NoOpNlpEngine, SpacyNlpEngine

    tx.TLD_EXTRACTOR = tx.TLDExtract(suffix_list_urls=())  # the bundled snapshot, no fetch
    if pipeline is None:
        engine: Any = NoOpNlpEngine(models=[{"lang_code": "en", "model_name": "none"}])
    else:
        engine = SpacyNlpEngine(models=[{"lang_code": "en", "model_name": pipeline}])
    return AnalyzerEngine(nlp_engine=engine, supported_languages=["en"])

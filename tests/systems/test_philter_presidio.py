"""Philter and Presidio through their library APIs, where the ``peers`` extra is installed;
without it both are reported as not run, with the install command."""

from __future__ import annotations

import importlib.util
import socket

import pytest

from corpora.model import Document
from systems import philter as philter_module
from systems import presidio as presidio_module
from systems.base import SYSTEMS, SystemUnavailable
from systems.philter import Philter
from systems.presidio import PATTERN_ONLY, Presidio
from tests.conftest import requires_nltk

NOTE = Document(
    "n1",
    "Patient John Smith was admitted on 03/14/2012 to Mercy Hospital in Boston.\n"
    "Call his daughter at 617-555-1234 or mail jsmith@example.com. AGGRASTAT conts.\n",
)

needs_philter = pytest.mark.skipif(
    importlib.util.find_spec("philter_lite") is None, reason="philter-lite not installed"
)
needs_presidio = pytest.mark.skipif(
    importlib.util.find_spec("presidio_analyzer") is None,
    reason="presidio-analyzer not installed",
)


def _marked(labels: list[str]) -> dict[str, str]:
    return {t.text: lab for t, lab in zip(NOTE.tokens, labels, strict=True) if lab != "O"}


@pytest.fixture
def no_network(monkeypatch):
    """Nothing may be downloaded at run time: any connection attempt fails the test."""

    def refuse(*args, **kwargs):
        raise AssertionError("a connection was attempted")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def test_both_say_how_to_install_them_when_missing(monkeypatch) -> None:
    monkeypatch.setattr(philter_module, "_version", lambda: None)
    monkeypatch.setattr(presidio_module, "_version", lambda: None)
    with pytest.raises(SystemUnavailable, match=r"pip install -e '\.\[peers\]'"):
        Philter().predict([NOTE])
    with pytest.raises(SystemUnavailable, match=r"pip install -e '\.\[peers\]'"):
        Presidio().predict([NOTE])
    assert SYSTEMS.get("philter-lenient").params["mode"] == "matched"
    from bench.run.plan import resolve_systems
    from bench.run.run_types import UsageError

    # named, a tool that cannot run is refused while planning; brought in by the
    # ``peers`` group as shipped, it is reported as not run
    with pytest.raises(UsageError, match=r"'philter' cannot run: .*pip install"):
        resolve_systems(["philter,philter-lenient"])
    specs = resolve_systems(["peers"])
    assert "as it ships" in specs["philter"].description
    assert "not as shipped" in specs["philter-lenient"].description


@needs_philter
@requires_nltk
def test_philter_as_shipped_redacts_more_than_its_lenient_setting(tmp_path, monkeypatch):
    monkeypatch.setenv("DEID_BENCH_CACHE", str(tmp_path))
    shipped = _marked(Philter().predict([NOTE])[0])
    lenient_system = SYSTEMS.get("philter-lenient")()
    lenient = _marked(lenient_system.predict([NOTE])[0])
    assert shipped["03/14/2012"] == lenient["03/14/2012"] == "DATE"
    words = {w for w in lenient if w.isalnum()}
    assert words < set(shipped)  # what its PHI filters match is masked as shipped too
    assert "AGGRASTAT" in shipped and "AGGRASTAT" not in lenient  # on no safe list, no PHI
    assert "not as shipped" in lenient_system.fitted_info()["runs_as"]


@needs_presidio
def test_presidio_without_a_spacy_pipeline_runs_its_patterns_and_says_so(no_network):
    system = Presidio(model="none")
    got = _marked(system.predict([NOTE])[0])
    assert got["617-555-1234"] == "PHONE" and got["jsmith"] == "OTHER"
    assert "John" not in got  # no names without a pipeline
    assert PATTERN_ONLY in system.fitted_info()["runs_as"]


@needs_presidio
def test_presidio_uses_an_installed_spacy_pipeline(tmp_path, no_network) -> None:
    import spacy

    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("entity_ruler")
    ruler.add_patterns(
        [
            {"label": "PERSON", "pattern": [{"TEXT": "John"}, {"TEXT": "Smith"}]},
            {"label": "GPE", "pattern": "Boston"},
        ]
    )
    nlp.to_disk(tmp_path / "pipeline")
    system = Presidio(model=str(tmp_path / "pipeline"))
    got = _marked(system.predict([NOTE])[0])
    assert got["John"] == got["Smith"] == "PATIENT" and got["Boston"] == "LOCATION"
    assert "spaCy pipeline pipeline" in system.fitted_info()["runs_as"]
    with pytest.raises(SystemUnavailable, match=r"presidio\.model=none"):
        Presidio(model="en_core_web_nonexistent").predict([NOTE])

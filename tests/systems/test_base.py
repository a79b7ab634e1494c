"""The adapter contract: sklearn-like parameters, registry, output checks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from corpora.model import Document, Span
from systems.base import (
    SYSTEMS,
    System,
    SystemEntry,
    available_systems,
    get_system,
    register,
    register_preset,
    unregister,
)


class CapitalizedIsPhi(System):
    """Test fixture only: every capitalized token is PHI."""

    name = "test-capitalized"
    description = "fixture"
    requires_training = False
    predicts_categories = False

    def __init__(self, min_length: int = 1) -> None:
        self.min_length = min_length

    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        return [
            [
                "PHI" if t.text[:1].isupper() and len(t.text) >= self.min_length else "O"
                for t in d.tokens
            ]
            for d in documents
        ]


@pytest.fixture
def registered():
    register(CapitalizedIsPhi)
    yield CapitalizedIsPhi
    unregister(CapitalizedIsPhi.name)


def test_registry_finds_registered_system(registered) -> None:
    system = get_system("test-capitalized", min_length=3)
    assert isinstance(system, CapitalizedIsPhi)
    assert system.get_params() == {"min_length": 3}
    assert system.clone().get_params() == {"min_length": 3}
    assert "test-capitalized" in available_systems()


def test_every_registry_entry_has_one_shape(registered) -> None:
    """A registered class and a preset alike: the class, its parameters, its facts;
    calling an entry builds an instance."""
    for entry in SYSTEMS.as_dict().values():
        assert isinstance(entry, SystemEntry) and issubclass(entry.cls, System)
        assert isinstance(entry.params, Mapping) and isinstance(entry.description, str)
    plain = SYSTEMS["test-capitalized"]
    assert plain.cls is CapitalizedIsPhi and not plain.params and not plain.preset
    assert plain.description == "fixture" and plain.departures == CapitalizedIsPhi.departures
    try:
        preset = register_preset(
            "test-long-words", CapitalizedIsPhi, {"min_length": 5}, "long words", departures="x"
        )
        assert SYSTEMS["test-long-words"] is preset and preset.preset
        assert get_system("test-long-words").get_params() == {"min_length": 5}
        assert get_system("test-long-words", min_length=2).get_params() == {"min_length": 2}
        assert (preset.description, preset.departures) == ("long words", "x")
        # a preset read again replaces itself; a class's name is not a preset's to take
        register_preset("test-long-words", CapitalizedIsPhi, {"min_length": 6}, "longer")
        assert SYSTEMS["test-long-words"].params == {"min_length": 6}
        with pytest.raises(ValueError, match="already registered"):
            register_preset("test-capitalized", CapitalizedIsPhi, {}, "taken")
    finally:
        unregister("test-long-words")
    with pytest.raises(TypeError, match="neither a System subclass nor a SystemEntry"):
        SystemEntry.of(len)  # type: ignore[arg-type]


def test_fixture_not_listed_without_registration() -> None:
    assert "test-capitalized" not in available_systems()


def test_unknown_system_names_known_ones() -> None:
    with pytest.raises(KeyError, match="unknown system 'nope'"):
        get_system("nope")


def test_set_params_rejects_unknown() -> None:
    with pytest.raises(ValueError, match="no parameter"):
        CapitalizedIsPhi().set_params(colour="red")


def test_fit_predict_checks_alignment(registered) -> None:
    doc = Document("d", "Seen by Dr. Lee today", (Span(12, 15, "DOCTOR"),))
    labels = get_system("test-capitalized", min_length=3).fit_predict([], [doc])
    assert labels == [["PHI", "O", "PHI", "PHI", "O"]]


def test_register_requires_name() -> None:
    class Nameless(CapitalizedIsPhi):
        name = ""

    with pytest.raises(ValueError, match="must set"):
        register(Nameless)


def test_tags_are_declared_and_computed_from_the_instance(registered) -> None:
    tags = get_system("test-capitalized").tags()
    assert not tags.requires_training and not tags.uses_nlp
    assert not tags.predicts_categories and not tags.scores_tokens
    assert tags.evaluated_labels is None
    from systems.svm import LocalContextSVM

    assert not LocalContextSVM().tags().predicts_categories
    assert LocalContextSVM(mode="multiclass").tags().predicts_categories
    assert LocalContextSVM().tags().scores_tokens and LocalContextSVM().tags().uses_nlp


def test_check_params_rejects_bad_values_before_any_work() -> None:
    from systems.svm import LocalContextSVM

    with pytest.raises(ValueError, match="mode must be one of"):
        LocalContextSVM(mode="ternary").check_params()


_DROPPED = '''
from systems.base import System, register


@register
class Dropped(System):
    name = "{name}"
    description = "a system found by dropping its file into systems/"
    requires_training = False

    def __init__(self) -> None:
        pass

    def predict(self, documents):
        return [["O" for _ in d.tokens] for d in documents]
'''


def _list_systems(
    env: dict[str, str] | None = None, cwd: str | None = None, systems_dir: str | None = None
) -> str:
    """``python -m bench list`` in a fresh process; ``systems_dir``: a directory searched as
    part of the ``systems`` package, as if its files were in ``systems/``."""
    import os
    import subprocess
    import sys

    extend = f"import systems; systems.__path__.append({systems_dir!r}); " if systems_dir else ""
    code = f"import sys; {extend}from bench.cli import main; sys.exit(main(['list']))"
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        cwd=cwd,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_file_dropped_into_systems_is_discovered(tmp_path) -> None:
    """Every module of the ``systems`` package is imported on the first lookup.  The file
    sits in a directory added to the package's search path, so nothing is written into
    the source tree."""
    name = "zz-dropped-test-system"
    (tmp_path / "zz_dropped_test_system.py").write_text(_DROPPED.format(name=name))
    assert name in _list_systems(systems_dir=str(tmp_path))
    assert name not in _list_systems()


def test_an_installed_package_registers_through_entry_points(tmp_path) -> None:
    """The route for packages outside this repository: the deid_bench.systems group."""
    pkg = tmp_path / "outside_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    plugin = _DROPPED.format(name="outside-plugin").replace("@register\n", "")
    (pkg / "plugin.py").write_text(plugin)
    dist = tmp_path / "outside_pkg-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: outside-pkg\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[deid_bench.systems]\noutside-plugin = outside_pkg.plugin:Dropped\n"
    )
    import os

    path = os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))
    assert "outside-plugin" in _list_systems({"PYTHONPATH": path})


def test_capabilities_the_runner_reads_are_declared_on_system() -> None:
    from systems.external import ExternalSystem

    assert System.external is False and ExternalSystem.external is True
    assert System.relative_cost is None
    assert CapitalizedIsPhi().base_modules() == set()

"""The one registry shape: names, objects and one-line descriptions, read like a mapping."""

from __future__ import annotations

import os
import pkgutil
import re
import subprocess
import sys

import pytest

from corpora import readers
from corpora.load import READER_ENTRY_POINT_GROUP, READERS, VARIANTS, uses_generator
from infra.registry import Registry
from systems.features.statdeid import ALL_FEATURES
from systems.mega import MEGA_SOURCES


def test_names_are_sorted_unless_the_registration_order_matters() -> None:
    plain: Registry[int] = Registry("number")
    ordered: Registry[int] = Registry("number", ordered=True)
    for registry in (plain, ordered):
        registry.add("two", 2, "the second")
        registry.add("one", 1, "the first")
    assert plain.names() == ["one", "two"]
    assert ordered.names() == ["two", "one"]
    assert [(e.name, e.description) for e in ordered.entries()] == [
        ("two", "the second"),
        ("one", "the first"),
    ]


def test_a_registry_reads_like_a_mapping() -> None:
    registry: Registry[int] = Registry("number", ordered=True)

    @registry.register("three", "the third")
    def three() -> int:
        return 3

    registry.add("four", 4)
    assert list(registry) == ["three", "four"] and len(registry) == 2
    assert "four" in registry and "five" not in registry
    assert registry["three"] is three and {**registry} == {"three": three, "four": 4}
    with pytest.raises(KeyError, match="unknown number 'five'; known: three, four"):
        registry["five"]
    with pytest.raises(ValueError, match="already registered"):
        registry.add("four", 5)


def test_every_reader_variant_feature_class_and_mega_source_is_described() -> None:
    assert list(VARIANTS) == ["authentic", "surrogate", "ambiguous", "unseen", "foreign"]
    for registry in (READERS, VARIANTS, ALL_FEATURES, MEGA_SOURCES):
        assert len(registry) > 0
        assert all(e.description and "\n" not in e.description for e in registry.entries())


def test_entries_with_one_identity_replace_each_other_and_others_collide() -> None:
    """``identity``: what makes a second registration of a name the same entry (a preset
    read again from its file), where a different one is an error."""
    registry: Registry[tuple[str, int]] = Registry("pair", identity=lambda pair: pair[0])
    registry.add("x", ("a", 1), "first")
    registry.add("x", ("a", 2), "again")
    assert registry["x"] == ("a", 2)
    with pytest.raises(ValueError, match="already registered"):
        registry.add("x", ("b", 1))


def test_every_module_of_the_readers_folder_registers_a_reader() -> None:
    """A format is one module of ``corpora/readers/`` (read from the folder, so a reader
    dropped in is counted like the others)."""
    modules = {
        f"corpora.readers.{m.name}"
        for m in pkgutil.iter_modules(readers.__path__)
        if not m.name.startswith("_")
    }
    registered = {getattr(e.obj, "__module__", None) for e in READERS.entries()}
    assert modules and modules <= registered, modules - registered


_PLUGIN_READER = '''
from corpora.load import ReadResult
from corpora.model import CorpusError, Document


def read(path, *, lenient=False):
    """one note per line of a text file, no PHI marked"""
    try:
        with open(path, encoding="utf-8") as f:
            lines = [line.rstrip("\\n") for line in f if line.strip()]
    except OSError as exc:
        raise CorpusError(f"cannot read: {exc.strerror}", file=path) from None
    return ReadResult([Document(f"line-{i}", text) for i, text in enumerate(lines)])
'''


def test_an_installed_package_adds_a_reader_through_entry_points(tmp_path) -> None:
    """Readers are found like systems: the ``deid_bench.readers`` entry-point group names
    a function (the entry point's name is the corpus KIND)."""
    pkg = tmp_path / "outside_readers"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "lines.py").write_text(_PLUGIN_READER)
    dist = tmp_path / "outside_readers-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: outside-readers\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        f"[{READER_ENTRY_POINT_GROUP}]\nlines = outside_readers.lines:read\n"
    )
    notes = tmp_path / "notes.txt"
    notes.write_text("Seen by Dr. Lambert today.\nPatient stable.\n")
    path = os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path, "DEID_BENCH_CACHE": str(tmp_path / "cache")}
    out = tmp_path / "notes.jsonl"
    for argv in (["list"], ["corpus", "convert", f"lines:{notes}", str(out), "--to", "jsonl"]):
        done = subprocess.run(
            [sys.executable, "-m", "bench", *argv],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        if argv == ["list"]:
            assert re.search(r"lines:PATH +one note per line of a text file", done.stdout)
    assert len(out.read_text().splitlines()) == 2  # read by the plug-in, one note a line


@pytest.mark.parametrize(
    ("spec", "embedded"),
    [
        ("authentic", True),
        ("unseen", True),
        ("foreign:authentic", True),
        ("tuning:foreign:unseen", True),
        ("physionet:../shared/corpora/physionet-deid", False),
        ("foreign:evaluation:physionet:/data/deid", False),
        ("jsonl:authentic", False),
    ],
)
def test_a_spec_is_made_from_the_embedded_corpus_only_through_its_names(
    spec: str, embedded: bool
) -> None:
    """What the generator's options (``--n-documents``...) can shape; a file named like an
    embedded corpus is still a file."""
    assert uses_generator(spec) is embedded

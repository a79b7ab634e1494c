"""One registry shape for everything the harness looks up by name.

Systems, corpus readers, corpus variants, feature sets and the Mega SVM's feature sources
are all found by a name typed on the command line.  Each lives in a :class:`Registry`: a
name, the object, and a one-line description, so ``python -m bench list`` reads the
registries and nothing is listed twice by hand.  A registry can *discover* its entries --
import every module of a package (so a new ``systems/mine.py`` is found by dropping the
file there) and load an entry-point group (so an installed package can add entries without
touching this repository) -- the way presidio-analyzer's recognizer registry loads
recognizers.

It lives in ``infra/``, the floor below everything that looks names up (readers and
variants in ``corpora/``, systems and feature classes in ``systems/``).
"""

from __future__ import annotations

import importlib
import pkgutil
import threading
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any, Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Entry(Generic[T]):
    """A registered object with its name and one-line description."""

    name: str
    obj: T
    description: str


class Registry(Generic[T]):
    """Name -> object, with descriptions, filled by decorators, package discovery and entry
    points.

    ``package``: a package whose modules are imported on first lookup (modules starting with
    ``_`` are skipped), or a single module, or several packages or modules in order,
    imported on first lookup; ``entry_point_group``:
    an entry-point group loaded on first lookup (each entry point names an object;
    :attr:`describe` gives its description; ``load`` turns it into the registry's own
    shape, so an installed plug-in may name a bare class where entries are records).
    ``identity``: what makes two registrations under one name the same entry (default: the
    same object, or the same class re-created by a module reload); registering a different
    entry under a taken name is an error.  ``ordered``: names are listed in the order
    they were registered (a paper's order, which also fixes the order of what is built from
    them) instead of sorted.

    It reads like a read-only mapping of name -> object (``name in r``, ``r[name]``,
    ``list(r)``, ``len(r)``, ``{**r}``), so code that took a dict of names keeps working.
    """

    def __init__(
        self,
        kind: str,
        *,
        package: str | tuple[str, ...] | None = None,
        entry_point_group: str | None = None,
        describe: Callable[[T], str] | None = None,
        name_of: Callable[[T], str] | None = None,
        load: Callable[[Any], T] | None = None,
        identity: Callable[[T], Hashable] | None = None,
        ordered: bool = False,
    ) -> None:
        self.kind = kind
        self.package = package
        self.entry_point_group = entry_point_group
        self.describe = describe
        self.name_of = name_of
        self.load = load
        self.identity = identity
        self.ordered = ordered
        self._entries: dict[str, Entry[T]] = {}
        self._discovered = False
        # discovery imports modules once; a second thread waits for it instead of seeing
        # a half-filled registry (a corpus of --extra-training read beside the others)
        self._lock = threading.RLock()
        self._discovering = False

    # -- filling ---------------------------------------------------------------------------
    def add(self, name: str, obj: T, description: str = "") -> T:
        """Register ``obj`` as ``name``; re-registering the same object is a no-op, a
        different object under a taken name is an error (two plugins must not collide
        silently)."""
        if not name:
            raise ValueError(f"a {self.kind} needs a name")
        existing = self._entries.get(name)
        if existing is not None and not self._same(existing.obj, obj):
            raise ValueError(f"{self.kind} name {name!r} is already registered by {existing.obj!r}")
        if not description and existing is not None and existing.obj is obj:
            # an entry point naming what its module's decorator registered: keep its line
            description = existing.description
        if not description and self.describe is not None:
            description = self.describe(obj)
        self._entries[name] = Entry(name, obj, description)
        return obj

    def _same(self, a: T, b: T) -> bool:
        if self.identity is not None:
            return a is b or self.identity(a) == self.identity(b)
        return _same(a, b)

    def register(self, name: str, description: str = "") -> Callable[[T], T]:
        """Decorator form of :meth:`add`."""

        def deco(obj: T) -> T:
            return self.add(name, obj, description)

        return deco

    def remove(self, name: str) -> None:
        """Forget ``name`` (tests register throw-away entries)."""
        self._entries.pop(name, None)

    # -- discovery -------------------------------------------------------------------------
    def discover(self) -> None:
        """Import the package's modules and load the entry points, once.

        A module that fails to import because an *optional* third-party dependency is
        missing is skipped (the entry it would register cannot run anyway); any other error
        in a module is a bug and propagates.
        """
        with self._lock:
            self._discover()

    def _discover(self) -> None:
        if self._discovered or self._discovering:  # done, or re-entered by an import
            return
        self._discovering = True
        try:
            packages = (self.package,) if isinstance(self.package, str) else self.package or ()
            for module in (m for p in packages for m in _package_modules(p)):
                try:
                    importlib.import_module(module)
                except ModuleNotFoundError as exc:
                    if exc.name is None or exc.name.split(".")[0] in _LOCAL_ROOTS:
                        raise
            if self.entry_point_group is not None:
                for ep in sorted(entry_points(group=self.entry_point_group), key=_ep_name):
                    obj = ep.load()
                    if self.load is not None:
                        obj = self.load(obj)
                    name = self.name_of(obj) if self.name_of is not None else ep.name
                    self.add(name, obj)
            self._discovered = True
        finally:
            self._discovering = False

    # -- lookup ----------------------------------------------------------------------------
    def get(self, name: str) -> T:
        """The object registered as ``name``; ``KeyError`` naming the known ones."""
        if name not in self._entries:
            self.discover()
        if name not in self._entries:
            known = ", ".join(self.names()) or "none"
            raise KeyError(f"unknown {self.kind} {name!r}; known: {known}")
        return self._entries[name].obj

    def __contains__(self, name: object) -> bool:
        self.discover()
        return name in self._entries

    def names(self) -> list[str]:
        """Registered names, sorted or in registration order (a stable order for listings
        and ``all``)."""
        self.discover()
        return list(self._entries) if self.ordered else sorted(self._entries)

    def entries(self) -> Iterator[Entry[T]]:
        """Every entry, in the order of :meth:`names`."""
        for name in self.names():
            yield self._entries[name]

    def as_dict(self) -> dict[str, T]:
        return {e.name: e.obj for e in self.entries()}

    # -- the read-only mapping view --------------------------------------------------------
    def __getitem__(self, name: str) -> T:
        return self.get(name)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self.names())

    def keys(self) -> list[str]:
        return self.names()


_LOCAL_ROOTS = frozenset({"infra", "corpora", "systems", "bench"})


def _same(a: object, b: object) -> bool:
    """The same object, or the same class re-created by a module reload."""
    if a is b:
        return True
    key = lambda o: (getattr(o, "__module__", None), getattr(o, "__qualname__", None))  # noqa: E731
    return key(a) == key(b) and key(a) != (None, None)


def _ep_name(ep: object) -> str:
    return str(getattr(ep, "name", ""))


def _package_modules(package: str) -> list[str]:
    """Every public module of ``package`` (not sub-packages), sorted by name; none when
    ``package`` is a plain module (importing it was all there was to do)."""
    pkg = importlib.import_module(package)
    paths = getattr(pkg, "__path__", None)
    if paths is None:
        return []
    return sorted(
        f"{package}.{info.name}"
        for info in pkgutil.iter_modules(paths)
        if not info.name.startswith("_") and not info.ispkg
    )

"""On-disk cache and atomic writes.

Everything expensive (the generated corpus, POS tags, features, per-fold predictions) is
stored under a key of its inputs so that a repeated run is cheap.  Files are written to a
temporary name and renamed, so an interrupted run never leaves a half-written file, and
every entry carries a checksum so a corrupt one is detected and recomputed, never trusted.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

#: Environment variable overriding the cache directory.
ENV_CACHE = "DEID_BENCH_CACHE"
#: Bump to invalidate every cache entry written by older code.
CACHE_FORMAT = 1

T = TypeVar("T")


def cache_dir() -> Path:
    """``$DEID_BENCH_CACHE`` or ``~/.cache/deid-bench`` (created on demand)."""
    root = os.environ.get(ENV_CACHE) or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "deid-bench"
    )
    path = Path(root)
    path.mkdir(parents=True, exist_ok=True)
    return path


def caching_enabled() -> bool:
    return os.environ.get("DEID_BENCH_NO_CACHE", "") in ("", "0")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes, mode: int | None = None) -> None:
    """Write ``data`` to ``path`` via a temporary file and an atomic rename."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        # mkstemp creates 0600; a result file gets the permissions a plain open() would
        # (0666 minus the umask) unless the caller asks for something stricter.
        os.fchmod(fd, mode if mode is not None else 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: str | os.PathLike[str], text: str, mode: int | None = None) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), mode=mode)


def make_key(*parts: Any) -> str:
    """A stable hex key of the ``repr`` of its parts (and the cache format)."""
    h = hashlib.blake2b(digest_size=20)
    h.update(f"format={CACHE_FORMAT}".encode())
    for p in parts:
        h.update(b"\0")
        h.update(repr(p).encode())
    return h.hexdigest()


_MAGIC = b"DEIDBENCH1"


def store(namespace: str, key: str, value: Any) -> None:
    """Pickle ``value`` under ``namespace/key`` with a checksum header."""
    if not caching_enabled():
        return
    payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    digest = hashlib.blake2b(payload, digest_size=16).digest()
    atomic_write_bytes(cache_dir() / namespace / f"{key}.pkl", _MAGIC + digest + payload)


_MISSING = object()


def load(namespace: str, key: str) -> Any:
    """The cached value, or :data:`MISSING` if absent or corrupt (a corrupt entry is removed)."""
    if not caching_enabled():
        return MISSING
    path = cache_dir() / namespace / f"{key}.pkl"
    try:
        raw = path.read_bytes()
    except OSError:
        return MISSING
    header = len(_MAGIC) + 16
    payload = raw[header:]
    ok = (
        raw[: len(_MAGIC)] == _MAGIC
        and hashlib.blake2b(payload, digest_size=16).digest() == raw[len(_MAGIC) : header]
    )
    if ok:
        try:
            return pickle.loads(payload)
        except Exception:  # unreadable despite a good checksum: treat as corrupt
            pass
    path.unlink(missing_ok=True)
    return MISSING


MISSING: Any = _MISSING


def cached(namespace: str, key: str, compute: Callable[[], T]) -> T:
    """``compute()``, stored on disk under ``namespace/key`` and reused next time."""
    value = load(namespace, key)
    if value is MISSING:
        value = compute()
        store(namespace, key, value)
    return value


_LOCAL_PACKAGES = ("systems", "corpora")


def _module_file(module: str) -> Path | None:
    import importlib.util

    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    return Path(spec.origin) if spec and spec.origin and spec.origin.endswith(".py") else None


def _local_imports(path: Path) -> set[str]:
    """Names of ``systems.*`` / ``corpora.*`` modules a source file imports."""
    import ast

    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError):
        return set()
    found: set[str] = set()
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        found.update(n for n in names if n.split(".")[0] in _LOCAL_PACKAGES)
    return found


_SOURCE_FINGERPRINTS: dict[str, str] = {}


def source_fingerprint(module: str) -> str:
    """A hash of a module and every ``systems``/``corpora`` module it imports, transitively.

    Part of the cache keys of predictions and scores, so editing a system (or a feature
    class, the tokenizer, a dictionary loader it uses) invalidates exactly what depends on
    it.  Computed once per module per process.
    """
    hit = _SOURCE_FINGERPRINTS.get(module)
    if hit is not None:
        return hit
    h = hashlib.blake2b(digest_size=12)
    seen: set[Path] = set()
    queue = [module]
    while queue:
        path = _module_file(queue.pop())
        if path is None or path in seen:
            continue
        seen.add(path)
        queue.extend(_local_imports(path))
    for path in sorted(seen):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    _SOURCE_FINGERPRINTS[module] = h.hexdigest()
    return _SOURCE_FINGERPRINTS[module]

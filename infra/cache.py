"""On-disk cache and atomic writes.

Everything expensive (the generated corpus, POS tags, features, per-fold predictions) is
stored under a key of its inputs so that a repeated run is cheap.  Files are written to a
temporary name and renamed, so an interrupted run never leaves a half-written file, and
every entry carries a checksum so a corrupt one is detected and recomputed, never trusted.

The cache holds whole note texts (the generated corpus and its variants) and lemmatized
notes, so it is owner-only: directories are created 0700 and entries 0600 whatever the
umask, and a cache directory that other users can read is reported once on stderr (it is
left as it is: the user may share it on purpose).  The cache only saves time, so an entry
that cannot be written (a full disk, a read-only directory) is reported once and the run
goes on without it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import re
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from infra.memo import memoize

#: Environment variable overriding the cache directory.
ENV_CACHE = "DEID_BENCH_CACHE"
#: Bump to invalidate every cache entry written by older code.
CACHE_FORMAT = 1

T = TypeVar("T")


#: Permissions of the cache's directories and entries: owner only (they hold note text).
PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600
#: Set (to the cache path) once the permission check has run, so worker processes, which
#: inherit the environment, do not repeat the warning.
_ENV_CHECKED = "DEID_BENCH_CACHE_CHECKED"


class CacheError(RuntimeError):
    """The cache directory cannot be created or used (the CLI prints it as one line)."""


def cache_root() -> Path:
    """``$DEID_BENCH_CACHE`` or ``$XDG_CACHE_HOME/deid-bench`` (``~/.cache/deid-bench``),
    without creating it."""
    root = os.environ.get(ENV_CACHE) or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "deid-bench"
    )
    return Path(root)


_READY: set[str] = set()


def cache_dir() -> Path:
    """:func:`cache_root`, created owner-only on first use; raises :class:`CacheError`."""
    path = cache_root()
    if str(path) not in _READY:
        make_private_dirs(path)
        _warn_if_shared(path)
        _READY.add(str(path))
    return path


def make_private_dirs(path: Path) -> None:
    """Create ``path`` and its missing parents with mode 0700 (not ``0777 & ~umask``)."""
    missing: list[Path] = []
    p = path
    while not p.is_dir():
        if p.exists() or p.is_symlink():
            raise CacheError(f"cannot use the cache directory {path}: {p} is not a directory")
        missing.append(p)
        if p.parent == p:
            break
        p = p.parent
    for d in reversed(missing):
        try:
            os.mkdir(d, PRIVATE_DIR_MODE)
        except FileExistsError:
            continue  # another worker made it (0700 too)
        except OSError as exc:
            raise CacheError(
                f"cannot create the cache directory {path}: {exc.strerror or exc} "
                f"(set {ENV_CACHE} to a writable directory)"
            ) from None
        os.chmod(d, PRIVATE_DIR_MODE)  # mkdir's mode is reduced by the umask


def _warn_if_shared(path: Path) -> None:
    """One line on stderr if other users can read or enter the cache directory."""
    if os.environ.get(_ENV_CHECKED) == str(path):
        return
    os.environ[_ENV_CHECKED] = str(path)
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return
    if mode & 0o077:
        print(
            f"warning: the cache directory {path} (mode {mode:04o}) is open to other users "
            f"and holds note text; make it private with: chmod 700 {path}",
            file=sys.stderr,
        )


def caching_enabled() -> bool:
    return os.environ.get("DEID_BENCH_NO_CACHE", "") in ("", "0")


@contextlib.contextmanager
def claimed(namespace: str, name: str, wait: bool = True) -> Iterator[bool]:
    """Hold the exclusive lock of the file ``name`` in ``namespace``'s directory (created
    owner-only): yields ``True`` once held (at once, or after waiting for its holder with
    ``wait``), ``False`` if another process holds it and ``wait`` is false, or where the
    cache cannot be written.  An ``flock``: released when the block ends or the process
    dies, so a crashed worker never leaves a claim behind."""
    import fcntl

    try:
        directory = cache_dir() / namespace
        make_private_dirs(directory)
        fd = os.open(directory / name, os.O_RDWR | os.O_CREAT, 0o600)
    except (OSError, CacheError):
        yield False
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)  # closing the descriptor releases the lock


#: Set to ``1`` by the runner for the cells of a corpus that several workers compute at
#: once: what one of them extracts or fits, the others take from the cache instead of
#: doing it again at the same time (:mod:`systems.features.stored`,
#: :mod:`systems.shared_models`).
ENV_SHARED_WORK = "DEID_BENCH_SHARED_WORK"


def shared_work() -> bool:
    """Whether this worker shares its corpus with others at once (:data:`ENV_SHARED_WORK`)
    and a cache to share through."""
    return os.environ.get(ENV_SHARED_WORK) == "1" and caching_enabled()


def current_umask() -> int:
    """The process's umask (read by setting and restoring it)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes, mode: int | None = None) -> None:
    """Write ``data`` to ``path`` via a temporary file and an atomic rename."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    # the writer's pid in the name: a file left by a killed writer is told from one being
    # written (sweep_stale_temporaries)
    fd, tmp = tempfile.mkstemp(
        dir=target.parent, prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp"
    )
    try:
        # mkstemp creates 0600; a result file gets the permissions a plain open() would
        # (0666 minus the umask) unless the caller asks for something stricter.
        os.fchmod(fd, mode if mode is not None else 0o666 & ~current_umask())
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
    """Pickle ``value`` under ``namespace/key`` with a checksum header, owner-only.

    A write that fails (full disk, read-only directory) is reported once and skipped: the
    value is still returned to the caller, only the next run recomputes it.
    """
    if not caching_enabled():
        return
    payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    digest = hashlib.blake2b(payload, digest_size=16).digest()
    write_entry(Path(namespace) / f"{key}.pkl", _MAGIC + digest + payload)


_WRITE_FAILED: set[str] = set()
#: Cache directories swept of stale temporary files by this process.
_SWEPT: set[str] = set()
#: A temporary file of :func:`atomic_write_bytes`: ``.NAME.PID.RANDOM.tmp``.
_TEMPORARY = re.compile(r"\..+\.(\d+)\.\w+\.tmp")
#: Seconds a temporary file of a writer that is gone is left alone (a writer on another
#: machine sharing the directory has a pid that means nothing here).
STALE_SECONDS = 600


def sweep_stale_temporaries(directory: Path) -> int:
    """Delete the temporary files in ``directory`` that a killed writer left (``SIGKILL``
    and power loss skip its clean-up): those whose writer's process is gone and that have
    not changed for :data:`STALE_SECONDS`.  Once per directory per process; returns the
    number deleted."""
    import time

    if str(directory) in _SWEPT:
        return 0
    _SWEPT.add(str(directory))
    removed = 0
    now = time.time()
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return 0
    for entry in entries:
        match = _TEMPORARY.fullmatch(entry.name)
        if match is None or _alive(int(match.group(1))):
            continue
        try:
            if now - entry.stat(follow_symlinks=False).st_mtime > STALE_SECONDS:
                os.unlink(entry.path)
                removed += 1
        except OSError:
            continue
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # someone else's process, or not a pid: leave its file
    return True


def write_entry(relative: str | os.PathLike[str], data: bytes) -> bool:
    """Write ``data`` to ``relative`` under the cache directory (0600, in 0700 directories)
    atomically; on an ``OSError`` warn once per cache directory and return ``False``."""
    root = cache_dir()
    target = root / relative
    try:
        make_private_dirs(target.parent)
        atomic_write_bytes(target, data, mode=PRIVATE_FILE_MODE)
        sweep_stale_temporaries(target.parent)
    except (OSError, CacheError) as exc:
        if str(root) not in _WRITE_FAILED:
            _WRITE_FAILED.add(str(root))
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            print(
                f"warning: cannot write to the cache {root} ({reason}); continuing without "
                "caching, so the next run recomputes",
                file=sys.stderr,
            )
        return False
    return True


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


_LOCAL_PACKAGES = ("systems", "corpora", "infra")


def _module_file(module: str) -> Path | None:
    import importlib.util

    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    return Path(spec.origin) if spec and spec.origin and spec.origin.endswith(".py") else None


def _local_imports(path: Path) -> set[str]:
    """Names of ``systems.*`` / ``corpora.*`` / ``infra.*`` modules a source file imports."""
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


@memoize("cache.source_fingerprints")
def source_fingerprint(module: str) -> str:
    """A hash of a module and every ``systems``/``corpora``/``infra`` module it imports,
    transitively.

    Part of the cache keys of predictions and scores, so editing a system (or a feature
    class, the tokenizer, a dictionary loader it uses) invalidates exactly what depends on
    it.  Computed once per module per process.
    """
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
    return h.hexdigest()

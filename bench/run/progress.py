"""How far a run is and how long it has left: a bar on a terminal, a line a minute in a log.

Cells run in worker processes, grouped into a few large jobs (one per corpus, so a worker
featurizes a corpus once), so counting finished jobs says little until the end.  Instead
each worker appends the key of every cell it finishes to a small file
(:data:`ENV_PROGRESS` names it in the worker's environment: :func:`mark_finished`), and the main
process reads it.  The time left is the estimated cost of the cells left
(:mod:`bench.run.schedule`: remembered seconds per token on this machine, else the systems'
declared relative costs) at the pace the run has kept so far; before the first cell
finishes, the estimate over the workers.  A backend whose workers cannot write the file
(a remote dask cluster) still counts each job's cells when the job comes back.

The file holds cell keys (hashes), never document text; it is removed when the run ends.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TextIO

#: The environment variable that names the progress file in a worker.
ENV_PROGRESS = "DEID_BENCH_PROGRESS"
#: Runs expected to take less than this many seconds print nothing about their progress.
ANNOUNCE_AFTER = 60.0
#: Seconds between two progress lines in a log (not a terminal).
LOG_INTERVAL = 60.0
#: Share of the estimated cost after which the time left follows the run's own pace
#: alone; before it, the pace is blended with the estimate in proportion.  The first cells
#: of a stacked system finish late (they fit the block models every later fold reuses),
#: so an early pace alone said "63 min left" at minute 2 of a 14-minute run.
PACE_TRUSTED_AT = 0.25


def mark_finished(key: str) -> None:
    """Record in this worker that the cell ``key`` is finished (no-op outside a run)."""
    path = os.environ.get(ENV_PROGRESS)
    if not path:
        return
    with contextlib.suppress(OSError):  # progress is a courtesy, never a failure
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        try:
            os.write(fd, (key + "\n").encode("ascii", "replace"))
        finally:
            os.close(fd)


def _minutes(seconds: float) -> str:
    if seconds < 90:
        return f"{max(seconds, 0):.0f} s"
    return f"{seconds / 60:.0f} min"


class RunProgress:
    """Report cells done and left with the time left while ``with`` block runs.

    ``costs`` maps every cell key still to compute to its estimated seconds; ``cached``
    counts the cells read from the cache; ``workers`` divides the first estimate.
    """

    def __init__(
        self,
        costs: Mapping[str, float],
        cached: int,
        workers: int,
        *,
        enabled: bool = True,
        stream: TextIO | None = None,
        interval: float | None = None,
    ) -> None:
        self.costs = dict(costs)
        self.cached = cached
        self.workers = max(1, workers)
        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.interval = interval if interval is not None else (1.0 if self.tty else LOG_INTERVAL)
        self.total = sum(self.costs.values())
        self.enabled = enabled and bool(self.costs)
        self.announce = self.enabled and self.total / self.workers >= ANNOUNCE_AFTER
        self.done: set[str] = set()
        self.path: str | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._bar = None
        self._start = 0.0

    # -- what the workers see ------------------------------------------------------------
    @property
    def environment(self) -> dict[str, str]:
        """Variables a worker needs to report finished cells (empty when not reporting)."""
        return {ENV_PROGRESS: self.path} if self.path else {}

    def add_done(self, keys: Iterable[str]) -> None:
        """Cells known to be finished without the file (a job that came back)."""
        self.done.update(k for k in keys if k in self.costs)

    # -- the report ----------------------------------------------------------------------
    def left(self, elapsed: float) -> float:
        """Estimated seconds left: the cost left at the pace kept so far, blended with the
        estimate over the workers until :data:`PACE_TRUSTED_AT` of the cost is done."""
        done = sum(self.costs[k] for k in self.done)
        estimate = max(self.total / self.workers - elapsed, 0.0)
        if done <= 0 or elapsed <= 0:
            return estimate
        pace = elapsed * (self.total - done) / done
        trust = min(1.0, done / self.total / PACE_TRUSTED_AT)
        return trust * pace + (1.0 - trust) * estimate

    def line(self, elapsed: float) -> str:
        n_done = len(self.done)
        return (
            f"{n_done} of {len(self.costs)} cells computed ({self.cached} from the cache), "
            f"{_minutes(elapsed)} elapsed, about {_minutes(self.left(elapsed))} left"
        )

    def _read(self) -> None:
        if self.path is None:
            return
        with contextlib.suppress(OSError):
            keys = Path(self.path).read_text(encoding="ascii", errors="replace").split()
            self.add_done(keys)

    def _report(self) -> None:
        elapsed = time.monotonic() - self._start
        self._read()
        if self._bar is not None:
            self._bar.n = len(self.done)
            self._bar.set_postfix_str(f"about {_minutes(self.left(elapsed))} left", refresh=True)
        else:
            print(self.line(elapsed), file=self.stream, flush=True)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            self._report()

    def __enter__(self) -> RunProgress:
        self._start = time.monotonic()
        if not self.enabled:
            return self
        fd, self.path = tempfile.mkstemp(prefix="deid-bench-progress-", suffix=".log")
        os.close(fd)
        if not self.announce:
            return self
        workers = f"{self.workers} worker{'s' if self.workers > 1 else ''}"
        print(
            f"{len(self.costs)} cells to compute ({self.cached} from the cache) on {workers}: "
            f"about {_minutes(self.total / self.workers)} (estimated)",
            file=self.stream,
            flush=True,
        )
        if self.tty:
            from tqdm.auto import tqdm

            self._bar = tqdm(total=len(self.costs), desc="cells", file=self.stream, leave=False)
        self._thread = threading.Thread(target=self._loop, name="progress", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self._bar is not None:
            self._bar.close()
        if self.path is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.path)

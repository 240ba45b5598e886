"""``playbench view --live``: rewrite the viewer whenever a run's records change, until every run is whole.

Pages written with ``live`` re-read ``data/live.js`` every 1.5 s (a ``<script src>``, allowed from
``file://``) and reload themselves when its version grows. The runs are only read (``playbench.log``), so
watching never gets in the way of the run's writer; a change is noticed from the size and time of the
run's episode file and ``run.json``.
"""

import time
from collections.abc import Callable
from pathlib import Path

from playbench.log import EPISODES, RUN_JSON, RunLog, read_run
from playbench.report.viewer import write_live, write_site


def _signature(paths: list[Path]) -> tuple[tuple[int, int], ...]:
    out = []
    for path in paths:
        for name in (EPISODES, RUN_JSON):
            try:
                st = (path / name).stat()
                out.append((st.st_size, st.st_mtime_ns))
            except OSError:
                out.append((-1, -1))
    return tuple(out)


def whole(store: RunLog) -> bool:
    """Every scheduled episode of the run has a record (finished, or ended in an error)."""
    keys = set(store.latest_episodes())
    return all((t.id, i) in keys for t in store.config.tasks for i in range(t.episodes))


def watch(paths: list[Path], out: Path, interval: float, started: Callable[[Path], None] | None = None,
          limit: float | None = None) -> int:
    """Keep the site in ``out`` current until every run is whole (or ``limit`` seconds pass).

    Returns how many times the site was written. ``started`` is called with ``index.html`` once it exists.
    """
    version = 0
    seen = None
    begin = time.monotonic()
    pause = interval
    while True:
        signature = _signature(paths)
        if signature != seen:
            seen = signature
            t0 = time.process_time()
            stores = [read_run(p) for p in paths]
            done = all(whole(s) for s in stores)
            version += 1
            index = write_site(stores, out, live=not done)
            write_live(out, version, done)
            if version == 1 and started is not None:
                started(index)
            if done:
                return version
            # a big run's site takes seconds to write: watching never takes more than a third of a core
            pause = max(interval, 2 * (time.process_time() - t0))
        if limit is not None and time.monotonic() - begin > limit:
            return version
        time.sleep(pause)

"""The run directory on disk: the only code that knows its files.

``read_run(path)`` opens a run for reading (``RunLog``: meta, config, episodes, trajectories);
``RunStore`` (``playbench.log.store``) is the one writer, used by the runner. Everything else (report,
viewer, compare, few-shot demonstrations, MANGO scoring, the CLI) reads runs through here.
"""

from playbench.log.durable import StoreWriteError
from playbench.log.paths import EPISODES, LOCK, RUN_JSON, frame_path, inside_run, is_run, trajectory_path
from playbench.log.read import RunLog, find_runs, read_run

__all__ = [
    "EPISODES",
    "LOCK",
    "RUN_JSON",
    "RunLog",
    "RunStore",
    "StoreWriteError",
    "find_runs",
    "frame_path",
    "inside_run",
    "is_run",
    "read_run",
    "trajectory_path",
]


def __getattr__(name: str) -> object:
    # the writer pulls in numpy and fcntl; readers that never write should not pay for it
    if name == "RunStore":
        from playbench.log.store import RunStore

        return RunStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

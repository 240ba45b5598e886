"""The writer lock: one process writes a run at a time (``flock`` on ``RUN/.lock``).

The kernel releases the lock when its descriptor closes, on any exit, kill -9 included.
"""

import fcntl
import os
from pathlib import Path
from typing import IO

from playbench.core.errors import PlaybenchError
from playbench.log.paths import LOCK


def take_lock(path: Path) -> IO[str]:
    """Take the run's writer lock or refuse with one line naming the holder; close the handle to release."""
    handle = open(path / LOCK, "a+")  # noqa: SIM115  (held open for the store's lifetime)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip() or "another process"
        handle.close()
        raise PlaybenchError(
            f"{path} is being written by {holder}; wait for it to finish or stop it, then --resume"
        ) from None
    handle.seek(0)
    handle.truncate()
    handle.write(f"playbench pid {os.getpid()}\n")
    handle.flush()
    return handle

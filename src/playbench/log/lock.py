"""The writer lock: one process writes a run at a time (``flock`` on ``RUN/.lock``).

The kernel releases the lock when its descriptor closes, on any exit, kill -9 included.
"""

import fcntl
import os
from pathlib import Path
from typing import IO

from playbench.core.errors import PlaybenchError
from playbench.log.confined import open_file
from playbench.log.paths import LOCK


def take_lock(root_fd: int, shown: Path) -> IO[str]:
    """Take the writer lock of the run whose directory ``root_fd`` is (shown as ``shown``).

    Refused with one line naming the holder, or naming ``.lock`` when it is not a regular file of the run
    (nothing is written then). Close the handle to release the lock.
    """
    fd = open_file(root_fd, LOCK, os.O_RDWR | os.O_CREAT | os.O_APPEND, shown)
    handle = os.fdopen(fd, "a+", encoding="utf-8", errors="replace")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = "".join(c if c.isprintable() else "?" for c in handle.read(200).strip()) or "another process"
        handle.close()
        raise PlaybenchError(
            f"{shown} is being written by {holder}; wait for it to finish or stop it, then --resume"
        ) from None
    except BaseException:
        handle.close()
        raise
    handle.seek(0)
    handle.truncate()
    handle.write(f"playbench pid {os.getpid()}\n")
    handle.flush()
    return handle

"""Reading a user's data file (MANGO's mazes, GRASP's grids, Boxoban's levels): every fault names the file."""

import os
import stat
from pathlib import Path

from playbench.core.errors import PlaybenchError


def read_data_text(path: Path, empty: str | None = "empty file", limit: int | None = None, what: str = "") -> str:
    """The file's UTF-8 text, or a one-line PlaybenchError naming it (and the line, for bytes that are not UTF-8).

    A missing or unreadable file is refused, and so is one that is not a regular file (a fifo would hold the
    read for ever), one of more than ``limit`` bytes (None: no bound) and a blank one with the reason ``empty``
    (None: a blank file is accepted). ``what`` names the file's role in those lines (e.g. ``--instances``).
    """
    shown = f"{what} {path}" if what else str(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a fifo does not hold the open
    except FileNotFoundError:
        raise PlaybenchError(f"{shown}: file not found") from None
    except OSError as exc:
        raise PlaybenchError(f"{shown}: cannot read ({exc.strerror or exc})") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = "cannot read (Is a directory)" if stat.S_ISDIR(mode) else "not a regular file"
        raise PlaybenchError(f"{shown}: {kind}")
    with os.fdopen(fd, "rb") as file:
        try:
            raw = file.read() if limit is None else file.read(limit + 1)
        except OSError as exc:
            raise PlaybenchError(f"{shown}: cannot read ({exc.strerror or exc})") from None
    if limit is not None and len(raw) > limit:
        raise PlaybenchError(f"{shown}: larger than {limit // 2**20} MiB")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise PlaybenchError(f"{path}:{line}: not UTF-8 text (byte 0x{raw[exc.start]:02x})") from None
    if empty is not None and not text.strip():
        raise PlaybenchError(f"{path}: {empty}")
    return text

"""Durable file writes: whole files under a temporary name, fsynced, renamed, their directory fsynced."""

import contextlib
import errno
import os
import secrets
from pathlib import Path

from playbench.log.confined import UnsafeRunFile, open_file, open_folder, parts_of


class StoreWriteError(Exception):
    """Writing the run failed (disk full, I/O error): the run must stop; finished episodes are kept."""


def write_atomic(root_fd: int, relative: str, content: bytes, shown_root: Path) -> None:
    """Write the run's file ``relative`` whole under a unique temporary name, fsync it, rename it, fsync its folder.

    ``root_fd`` is the run's directory. Missing folders are made durably; none on the way may be a link
    (see ``log/confined.py``), and an existing file of that name must be a regular one. Any failure is a
    StoreWriteError and leaves no temporary file behind.
    """
    parts = parts_of(relative)
    target = shown_root.joinpath(*parts)
    name = parts[-1]
    tmp = f"{name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    folder = -1
    try:
        folder = open_folder(root_fd, parts[:-1], shown_root, target, make=True)
        with contextlib.suppress(FileNotFoundError):  # what the rename replaces must be a file of the run
            os.close(open_file(folder, name, os.O_RDONLY, target.parent))
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644, dir_fd=folder)
        try:
            written = 0
            while written < len(content):
                written += os.write(fd, content[written:])
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, name, src_dir_fd=folder, dst_dir_fd=folder)
        os.fsync(folder)
    except (OSError, UnsafeRunFile) as exc:
        if folder >= 0:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=folder)
        message = str(exc) if isinstance(exc, UnsafeRunFile) else describe(exc, target)
        raise StoreWriteError(message) from None
    finally:
        if folder >= 0:
            os.close(folder)


def describe(exc: OSError, file: Path) -> str:
    """One line saying why writing ``file`` failed."""
    if exc.errno == errno.ENOSPC:
        return f"the disk is full (writing {file})"
    return f"cannot write {file}: {exc.strerror or exc}"

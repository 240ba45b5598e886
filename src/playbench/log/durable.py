"""Durable file writes: whole files under a temporary name, fsynced, renamed, their directory fsynced."""

import contextlib
import errno
import os
import secrets
from pathlib import Path


class StoreWriteError(Exception):
    """Writing the run failed (disk full, I/O error): the run must stop; finished episodes are kept."""


def fsync_dir(path: Path) -> None:
    """Flush a directory's entries (a new or renamed file in it) to disk."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def mkdirs_durably(path: Path, root: Path) -> None:
    """Create ``path`` (below ``root``) and fsync each new directory's parent, so the entries survive."""
    missing = []
    walk = path
    while not walk.exists() and walk != root:
        missing.append(walk)
        walk = walk.parent
    for folder in reversed(missing):
        folder.mkdir(exist_ok=True)
        fsync_dir(folder.parent)


def write_atomic(target: Path, content: bytes, root: Path, known_dirs: set[Path]) -> None:
    """Write a file whole under a unique temporary name, fsync it, rename it, fsync its directory.

    Missing directories below ``root`` are created durably once; ``known_dirs`` remembers those already
    in place. Any failure is a StoreWriteError and leaves no temporary file behind.
    """
    tmp = target.with_name(f"{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        if target.parent not in known_dirs:
            mkdirs_durably(target.parent, root)
            known_dirs.add(target.parent)
        with open(tmp, "wb") as fh:
            fh.write(content)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
        fsync_dir(target.parent)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise StoreWriteError(describe(exc, target)) from None


def describe(exc: OSError, file: Path) -> str:
    """One line saying why writing ``file`` failed."""
    if exc.errno == errno.ENOSPC:
        return f"the disk is full (writing {file})"
    return f"cannot write {file}: {exc.strerror or exc}"

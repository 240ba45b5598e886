"""Opening a run's files without leaving the run: a run folder is a trust boundary.

A run may come from anyone (a colleague, a cluster, an archive), so nothing inside it is followed out of
it. Every file playbench opens in a run is reached from the run's directory one component at a time
(``openat`` with ``O_NOFOLLOW``): each folder on the way must be a real folder, not a symbolic link, and
the file itself a regular file, not a link, fifo or device. A file opened for writing must also have no
other hard link, so that writing it changes nothing elsewhere. Anything else is refused in one line
naming it, before a byte is read or written. The run's own path may be a link (the user's choice): it is
resolved once, when the run is opened.
"""

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from playbench.core.errors import PlaybenchError

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_WRITES = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_TRUNC | os.O_CREAT


class UnsafeRunFile(PlaybenchError):
    """A run holds a link or something else than a regular file where playbench would open one."""


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a fifo"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def _refuse(shown: Path, what: str, target: Path) -> UnsafeRunFile:
    it = "it" if shown == target else str(target)
    return UnsafeRunFile(f"{shown} is {what}; a run's files must be regular files inside it: refusing to open {it}")


def parts_of(relative: str) -> tuple[str, ...]:
    """The components of a path relative to a run; PlaybenchError for one that could leave it."""
    path = PurePosixPath(relative)
    parts = tuple(p for p in path.parts if p != ".")
    if not parts or path.is_absolute() or ".." in parts or "\x00" in relative:
        raise PlaybenchError(f"{relative!r} is not a path inside the run")
    return parts


def open_root(root: Path) -> int:
    """A descriptor of the run's directory (``root``, already resolved)."""
    return os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)


def _enter(parent: int, name: str, shown: Path, target: Path, make: bool) -> int:
    """Open the folder ``name`` of ``parent`` (made, durably, when missing and ``make``), never through a link."""
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=parent)
    except FileNotFoundError:
        if not make:
            raise
        with contextlib.suppress(FileExistsError):  # another writer made it meanwhile
            os.mkdir(name, 0o777, dir_fd=parent)
            os.fsync(parent)  # the new entry survives a power loss
        return os.open(name, _DIR_FLAGS, dir_fd=parent)
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
            raise
        mode = os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode
        if stat.S_ISLNK(mode):
            raise _refuse(shown, "a symbolic link", target) from None
        raise


def open_folder(root_fd: int, parts: tuple[str, ...], shown_root: Path, target: Path, make: bool = False) -> int:
    """A descriptor of the folder ``parts`` below the run's directory, each step a real folder."""
    fd = os.dup(root_fd)
    shown = shown_root
    try:
        for name in parts:
            shown = shown / name
            inner = _enter(fd, name, shown, target, make)
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_file(root_fd: int, relative: str, flags: int, shown_root: Path, *, make_dirs: bool = False,
              mode: int = 0o644) -> int:
    """Open the regular file ``relative`` of the run whose directory ``root_fd`` is, as ``os.open`` would.

    A link or a special file on the way is an ``UnsafeRunFile``, raised before anything is opened; a
    missing one is ``FileNotFoundError`` (unless ``flags`` create it); other failures are ``OSError``.
    ``make_dirs`` makes missing folders on the way (durably).
    """
    parts = parts_of(relative)
    target = shown_root.joinpath(*parts)
    folder = open_folder(root_fd, parts[:-1], shown_root, target, make_dirs)
    try:
        return _open_in(folder, parts[-1], flags, target, mode)
    finally:
        os.close(folder)


def _open_in(folder: int, name: str, flags: int, shown: Path, mode: int) -> int:
    writing = bool(flags & _WRITES)
    try:
        before = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        if not flags & os.O_CREAT:
            raise
    else:
        if not stat.S_ISREG(before.st_mode):
            raise _refuse(shown, _kind(before.st_mode), shown)
    # O_NONBLOCK: should a fifo take the file's place meanwhile, opening it does not hang (the check below refuses it)
    try:
        fd = os.open(name, flags | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, mode, dir_fd=folder)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _refuse(shown, "a symbolic link", shown) from None
        raise
    try:
        now = os.fstat(fd)
        if not stat.S_ISREG(now.st_mode):
            raise _refuse(shown, _kind(now.st_mode), shown)
        if writing and now.st_nlink > 1:
            raise UnsafeRunFile(f"{shown} has other hard links (writing it would change them too); "
                                "a run's files must be its own: refusing to open it")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_file(root: Path, relative: str, shown_root: Path) -> bytes:
    """The whole content of the run's file ``relative`` (``root`` is the run's resolved directory)."""
    root_fd = open_root(root)
    try:
        fd = open_file(root_fd, relative, os.O_RDONLY, shown_root)
    finally:
        os.close(root_fd)
    with os.fdopen(fd, "rb") as fh:
        return fh.read()


def unsafe_entries(root: Path, shown_root: Path) -> Iterator[str]:
    """One line for each link or special file anywhere in the run ``root`` (none in a sound run)."""
    stack = [(root, shown_root)]
    while stack:
        folder, shown = stack.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    stack.append((Path(entry.path), shown / entry.name))
                elif not entry.is_file(follow_symlinks=False):
                    kind = _kind(entry.stat(follow_symlinks=False).st_mode)
                    yield f"{shown / entry.name} is {kind}; a run's files must be regular files inside it"

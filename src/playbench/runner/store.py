"""The run directory: ``run.json``, append-only ``episodes.jsonl`` and ``trajectories/``.

Every episode line is written whole, flushed and fsynced as the episode ends, after its trajectory is
durably in place (file fsynced, renamed, directory fsynced), so a line never points to a missing file
after a crash or a power loss. A process killed mid-write leaves at most a torn last line, which readers
ignore and resume truncates away. One process writes a run at a time: a writer holds an OS lock on
``RUN/.lock`` (released by the kernel on any exit, kill -9 included).
"""

import contextlib
import errno
import fcntl
import io
import json
import os
import re
import secrets
import shutil
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

import numpy as np
from pydantic import ValidationError

from playbench.core.errors import PlaybenchError
from playbench.core.records import EpisodeRecord, RunMeta, StepRecord

EPISODES = "episodes.jsonl"
RUN_JSON = "run.json"
LOCK = ".lock"


class StoreWriteError(Exception):
    """Writing the run failed (disk full, I/O error): the run must stop; finished episodes are kept."""


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _mkdirs_durably(path: Path, root: Path) -> None:
    """Create ``path`` (below ``root``) and fsync each new directory's parent, so the entries survive."""
    missing = []
    walk = path
    while not walk.exists() and walk != root:
        missing.append(walk)
        walk = walk.parent
    for folder in reversed(missing):
        folder.mkdir(exist_ok=True)
        _fsync_dir(folder.parent)


def _lock(path: Path) -> IO[str]:
    """Take the run's writer lock or refuse with one line naming the holder."""
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


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "x"


def trajectory_path(task_id: str, index: int) -> str:
    """Where an episode's steps live, relative to the run directory."""
    return f"trajectories/{task_id}/{index:06d}.jsonl"


class RunStore:
    """One run directory. Create it with ``create`` or open an existing one with ``open``."""

    def __init__(self, path: Path, meta: RunMeta) -> None:
        self.path = path
        self.meta = meta
        self._episodes_file: IO[bytes] | None = None
        self._lock: IO[str] | None = None
        self._known_dirs: set[Path] = set()

    @classmethod
    def create(cls, log_dir: Path, meta_fields: dict[str, Any]) -> "RunStore":
        """Make a new run directory under ``log_dir``, lock it and write ``run.json``.

        An unusable log directory (read-only, a file in the way, full) is one PlaybenchError line, and a
        half-made run directory is removed again.
        """
        now = datetime.now(UTC)
        config = meta_fields["config"]
        name = f"{now:%Y%m%d-%H%M%S}-{_slug(config.model or config.agent)}-{secrets.token_hex(3)}"
        log_dir = Path(log_dir)
        path = log_dir / name
        try:
            log_dir.mkdir(parents=True, exist_ok=True)
            path.mkdir()
        except OSError as exc:
            raise PlaybenchError(f"cannot create a run in {log_dir}: {exc.strerror or exc}") from None
        try:
            meta = RunMeta(run_id=name, created_at=now.isoformat(timespec="seconds"), **meta_fields)
            store = cls(path, meta)
            store._lock = _lock(path)
            store._write_atomic(path / RUN_JSON, (meta.model_dump_json(indent=2) + "\n").encode())
            (path / EPISODES).touch()
            _fsync_dir(path)
            _fsync_dir(log_dir)
        except (OSError, StoreWriteError) as exc:
            shutil.rmtree(path, ignore_errors=True)
            raise PlaybenchError(f"cannot create a run in {log_dir}: {exc}") from None
        return store

    @classmethod
    def open_for_writing(cls, path: Path | str) -> "RunStore":
        """Open an existing run to continue it, holding its writer lock (refused if another holds it)."""
        store = cls.open(path)
        try:
            store._lock = _lock(store.path)
        except OSError as exc:
            raise PlaybenchError(f"cannot write to {store.path}: {exc.strerror or exc}") from None
        return store

    def save_meta(self, meta: RunMeta) -> None:
        """Replace ``run.json`` (atomically and durably) with ``meta``."""
        self._write_atomic(self.path / RUN_JSON, (meta.model_dump_json(indent=2) + "\n").encode())
        self.meta = meta

    @classmethod
    def open(cls, path: Path | str) -> "RunStore":
        """Open an existing run for reading; a folder that is not a run is a PlaybenchError."""
        path = Path(path)
        run_json = path / RUN_JSON
        if not run_json.is_file():
            raise PlaybenchError(f"{path} is not a playbench run (no {RUN_JSON})")
        try:
            meta = RunMeta.model_validate_json(run_json.read_text())
        except (ValidationError, ValueError) as exc:
            raise PlaybenchError(f"{run_json} is not a valid run file: {str(exc).splitlines()[0]}") from None
        return cls(path, meta)

    # -- reading -----------------------------------------------------------------------------

    def read_episodes(self, repair: bool = False) -> list[EpisodeRecord]:
        """Every episode line, in file order.

        A torn last line (one without its newline) is skipped; with ``repair`` it is cut off the
        file. A bad line anywhere else is a PlaybenchError and nothing is changed.
        """
        file = self.path / EPISODES
        if not file.exists():
            return []
        data = file.read_bytes()
        complete, _, torn = data.rpartition(b"\n")  # a line is complete only with its newline
        records: list[EpisodeRecord] = []
        for number, line in enumerate(complete.split(b"\n") if complete else [], start=1):
            if not line.strip():
                continue
            try:
                records.append(EpisodeRecord.model_validate_json(line))
            except (ValidationError, ValueError) as exc:
                reason = str(exc).splitlines()[0]
                raise PlaybenchError(f"{file}: line {number} is corrupt ({reason}); nothing was changed") from None
        if torn and repair:
            with open(file, "r+b") as fh:
                fh.truncate(len(data) - len(torn))
        return records

    def latest_episodes(self, repair: bool = False) -> dict[tuple[str, int], EpisodeRecord]:
        """The last record of each (task, index): a re-run after an infra error supersedes it."""
        return {rec.key: rec for rec in self.read_episodes(repair=repair)}

    def inside(self, relative: str) -> Path:
        """The file a record names, refused (PlaybenchError) unless it lies inside this run's directory."""
        root = self.path.resolve()
        file = (root / relative).resolve()
        if Path(relative).is_absolute() or not file.is_relative_to(root):
            raise PlaybenchError(f"{self.path}: a record names {relative!r}, outside the run; nothing was read")
        return file

    def read_trajectory(self, record: EpisodeRecord) -> list[StepRecord]:
        """The steps of an episode (empty when none were recorded)."""
        if not record.trajectory:
            return []
        file = self.inside(record.trajectory)
        if not file.exists():
            return []
        return [StepRecord.model_validate_json(line) for line in file.read_bytes().splitlines() if line.strip()]

    # -- writing -----------------------------------------------------------------------------

    def write_trajectory(self, task_id: str, index: int, steps: Iterable[StepRecord]) -> str:
        """Write an episode's steps atomically and durably; returns the relative path."""
        rel = trajectory_path(task_id, index)
        self._write_atomic(self.path / rel, b"".join(s.json_line() for s in steps))
        return rel

    def write_frame(self, task_id: str, index: int, step: int, image: Any) -> str:
        """Save an RGB frame as PNG next to the episode's trajectory; returns the relative path."""
        from PIL import Image

        rel = f"trajectories/{task_id}/{index:06d}/{step:05d}.png"
        png = io.BytesIO()
        Image.fromarray(np.asarray(image, dtype=np.uint8)).save(png, format="PNG")
        self._write_atomic(self.path / rel, png.getvalue())
        return rel

    def append_episode(self, record: EpisodeRecord) -> None:
        """Append one episode line, flushed and fsynced before returning (StoreWriteError if it fails).

        A failed append cuts the file back to where it was, so no partial line is left behind.
        """
        line = record.model_dump_json().encode() + b"\n"
        try:
            if self._episodes_file is None:
                self._episodes_file = open(self.path / EPISODES, "ab")  # noqa: SIM115
            start = self._episodes_file.seek(0, os.SEEK_END)
            try:
                self._episodes_file.write(line)
                self._episodes_file.flush()
                os.fsync(self._episodes_file.fileno())
            except OSError:
                with contextlib.suppress(OSError):
                    os.truncate(self.path / EPISODES, start)
                self._episodes_file.close()
                self._episodes_file = None
                raise
        except OSError as exc:
            raise StoreWriteError(_describe(exc, self.path / EPISODES)) from None

    def close(self) -> None:
        """Close the episodes file and release the writer lock."""
        if self._episodes_file is not None:
            with contextlib.suppress(OSError):
                self._episodes_file.close()
            self._episodes_file = None
        if self._lock is not None:
            self._lock.close()  # closing the descriptor releases the flock
            self._lock = None

    def _write_atomic(self, target: Path, content: bytes) -> None:
        """Write a file whole under a unique temporary name, fsync it, rename it, fsync its directory."""
        tmp = target.with_name(f"{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
        try:
            if target.parent not in self._known_dirs:
                _mkdirs_durably(target.parent, self.path)
                self._known_dirs.add(target.parent)
            with open(tmp, "wb") as fh:
                fh.write(content)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, target)
            _fsync_dir(target.parent)
        except OSError as exc:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise StoreWriteError(_describe(exc, target)) from None


def _describe(exc: OSError, file: Path) -> str:
    if exc.errno == errno.ENOSPC:
        return f"the disk is full (writing {file})"
    return f"cannot write {file}: {exc.strerror or exc}"


def load_json_lines(path: Path) -> list[dict[str, Any]]:
    """Parse a JSON-lines file (used by tests and tools)."""
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]

"""The run's one writer: ``run.json``, append-only ``episodes.jsonl`` and ``trajectories/``.

Every episode line is written whole, flushed and fsynced as the episode ends, after its trajectory is
durably in place (file fsynced, renamed, directory fsynced), so a line never points to a missing file
after a crash or a power loss. A process killed mid-write leaves at most a torn last line, which readers
ignore and resume truncates away. One process writes a run at a time: a writer holds an OS lock on
``RUN/.lock`` (released by the kernel on any exit, kill -9 included).
"""

import contextlib
import io
import os
import re
import secrets
import shutil
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

import numpy as np

from playbench.core.errors import PlaybenchError
from playbench.core.records import EpisodeRecord, RunMeta, StepRecord
from playbench.log.durable import StoreWriteError, describe, fsync_dir, write_atomic
from playbench.log.lock import take_lock
from playbench.log.paths import EPISODES, RUN_JSON, frame_path, trajectory_path
from playbench.log.read import RunLog


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "x"


def _meta_bytes(meta: RunMeta) -> bytes:
    return (meta.model_dump_json(indent=2) + "\n").encode()


class RunStore(RunLog):
    """A run directory open for writing. Create one with ``create`` or continue one with ``open_for_writing``.

    It reads like a ``RunLog``; ``RunStore.open`` (inherited) opens a run without its lock, for reading.
    """

    def __init__(self, path: Path, meta: RunMeta) -> None:
        super().__init__(path, meta)
        self._episodes_file: IO[bytes] | None = None
        self._lock: IO[str] | None = None
        self._known_dirs: set[Path] = set()

    @classmethod
    def create(cls, log_dir: Path, meta_fields: dict[str, Any], name: str | None = None) -> "RunStore":
        """Make a new run directory under ``log_dir``, lock it and write ``run.json``.

        The directory is called ``name`` when given (refused if it exists), else a fresh time-stamped name.
        An unusable log directory (read-only, a file in the way, full) is one PlaybenchError line, and a
        half-made run directory is removed again.
        """
        now = datetime.now(UTC)
        config = meta_fields["config"]
        name = name or f"{now:%Y%m%d-%H%M%S}-{_slug(config.model or config.agent)}-{secrets.token_hex(3)}"
        log_dir = Path(log_dir)
        path = log_dir / name
        try:
            log_dir.mkdir(parents=True, exist_ok=True)
            path.mkdir()
        except FileExistsError:
            raise PlaybenchError(f"{path} already exists; give a new directory") from None
        except OSError as exc:
            raise PlaybenchError(f"cannot create a run in {log_dir}: {exc.strerror or exc}") from None
        try:
            meta = RunMeta(run_id=name, created_at=now.isoformat(timespec="seconds"), **meta_fields)
            store = cls(path, meta)
            store._lock = take_lock(path)
            store._write_atomic(path / RUN_JSON, _meta_bytes(meta))
            (path / EPISODES).touch()
            fsync_dir(path)
            fsync_dir(log_dir)
        except (OSError, StoreWriteError) as exc:
            shutil.rmtree(path, ignore_errors=True)
            raise PlaybenchError(f"cannot create a run in {log_dir}: {exc}") from None
        return store

    @classmethod
    def open_for_writing(cls, path: Path | str) -> "RunStore":
        """Open an existing run to continue it, holding its writer lock (refused if another holds it)."""
        store = cls.open(path)
        try:
            store._lock = take_lock(store.path)
        except OSError as exc:
            raise PlaybenchError(f"cannot write to {store.path}: {exc.strerror or exc}") from None
        return store

    def save_meta(self, meta: RunMeta) -> None:
        """Replace ``run.json`` (atomically and durably) with ``meta``."""
        self._write_atomic(self.path / RUN_JSON, _meta_bytes(meta))
        self.meta = meta

    def write_trajectory(self, task_id: str, index: int, steps: Iterable[StepRecord]) -> str:
        """Write an episode's steps atomically and durably; returns the relative path."""
        rel = trajectory_path(task_id, index)
        self._write_atomic(self.path / rel, b"".join(s.json_line() for s in steps))
        return rel

    def write_frame(self, task_id: str, index: int, step: int, image: Any) -> str:
        """Save an RGB frame as PNG next to the episode's trajectory; returns the relative path."""
        from PIL import Image

        rel = frame_path(task_id, index, step)
        png = io.BytesIO()
        Image.fromarray(np.asarray(image, dtype=np.uint8)).save(png, format="PNG")
        self._write_atomic(self.path / rel, png.getvalue())
        return rel

    def copy_episode(self, source: RunLog, record: EpisodeRecord) -> EpisodeRecord:
        """Copy an episode of another run into this one: its frames and trajectory, durably.

        Returns the record to append (the same, naming the copies). A file the record names outside
        ``source`` is refused.
        """
        steps = source.read_trajectory(record)
        for step in steps:
            if step.frame:
                self._write_atomic(self.path / frame_path(record.task, record.index, step.step),
                                   source.inside(step.frame).read_bytes())
                step.frame = frame_path(record.task, record.index, step.step)
        trajectory = self.write_trajectory(record.task, record.index, steps) if steps else None
        return record.model_copy(update={"trajectory": trajectory})

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
            raise StoreWriteError(describe(exc, self.path / EPISODES)) from None

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
        write_atomic(target, content, self.path, self._known_dirs)

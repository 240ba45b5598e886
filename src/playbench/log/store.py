"""The run's one writer: ``run.json``, append-only ``episodes.jsonl`` and ``trajectories/``.

An episode's steps stream into its task's shard as it plays (``steps``, see ``log/shard.py``). When it
ends, its line is committed: the shards holding its steps are fsynced, then the line is appended to
``episodes.jsonl`` and fsynced, so a line never points to steps that are not on disk, after a crash or a
power loss. ``commit`` does this for every episode that ends within ``COMMIT_INTERVAL`` of the last
commit with one fsync of each (group commit, in a thread, while the other episodes play on); an episode
counts as recorded only once its future is done. ``append_episode`` does the same at once, for callers without an event loop.

A process killed mid-write leaves at most a torn last line, which readers ignore and resume truncates
away, and a torn chunk at a shard's end, after everything recorded (each writing session appends to
shards of its own). One process writes a run at a time: a writer holds an OS lock on ``RUN/.lock``
(released by the kernel on any exit, kill -9 included).

A run may come from elsewhere: every file is opened from the run's directory, kept open, never through a
link (``log/confined.py``), and a run holding a link or a special file anywhere is not written at all.
Each commit first checks that the run's directory is still where it was: a run whose folder was deleted
or moved stops there (StoreWriteError) instead of playing on into a folder nobody will read. No record
with a non-finite number is written.
"""

import asyncio
import contextlib
import os
import re
import secrets
import shutil
import threading
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

import orjson
from pydantic import ValidationError

from playbench.core.errors import PlaybenchError
from playbench.core.png import png_bytes
from playbench.core.records import EpisodeRecord, RunMeta, StepRecord, finite
from playbench.log.confined import open_file, open_folder, open_root, parts_of, unsafe_entries
from playbench.log.durable import StoreWriteError, describe, write_atomic
from playbench.log.lock import take_lock
from playbench.log.paths import EPISODES, RUN_JSON, frame_path, shard_path
from playbench.log.read import RunLog
from playbench.log.shard import EpisodeSteps, ShardFile, repair

#: Shortest time between two group commits (seconds). Episodes that end in between wait for the next
#: one: a crash loses at most this much of finished work, which ``--resume`` plays again.
COMMIT_INTERVAL = 0.02


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "x"


def _meta_bytes(meta: RunMeta) -> bytes:
    if not finite(meta.model_dump()):
        raise ValueError("the run's settings hold a number that is not finite (NaN or infinity)")
    return (meta.model_dump_json(indent=2) + "\n").encode()


def _problem(exc: ValueError) -> str:
    """The first thing a validation found wrong, in one line."""
    if isinstance(exc, ValidationError) and exc.errors():
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        return f"{where}: {first['msg']}" if where else first["msg"]
    return str(exc).splitlines()[0]


def _episode_line(record: EpisodeRecord) -> bytes:
    """The record as a line of ``episodes.jsonl``; a non-finite number in it is a StoreWriteError."""
    for name, value in record.__dict__.items():
        if not finite(value):
            raise StoreWriteError(f"the record of {record.task} #{record.index} holds a {name} that is not a "
                                  "finite number (NaN or infinity); it was not written")
    return record.model_dump_json().encode() + b"\n"


class RunStore(RunLog):
    """A run directory open for writing. Create one with ``create`` or continue one with ``open_for_writing``.

    It reads like a ``RunLog``; ``RunStore.open`` (inherited) opens a run without its lock, for reading.
    """

    def __init__(self, path: Path, meta: RunMeta) -> None:
        super().__init__(path, meta)
        self._episodes_file: IO[bytes] | None = None
        self._lock: IO[str] | None = None
        self._dir_fd: int | None = None  # the run's directory, held open while it is written
        self._dir_id: tuple[int, int] | None = None  # its (device, inode): where it must still be at each commit
        self._shards: dict[str, ShardFile] = {}
        self._pending: list[tuple[bytes, asyncio.Future[None]]] = []  # lines waiting for the next commit
        self._flusher: asyncio.Task[None] | None = None
        self._last_commit = float("-inf")  # loop time the last group commit ended
        self._thread: ThreadPoolExecutor | None = None
        self._write_lock = threading.Lock()  # one commit at a time touches the files
        self._failed: str | None = None  # why a commit failed: the run must stop
        self._attempts: dict[tuple[str, int], int] | None = None  # records per episode, counted on first use

    @classmethod
    def create(cls, log_dir: Path, meta_fields: dict[str, Any], name: str | None = None) -> "RunStore":
        """Make a new run directory under ``log_dir``, lock it and write ``run.json``.

        The directory is called ``name`` when given (refused if it exists), else a fresh time-stamped name.
        An unusable log directory (read-only, a file in the way, full) is one PlaybenchError line, and
        whatever fails on the way leaves no run directory behind.
        """
        now = datetime.now(UTC)
        config = meta_fields["config"]
        name = name or f"{now:%Y%m%d-%H%M%S}-{_slug(config.model or config.agent)}-{secrets.token_hex(3)}"
        log_dir = Path(log_dir)
        path = log_dir / name
        try:  # everything that can be refused is, before the directory exists
            meta = RunMeta(run_id=name, created_at=now.isoformat(timespec="seconds"), **meta_fields)
            content = _meta_bytes(meta)
        except (ValidationError, ValueError) as exc:
            raise PlaybenchError(f"cannot create a run: {_problem(exc)}") from None
        try:
            log_dir.mkdir(parents=True, exist_ok=True)
            path.mkdir()
        except FileExistsError:
            raise PlaybenchError(f"{path} already exists; give a new directory") from None
        except OSError as exc:
            raise PlaybenchError(f"cannot create a run in {log_dir}: {exc.strerror or exc}") from None
        store = cls(path, meta)
        try:
            store._take()
            store._write_atomic(RUN_JSON, content)
            os.close(open_file(store._folder(), EPISODES, os.O_WRONLY | os.O_CREAT, path))
            os.fsync(store._folder())
            parent = os.open(log_dir, os.O_RDONLY | os.O_DIRECTORY)
            try:
                os.fsync(parent)
            finally:
                os.close(parent)
        except BaseException as exc:
            store.close()
            shutil.rmtree(path, ignore_errors=True)
            if isinstance(exc, OSError | StoreWriteError):
                reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
                raise PlaybenchError(f"cannot create a run in {log_dir}: {reason}") from None
            raise
        return store

    def _take(self) -> None:
        """Open the run's directory and take its writer lock."""
        self._lock = take_lock(self._folder(), self.path)

    def _folder(self) -> int:
        """The run's directory, opened on first use and held until ``close``."""
        if self._dir_fd is None:
            try:
                self._dir_fd = open_root(self.root)
            except OSError as exc:
                raise StoreWriteError(describe(exc, self.path)) from None
            here = os.fstat(self._dir_fd)
            self._dir_id = (here.st_dev, here.st_ino)
        return self._dir_fd

    def check_folder(self) -> None:
        """StoreWriteError when the run's directory was deleted or moved since it was opened."""
        if self._dir_fd is None or self._dir_id is None:
            return
        here = os.fstat(self._dir_fd)
        try:
            there = os.stat(self.root)
            moved = (there.st_dev, there.st_ino) != self._dir_id
        except OSError:
            moved = True
        if here.st_nlink == 0 or moved:
            raise StoreWriteError(f"the run folder {self.path} disappeared while the run was writing it "
                                  "(deleted or moved); the run stops here")

    @classmethod
    def open_for_writing(cls, path: Path | str) -> "RunStore":
        """Open an existing run to continue it, holding its writer lock (refused if another holds it)."""
        store = cls.open(path)
        try:
            for line in unsafe_entries(store.root, store.path):  # a run from elsewhere: nothing is written through it
                raise PlaybenchError(f"{line}: refusing to write to {store.path}")
            store._take()
        except (OSError, StoreWriteError) as exc:
            store.close()
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            raise PlaybenchError(f"cannot write to {store.path}: {reason}") from None
        except BaseException:
            store.close()
            raise
        return store

    def save_meta(self, meta: RunMeta) -> None:
        """Replace ``run.json`` (atomically and durably) with ``meta``."""
        try:
            content = _meta_bytes(meta)
        except ValueError as exc:
            raise StoreWriteError(f"{self.path / RUN_JSON} was not written: {exc}") from None
        self._write_atomic(RUN_JSON, content)
        self.meta = meta

    def steps(self, task_id: str, index: int) -> EpisodeSteps:
        """A writer for one episode's steps.

        ``add`` each as it is played, ``finish`` (what the episode's
        record names in ``trajectory``) when it ends, then ``commit`` (or ``append_episode``) the record.
        """
        shard = self._shard(task_id)
        if self._attempts is None:
            self._attempts = self._count_records()
        attempt = self._attempts.get((task_id, index), 0)
        return EpisodeSteps(shard, shard_path(task_id), index, attempt)

    def write_trajectory(self, task_id: str, index: int, steps: Iterable[StepRecord]) -> str | None:
        """Write an episode's steps at once (for callers that have them all).

        Returns what its record names
        (None for no step). They are durable once its record is appended or committed.
        """
        writer = self.steps(task_id, index)
        for step in steps:
            writer.add(step)
        return writer.finish()

    def _count_records(self) -> dict[tuple[str, int], int]:
        """How many records each episode has so far: a re-run's steps are tagged apart from the earlier ones."""
        counts: dict[tuple[str, int], int] = {}
        try:
            with os.fdopen(self._open(EPISODES), "rb") as fh:
                data = fh.read()
        except FileNotFoundError:
            data = b""
        except (OSError, PlaybenchError) as exc:
            raise StoreWriteError(f"cannot read {self.path / EPISODES}: {exc}") from None
        for line in data.split(b"\n")[:-1]:  # complete lines only
            if line.strip():
                row = orjson.loads(line)
                key = (row["task"], row["index"])
                counts[key] = counts.get(key, 0) + 1
        return counts

    def _shard(self, task_id: str) -> ShardFile:
        shard = self._shards.get(task_id)
        if shard is not None:
            return shard
        relative = shard_path(task_id)
        file = self.path / relative
        self.check_folder()
        try:
            root = self._folder()
            fd = open_file(root, relative, os.O_RDWR | os.O_CREAT | os.O_APPEND, self.path, make_dirs=True)
            try:
                size = repair(fd)  # a torn tail left by a kill is cut before anything is appended
                folder = open_folder(root, parts_of(relative)[:-1], self.path, file)
                try:
                    os.fsync(folder)  # the new file's entry survives a power loss
                finally:
                    os.close(folder)
            except BaseException:
                os.close(fd)
                raise
        except (OSError, ValueError, PlaybenchError) as exc:
            raise StoreWriteError(describe(exc, file) if isinstance(exc, OSError) else str(exc)) from None
        shard = self._shards[task_id] = ShardFile(file, fd, size)
        return shard

    def write_frame(self, task_id: str, index: int, step: int, image: Any) -> str:
        """Save an RGB frame as PNG next to the episode's trajectory; returns the relative path.

        ``image`` is the frame's pixels, encoded here by :func:`png_bytes` (the agents' encoding: the file holds
        the bytes the model was sent), or those PNG bytes already encoded where the episode was played.
        """
        rel = frame_path(task_id, index, step)
        self._write_atomic(rel, image if isinstance(image, bytes) else png_bytes(image))
        return rel

    def copy_episode(self, source: RunLog, record: EpisodeRecord) -> EpisodeRecord:
        """Copy an episode of another run into this one: its frames and trajectory, durably.

        Returns the record to append (the same, naming the copies). A file the record names outside
        ``source`` is refused.
        """
        steps = source.read_trajectory(record)
        for step in steps:
            if step.frame:
                self._write_atomic(frame_path(record.task, record.index, step.step), source.read_file(step.frame))
                step.frame = frame_path(record.task, record.index, step.step)
        trajectory = self.write_trajectory(record.task, record.index, steps) if steps else None
        return record.model_copy(update={"trajectory": trajectory})

    def append_episode(self, record: EpisodeRecord) -> None:
        """Append one episode line now, durably.

        The shards are fsynced, then the line written and fsynced, before
        returning (StoreWriteError if it fails). A failed append cuts the file back to where it was, so no
        partial line is left behind.
        """
        line = _episode_line(record)
        self._counted(record)
        self._commit_lines(self._dirty_shards(), line)

    def commit(self, record: EpisodeRecord) -> "asyncio.Future[None]":
        """Queue an episode's line for the next group commit; the future is done once it is on disk.

        Every episode committed before the commit starts shares its fsyncs. Raises StoreWriteError at once
        if an earlier commit failed (the run must stop).
        """
        if self._failed is not None:
            raise StoreWriteError(self._failed)
        line = _episode_line(record)
        self._counted(record)
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        self._pending.append((line, done))
        if self._flusher is None:
            self._flusher = loop.create_task(self._flush())
        return done

    def _counted(self, record: EpisodeRecord) -> None:
        if self._attempts is not None:
            self._attempts[record.key] = self._attempts.get(record.key, 0) + 1

    async def drain(self) -> None:
        """Wait until every committed episode is on disk (StoreWriteError if a commit failed)."""
        while self._flusher is not None:
            await asyncio.shield(self._flusher)
        if self._failed is not None:
            raise StoreWriteError(self._failed)

    async def _flush(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while self._pending:
                # Episodes ending in this moment, and until COMMIT_INTERVAL after the last commit, join the
                # batch: each commit costs two fsyncs and a trip to the commit thread, whatever its size.
                await asyncio.sleep(max(0.0, self._last_commit + COMMIT_INTERVAL - loop.time()))
                batch, self._pending = self._pending, []
                if self._thread is None:
                    self._thread = ThreadPoolExecutor(1, thread_name_prefix="playbench-commit")
                try:
                    await loop.run_in_executor(self._thread, self._commit_lines, self._dirty_shards(),
                                               b"".join(line for line, _ in batch))
                except StoreWriteError as exc:
                    self._failed = str(exc)
                    for _, done in batch + self._pending:
                        if not done.done():
                            done.set_exception(StoreWriteError(self._failed))
                    self._pending = []
                    return
                self._last_commit = loop.time()
                for _, done in batch:
                    if not done.done():
                        done.set_result(None)
        finally:
            self._flusher = None

    def _dirty_shards(self) -> list[ShardFile]:
        dirty = [shard for shard in self._shards.values() if shard.dirty]
        for shard in dirty:
            shard.dirty = False  # cleared before the fsync: a chunk written meanwhile marks it again
        return dirty

    def _commit_lines(self, shards: list[ShardFile], lines: bytes) -> None:
        self._indexes = {}  # what a reader indexed of the shards is out of date
        with self._write_lock:
            self.check_folder()  # a line written into a deleted folder would be lost without a word
            for shard in shards:
                shard.sync()
            try:
                if self._episodes_file is None:
                    # unbuffered: after a failed write nothing is left in a buffer for close() to append
                    fd = open_file(self._folder(), EPISODES, os.O_WRONLY | os.O_CREAT | os.O_APPEND, self.path)
                    self._episodes_file = os.fdopen(fd, "ab", buffering=0)
                fd = self._episodes_file.fileno()
                start = os.lseek(fd, 0, os.SEEK_END)
                try:
                    written = 0
                    while written < len(lines):  # a short write (a signal, a nearly full disk)
                        written += os.write(fd, lines[written:])
                    os.fsync(fd)
                except OSError:
                    with contextlib.suppress(OSError):
                        os.ftruncate(fd, start)
                    self._episodes_file.close()
                    self._episodes_file = None
                    raise
            except OSError as exc:
                raise StoreWriteError(describe(exc, self.path / EPISODES)) from None
            except PlaybenchError as exc:
                raise StoreWriteError(str(exc)) from None

    def close(self) -> None:
        """Write what is still waiting for a commit, close the files and release the writer lock."""
        if self._thread is not None:
            self._thread.shutdown(wait=True)  # a commit under way ends first
            self._thread = None
        if self._pending and self._failed is None:  # episodes that ended before an interruption
            batch, self._pending = self._pending, []
            with contextlib.suppress(StoreWriteError):
                self._commit_lines(self._dirty_shards(), b"".join(line for line, _ in batch))
        self._pending = []
        for shard in self._shards.values():
            with contextlib.suppress(OSError):
                shard.close()
        self._shards = {}
        if self._episodes_file is not None:
            with contextlib.suppress(OSError):
                self._episodes_file.close()
            self._episodes_file = None
        if self._lock is not None:
            self._lock.close()  # closing the descriptor releases the flock
            self._lock = None
        if self._dir_fd is not None:
            os.close(self._dir_fd)
            self._dir_fd = None

    def _open(self, relative: str, flags: int = os.O_RDONLY) -> int:
        if self._dir_fd is None:
            return super()._open(relative, flags)
        return open_file(self._dir_fd, relative, flags, self.path)

    def _write_atomic(self, relative: str, content: bytes) -> None:
        try:
            write_atomic(self._folder(), relative, content, self.path)
        except StoreWriteError:
            self.check_folder()  # the reason may be that the folder is gone: say so
            raise

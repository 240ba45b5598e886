"""Reading a run directory: ``read_run(path)`` gives a ``RunLog``.

Records are untrusted data: a folder without a valid ``run.json`` is refused (so is one a newer version
wrote), a torn last line of ``episodes.jsonl`` (one without its newline, left by a killed writer) is
skipped, a corrupt line elsewhere (a non-finite number, or JSON nested past the parser's depth limit,
included) is an error that changes nothing, as is a corrupt step line, and a
record naming a file outside its run is refused. Files are opened as ``log/confined.py`` says: never
through a link, and only regular files of the run.
"""

import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, Self

import orjson
from pydantic import ValidationError

from playbench.core.errors import PlaybenchError
from playbench.core.records import RUN_FORMAT, EpisodeRecord, RunConfig, RunMeta, StepRecord
from playbench.log.confined import UnsafeRunFile, open_file, open_root, read_file
from playbench.log.paths import EPISODES, RUN_JSON, split_reference


class RunLog:
    """One run directory, read-only: its ``run.json`` (``meta``), episode records and trajectories."""

    def __init__(self, path: Path, meta: RunMeta) -> None:
        self.path = path
        self.meta = meta
        self.root = path.resolve()  # the run's directory, resolved once: the user may name it through a link
        self._indexes: dict[str, Any] = {}  # shard (as records name it) -> its ShardIndex, built on first read

    @classmethod
    def open(cls, path: Path | str) -> Self:
        """Open an existing run; a folder that is not a run (or one a newer version wrote) is a PlaybenchError."""
        path = Path(path)
        run_json = path / RUN_JSON
        try:
            data = read_file(path.resolve(), RUN_JSON, path)
        except (FileNotFoundError, NotADirectoryError):
            raise PlaybenchError(f"{path} is not a playbench run (no {RUN_JSON})") from None
        except OSError as exc:
            raise PlaybenchError(f"cannot read {run_json}: {exc.strerror or exc}") from None
        _check_format(data, path)
        try:
            meta = RunMeta.model_validate_json(data)
        except (ValidationError, ValueError) as exc:
            raise PlaybenchError(f"{run_json} is not a valid run file: {str(exc).splitlines()[0]}") from None
        except PlaybenchError as exc:  # a record's own refusal (a schedule no run can play): name the file
            raise PlaybenchError(f"{run_json}: {exc}") from None
        return cls(path, meta)

    def _open(self, relative: str, flags: int = os.O_RDONLY) -> int:
        """A descriptor of the run's file ``relative``: never through a link, only a regular file of the run."""
        root_fd = open_root(self.root)
        try:
            return open_file(root_fd, relative, flags, self.path)
        finally:
            os.close(root_fd)

    def _reader(self, relative: str) -> IO[bytes]:
        return os.fdopen(self._open(relative), "rb")

    def read_file(self, relative: str) -> bytes:
        """The bytes of a file a record names (a frame): PlaybenchError unless it is a regular file of the run."""
        self.inside(relative)
        try:
            with self._reader(relative) as fh:
                return fh.read()
        except OSError as exc:
            raise PlaybenchError(f"cannot read {self.path / relative}: {exc.strerror or exc}") from None

    @property
    def config(self) -> RunConfig:
        """What decides the run's results: tasks, parameters, agent, model, seed, episode counts."""
        return self.meta.config

    @property
    def run_id(self) -> str:
        """The run's name (its directory name when it was created)."""
        return self.meta.run_id

    def read_episodes(self, repair: bool = False) -> list[EpisodeRecord]:
        """Every episode line, in file order (a resumed episode can appear more than once).

        A torn last line (one without its newline) is skipped; with ``repair`` it is cut off the
        file (only the run's writer, holding its lock, should ask for that). A bad line anywhere else is
        a PlaybenchError and nothing is changed.
        """
        file = self.path / EPISODES
        try:
            fd = self._open(EPISODES, os.O_RDWR if repair else os.O_RDONLY)
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise PlaybenchError(f"cannot read {file}: {exc.strerror or exc}") from None
        with os.fdopen(fd, "r+b" if repair else "rb", buffering=0) as fh:
            data = fh.read()
            complete, _, torn = data.rpartition(b"\n")  # a line is complete only with its newline
            records = _parse_episodes(file, complete)
            if torn and repair:
                fh.truncate(len(data) - len(torn))
        return records

    def latest_episodes(self, repair: bool = False) -> dict[tuple[str, int], EpisodeRecord]:
        """The last record of each (task, index): a re-run after an infra error supersedes it."""
        return {rec.key: rec for rec in self.read_episodes(repair=repair)}

    def episodes(self) -> list[EpisodeRecord]:
        """The record that counts for each episode (its last), ordered by (task, index)."""
        latest = self.latest_episodes()
        return [latest[key] for key in sorted(latest)]

    def inside(self, relative: str) -> Path:
        """The file a record names, refused (PlaybenchError) unless it lies inside this run's directory."""
        file = (self.root / relative).resolve()
        if Path(relative).is_absolute() or not file.is_relative_to(self.root):
            raise PlaybenchError(f"{self.path}: a record names {relative!r}, outside the run; nothing was read")
        return file

    def read_trajectory(self, record: EpisodeRecord) -> list[StepRecord]:
        """The steps of an episode (empty when none were recorded)."""
        return list(self.iter_trajectory(record))

    def iter_trajectory(self, record: EpisodeRecord) -> Iterator[StepRecord]:
        """The steps of an episode, read lazily, chunk by chunk (nothing when none were recorded).

        Reads both layouts: a shard of the run (``trajectories/TASK/steps-NNN.pbt#TAG``, see
        ``log/shard.py``) and the first layout's file per episode (``trajectories/TASK/NNNNNN.jsonl``).
        A record naming a file outside the run, or steps that cannot be read back whole, is a PlaybenchError.
        """
        if not record.trajectory:
            return
        relative, tag = split_reference(record.trajectory)
        self.inside(relative)
        try:
            yield from self._steps(record, relative, tag)
        except UnsafeRunFile as exc:
            raise PlaybenchError(f"the steps of {record.task} #{record.index} cannot be read: {exc}") from None

    def _steps(self, record: EpisodeRecord, relative: str, tag: str | None) -> Iterator[StepRecord]:
        if tag is not None:
            from playbench.log.shard import ShardCorrupt, ShardIndex, parse_tag

            try:
                number = parse_tag(tag)
                if number is None:
                    raise ShardCorrupt(f"{record.trajectory!r} names no episode")
                index = self._indexes.get(relative)
                if index is None or not index.has(number):  # a run still being written grows: index again
                    index = self._indexes[relative] = ShardIndex(lambda: self._reader(relative))
                yield from index.read(number)
            except UnsafeRunFile:
                raise
            except (ShardCorrupt, ValidationError, ValueError, OSError) as exc:
                reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                raise PlaybenchError(f"{self.path}: the steps of {record.task} #{record.index} cannot be read "
                                     f"({reason})") from None
            return
        try:
            with self._reader(relative) as fh:
                data = fh.read()
        except FileNotFoundError:
            return
        for number, line in enumerate(data.splitlines(), start=1):
            if line.strip():
                yield _step(line, number, relative, self.path)

    def __repr__(self) -> str:
        return f"RunLog({str(self.path)!r})"


def _step(line: bytes, number: int, relative: str, run: Path) -> StepRecord:
    """One line of a first-layout trajectory file.

    A corrupt one (nested past the parser's depth limit included) is a PlaybenchError in one line.
    """
    try:
        return StepRecord.model_validate_json(line)
    except (ValidationError, ValueError) as exc:
        reason = str(exc).splitlines()[0]
        if isinstance(exc, ValidationError) and exc.errors():
            reason = f"{reason}: {exc.errors()[0]['msg']}"
        raise PlaybenchError(f"{run / relative}: line {number} is not a step ({reason})") from None


def _parse_episodes(file: Path, complete: bytes) -> list[EpisodeRecord]:
    """The records of ``episodes.jsonl``'s complete lines; a corrupt one is a PlaybenchError."""
    records: list[EpisodeRecord] = []
    for number, line in enumerate(complete.split(b"\n") if complete else [], start=1):
        if not line.strip():
            continue
        try:
            records.append(EpisodeRecord.model_validate_json(line))
        except (ValidationError, ValueError) as exc:
            reason = str(exc).splitlines()[0]
            if isinstance(exc, ValidationError) and exc.errors():
                reason = f"{reason}: {exc.errors()[0]['msg']}"
            raise PlaybenchError(f"{file}: line {number} is corrupt ({reason}); nothing was changed") from None
    return records


def _check_format(data: bytes, path: Path) -> None:
    """Refuse a ``run.json`` whose format is newer than this version reads, naming both."""
    try:
        fields = orjson.loads(data)
    except orjson.JSONDecodeError:
        return  # validation says what is wrong with it
    written = fields.get("format") if isinstance(fields, dict) else None
    if isinstance(written, int) and not isinstance(written, bool) and written > RUN_FORMAT:
        raise PlaybenchError(f"{path} was written by a newer playbench (format {written}); this version reads "
                             f"formats up to {RUN_FORMAT}: upgrade playbench")


def read_run(path: Path | str) -> RunLog:
    """Open the run directory ``path`` for reading (PlaybenchError if it is not a valid run)."""
    return RunLog.open(path)


def find_runs(root: Path | str) -> list[Path]:
    """Every run directory at or below ``root`` (a folder holding ``run.json``), sorted."""
    return sorted({p.parent for p in Path(root).rglob(RUN_JSON)})

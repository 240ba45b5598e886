"""Reading a run directory: ``read_run(path)`` gives a ``RunLog``.

Records are untrusted data: a folder without a valid ``run.json`` is refused, a torn last line of
``episodes.jsonl`` (one without its newline, left by a killed writer) is skipped, a corrupt line elsewhere
is an error that changes nothing, and a record naming a file outside its run is refused.
"""

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Self

from pydantic import ValidationError

from playbench.core.errors import PlaybenchError
from playbench.core.records import EpisodeRecord, RunConfig, RunMeta, StepRecord
from playbench.log.paths import EPISODES, RUN_JSON, split_reference


class RunLog:
    """One run directory, read-only: its ``run.json`` (``meta``), episode records and trajectories."""

    def __init__(self, path: Path, meta: RunMeta) -> None:
        self.path = path
        self.meta = meta
        self._indexes: dict[Path, Any] = {}  # shard file -> its ShardIndex, built on first read

    @classmethod
    def open(cls, path: Path | str) -> Self:
        """Open an existing run; a folder that is not a run is a PlaybenchError."""
        path = Path(path)
        run_json = path / RUN_JSON
        if not run_json.is_file():
            raise PlaybenchError(f"{path} is not a playbench run (no {RUN_JSON})")
        try:
            meta = RunMeta.model_validate_json(run_json.read_text())
        except (ValidationError, ValueError) as exc:
            raise PlaybenchError(f"{run_json} is not a valid run file: {str(exc).splitlines()[0]}") from None
        return cls(path, meta)

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

    def episodes(self) -> list[EpisodeRecord]:
        """The record that counts for each episode (its last), ordered by (task, index)."""
        latest = self.latest_episodes()
        return [latest[key] for key in sorted(latest)]

    def inside(self, relative: str) -> Path:
        """The file a record names, refused (PlaybenchError) unless it lies inside this run's directory."""
        root = self.path.resolve()
        file = (root / relative).resolve()
        if Path(relative).is_absolute() or not file.is_relative_to(root):
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
        file = self.inside(relative)
        if tag is not None:
            from playbench.log.shard import ShardCorrupt, ShardIndex, parse_tag

            try:
                number = parse_tag(tag)
                if number is None:
                    raise ShardCorrupt(f"{record.trajectory!r} names no episode")
                index = self._indexes.get(file)
                if index is None or not index.has(number):  # a run still being written grows: index again
                    index = self._indexes[file] = ShardIndex(file)
                yield from index.read(number)
            except (ShardCorrupt, ValidationError, ValueError, OSError) as exc:
                reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                raise PlaybenchError(f"{self.path}: the steps of {record.task} #{record.index} cannot be read "
                                     f"({reason})") from None
            return
        if not file.exists():
            return
        for line in file.read_bytes().splitlines():
            if line.strip():
                yield StepRecord.model_validate_json(line)

    def __repr__(self) -> str:
        return f"RunLog({str(self.path)!r})"


def read_run(path: Path | str) -> RunLog:
    """Open the run directory ``path`` for reading (PlaybenchError if it is not a valid run)."""
    return RunLog.open(path)


def find_runs(root: Path | str) -> list[Path]:
    """Every run directory at or below ``root`` (a folder holding ``run.json``), sorted."""
    return sorted({p.parent for p in Path(root).rglob(RUN_JSON)})

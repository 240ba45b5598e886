"""The run directory: ``run.json``, append-only ``episodes.jsonl`` and ``trajectories/``.

Every episode line is written whole, flushed and fsynced as the episode ends. A process killed
mid-write leaves at most a torn last line, which readers ignore and resume truncates away.
"""

import json
import os
import re
import secrets
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import ValidationError

from playbench.core.errors import PlaybenchError
from playbench.core.records import EpisodeRecord, RunMeta, StepRecord

EPISODES = "episodes.jsonl"
RUN_JSON = "run.json"


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
        self._episodes_file = None

    @classmethod
    def create(cls, log_dir: Path, meta_fields: dict) -> "RunStore":
        """Make a new run directory under ``log_dir`` and write ``run.json``."""
        now = datetime.now(UTC)
        config = meta_fields["config"]
        name = f"{now:%Y%m%d-%H%M%S}-{_slug(config.model or config.agent)}-{secrets.token_hex(3)}"
        path = Path(log_dir) / name
        path.mkdir(parents=True, exist_ok=False)
        meta = RunMeta(run_id=name, created_at=now.isoformat(timespec="seconds"), **meta_fields)
        store = cls(path, meta)
        store._write_atomic(path / RUN_JSON, (meta.model_dump_json(indent=2) + "\n").encode())
        (path / EPISODES).touch()
        return store

    @classmethod
    def open(cls, path: Path | str) -> "RunStore":
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

    def read_trajectory(self, record: EpisodeRecord) -> list[StepRecord]:
        """The steps of an episode (empty when none were recorded)."""
        if not record.trajectory:
            return []
        file = self.path / record.trajectory
        if not file.exists():
            return []
        return [StepRecord.model_validate_json(line) for line in file.read_bytes().splitlines() if line.strip()]

    # -- writing -----------------------------------------------------------------------------

    def write_trajectory(self, task_id: str, index: int, steps: Iterable[StepRecord]) -> str:
        """Write an episode's steps atomically; returns the relative path."""
        rel = trajectory_path(task_id, index)
        target = self.path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        self._write_atomic(target, b"".join(s.json_line() for s in steps))
        return rel

    def write_frame(self, task_id: str, index: int, step: int, image: Any) -> str:
        """Save an RGB frame as PNG next to the episode's trajectory; returns the relative path."""
        from PIL import Image

        rel = f"trajectories/{task_id}/{index:06d}/{step:05d}.png"
        target = self.path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        Image.fromarray(np.asarray(image, dtype=np.uint8)).save(target)
        return rel

    def append_episode(self, record: EpisodeRecord) -> None:
        """Append one episode line, flushed and fsynced before returning."""
        if self._episodes_file is None:
            self._episodes_file = open(self.path / EPISODES, "ab")
        self._episodes_file.write(record.model_dump_json().encode() + b"\n")
        self._episodes_file.flush()
        os.fsync(self._episodes_file.fileno())

    def close(self) -> None:
        """Close the episodes file."""
        if self._episodes_file is not None:
            self._episodes_file.close()
            self._episodes_file = None

    @staticmethod
    def _write_atomic(target: Path, content: bytes) -> None:
        tmp = target.with_name(target.name + ".tmp")
        tmp.write_bytes(content)
        os.replace(tmp, target)


def load_json_lines(path: Path) -> list[dict]:
    """Parse a JSON-lines file (used by tests and tools)."""
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]

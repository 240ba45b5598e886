"""The run record formats: run.json, one line of episodes.jsonl, one step of a trajectory.

Volatile values (wall-clock times, latencies) live under ``timing`` so that two runs with the
same seed can be compared byte for byte once ``timing`` is dropped.
"""

import hashlib
import json
import math
from typing import Any, Literal, Self

import orjson
from pydantic import BaseModel, ConfigDict, Field, SkipValidation, model_validator

from playbench.core.bounds import check_episode_count

Status = Literal["ok", "agent-error", "infra-error", "game-error"]
STATUSES: tuple[str, ...] = ("ok", "agent-error", "infra-error", "game-error")
#: The newest ``run.json`` format this version reads and writes (``RunMeta.format``)
RUN_FORMAT = 1


class Record(BaseModel):
    """Base for records: strict about unknown keys so corrupt files are noticed.

    No number in a record may be NaN or infinite (``1e999`` parses to infinity): a score that is no number
    must not pass for one, nor be written as one.
    """

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


def finite(value: Any) -> bool:
    """Whether every float in ``value`` (nested dicts and lists searched) is a finite number."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(finite(v) for v in value.values())
    if isinstance(value, list | tuple):
        return all(finite(v) for v in value)
    return True


class FiniteRecord(Record):
    """A record whose free-form fields (``dict[str, Any]``) are searched for non-finite numbers too."""

    @model_validator(mode="after")
    def _numbers_are_finite(self) -> Self:
        for name, value in self.__dict__.items():
            if isinstance(value, dict | list) and not finite(value):
                raise ValueError(f"{name} holds a number that is not finite (NaN or infinity)")
        return self


class TaskSpec(FiniteRecord):
    """One task of a run with its validated parameters."""

    id: str
    params: dict[str, Any] = Field(default_factory=dict)
    episodes: int


class RunConfig(FiniteRecord):
    """Everything that decides a run's results (and nothing that does not, such as concurrency)."""

    tasks: list[TaskSpec]
    agent: str
    agent_params: dict[str, Any] = Field(default_factory=dict)
    model: str | None = None
    model_params: dict[str, Any] = Field(default_factory=dict)
    seed: int = 0

    @model_validator(mode="after")
    def _episodes_in_bounds(self) -> Self:
        # PlaybenchError, not ValueError: pydantic lets it through unchanged, so building a config and reading a
        # run.json refuse an impossible schedule in the same one line, before anything counts its episodes
        check_episode_count(sum(t.episodes for t in self.tasks))
        return self

    def hash(self) -> str:
        """A stable hash of the config (canonical JSON)."""
        blob = json.dumps(self.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


class RunMeta(FiniteRecord):
    """The content of ``run.json``."""

    format: int = Field(default=RUN_FORMAT, ge=1, le=RUN_FORMAT)
    run_id: str
    config: RunConfig
    config_hash: str
    versions: dict[str, str]
    created_at: str
    settings: dict[str, Any] = Field(default_factory=dict)  # concurrency, timeouts: not part of identity
    # one entry per --resume: when, and which settings it changed ({name: [recorded, given]})
    resumes: list[dict[str, Any]] = Field(default_factory=list)


class StepRecord(Record):
    """One agent step of an episode."""

    step: int
    observation: str
    raw_output: str | None = None
    action: str | None = None  # the legal action the output named; None when it named none
    executed: str
    valid: bool
    reward: float
    score: float
    done: bool = False
    # The exact prompt sent, for model agents. Not re-validated: the agent hands over its cached message dicts,
    # shared between the steps of an episode, and copying them at every step would cost more than the step.
    messages: SkipValidation[list[dict[str, Any]]] | None = None
    frame: str | None = None  # the image the agent saw (PNG path relative to the run), in image mode
    usage: dict[str, int] | None = None
    extra: dict[str, Any] = Field(default_factory=dict)
    timing: dict[str, float] = Field(default_factory=dict)

    def json_line(self) -> bytes:
        """The step as one line of a trajectory file.

        orjson over the validated fields is several times faster than pydantic's serializer on long
        message lists (and gives the same JSON); pydantic's handles whatever orjson refuses.
        """
        try:
            return orjson.dumps(self.__dict__) + b"\n"
        except TypeError:
            return self.model_dump_json().encode() + b"\n"


class EpisodeRecord(FiniteRecord):
    """One finished (or failed) episode: one line of ``episodes.jsonl``."""

    task: str
    index: int
    seed: int
    status: Status
    agent: str
    model: str | None = None
    score: float | None = None
    completion: float | None = None
    progress: float | None = None
    reward: float = 0.0
    steps: int = 0
    invalid_actions: int = 0
    metrics: dict[str, Any] = Field(default_factory=dict)
    instance: dict[str, Any] = Field(default_factory=dict)
    usage: dict[str, int] = Field(default_factory=dict)
    error: str | None = None
    trajectory: str | None = None  # path relative to the run directory
    timing: dict[str, Any] = Field(default_factory=dict)

    @property
    def key(self) -> tuple[str, int]:
        """(task, index): the identity of an episode within a run."""
        return (self.task, self.index)

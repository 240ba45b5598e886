"""The run record formats: run.json, one line of episodes.jsonl, one step of a trajectory.

Volatile values (wall-clock times, latencies) live under ``timing`` so that two runs with the
same seed can be compared byte for byte once ``timing`` is dropped.
"""

import hashlib
import json
import math
from dataclasses import dataclass
from types import NoneType, UnionType
from typing import Annotated, Any, Literal, Self, TypeVar, get_args

import orjson
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    SkipValidation,
    StrictInt,
    field_validator,
    model_serializer,
    model_validator,
)

from playbench.core.bounds import check_episode_count
from playbench.core.seeding import episode_seed

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


#: the kinds ``finite`` searches and the free-form fields a FiniteRecord searches (a tuple made once: ``A | B``
#: written in a call builds a union at every call)
_SEQUENCES = (list, tuple)
_FREE_FORM = (dict, list)


def finite(value: Any) -> bool:
    """Whether every float in ``value`` (nested dicts and lists searched) is a finite number."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        items: Any = value.values()
    elif isinstance(value, _SEQUENCES):
        items = value
    else:
        return True
    for item in items:  # every record is searched: the plain kinds are told apart without a call (3 times faster)
        kind = type(item)
        if kind is str or kind is int or kind is bool or item is None:
            continue
        if kind is float:
            if not math.isfinite(item):
                return False
        elif not finite(item):
            return False
    return True


class FiniteRecord(Record):
    """A record whose free-form fields (``dict[str, Any]``) are searched for non-finite numbers too."""

    @model_validator(mode="after")
    def _numbers_are_finite(self) -> Self:
        for name, value in self.__dict__.items():
            if isinstance(value, _FREE_FORM) and not finite(value):
                raise ValueError(f"{name} holds a number that is not finite (NaN or infinity)")
        return self


R = TypeVar("R", bound=Record)

_set = object.__setattr__


def unvalidated(cls: type[R], fields: dict[str, Any], given: frozenset[str]) -> R:
    """The record ``cls(**{name: fields[name] for name in given})`` is, made without pydantic's validation.

    Only for the runner's hot path, where the caller has checked that validation would keep every value as
    it is: each of the field's exact type, every number finite (free-form fields searched), each dict a fresh
    one. ``fields`` names every field, in ``cls``'s order (defaults included), ``given`` those named in the
    call. ``tests/runner/test_records_unvalidated.py`` holds the two ways equal.
    """
    record = cls.__new__(cls)
    _set(record, "__dict__", fields)
    _set(record, "__pydantic_fields_set__", set(given))
    _set(record, "__pydantic_extra__", None)
    _set(record, "__pydantic_private__", None)
    return record


#: An episode seed given (``--instances``): 32 bits, as playbench derives them and BALROG's evaluator draws them
GivenSeed = Annotated[StrictInt, Field(ge=0, lt=2**32)]


class TaskSpec(FiniteRecord):
    """One task of a run with its validated parameters.

    ``seeds`` (``--instances``) are the episodes' seeds given, in order: episode ``k`` is reset with
    ``seeds[k]``. Without them (None, not written) each episode's seed is derived from the run's seed.
    ``options`` (``--instances``, where a source's instance is fixed by more than its seed) are the reset
    options of each episode, in order (``{}``: none): episode ``k``'s game is prepared and reset with
    ``options[k]`` (``Game.reset(seed=, options=)``). Without them (None, not written) no episode has any.
    """

    id: str
    params: dict[str, Any] = Field(default_factory=dict)
    episodes: int
    seeds: list[GivenSeed] | None = Field(default=None, exclude_if=lambda seeds: seeds is None)
    options: list[dict[str, Any]] | None = Field(default=None, exclude_if=lambda options: options is None)

    @model_validator(mode="after")
    def _one_seed_an_episode(self) -> Self:
        if self.seeds is not None and len(self.seeds) != self.episodes:
            raise ValueError(f"{self.id}: {len(self.seeds)} seeds given for {self.episodes} episodes")
        if self.options is not None and (self.seeds is None or len(self.options) != self.episodes):
            raise ValueError(f"{self.id}: reset options are given with a seed for each of its {self.episodes} "
                             "episodes")
        return self

    def seed_of(self, base_seed: int, index: int) -> int:
        """The seed episode ``index`` is reset with: the one given, else derived from the run's ``base_seed``."""
        return self.seeds[index] if self.seeds is not None else episode_seed(base_seed, self.id, index)

    def options_of(self, index: int) -> dict[str, Any] | None:
        """The reset options episode ``index`` is given (None: none, the game's own reset)."""
        if self.options is None or not 0 <= index < len(self.options):
            return None
        return self.options[index] or None


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

    def episode_seed(self, task_id: str, index: int) -> int:
        """The seed episode ``index`` of ``task_id`` is reset with (given by ``--instances``, else derived)."""
        spec = next((spec for spec in self.tasks if spec.id == task_id), None)
        if spec is None or spec.seeds is None or not 0 <= index < len(spec.seeds):
            return episode_seed(self.seed, task_id, index)
        return spec.seeds[index]

    def episode_options(self, task_id: str, index: int) -> dict[str, Any] | None:
        """The reset options episode ``index`` of ``task_id`` is given (``--instances``), None when none."""
        spec = next((spec for spec in self.tasks if spec.id == task_id), None)
        return None if spec is None else spec.options_of(index)

    def hash(self) -> str:
        """A stable hash of the config (canonical JSON)."""
        blob = json.dumps(self.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


#: What ``--resume`` does with a run setting given again: ``change`` it (recorded in ``run.json`` as a resume
#: event), refuse it unless equal to the recorded value (``identity``: it would change the results), or change
#: it as a name only (``display``: it names the run in reports and plots)
Resume = Literal["change", "identity", "display"]


@dataclass(frozen=True)
class Option:
    """A run setting's face: its command-line flag and help, the bounds a run holds it to, its resume rule."""

    flag: str
    resume: Resume
    help: str | None = None
    metavar: str | None = None
    show_default: bool = False
    choices: tuple[str, ...] | None = None
    at_least: int | None = None
    more_than: int | None = None
    #: written to ``run.json`` only when not the default, so runs without it keep the ``run.json`` they had
    only_when_set: bool = False


class RunSettings(Record):
    """A run's settings: how it is played (concurrency, retries, where), not what it measures.

    The one declaration of each option: its type and default, and in its ``Option`` the flag of
    ``playbench eval``, the help line and what ``--resume`` may do with it. ``playbench.eval``'s keywords,
    the command's options (in this order), the resume rules and the model's connection settings
    (``ModelSettings``) are derived from it. Values are strictly typed (``"8"`` is no number); the bounds in
    each ``Option`` are checked where a run is made or resumed (``api/settings.py``), not when a run is read.
    """

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, strict=True)

    max_episodes: Annotated[int | None, Option(
        "--max-episodes", "change", "Episodes in flight (default: --max-connections).", at_least=1)] = None
    max_connections: Annotated[int, Option(
        "--max-connections", "change", "Concurrent requests per model.", show_default=True, at_least=1)] = 8
    max_retries: Annotated[int, Option(
        "--max-retries", "change", "Retries of a failed model request.", show_default=True, at_least=0)] = 6
    timeout: Annotated[float, Option(
        "--timeout", "change", "Seconds per model request.", show_default=True, more_than=0)] = 120.0
    base_url: Annotated[str | None, Option(
        "--base-url", "change",
        "Server URL for OpenAI-compatible providers (several, comma-separated, with --executor ray).")] = None
    cache: Annotated[bool, Option(
        "--cache", "identity", "Answer repeated model requests from an on-disk cache.")] = False
    batch: Annotated[bool, Option(
        "--batch", "change", "Send the model's requests as provider batches (OpenAI, Anthropic, Gemini: half "
        "price, slower; docs/models.md).", only_when_set=True)] = False
    batch_timeout: Annotated[float | None, Option(
        "--batch-timeout", "change", "With --batch: seconds a batch is waited for before it is cancelled and its "
        "requests are sent live (default: the provider's window + 6 h).", metavar="SECONDS", more_than=0,
        only_when_set=True)] = None
    cost_limit: Annotated[float | None, Option(
        "--cost-limit", "change", "Stop the run before it spends more than USD (the requests in flight finish; a "
        "resume with a higher limit continues it, nothing paid twice; docs/models.md).", metavar="USD", more_than=0,
        only_when_set=True)] = None
    retry_backoff: Annotated[float, Option(
        "--retry-backoff", "change", "Seconds before the first retry of a failed model request (doubles each "
        "retry, jittered).", show_default=True, at_least=0)] = 1.0
    max_connect_failures: Annotated[int, Option(
        "--max-connect-failures", "change", "Stop the run when this many requests in a row cannot reach the "
        "server.", show_default=True, at_least=1)] = 5
    executor: Annotated[str, Option(
        "--executor", "change", "Where episodes run: this process, or the workers of a Ray cluster "
        "(docs/scale.md).", show_default=True, choices=("local", "ray"))] = "local"
    ray_address: Annotated[str | None, Option(
        "--ray-address", "change", "With --executor ray: the cluster's head, host:port (default: $RAY_ADDRESS, "
        "else a local cluster).")] = None
    shard: Annotated[str | None, Option(
        "--shard", "identity", "Play only shard K of N of the episodes (a fixed rule over task and index; see "
        "docs/scale.md).", metavar="K/N")] = None
    instances: Annotated[str | None, Option(
        "--instances", "identity", "Play the instances of SOURCE (a BALROG leaderboard folder, a playbench run, or a "
        "file of TASK SEED lines), in its order, for the tasks named (docs/reproduce.md).", metavar="SOURCE",
        only_when_set=True)] = None
    label: Annotated[str | None, Option(
        "--label", "display", "The run's name in reports and plots (default: model + agent).")] = None

    @model_serializer(mode="wrap")
    def _recorded(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # a field that is no option (merged_from) or says so is recorded only when not its default
        data: dict[str, Any] = handler(self)
        for name, field in type(self).model_fields.items():
            option = RUN_OPTIONS.get(name)
            if (option is None or option.only_when_set) and getattr(self, name) == field.default:
                data.pop(name, None)
        return data


def _option_of(name: str) -> Option:
    found = [meta for meta in RunSettings.model_fields[name].metadata if isinstance(meta, Option)]
    if len(found) != 1:
        raise TypeError(f"RunSettings.{name} must declare one Option")
    return found[0]


#: setting name -> its Option, in declaration order
RUN_OPTIONS: dict[str, Option] = {name: _option_of(name) for name in RunSettings.model_fields}


def value_type(name: str) -> type:
    """The type of setting ``name``'s values, ``None`` aside (``int`` for ``int | None``)."""
    annotation = RunSettings.model_fields[name].annotation
    kinds = [kind for kind in get_args(annotation) if kind is not NoneType] if isinstance(annotation, UnionType) \
        else [annotation]
    if len(kinds) != 1 or not isinstance(kinds[0], type):
        raise TypeError(f"RunSettings.{name} must be of one type (or None)")
    return kinds[0]


class RecordedSettings(RunSettings):
    """``run.json``'s ``settings``: the run's settings, and the shard runs a merged run was made of."""

    merged_from: list[str] | None = None  # written by ``playbench merge``


class RunMeta(FiniteRecord):
    """The content of ``run.json``."""

    format: int = Field(default=RUN_FORMAT, ge=1, le=RUN_FORMAT)
    run_id: str
    config: RunConfig
    config_hash: str
    versions: dict[str, str]
    created_at: str
    settings: RecordedSettings = Field(default_factory=RecordedSettings)  # how it plays: not part of identity
    # one entry per --resume: when, and which settings it changed ({name: [recorded, given]})
    resumes: list[dict[str, Any]] = Field(default_factory=list)

    @field_validator("settings", mode="before")
    @classmethod
    def _recorded_settings(cls, value: Any) -> Any:
        # the settings a new run was asked to play with are recorded as they are
        if isinstance(value, RunSettings) and not isinstance(value, RecordedSettings):
            return value.model_dump()
        return value


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
    # What the game showed after the episode's last step (set on that step only; runs written before have none):
    # every other step's is the next step's ``observation``. Written only when set.
    next_observation: str | None = Field(default=None, exclude_if=lambda text: text is None)
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
        fields = self.__dict__
        if fields["next_observation"] is None:  # not written unless set, as pydantic's serializer leaves it out
            fields = {name: value for name, value in fields.items() if name != "next_observation"}
        try:
            return orjson.dumps(fields) + b"\n"
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
    #: the reset options the game was given besides its seed (``TaskSpec.options``); None (not written): none
    options: dict[str, Any] | None = Field(default=None, exclude_if=lambda options: options is None)

    @property
    def key(self) -> tuple[str, int]:
        """(task, index): the identity of an episode within a run."""
        return (self.task, self.index)

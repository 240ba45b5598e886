"""How an episode ends: whose fault stopped it (the one classifier) and the records built from what it played.

The local runner and the Ray worker both classify through this module, so an episode's fault names the same
party (agent, server, environment, game) whichever executor played it.
"""

import math
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, Literal

from pydantic import ValidationError

from playbench.agents.base import Agent, Decision, EpisodeContext, Turn
from playbench.core.errors import InfraError, PlaybenchError, StopRun, environment_fault
from playbench.core.ledger import EpisodeLedger
from playbench.core.records import STATUSES, EpisodeRecord, Status, StepRecord, finite, unvalidated
from playbench.log.durable import StoreWriteError
from playbench.runner.plan import EpisodeJob

#: whose code raised: the agent's (``start``, ``act``) or the episode's own (the game, the runner's hooks)
Party = Literal["agent", "game"]


@dataclass(frozen=True)
class Fault:
    """Why an episode ended early: its record's status and error."""

    status: Status
    error: str


def classify(exc: Exception, party: Party) -> Fault:
    """The fault of an episode that ``exc``, raised by ``party``'s code, ended.

    ``StopRun`` is the whole run's (as is ``StoreWriteError`` outside the agent): it is raised again.
    ``InfraError`` is the server's or the machine's (``infra-error``) whoever raised it. Anything else the
    agent raised is its own bug (``agent-error``). Outside the agent, an ``OSError`` behind ``exc`` is the
    environment's (``infra-error``, see ``environment_fault``) and the rest the game's (``game-error``, with
    the top of the traceback).
    """
    if isinstance(exc, StopRun) or (party == "game" and isinstance(exc, StoreWriteError)):
        raise exc
    if isinstance(exc, InfraError):
        return Fault("infra-error", str(exc))
    if party == "agent":
        return Fault("agent-error", f"{type(exc).__name__}: {exc}")
    blamed = environment_fault(exc)
    if blamed is not None:
        return Fault("infra-error", blamed)
    return Fault("game-error", f"{type(exc).__name__}: {exc}\n{_game_traceback(exc)}")


def _game_traceback(exc: Exception) -> str:
    """Three frames from the runner's last one: the call into the game and the game's two below it.

    The runner's own frames above that call (how deep its helpers nest) would otherwise take their place.
    """
    tb: TracebackType | None = exc.__traceback__
    while tb is not None and tb.tb_next is not None and _runner_frame(tb.tb_next):
        tb = tb.tb_next
    return "".join(traceback.format_exception(type(exc), exc, tb, limit=3))


def _runner_frame(tb: TracebackType) -> bool:
    return str(tb.tb_frame.f_globals.get("__name__", "")).startswith(f"{__package__}.")


def setup_fault(exc: Exception) -> str:
    """One line for a worker that cannot build its agent kit (a missing API key or engine): the run stops on it."""
    return str(exc) if isinstance(exc, PlaybenchError) else f"{type(exc).__name__}: {exc}"


def build_agent(make_agent: Callable[[], Agent]) -> Agent:
    """``make_agent()``, or a stand-in whose episode ends as that agent's error when it cannot be built."""
    try:
        return make_agent()
    except Exception as exc:  # noqa: BLE001  (an agent that cannot be built is the agent's fault)
        return Broken(exc)


class Broken:
    """Stands in for an agent whose construction failed: the episode ends as that agent's error."""

    def __init__(self, exc: Exception) -> None:
        self.exc = exc

    async def start(self, ctx: EpisodeContext) -> None:
        """Raise the construction error inside the episode (recorded as agent-error)."""
        raise self.exc

    async def act(self, turn: Turn) -> Any:
        """Never reached: ``start`` already failed."""
        raise self.exc


#: the last second ``started_at`` wrote, and its text (episodes that start in the same second share it)
_stamp: tuple[int, str] = (-1, "")


def started_at(now: float) -> str:
    """The UTC time ``now`` (``time.time()``) as a record writes it, to the second; formatted once a second."""
    global _stamp
    second = int(now)
    if _stamp[0] != second:
        _stamp = (second, datetime.fromtimestamp(second, UTC).isoformat(timespec="seconds"))
    return _stamp[1]


@dataclass(slots=True)
class Tally:
    """An episode so far: what its record sums up, and the fault that ended it (None while none did)."""

    steps: int = 0
    invalid: int = 0
    reward: float = 0.0
    usage: dict[str, int] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)  # the game's latest
    done: bool = False
    fault: Fault | None = None
    started: float = field(default_factory=time.perf_counter)
    started_at: str = field(default_factory=lambda: started_at(time.time()))
    ledger: EpisodeLedger | None = None  # the episode's model ledger, whose count the record takes once it has one

    def count(self, decision: Decision, valid: bool, reward: float) -> None:
        """Add one played step's reward, validity and model usage (not summed while the ledger's is the record's)."""
        self.reward += reward
        self.invalid += not valid
        if self.ledger_counts():
            return
        for key, value in (decision.usage or {}).items():
            self.usage[key] = self.usage.get(key, 0) + int(value)

    def ledger_counts(self) -> bool:
        """Whether the record's usage is the ledger's: the model's own count of every request sent, answered or not."""
        return self.ledger is not None and bool(self.ledger.usage)


def number(value: Any) -> float | None:
    """``value`` as a float; None when it is none or no number (an integer too large is an infinity)."""
    try:
        return None if value is None else float(value)
    except OverflowError:  # an integer too large for a float: no finite number either
        return math.inf
    except (TypeError, ValueError):
        return None


def not_finite(values: dict[str, Any]) -> str | None:
    """What is wrong with the first of the game's ``values`` that holds NaN or an infinity, else None.

    Records refuse such numbers, so that episode is the game's error, said in one line naming the field.
    """
    for name, value in values.items():
        if isinstance(value, dict):
            if finite(value):  # the usual case: nothing to name, so no names are built
                continue
            inner = not_finite({f"{name}.{key}": v for key, v in value.items()})
            if inner is not None:
                return inner
        elif isinstance(value, float) and not math.isfinite(value):
            return f"the game's {name} is {value!r}, not a finite number"
        elif not finite(value):
            return f"the game's {name} holds a number that is not finite (NaN or infinity)"
    return None


def final_observation(tally: Tally, after: str) -> str | None:
    """What a step records of the game's observation ``after`` it: the text when it ended the episode, else None.

    Every other step's is the next step's ``observation``; the last one's would be lost (BALROG's steps table
    shows it). The runner and verify's re-play both ask here, so they record and expect the same.
    """
    return after if tally.done else None


def step_record(tally: Tally, observation: str, decision: Decision, action: str | None, executed: str,
                reward: float, score: float | None, frame: str | None, latency: float, after: str) -> StepRecord:
    """The record of step ``tally.steps``: the agent saw ``observation`` and answered ``decision``.

    ``action`` is the legal action the answer named (None: it named none, and the game's default was executed);
    ``after`` is the observation the game returned (kept when the step ended the episode).
    """
    fields: dict[str, Any] = {  # in StepRecord's order
        "step": tally.steps, "observation": observation, "raw_output": decision.raw, "action": action,
        "executed": executed, "valid": action is not None, "reward": reward, "score": score or 0.0, "done": tally.done,
        "next_observation": final_observation(tally, after), "messages": decision.messages, "frame": frame,
        "usage": decision.usage, "extra": decision.extra, "timing": {"latency_s": round(latency, 6)},
    }
    if not _plain_step(fields):  # validation converts it, or refuses it naming the field
        return StepRecord(**fields)
    # Every value is what validation would keep (it takes 4 of a one-step episode's 10 µs of records);
    # each dict copied, as validation copies it.
    usage = fields["usage"]
    fields["usage"] = None if usage is None else dict(usage)
    fields["extra"] = dict(fields["extra"])
    return unvalidated(StepRecord, fields, _STEP_FIELDS)


#: the fields ``step_record`` names (all of StepRecord's) and ``episode_record`` names (all but ``trajectory``)
_STEP_FIELDS = frozenset(StepRecord.model_fields)
_EPISODE_FIELDS = frozenset(EpisodeRecord.model_fields) - {"trajectory"}


def _plain_step(fields: dict[str, Any]) -> bool:
    """Whether a step's ``fields`` are all of their fields' exact types, their numbers finite."""
    return (type(fields["step"]) is int and type(fields["observation"]) is str and _text(fields["raw_output"])
            and _text(fields["action"]) and type(fields["executed"]) is str and _number(fields["reward"])
            and _number(fields["score"]) and type(fields["done"]) is bool and _text(fields["next_observation"])
            and _text(fields["frame"]) and (fields["usage"] is None or _counts(fields["usage"]))
            and _keyed(fields["extra"]))  # ``timing``: made by ``step_record``, a finite float


def _plain_episode(fields: dict[str, Any]) -> bool:
    """Whether an episode's ``fields`` are all of their fields' exact types, their numbers finite (searched)."""
    return (type(fields["task"]) is str and type(fields["index"]) is int and type(fields["seed"]) is int
            and fields["status"] in STATUSES and type(fields["agent"]) is str and _text(fields["model"])
            and _optional_number(fields["score"]) and _optional_number(fields["completion"])
            and _optional_number(fields["progress"]) and _number(fields["reward"]) and type(fields["steps"]) is int
            and type(fields["invalid_actions"]) is int and _free_form(fields["metrics"])
            and _free_form(fields["instance"]) and _counts(fields["usage"]) and _text(fields["error"])
            and (fields["options"] is None or _free_form(fields["options"])))  # ``timing``: made by ``_episode``


def _text(value: Any) -> bool:
    return value is None or type(value) is str


def _number(value: Any) -> bool:
    return type(value) is float and math.isfinite(value)


def _optional_number(value: Any) -> bool:
    return value is None or (type(value) is float and math.isfinite(value))


def _keyed(value: Any) -> bool:
    """A dict whose keys are all ``str``."""
    if type(value) is not dict:
        return False
    for key in value:
        if type(key) is not str:
            return False
    return True


def _free_form(value: Any) -> bool:
    """A ``dict[str, Any]`` whose every number is finite (nested ones searched)."""
    return _keyed(value) and finite(value)


def _counts(value: Any) -> bool:
    """A ``dict[str, int]``."""
    if type(value) is not dict:
        return False
    for key, count in value.items():
        if type(key) is not str or type(count) is not int:
            return False
    return True


def game_end(game: Any) -> tuple[dict[str, Any] | None, float | None]:
    """The game's instance and progress (None where it cannot say), then the game closed; None: never built."""
    if game is None:
        return None, None
    instance = _safe(game.instance)
    progress = number(_safe(lambda: game.progress))
    _safe(game.close)
    return instance, progress


def _safe(fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except Exception:
        return None


def episode_record(job: EpisodeJob, agent_name: str, model: str | None, tally: Tally,
                   instance: dict[str, Any] | None, progress: float | None) -> EpisodeRecord:
    """The record of an episode played to ``tally``: scored only when no fault ended it.

    Records hold finite numbers only: a non-finite figure in the game's final report is the game's error.
    """
    fault, reward = tally.fault, tally.reward
    info = tally.info
    outcome: dict[str, Any] = {"score": number(info.get("score")), "completion": number(info.get("completed", 0)),
                               "progress": progress, "metrics": info.get("metrics", {})} if fault is None else {}
    try:  # the usual case: the record's own validation is the one search for non-finite numbers
        return _episode(job, agent_name, model, tally, fault, reward, outcome, instance)
    except ValidationError:
        bad = not_finite({"reward": reward, **outcome, "instance": instance or {}})
        if bad is None:
            raise
    fault, outcome = Fault("game-error", bad), {}
    reward = reward if math.isfinite(reward) else 0.0
    instance = instance if finite(instance or {}) else {}
    return _episode(job, agent_name, model, tally, fault, reward, outcome, instance)


def _episode(job: EpisodeJob, agent_name: str, model: str | None, tally: Tally, fault: Fault | None, reward: float,
             outcome: dict[str, Any], instance: dict[str, Any] | None) -> EpisodeRecord:
    fields: dict[str, Any] = {  # in EpisodeRecord's order
        "task": job.task.id, "index": job.index, "seed": job.seed, "status": "ok" if fault is None else fault.status,
        "agent": agent_name, "model": model, "score": outcome.get("score"), "completion": outcome.get("completion"),
        "progress": outcome.get("progress"), "reward": reward, "steps": tally.steps, "invalid_actions": tally.invalid,
        "metrics": outcome.get("metrics", {}), "instance": instance or {}, "usage": tally.usage,
        "error": None if fault is None else fault.error, "trajectory": None,
        "timing": {"started_at": tally.started_at, "duration_s": round(time.perf_counter() - tally.started, 6)},
        "options": job.options,
    }
    if not _plain_episode(fields):  # validation converts it, or refuses it (a number not finite: see the caller)
        return EpisodeRecord(**{name: value for name, value in fields.items() if name != "trajectory"})
    for name in ("metrics", "instance", "usage", "options"):  # copied, as validation copies them (``timing`` is new)
        value = fields[name]
        if value is not None:
            fields[name] = dict(value)
    return unvalidated(EpisodeRecord, fields, _EPISODE_FIELDS)

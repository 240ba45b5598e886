"""The asyncio runner: a bounded pool of workers plays episodes and appends their records.

Episodes are isolated: whatever one episode's game or agent does, no other episode's record changes.
Faults that concern the whole run (the run's files cannot be written, the model's credentials are
refused, its server is unreachable) stop it: the other workers are cancelled before anything shared is
closed, the episodes they were playing are not recorded (``--resume`` plays them), and ``run_jobs``
returns totals whose ``stopped`` says why.
"""

import asyncio
import contextlib
import functools
import math
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from playbench.agents.base import Agent, EpisodeContext, Turn
from playbench.core.errors import InfraError, StopRun, environment_fault
from playbench.core.ledger import CURRENT_EPISODE, EpisodeLedger
from playbench.core.records import EpisodeRecord, StepRecord, finite
from playbench.core.turns import take_turn
from playbench.log.durable import StoreWriteError
from playbench.log.store import RunStore
from playbench.runner.plan import EpisodeJob


@dataclass
class RunSettings:
    """How to run (not what): concurrency and callbacks. Not part of the config hash."""

    max_episodes: int = 1
    on_step: Callable[[str], None] | None = None
    on_episode: Callable[[EpisodeRecord], None] | None = None


@dataclass
class RunTotals:
    """Counts kept while running (records themselves go to disk, not memory)."""

    episodes: int = 0
    steps: int = 0
    by_status: dict[str, int] = field(default_factory=dict)
    stopped: str | None = None  # why the run stopped early (None: every job ran)
    replayed: int = 0  # episodes sent again because the worker playing them died (``--executor ray``)


def _number(value: Any) -> float | None:
    try:
        return None if value is None else float(value)
    except OverflowError:  # an integer too large for a float: no finite number either
        return math.inf
    except (TypeError, ValueError):
        return None


def _not_finite(values: dict[str, Any]) -> str | None:
    """What is wrong with the first of the game's ``values`` that holds NaN or an infinity, else None.

    Records refuse such numbers, so that episode is the game's error, said in one line naming the field.
    """
    for name, value in values.items():
        if isinstance(value, dict):
            inner = _not_finite({f"{name}.{key}": v for key, v in value.items()})
            if inner is not None:
                return inner
        elif isinstance(value, float) and not math.isfinite(value):
            return f"the game's {name} is {value!r}, not a finite number"
        elif not finite(value):
            return f"the game's {name} holds a number that is not finite (NaN or infinity)"
    return None


def _add_usage(total: dict[str, int], usage: dict[str, int] | None) -> None:
    for key, value in (usage or {}).items():
        total[key] = total.get(key, 0) + int(value)


async def play_episode(
    job: EpisodeJob, agent: Agent, agent_name: str, model: str | None, on_step: Callable[[str], None] | None = None,
    save_frame: Callable[[int, Any], str] | None = None, record_step: Callable[[StepRecord], None] | None = None,
) -> tuple[EpisodeRecord, list[StepRecord]]:
    """Play one episode to its end and return its record and steps.

    With ``record_step`` each step is handed to it as it is played (and the returned list is empty), so
    an episode holds none of its past steps. Game and agent faults become the record's status (an
    ``OSError`` from the game is the environment's: ``infra-error``); only
    ``StopRun`` (a fault of the whole run), ``StoreWriteError`` and cancellation propagate.
    """
    started = time.perf_counter()
    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    ledger = EpisodeLedger(job.task.id, job.index, job.seed)
    CURRENT_EPISODE.set(ledger)  # this task's context only: concurrent episodes each see their own
    steps: list[StepRecord] = []
    keep = steps.append if record_step is None else record_step
    played = 0
    status, error = "ok", None
    usage: dict[str, int] = {}
    invalid = 0
    total_reward = 0.0
    info: dict[str, Any] = {}
    game: Any = None
    try:
        game = job.task.make_game(job.params, job.index)
        await game.prepare()  # slow one-time set-up off the event loop (TextWorld makes its game file)
        obs, info = game.reset(seed=job.seed)
        context = EpisodeContext(job.task.id, job.index, job.seed, info.get("manual", ""), game.unwrapped,
                                 job.task.one_step)
        done = False
        try:
            await agent.start(context)
        except StopRun:
            raise
        except InfraError as exc:
            status, error, done = "infra-error", str(exc), True
        except Exception as exc:  # the agent's own set-up failed
            status, error, done = "agent-error", f"{type(exc).__name__}: {exc}", True
        while not done:
            legal = game.legal_actions()
            t0 = time.perf_counter()
            try:
                decision = await agent.act(Turn(played, obs, info, legal))
            except StopRun:
                raise
            except InfraError as exc:
                status, error = "infra-error", str(exc)
                break
            except Exception as exc:  # a bug or crash inside the agent's own code
                status, error = "agent-error", f"{type(exc).__name__}: {exc}"
                break
            latency = time.perf_counter() - t0
            valid = decision.action is not None and (legal is None or decision.action in legal)
            executed = decision.action if valid else game.default_action
            observation = obs
            image = info.get("image")
            frame = save_frame(played, image) if save_frame is not None and image is not None else None
            obs, reward, terminated, truncated, info = game.step(executed)
            bad = _not_finite({"reward": float(reward), "score": _number(info.get("score"))})
            if bad is not None:
                status, error = "game-error", f"{bad} (step {played})"
                break
            done = bool(terminated or truncated)
            total_reward += float(reward)
            invalid += not valid
            _add_usage(usage, decision.usage)
            keep(
                StepRecord(
                    step=played,
                    observation=observation,
                    raw_output=decision.raw,
                    action=decision.action if valid else None,
                    executed=executed,
                    valid=valid,
                    reward=float(reward),
                    score=_number(info.get("score")) or 0.0,
                    done=done,
                    messages=decision.messages,
                    frame=frame,
                    usage=decision.usage,
                    extra=decision.extra,
                    timing={"latency_s": round(latency, 6)},
                )
            )
            played += 1
            if on_step is not None:
                on_step(job.task.id)
    except (StopRun, StoreWriteError):
        raise
    except InfraError as exc:
        status, error = "infra-error", str(exc)
    except Exception as exc:  # the game failed (built, prepared, reset or stepped): not the agent's fault
        blamed = environment_fault(exc)  # ... nor the game's when the machine refused (a read-only cache ...)
        if blamed is not None:
            status, error = "infra-error", blamed
        else:
            status, error = "game-error", f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=3)}"
    finally:
        instance = _safe(game.instance) if game is not None else None
        progress = _number(_safe(lambda: game.progress)) if game is not None else None
        if game is not None:
            _safe(game.close)
    if ledger.usage:  # the model's own count: every request sent, answered or not
        usage = dict(ledger.usage)
    ok = status == "ok"
    outcome: dict[str, Any] = {"score": _number(info.get("score")), "completion": _number(info.get("completed", 0)),
                               "progress": progress, "metrics": dict(info.get("metrics", {}))} if ok else {}
    bad = _not_finite({"reward": total_reward, **outcome, "instance": instance or {}})
    if bad is not None:  # records hold finite numbers only: the game's report is its error
        status, error, ok = "game-error", bad, False
        total_reward = total_reward if math.isfinite(total_reward) else 0.0
        instance = instance if finite(instance or {}) else {}
    record = EpisodeRecord(
        task=job.task.id,
        index=job.index,
        seed=job.seed,
        status=status,
        agent=agent_name,
        model=model,
        score=outcome["score"] if ok else None,
        completion=outcome["completion"] if ok else None,
        progress=progress if ok else None,
        reward=total_reward,
        steps=played,
        invalid_actions=invalid,
        metrics=outcome["metrics"] if ok else {},
        instance=instance or {},
        usage=usage,
        error=error,
        timing={"started_at": started_at, "duration_s": round(time.perf_counter() - started, 6)},
    )
    return record, steps


def _safe(fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except Exception:
        return None


async def run_jobs(
    jobs: list[EpisodeJob],
    store: RunStore,
    make_agent: Callable[[], Agent],
    agent_name: str,
    model: str | None,
    settings: RunSettings,
) -> RunTotals:
    """Run the jobs with at most ``settings.max_episodes`` in flight, appending each record as it ends.

    Returns early, with ``totals.stopped`` set, when a fault stops the whole run (see the module doc).
    """
    queue: asyncio.Queue[EpisodeJob] = asyncio.Queue()
    for job in jobs:
        queue.put_nowait(job)
    totals = RunTotals()

    async def worker() -> None:
        while True:
            try:
                job = queue.get_nowait()
            except asyncio.QueueEmpty:
                return

            def save_frame(step: int, image: Any, job: EpisodeJob = job) -> str:
                return store.write_frame(job.task.id, job.index, step, image)

            await take_turn()  # episodes start one per loop iteration, so their first requests spread out
            try:
                agent = make_agent()
            except Exception as exc:  # noqa: BLE001  (an agent that cannot be built is the agent's fault)
                agent = _Broken(exc)
            writer = store.steps(job.task.id, job.index)
            record, _ = await play_episode(job, agent, agent_name, model, settings.on_step, save_frame, writer.add)
            record.trajectory = writer.finish()
            committed = store.commit(record)  # the worker plays on while the record reaches the disk
            committed.add_done_callback(functools.partial(recorded, record))

    def recorded(record: EpisodeRecord, done: "asyncio.Future[None]") -> None:
        if done.cancelled() or done.exception() is not None:
            return  # the run stops on it (drain raises)
        totals.episodes += 1
        totals.steps += record.steps
        totals.by_status[record.status] = totals.by_status.get(record.status, 0) + 1
        if settings.on_episode is not None:
            settings.on_episode(record)

    tasks = [asyncio.ensure_future(worker()) for _ in range(max(1, min(settings.max_episodes, len(jobs))))]
    try:
        for finished in asyncio.as_completed(tasks):
            await finished
        await store.drain()
    except (StopRun, StoreWriteError) as exc:
        totals.stopped = str(exc)
    finally:
        # every worker is stopped before the caller closes what they share (the model's HTTP session)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        with contextlib.suppress(StoreWriteError):
            await store.drain()  # the episodes that ended before the stop are recorded and counted
    return totals


class _Broken:
    """Stands in for an agent whose construction failed: the episode ends as that agent's error."""

    def __init__(self, exc: Exception) -> None:
        self.exc = exc

    async def start(self, ctx: EpisodeContext) -> None:
        """Raise the construction error inside the episode (recorded as agent-error)."""
        raise self.exc

    async def act(self, turn: Turn) -> Any:
        """Never reached: ``start`` already failed."""
        raise self.exc

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
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from playbench.agents.base import Agent, EpisodeContext, Turn
from playbench.core.errors import StopRun
from playbench.core.game import Game, start
from playbench.core.ledger import CURRENT_EPISODE, EpisodeLedger
from playbench.core.records import EpisodeRecord, StepRecord
from playbench.core.turns import take_turn
from playbench.log.durable import StoreWriteError
from playbench.log.store import RunStore
from playbench.runner.outcome import (
    Fault,
    Tally,
    build_agent,
    classify,
    episode_record,
    game_end,
    not_finite,
    number,
    step_record,
)
from playbench.runner.plan import EpisodeJob


@dataclass
class PoolSettings:
    """The worker pool's size and the hooks it calls: how to run (not what), not part of the config hash."""

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


async def play_episode(
    job: EpisodeJob, agent: Agent, agent_name: str, model: str | None, on_step: Callable[[str], None] | None = None,
    save_frame: Callable[[int, Any], str] | None = None, record_step: Callable[[StepRecord], None] | None = None,
) -> tuple[EpisodeRecord, list[StepRecord]]:
    """Play one episode to its end and return its record and steps.

    With ``record_step`` each step is handed to it as it is played (and the returned list is empty), so
    an episode holds none of its past steps. Game and agent faults become the record's status (as
    ``outcome.classify`` says: an ``OSError`` from the game is the environment's, ``infra-error``); only
    ``StopRun`` (a fault of the whole run), ``StoreWriteError`` and cancellation propagate.
    """
    ledger = EpisodeLedger(job.task.id, job.index, job.seed)
    CURRENT_EPISODE.set(ledger)  # this task's context only: concurrent episodes each see their own
    tally = Tally(ledger=ledger)
    steps: list[StepRecord] = []
    keep = steps.append if record_step is None else record_step
    game: Any = None
    try:
        game = job.task.make_game(job.params, job.index)
        obs, tally.info = await start(game, job.seed, job.options)  # prepared off the event loop, then reset
        try:
            await agent.start(EpisodeContext(job.task.id, job.index, job.seed, tally.info.get("manual", ""),
                                             game.unwrapped, job.task.one_step))
        except Exception as exc:  # the agent's own code
            tally.fault = classify(exc, "agent")
        while tally.fault is None and not tally.done:
            obs = await _step(game, agent, obs, tally, keep, save_frame)
            if tally.fault is None and on_step is not None:
                on_step(job.task.id)
    except Exception as exc:  # the game failed (built, prepared, reset or stepped), or the run must stop
        tally.fault = classify(exc, "game")
    finally:
        instance, progress = game_end(game)
    if tally.ledger_counts():
        tally.usage = ledger.usage  # the record copies it
    return episode_record(job, agent_name, model, tally, instance, progress), steps


async def _step(game: Game, agent: Agent, obs: str, tally: Tally, keep: Callable[[StepRecord], None],
                save_frame: Callable[[int, Any], str] | None) -> str:
    """One turn: the agent chooses, the game steps, the step is kept. Returns the game's next observation.

    A fault of either party sets ``tally.fault`` (the episode ends); the game's exceptions propagate.
    """
    legal = game.legal_actions()
    t0 = time.perf_counter()
    try:  # awaited here, not through a helper: a coroutine less a step, and a frame less while the model thinks
        decision = await agent.act(Turn(tally.steps, obs, tally.info, legal))
    except Exception as exc:  # the agent's own code, or the server it asked (``classify`` lets StopRun through)
        tally.fault = classify(exc, "agent")
        return obs
    latency = time.perf_counter() - t0
    named = decision.action
    action = named if named is not None and (legal is None or named in legal) else None  # None: invalid
    executed = game.default_action if action is None else action
    image = tally.info.get("image")
    frame = save_frame(tally.steps, image) if save_frame is not None and image is not None else None
    after, reward, terminated, truncated, tally.info = game.step(executed)
    reward, score = float(reward), number(tally.info.get("score"))
    if not (math.isfinite(reward) and (score is None or math.isfinite(score))):  # named only when one is not
        bad = not_finite({"reward": reward, "score": score})
        tally.fault = Fault("game-error", f"{bad} (step {tally.steps})")
        return after
    tally.done = bool(terminated or truncated)
    tally.count(decision, action is not None, reward)
    keep(step_record(tally, obs, decision, action, executed, reward, score, frame, latency, after))
    tally.steps += 1
    return after


async def run_jobs(
    jobs: list[EpisodeJob],
    store: RunStore,
    make_agent: Callable[[], Agent],
    agent_name: str,
    model: str | None,
    settings: PoolSettings,
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
            agent = build_agent(make_agent)
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

"""The driver of a Ray run: sends episodes to ``EpisodeWorker`` actors and writes what comes back.

Only the driver writes the run directory, through ``RunStore`` with the same rules as the local runner
(frames and trajectory durably in place, then the episode line, flushed and fsynced), one episode at a
time as results arrive. Workers write nothing, so a killed worker leaves nothing half-done behind.

Failures: each actor is restarted by Ray when its process or node dies (``max_restarts=-1``); the
episodes it was playing fail at once (``max_task_retries=0``) and are sent again to another worker, so
each is recorded once, from the attempt that finished. An episode whose worker dies ``MAX_ATTEMPTS``
times is recorded as ``infra-error`` (``--resume`` plays it again). A fault of the whole run (``StopRun``
from a worker's model, the disk full here) stops the run like the local runner does; a killed driver
leaves a run that ``--resume`` finishes, on this cluster or another.
"""

import asyncio
import collections
import time
from dataclasses import dataclass, field
from typing import Any

from playbench.core.records import EpisodeRecord, StepRecord
from playbench.log.durable import StoreWriteError
from playbench.log.store import RunStore
from playbench.runner.plan import EpisodeJob
from playbench.runner.ray_worker import Kit, remote_worker
from playbench.runner.runner import PoolSettings, RunTotals

#: attempts of one episode whose worker keeps dying before it is recorded as infra-error
MAX_ATTEMPTS = 3
#: seconds the run waits for a worker to come back when none is left alive
REVIVE_TIMEOUT = 300.0
#: seconds between two checks of whether a restarted worker is back
PING_DELAY = 0.5


@dataclass
class RayRun:
    """What a Ray run needs besides the jobs and the store."""

    kit: Kit
    agent_name: str
    model: str | None
    workers: int  # actors to start (one per cluster CPU, at most one per job)
    per_worker: int  # episodes in flight on each actor
    stats: list[Any] = field(default_factory=list)  # each worker's model counters, filled at the end


@dataclass
class _Slot:
    actor: Any
    busy: int = 0
    up: bool = False
    down_since: float | None = None
    started: bool = False  # has answered once (a worker that never did cannot be built)


def _last_line(exc: BaseException) -> str:
    """The line of a remote error that says what happened (Ray puts the traceback first)."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[-1] if lines else type(exc).__name__


async def _wait(ref: Any) -> Any:
    return await asyncio.wrap_future(ref.future())


async def _ping(actor: Any, delay: float) -> Any:
    if delay:
        await asyncio.sleep(delay)
    return await _wait(actor.ready.remote())


def _failed_record(job: EpisodeJob, run: RayRun, reason: str) -> EpisodeRecord:
    return EpisodeRecord(task=job.task.id, index=job.index, seed=job.seed, status="infra-error", agent=run.agent_name,
                         model=run.model, error=f"the Ray worker playing this episode died {MAX_ATTEMPTS} times "
                                            f"(last: {reason})")


async def run_jobs_ray(jobs: list[EpisodeJob], store: RunStore, run: RayRun, settings: PoolSettings) -> RunTotals:
    """Play ``jobs`` on the cluster's workers and append each record as it arrives (see the module doc)."""
    import ray

    totals = RunTotals()
    if not jobs:
        return totals
    tasks = {job.task.id: job.params.model_dump(mode="json") for job in jobs}
    actor_class = remote_worker()
    count = max(1, min(run.workers, len(jobs)))
    slots = [
        _Slot(actor_class.options(num_cpus=1, max_restarts=-1, max_task_retries=0, scheduling_strategy="SPREAD",
                                  max_concurrency=run.per_worker + 4)
              .remote(run.kit, i, count, sorted(tasks.items()), run.agent_name, run.model))
        for i in range(count)
    ]
    pending: collections.deque[tuple[EpisodeJob, int]] = collections.deque((job, 1) for job in jobs)
    running: dict[asyncio.Future[Any], tuple[int, EpisodeJob, int]] = {}
    pings: dict[asyncio.Future[Any], int] = {asyncio.create_task(_ping(s.actor, 0)): i for i, s in enumerate(slots)}
    now = time.monotonic()
    for slot in slots:
        slot.down_since = now
    try:
        while pending or running:
            for i, slot in enumerate(slots):
                while slot.up and slot.busy < run.per_worker and pending:
                    job, attempt = pending.popleft()
                    call = asyncio.create_task(_wait(slot.actor.play.remote(job.task.id, job.index, job.seed, job.options)))
                    running[call] = (i, job, attempt)
                    slot.busy += 1
            if not running and all(s.down_since is not None and time.monotonic() - s.down_since > REVIVE_TIMEOUT
                                   for s in slots):
                totals.stopped = (f"no Ray worker was available for {REVIVE_TIMEOUT:.0f} s (a cluster busy with other "
                                  "jobs, or its nodes gone)")
                break
            done, _ = await asyncio.wait([*running, *pings], return_when=asyncio.FIRST_COMPLETED,
                                         timeout=REVIVE_TIMEOUT if not running else None)
            for finished in done:
                fut: asyncio.Future[Any] = finished
                if fut in pings:
                    i = pings.pop(fut)
                    error = fut.exception()
                    if error is None and isinstance(fut.result(), str):  # the worker could not build its kit
                        totals.stopped = f"a Ray worker could not start: {fut.result()}"
                        return totals
                    if error is None:
                        slots[i].up, slots[i].down_since, slots[i].started = True, None, True
                    elif isinstance(error, ray.exceptions.ActorDiedError) and not slots[i].started:
                        # never started (playbench missing on a node, a class it cannot unpickle): no retry helps
                        totals.stopped = f"a Ray worker could not start: {_last_line(error)}"
                        return totals
                    else:  # not back yet (or the restart is still being noticed): look again shortly
                        pings[asyncio.create_task(_ping(slots[i].actor, PING_DELAY))] = i
                    continue
                i, job, attempt = running.pop(fut)
                slot = slots[i]
                slot.busy -= 1
                exc = fut.exception()
                if isinstance(exc, ray.exceptions.RayActorError):
                    if slot.up:  # the worker died: wait for Ray to restart it, play its episodes elsewhere
                        slot.up, slot.down_since = False, time.monotonic()
                        pings[asyncio.create_task(_ping(slot.actor, PING_DELAY))] = i
                    if attempt < MAX_ATTEMPTS:
                        pending.appendleft((job, attempt + 1))
                        totals.replayed += 1
                    else:
                        _record(store, job, _failed_record(job, run, str(exc).splitlines()[0]), [], {}, totals,
                                settings)
                    continue
                if exc is not None:  # our own code failed on the worker: a bug, not the episode's fault
                    totals.stopped = f"a Ray worker failed: {_last_line(exc)}"
                    return totals
                outcome = fut.result()
                if outcome[0] == "stop":
                    totals.stopped = outcome[1]
                    return totals
                _, record, steps, frames = outcome
                _record(store, job, record, steps, frames, totals, settings)
    except StoreWriteError as exc:
        totals.stopped = str(exc)
    finally:
        for left in [*running, *pings]:
            left.cancel()
        run.stats = await _close(slots)
    return totals


def _record(store: RunStore, job: EpisodeJob, record: EpisodeRecord, steps: list[StepRecord], frames: dict[int, Any],
            totals: RunTotals, settings: PoolSettings) -> None:
    """Write one episode the way the local runner does: frames, trajectory, then its line."""
    for step, image in sorted(frames.items()):
        store.write_frame(job.task.id, job.index, step, image)
    if steps:
        record.trajectory = store.write_trajectory(job.task.id, job.index, steps)
    store.append_episode(record)
    totals.episodes += 1
    totals.steps += record.steps
    totals.by_status[record.status] = totals.by_status.get(record.status, 0) + 1
    if settings.on_step is not None:
        for _ in range(record.steps):
            settings.on_step(job.task.id)
    if settings.on_episode is not None:
        settings.on_episode(record)


async def _close(slots: list[_Slot], timeout: float = 30.0) -> list[Any]:
    """Ask the live workers for their model counters, then end every worker."""
    import ray

    stats: list[Any] = []
    live = [asyncio.create_task(_wait(s.actor.close.remote())) for s in slots if s.up]
    if live:
        done, _ = await asyncio.wait(live, timeout=timeout)
        stats = [f.result() for f in done if f.exception() is None]
        for fut in live:
            fut.cancel()
    for slot in slots:
        try:
            ray.kill(slot.actor)
        except Exception:  # noqa: BLE001  (already gone)
            pass
    return stats

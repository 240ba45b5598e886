"""Turning a run config into the list of episodes still to run."""

from dataclasses import dataclass
from typing import Any

from playbench.core.records import EpisodeRecord, RunConfig
from playbench.core.registry import get_task
from playbench.core.task import Task
from playbench.runner.shard import Shard


@dataclass(frozen=True)
class EpisodeJob:
    """One scheduled episode: the task, its parameters, the index and its seed (given by ``--instances``, else derived).

    ``options``: the reset options ``--instances`` gives the episode besides its seed (None: none).
    """

    task: Task
    params: Any
    index: int
    seed: int
    options: dict[str, Any] | None = None


#: statuses a plain resume plays again: a fault outside both the agent and the game
RETRIED = frozenset({"infra-error"})
#: what ``retry_errors`` adds: faults that would most likely repeat, re-run only when asked
RETRIED_ON_REQUEST = frozenset({"agent-error", "game-error"})


def plan_jobs(
    config: RunConfig, done: dict[tuple[str, int], EpisodeRecord] | None = None, retry_errors: bool = False,
    shard: Shard | None = None,
) -> list[EpisodeJob]:
    """All episodes of the config not already finished (only those of ``shard``, when given).

    ``ok``, ``agent-error`` and ``game-error`` episodes count as finished (the last two run again only
    with ``retry_errors``); ``infra-error`` ones run again.
    """
    done = done or {}
    again = RETRIED | RETRIED_ON_REQUEST if retry_errors else RETRIED
    jobs: list[EpisodeJob] = []
    for spec in config.tasks:
        task = get_task(spec.id)
        params = task.params(spec.params)
        for index in range(spec.episodes):
            if shard is not None and not shard.holds(task.id, index):
                continue
            prior = done.get((task.id, index))
            if prior is not None and prior.status not in again:
                continue
            jobs.append(EpisodeJob(task, params, index, spec.seed_of(config.seed, index), spec.options_of(index)))
    return jobs

"""A Ray actor that plays episodes where it runs: its own games, agents and model (``--executor ray``).

One actor per CPU of the cluster; each plays several episodes at once on its event loop (its share of
the run's episodes in flight) and talks to the model with its share of the run's connections. It writes
nothing: each episode's record, steps and frames go back to the driver, the run's only writer.
"""

import os
from collections.abc import Callable
from typing import Any

from playbench.agents.base import Agent
from playbench.core.errors import StopRun
from playbench.core.png import png_bytes
from playbench.core.registry import get_task
from playbench.core.task import Task
from playbench.core.turns import take_turn
from playbench.log.paths import frame_path
from playbench.runner.outcome import build_agent, setup_fault
from playbench.runner.plan import EpisodeJob
from playbench.runner.runner import play_episode

#: builds (agent factory, model or None) for worker ``worker`` of ``workers`` (``api.workers.WorkerKit``)
Kit = Callable[[int, int], tuple[Callable[[], Agent], Any]]


class EpisodeWorker:
    """Plays the episodes the driver sends (use through Ray: ``remote_worker()``)."""

    def __init__(self, kit: Kit, worker: int, workers: int, tasks: list[tuple[str, dict[str, Any]]],
                 agent_name: str, model_name: str | None) -> None:
        self._agent_name = agent_name
        self._model_name = model_name
        self._model: Any = None
        self._tasks: dict[str, tuple[Task, Any]] = {}
        self._broken: str | None = None
        try:
            self._make_agent, self._model = kit(worker, workers)
            for task_id, params in tasks:
                task = get_task(task_id)
                self._tasks[task_id] = (task, task.params(params))
        except Exception as exc:  # a missing API key or engine on this node: the driver stops the run with it
            self._broken = setup_fault(exc)

    async def ready(self) -> int | str:
        """The worker's pid once it is built, or why it could not be built (the driver waits for this)."""
        return self._broken if self._broken is not None else os.getpid()

    async def play(self, task_id: str, index: int, seed: int, options: dict[str, Any] | None = None) -> tuple[Any, ...]:
        """Play one episode: ``("done", record, steps, frames)`` or ``("stop", reason)`` for a run-wide fault.

        ``options``: the reset options ``--instances`` gave the episode (None: none).
        """
        task, params = self._tasks[task_id]
        job = EpisodeJob(task, params, index, seed, options)
        frames: dict[int, bytes] = {}

        def save_frame(step: int, image: Any) -> str:
            frames[step] = png_bytes(image)  # encoded here, by the Pillow that encoded the request's image
            return frame_path(task_id, index, step)

        await take_turn()
        agent = build_agent(self._make_agent)
        try:
            record, steps = await play_episode(job, agent, self._agent_name, self._model_name, None, save_frame)
        except StopRun as exc:
            return ("stop", str(exc))
        return ("done", record, steps, frames)

    async def close(self) -> Any:
        """Close the model's connections; returns its counters (None without a model)."""
        if self._model is None:
            return None
        await self._model.aclose()
        return self._model.stats


def remote_worker() -> Any:
    """``EpisodeWorker`` as a Ray actor class."""
    import ray

    return ray.remote(EpisodeWorker)

"""Building a run's agent and model: in this process (the local runner) or on a worker of a cluster.

A worker of a distributed run gets a ``WorkerKit`` (picklable: the config, the settings and, for a custom
agent, its factory) and builds its own model and agents where it runs, with its share of the run's
connections and, when several servers are given, its own server.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from playbench.agents.base import Agent
from playbench.core.errors import PlaybenchError
from playbench.core.records import RunConfig, RunSettings
from playbench.core.registry import get_task
from playbench.models.redact import mask_url


def base_urls(value: str | None) -> list[str]:
    """The servers a ``--base-url`` value names: one URL, or several separated by commas."""
    if not value:
        return []
    urls = [part.strip() for part in value.split(",")]
    if any(not url for url in urls):
        raise PlaybenchError(f"--base-url has an empty entry: {mask_url(value)!r}")
    return urls


def share(total: int, workers: int) -> int:
    """One worker's share of a budget of ``total`` (connections, episodes in flight): ceil(total / workers)."""
    return max(1, -(-total // max(1, workers)))


def worker_settings(settings: RunSettings, worker: int, workers: int) -> RunSettings:
    """The settings worker ``worker`` (0-based) of ``workers`` runs with.

    It gets ``ceil(max_connections / workers)`` connections, and, when ``base_url`` lists several servers,
    server ``worker mod len(list)`` of the list.
    """
    urls = base_urls(settings.base_url)
    return settings.model_copy(update={"max_connections": share(settings.max_connections, workers),
                                       "base_url": urls[worker % len(urls)] if urls else None})


def registered_agent(config: RunConfig, model: Callable[[], Any]) -> Callable[[], Agent]:
    """A factory of the config's registered agent, built with its recorded parameters and the run's model."""
    from playbench.agents.registry import get_agent

    spec = get_agent(config.agent)
    aparams = spec.params(config.agent_params)
    if config.model:
        from playbench.agents.strategies import preflight

        preflight(config.agent, aparams, [get_task(t.id) for t in config.tasks])
    return lambda: spec.factory(aparams, model())


def create_model(config: RunConfig, settings: RunSettings) -> Any:
    """The config's model with the connection part of ``settings`` (``base_url`` one URL or None)."""
    from playbench.models import ModelSettings, create_model

    assert config.model is not None
    return create_model(config.model, config.model_params, ModelSettings.of(settings))


@dataclass(frozen=True)
class WorkerKit:
    """What a worker needs to build its agents and model where it runs (sent to it pickled)."""

    config: RunConfig
    settings: RunSettings
    custom: Callable[[], Agent] | None = None  # the caller's own agent factory, if any

    def __call__(self, worker: int, workers: int) -> tuple[Callable[[], Agent], Any]:
        """The agent factory and the model (None without one) of worker ``worker`` of ``workers``."""
        if self.custom is not None:
            return self.custom, None
        model = create_model(self.config, worker_settings(self.settings, worker, workers)) if self.config.model else None
        return registered_agent(self.config, lambda: model), model


def add_stats(total: Any, more: Any) -> Any:
    """Add one worker's model counters (``ModelStats``) into ``total`` (created when None)."""
    if more is None:
        return total
    if total is None:
        from playbench.models.model import ModelStats

        total = ModelStats()
    for name in ("calls", "answers", "attempts", "cache_hits", "gave_up", "input_tokens", "output_tokens"):
        setattr(total, name, getattr(total, name) + getattr(more, name))
    total.faults.update(more.faults)
    return total

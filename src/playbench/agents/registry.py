"""Agent names -> factories. Reference agents need no model; model agents get one."""

import difflib
from dataclasses import dataclass
from typing import Any, Protocol

from playbench.agents.base import Agent
from playbench.core.errors import PlaybenchError
from playbench.core.params import NoParams, Params, build_params


class AgentFactory(Protocol):
    """``factory(params, model)``: a callable protocol (not ``Callable``) so mypy types the registering lambdas."""

    def __call__(self, params: Any, model: Any, /) -> Agent:
        """A fresh agent for one episode."""
        ...


@dataclass(frozen=True)
class AgentSpec:
    """How to build an agent: ``factory(params, model)`` gives a fresh agent for one episode."""

    name: str
    description: str
    factory: AgentFactory
    params_model: type[Params] = NoParams
    needs_model: bool = False
    reference: bool = False  # plays through the game's own reference policy of the same name

    def params(self, values: dict[str, Any]) -> Params:
        """Validated agent parameters (``-A key=value``)."""
        return build_params(self.params_model, values, f"agent {self.name}")


_AGENTS: dict[str, AgentSpec] = {}


def register_agent(spec: AgentSpec) -> AgentSpec:
    """Make an agent available by name."""
    _AGENTS[spec.name] = spec
    return spec


def _load() -> None:
    import playbench.agents.human  # noqa: F401  (registers the human agent)
    import playbench.agents.reference  # noqa: F401  (registers the reference agents)

    try:
        import playbench.agents.strategies  # noqa: F401  (registers the model agents)
    except ModuleNotFoundError as exc:
        if exc.name != "playbench.agents.strategies":
            raise


def list_agents() -> list[AgentSpec]:
    """All agents, sorted by name."""
    _load()
    return [_AGENTS[k] for k in sorted(_AGENTS)]


def get_agent(name: str) -> AgentSpec:
    """The agent registered under ``name``; unknown names are a PlaybenchError with suggestions."""
    _load()
    if name in _AGENTS:
        return _AGENTS[name]
    close = difflib.get_close_matches(name, list(_AGENTS), n=3, cutoff=0.5)
    hint = f"did you mean {', '.join(close)}?" if close else "known agents: " + ", ".join(sorted(_AGENTS))
    raise PlaybenchError(f"unknown agent {name!r}; {hint}")

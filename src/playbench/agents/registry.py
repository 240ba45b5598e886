"""Agent names -> how to build them: one row per agent, declared in ``AGENTS`` and read by this registry.

A row names its agent's factory and parameter declaration as ``"package.module:NAME"`` (as a suite names its
hooks), imported when an agent is first built: listing agents imports no agent module, and no agent module
registers itself when imported. Agents declared outside playbench are rows too: the ``AGENTS`` of each module
named in ``PLAYBENCH_AGENTS`` (comma-separated), read as the suites of ``PLAYBENCH_SUITES`` are.
"""

import difflib
import functools
import importlib
import os
from dataclasses import dataclass
from typing import Any, Protocol, cast

from playbench.agents.base import Agent
from playbench.core.errors import PlaybenchError
from playbench.core.params import NoParams, Params, build_params
from playbench.core.suite import load_hook

#: Environment variable naming extra agent modules (comma-separated), each exposing ``AGENTS``.
EXTRA_AGENTS_ENV = "PLAYBENCH_AGENTS"


class AgentFactory(Protocol):
    """What a row's ``factory`` names: ``factory(params, model)``, or ``factory(policy)`` for a reference agent."""

    def __call__(self, *args: Any) -> Agent:
        """A fresh agent for one episode."""
        ...


@dataclass(frozen=True)
class AgentSpec:
    """One agent: its name, what it does, and where its factory and parameters are declared.

    ``factory`` names a callable (a class works): a reference agent's is called with the agent's name, the
    game policy it plays (``reference``); any other's with its validated parameters and the run's model (None
    unless ``needs_model``). ``params_model`` names its ``-A`` parameter declaration (None: no parameters).
    """

    name: str
    description: str
    factory_name: str
    params_model: str | None = None
    needs_model: bool = False
    reference: bool = False  # plays through the game's own reference policy of the same name

    def factory(self, params: Any, model: Any) -> Agent:
        """A fresh agent for one episode."""
        build = self._build
        return build(self.name) if self.reference else build(params, model)

    @functools.cached_property
    def _build(self) -> AgentFactory:
        """The factory the row names, looked up once (an agent is built for every episode)."""
        make = load_hook(self.factory_name)
        if not callable(make):
            raise PlaybenchError(f"agent {self.name}: {self.factory_name!r} is a {type(make).__name__}, not a factory")
        return cast(AgentFactory, make)

    def params(self, values: dict[str, Any]) -> Params:
        """Validated agent parameters (``-A key=value``)."""
        return build_params(self.declaration(), values, f"agent {self.name}")

    def declaration(self) -> type[Params]:
        """The agent's parameter declaration (``NoParams`` when it has none)."""
        if self.params_model is None:
            return NoParams
        model = load_hook(self.params_model)
        if not (isinstance(model, type) and issubclass(model, Params)):
            raise PlaybenchError(f"agent {self.name}: {self.params_model!r} is not a playbench.core.params.Params")
        return model


_REFERENCE = "playbench.agents.reference:ReferenceAgent"
_STRATEGIES = "playbench.agents.strategies"

#: The built-in agents, one row each.
AGENTS = (
    AgentSpec("random", "uniform over the legal actions (or the suite's random baseline), seeded from the episode",
              _REFERENCE, reference=True),
    AgentSpec("oracle", "the game's optimal or scripted full-information policy", _REFERENCE, reference=True),
    AgentSpec("greedy", "the suite's greedy baseline (GRASP)", _REFERENCE, reference=True),
    AgentSpec("optimal", "a provably optimal plan (GRASP)", _REFERENCE, reference=True),
    AgentSpec("human", "a person at the terminal (playbench play)", "playbench.agents.human:human_agent"),
    AgentSpec("naive", "BALROG naive: the answer must be one action", "playbench.agents.balrog_style:BalrogAgent",
              f"{_STRATEGIES}:StrategyParams", needs_model=True),
    AgentSpec("cot", "BALROG chain of thought: reason, then 'ACTION: …'", "playbench.agents.balrog_style:CotAgent",
              f"{_STRATEGIES}:StrategyParams", needs_model=True),
    AgentSpec("robust-naive", "BALROG robust naive: answer as <|ACTION|>…<|END|>",
              "playbench.agents.balrog_style:RobustNaiveAgent", f"{_STRATEGIES}:StrategyParams", needs_model=True),
    AgentSpec("robust-cot", "BALROG robust chain of thought: reason, then <|ACTION|>…<|END|>",
              "playbench.agents.balrog_style:RobustCotAgent", f"{_STRATEGIES}:StrategyParams", needs_model=True),
    AgentSpec("custom", "BALROG planning agent: keeps and revises a PLAN", "playbench.agents.balrog_style:CustomAgent",
              f"{_STRATEGIES}:StrategyParams", needs_model=True),
    AgentSpec("few-shot", "BALROG few-shot: demonstrations from a run (-A demos=PATH)",
              "playbench.agents.balrog_style:FewShotAgent", f"{_STRATEGIES}:FewShotParams", needs_model=True),
    AgentSpec("two-stage", "SmartPlay two-stage: think, then name the action", "playbench.agents.two_stage:TwoStageAgent",
              f"{_STRATEGIES}:TwoStageParams", needs_model=True),
)


def _rows_of(module_name: str) -> tuple[AgentSpec, ...]:
    """The ``AGENTS`` rows of a module named in ``PLAYBENCH_AGENTS``."""
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            raise PlaybenchError(f"{EXTRA_AGENTS_ENV}: no module {module_name!r}") from None
        raise
    rows = getattr(module, "AGENTS", None)
    if not isinstance(rows, tuple | list) or not all(isinstance(row, AgentSpec) for row in rows):
        raise PlaybenchError(f"agent module {module_name!r} has no AGENTS (a tuple of playbench.agents.registry.AgentSpec)")
    return tuple(rows)


def _declared() -> dict[str, AgentSpec]:
    """Every row: the built-in ones, then those of the modules named in ``PLAYBENCH_AGENTS``; a name once only."""
    extra = [name.strip() for name in os.environ.get(EXTRA_AGENTS_ENV, "").split(",") if name.strip()]
    out: dict[str, AgentSpec] = {}
    for row in AGENTS + tuple(row for name in extra for row in _rows_of(name)):
        if row.name in out:
            raise PlaybenchError(f"agent {row.name!r} is declared twice")
        out[row.name] = row
    return out


def list_agents() -> list[AgentSpec]:
    """All agents, sorted by name."""
    agents = _declared()
    return [agents[k] for k in sorted(agents)]


def get_agent(name: str) -> AgentSpec:
    """The agent declared under ``name``; unknown names are a PlaybenchError with suggestions."""
    agents = _declared()
    if name in agents:
        return agents[name]
    close = difflib.get_close_matches(name, list(agents), n=3, cutoff=0.5)
    hint = f"did you mean {', '.join(close)}?" if close else "known agents: " + ", ".join(sorted(agents))
    raise PlaybenchError(f"unknown agent {name!r}; {hint}")

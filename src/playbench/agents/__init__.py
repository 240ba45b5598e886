"""Agents: turn the manual and the history into the next action."""

from playbench.agents.base import Agent, Decision, EpisodeContext, Turn
from playbench.agents.registry import AgentSpec, get_agent, list_agents

__all__ = ["Agent", "AgentSpec", "Decision", "EpisodeContext", "Turn", "get_agent", "list_agents"]

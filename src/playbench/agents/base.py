"""The Agent contract. Agents are async so model calls can overlap across episodes."""

from dataclasses import dataclass, field
from typing import Any, Protocol

from playbench.core.game import Game


@dataclass
class EpisodeContext:
    """What an agent learns when an episode starts."""

    task_id: str
    index: int
    seed: int
    manual: str
    game: Game  # the unwrapped game: only reference agents may look at its state
    one_step: bool = False


@dataclass
class Turn:
    """One decision point: the current observation and what may be done."""

    step: int
    observation: str
    info: dict[str, Any]
    legal_actions: list[str] | None


@dataclass
class Decision:
    """An agent's answer for one turn.

    ``action`` is the legal action the output named (``None`` when it named none: an invalid
    action, for which the runner executes the game's default action). For free-text games the
    action is the whole answer.
    """

    raw: str
    action: str | None
    messages: list[dict[str, Any]] | None = None
    usage: dict[str, int] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class Agent(Protocol):
    """An agent plays one episode at a time: ``start`` then ``act`` until the game ends."""

    async def start(self, ctx: EpisodeContext) -> None:
        """Prepare for a new episode."""
        ...

    async def act(self, turn: Turn) -> Decision:
        """Choose the next action."""
        ...

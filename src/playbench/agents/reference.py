"""Reference agents: they play through the game's own policies and need no model."""

import numpy as np

from playbench.agents.base import Decision, EpisodeContext, Turn
from playbench.core.game import Game
from playbench.core.seeding import derive_seed


class ReferenceAgent:
    """Asks the game for the next action of a named policy (``random``, ``oracle``, ``greedy`` ...).

    The random policy is seeded from the episode seed, so a run is reproducible.
    """

    def __init__(self, policy: str) -> None:
        self.policy = policy
        self._game: Game | None = None
        self._rng = np.random.default_rng(0)

    async def start(self, ctx: EpisodeContext) -> None:
        """Remember the game and seed the policy's generator from the episode."""
        self._game = ctx.game
        self._rng = np.random.default_rng(derive_seed("agent", self.policy, ctx.seed))

    async def act(self, turn: Turn) -> Decision:
        """The policy's next action, always a legal one."""
        assert self._game is not None, "start() must be called first"
        action = self._game.reference_action(self.policy, self._rng)
        return Decision(raw=action, action=action)

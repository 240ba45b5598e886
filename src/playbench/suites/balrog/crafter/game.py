"""BALROG's Crafter game (``balrog/crafter/<name>``) over the shared engine in ``suites/crafter``."""

from typing import Any

import numpy as np

from playbench.suites.balrog import facts
from playbench.suites.balrog.crafter.params import BalrogCrafterParams
from playbench.suites.balrog.facts import BalrogTask
from playbench.suites.balrog.game import BalrogGame, Frame
from playbench.suites.crafter import describe
from playbench.suites.crafter.engine import ACHIEVEMENTS, CrafterEngine
from playbench.suites.crafter.games import _CrafterMixin
from playbench.suites.crafter.prompts import ACTIONS, balrog_instruction_prompt


class BalrogCrafter(_CrafterMixin, BalrogGame):
    """BALROG's Crafter on BALROG's episode protocol (:class:`~playbench.suites.balrog.game.BalrogGame`).

    The observation is the long-term context (status line and map text); ``info["short_term_context"]``
    holds vitals and inventory. Progression = achievements unlocked / 22; the row's step limit (2,000 for
    ``default``); default ``Noop``. Each frame is rendered twice, as BALROG's wrapper does (crafter's step,
    then ``process_obs``): at night the world's generator gives two noise draws a step, in both modes.
    """

    env_name = "crafter"
    reference_policies = ("random", "oracle")
    #: ``world``: the seed of the world to play, ``crafter.Env(seed=world)``'s first, instead of the episode seed
    #: (``--instances``: the world BALROG's worker drew for a leaderboard row's episode)
    option_names = frozenset({"world"})

    def __init__(self, params: BalrogCrafterParams, row: BalrogTask) -> None:
        """``row``: the task's facts row (its step limit)."""
        super().__init__(row, images=params.images, feedback=params.feedback, max_steps=params.max_steps)
        self.params = params
        self.engine = CrafterEngine(size=(256, 256), render_images=params.images, seed=0)
        self.manual = balrog_instruction_prompt()
        self.episode_seed = 0
        self._oracle = None

    def legal_actions(self) -> list[str]:
        """The 17 action strings (exact, case-sensitive)."""
        return list(ACTIONS)

    @property
    def default_action(self) -> str:
        """BALROG's fallback action for Crafter."""
        return str(facts.env("crafter").default_action)

    def _observe(self) -> Frame:
        win = describe.window(self.engine)
        image = self.engine.last_image if self.images else None
        return Frame(describe.balrog_long_term(win), describe.balrog_short_term(win), image)

    def _engine_reset(self, seed: int) -> tuple[Frame, str]:
        world = self.options["world"] if "world" in self.options else self.next_seed(seed)  # B1b fixed: the seed's
        if isinstance(world, bool) or not isinstance(world, int) or not 0 <= world < 2**32:
            raise ValueError(f"{self.row.id}: the reset option world is a seed 0..2**32-1")
        self._new_episode(world)
        self.engine.render_again()  # BALROG's reset shows the noop step's frame through process_obs too
        return self._observe(), balrog_instruction_prompt()

    def _engine_step(self, action: str) -> tuple[Frame, float, bool, bool]:
        _, reward, done, _ = self.engine.step(ACTIONS.index(action))
        # BALROG's process_obs renders the frame again (the image it shows): at night a second noise draw
        self.engine.render_again()
        dead = self.engine.player.health <= 0
        return self._observe(), float(reward), dead, bool(done) and not dead

    def _unlocked(self) -> list[str]:
        return self.engine.unlocked() if self.engine.player is not None else []

    def progression(self) -> float:
        """Achievements unlocked out of 22."""
        return len(self._unlocked()) / len(ACHIEVEMENTS)

    def won(self) -> bool:
        """All 22 achievements unlocked."""
        return len(self._unlocked()) == len(ACHIEVEMENTS)

    def stats(self) -> dict[str, Any]:
        """BALROG's ``get_stats()`` for Crafter: the count and the per-achievement counts."""
        counts = {a: int(self.engine.player.achievements.get(a, 0)) for a in ACHIEVEMENTS} if self.engine.player else {}
        unlocked = self._unlocked()
        return {"score": len(unlocked), "achievements_unlocked": len(unlocked), "achievements": unlocked,
                "achievement_counts": counts}

    def instance(self) -> dict[str, Any]:
        """Episode and world seeds."""
        return self._instance(max_steps=self.max_steps, images=self.images)

    def reference_action(self, policy: str, rng: np.random.Generator) -> str:
        """``random`` over the 17 actions, or the scripted ``oracle``."""
        return self._policy_action(policy, rng) or super().reference_action(policy, rng)

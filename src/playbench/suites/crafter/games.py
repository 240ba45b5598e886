"""The two Crafter games over one engine: SmartPlay's ``smartplay/crafter`` and BALROG's ``balrog/crafter/default``.

Both run the reproducible :class:`~playbench.suites.crafter.engine.CrafterEngine` seeded with the episode
seed (world seed ``hash((seed, 1)) % (2**31 - 1)``, SmartPlay §5.5.1 and BALROG B1b fixed), both take
crafter's hidden ``noop`` tick at reset, and they differ only in the text they show and what they score.
"""

from typing import Any

import numpy as np

from playbench.suites.balrog.game import BalrogGame, Frame
from playbench.suites.balrog.protocol import DEFAULT_ACTIONS, STEP_LIMITS
from playbench.suites.crafter import describe
from playbench.suites.crafter.engine import ACHIEVEMENTS, ACTION_NAMES, CrafterEngine
from playbench.suites.crafter.oracle import OraclePolicy
from playbench.suites.crafter.params import BalrogCrafterParams, SmartPlayCrafterParams
from playbench.suites.crafter.prompts import ACTIONS, balrog_instruction_prompt, smartplay_manual
from playbench.suites.smartplay.base import SmartPlayGame


def world_seed(seed: int) -> int:
    """Crafter's world seed for the first reset of ``crafter.Env(seed=seed)``."""
    return hash((int(seed), 1)) % (2**31 - 1)


class _CrafterMixin:
    """Engine ownership, reference policies and instance data shared by both games."""

    engine: CrafterEngine
    episode_seed: int
    _oracle: OraclePolicy | None

    def _new_episode(self, seed: int) -> None:
        self.episode_seed = seed
        self.engine.reset_seed(seed)
        self._oracle = None
        self.engine.step(0)  # both originals take one hidden noop tick at reset

    def _policy_action(self, policy: str, rng: np.random.Generator) -> str | None:
        if policy == "oracle":
            if self._oracle is None:
                self._oracle = OraclePolicy()
            return ACTIONS[self._oracle.act(self.engine, rng)]
        return None

    def _instance(self, **extra: Any) -> dict[str, Any]:
        return {"seed": self.episode_seed, "world_seed": world_seed(self.episode_seed), "area": [64, 64], **extra}


# -- SmartPlay --------------------------------------------------------------------------------


class SmartPlayCrafter(_CrafterMixin, SmartPlayGame):
    """SmartPlay's Crafter (smartplay.md §5.5): 10,000 steps, history 2, score = running sum of unlocked."""

    default_steps = 10000
    default_history = 2
    actions = list(ACTIONS)
    reference_policies = ("random", "oracle")

    def __init__(self, params: SmartPlayCrafterParams) -> None:
        super().__init__(params)
        self.images = params.images
        self.engine = CrafterEngine(size=(64, 64), render_images=self.images, seed=0)
        self.manual = smartplay_manual()
        self.episode_seed = 0
        self._oracle = None
        self._return = 0.0
        self._over = False

    def _frame(self, action: str | None) -> str:
        return describe.smartplay_frame(describe.window(self.engine), action, self.compat)

    def _reset(self) -> str:
        # the episode's world is crafter.Env(seed=episode seed)'s first world
        self._new_episode(self.episode_seed)
        self._return, self._over = 0.0, False
        if self.compat:  # the hidden tick's frame is history step 0 (B13)
            self.tracker.add(self._frame("noop"))
        self.score = float(len(self.engine.unlocked()))
        return self._frame(None)

    def _step(self, index: int) -> tuple[str, float, bool, dict[str, Any]]:
        _, reward, done, _ = self.engine.step(index)
        self._return += float(reward)
        self.score += len(self.engine.unlocked())
        dead = self.engine.player.health <= 0
        self._over = bool(done) and not dead
        extra = {"image": self.engine.last_image} if self.images else {}
        return self._frame(ACTION_NAMES[index]), float(reward), bool(done), extra

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """One action; crafter's own length limit is reported as truncation, death as termination."""
        obs, reward, terminated, truncated, info = super().step(action)
        if self._over:
            terminated, truncated = False, True
        return obs, reward, terminated, truncated, info

    def _info(self, obs: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
        if self.images and not extra:
            extra = {"image": self.engine.last_image}
        return super()._info(obs, extra)

    @property
    def progress(self) -> float:
        """Achievements unlocked out of 22."""
        return len(self.engine.unlocked()) / len(ACHIEVEMENTS) if self.engine.player is not None else 0.0

    def _metrics(self) -> dict[str, Any]:
        unlocked = self.engine.unlocked() if self.engine.player is not None else []
        return {
            "achievements_unlocked": len(unlocked),
            "achievements": unlocked,
            "return": round(self._return, 6),
            "smartplay_score": self.score,
            "length_dependent_score": True,  # B6: the SmartPlay score grows with episode length
        }

    def instance(self) -> dict[str, Any]:
        """Episode and world seeds."""
        return self._instance(history=self.tracker.max_steps, compat=self.compat)

    def reference_action(self, policy: str, rng: np.random.Generator) -> str:
        """``random`` over the 17 actions, or the scripted ``oracle``."""
        return self._policy_action(policy, rng) or super().reference_action(policy, rng)


# -- BALROG ---------------------------------------------------------------------------------

class BalrogCrafter(_CrafterMixin, BalrogGame):
    """BALROG's Crafter on BALROG's episode protocol (:class:`~playbench.suites.balrog.game.BalrogGame`).

    The observation is the long-term context (status line and map text); ``info["short_term_context"]``
    holds vitals and inventory. Progression = achievements unlocked / 22; 2,000 steps; default ``Noop``.
    """

    env_name = "crafter"
    reference_policies = ("random", "oracle")

    def __init__(self, params: BalrogCrafterParams) -> None:
        super().__init__(images=params.images, feedback=params.feedback, max_steps=params.max_steps)
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
        return str(DEFAULT_ACTIONS["crafter"])

    def _observe(self) -> Frame:
        win = describe.window(self.engine)
        image = self.engine.last_image if self.images else None
        return Frame(describe.balrog_long_term(win), describe.balrog_short_term(win), image)

    def _engine_reset(self, seed: int) -> tuple[Frame, str, int]:
        self._new_episode(self.next_seed(seed))  # crafter.Env(seed=episode seed): B1b fixed
        return self._observe(), balrog_instruction_prompt(), STEP_LIMITS["crafter"]

    def _engine_step(self, action: str) -> tuple[Frame, float, bool, bool]:
        _, reward, done, _ = self.engine.step(ACTIONS.index(action))
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

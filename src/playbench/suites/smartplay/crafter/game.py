"""SmartPlay's Crafter game (``smartplay/crafter``) over the shared engine in ``suites/crafter``."""

from typing import Any

import numpy as np

from playbench.suites.crafter import describe
from playbench.suites.crafter.engine import ACHIEVEMENTS, ACTION_NAMES, CrafterEngine
from playbench.suites.crafter.games import _CrafterMixin
from playbench.suites.crafter.prompts import ACTIONS, smartplay_manual
from playbench.suites.smartplay.base import SmartPlayGame
from playbench.suites.smartplay.crafter.params import SmartPlayCrafterParams
from playbench.suites.smartplay.facts import SmartPlayTask


class SmartPlayCrafter(_CrafterMixin, SmartPlayGame):
    """SmartPlay's Crafter (smartplay.md §5.5): 10,000 steps, history 2, score = running sum of unlocked."""

    actions = list(ACTIONS)
    reference_policies = ("random", "oracle")

    def __init__(self, params: SmartPlayCrafterParams, row: SmartPlayTask) -> None:
        super().__init__(params, row)
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
        return self._instance(history=self.tracker.history, compat=self.compat)

    def reference_action(self, policy: str, rng: np.random.Generator) -> str:
        """``random`` over the 17 actions, or the scripted ``oracle``."""
        return self._policy_action(policy, rng) or super().reference_action(policy, rng)

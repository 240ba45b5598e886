"""Two-armed bandits (SmartPlay §5.1)."""

from typing import Any

import numpy as np

from playbench.suites.smartplay.base import SmartPlayGame, action_list_text
from playbench.suites.smartplay.facts import SmartPlayTask
from playbench.suites.smartplay.params import SmartPlayParams

VARIANTS: dict[str, tuple[float, float]] = {
    "deterministic": (1.0, 0.0),
    "highhigh": (0.8, 0.9),
    "highlow": (0.8, 0.2),
    "lowlow": (0.1, 0.2),
}
ACTIONS = ["Pull slot machine 1.", "Pull slot machine 2."]
MANUAL = (
    "You are in the casino with 2 slot machines in front of you. "
    "Your goal is to try to earn the most from those slot machines.\n\n" + action_list_text(ACTIONS)
)


class BanditGame(SmartPlayGame):
    """Pull one of two arms; reward 1 with the arm's probability, else -1. Score = optimal pulls."""

    actions = ACTIONS
    reference_policies = ("random", "oracle")

    def __init__(self, params: SmartPlayParams, row: SmartPlayTask) -> None:
        super().__init__(params, row)
        self.variant = str(row.variant)
        self.base_p = np.array(VARIANTS[self.variant])
        self.manual = MANUAL
        self.p = self.base_p.copy()
        self.r = np.ones(2)
        self.optimal = 0

    def _reset(self) -> str:
        order = self.rng.permutation(2)
        self.p, self.r = self.base_p[order], np.ones(2)[order]
        self.optimal = int(np.argmax(self.p * self.r - (1 - self.p)))
        self.optimal_pulls = 0
        return "A new round begins."

    def _step(self, index: int) -> tuple[str, float, bool, dict[str, Any]]:
        reward = int(self.r[index]) if self.rng.random() < self.p[index] else -1
        if index == self.optimal:
            self.score += 1
        return f"You pulled slot machine {index + 1}, you received reward {reward}.", reward, False, {
            "optimal": self.optimal}

    @property
    def progress(self) -> float:
        """Share of the rollout spent on the best arm so far."""
        return self.score / self.max_steps

    def instance(self) -> dict[str, Any]:
        """The arm order drawn for this episode."""
        return {"variant": self.variant, "p": [float(x) for x in self.p], "optimal_arm": self.optimal + 1}

    def reference_action(self, policy: str, rng: np.random.Generator) -> str:
        """``oracle`` always pulls the best arm."""
        if policy == "oracle":
            return ACTIONS[self.optimal]
        return super().reference_action(policy, rng)

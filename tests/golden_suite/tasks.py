"""The ``golden`` suite: walk a line to a target drawn from the seed.

Its records fill every field a record kind has: a score, completion and progress, rewards with long decimal
expansions, an invalid action, the suite's own metrics (numbers, text, a list, a nested object) and a
seeded instance. Its manual numbers the actions, so the mock model picks one.
"""

from typing import Any

import numpy as np

from playbench.core.game import Game
from playbench.core.suite import Suite
from playbench.core.task import Task

ACTIONS = ["left", "right", "stay"]
MANUAL = ("You stand on a line of 4 cells; a target cell is hidden. Each turn, move or stay; the reward says how "
          "close you are.\nList of all actions:\n" + "\n".join(f"{i + 1}. {a}" for i, a in enumerate(ACTIONS)))


class WalkGame(Game):
    """Find the target cell in at most ``max_steps`` steps; the score is the number of steps spent on it."""

    max_steps = 6

    def legal_actions(self) -> list[str]:
        """No step into the walls at either end (the manual lists every action: a model may try one)."""
        return [a for a in ACTIONS if (a, self.position) not in (("left", 0), ("right", 3))]

    @property
    def progress(self) -> float:
        return self.t / self.max_steps

    def _info(self, obs: str) -> dict[str, Any]:
        self._last_obs = obs
        return {"manual": MANUAL, "obs": obs, "history": "", "score": self.hits, "completed": int(self.hits > 0),
                "progress": self.progress, "invalid_actions": self.invalid_actions,
                "metrics": {"hits": self.hits, "path": list(self.path), "moved": self.moved,
                            "closeness": {"mean": float(np.mean(self.closeness)) if self.closeness else 0.0}}}

    def _obs(self) -> str:
        return f"You are on cell {self.position} of 0..3. Step {self.t} of {self.max_steps}."

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        rng = np.random.default_rng(self.next_seed(seed))
        self.target, self.position = (int(x) for x in rng.integers(0, 4, size=2))
        self.t = self.hits = self.invalid_actions = 0
        self.path, self.closeness, self.moved = [self.position], [], ""
        return self._obs(), self._info(self._obs())

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        played = self.moved = self.legal_or_default(action)
        self.position = min(3, max(0, self.position + {"left": -1, "right": 1, "stay": 0}[played]))
        self.t += 1
        self.path.append(self.position)
        closeness = 1 / (1 + abs(self.position - self.target)) / 3  # a float that prints long
        self.closeness.append(closeness)
        self.hits += self.position == self.target
        return self._obs(), closeness, False, self.t >= self.max_steps, self._info(self._obs())

    def instance(self) -> dict[str, Any]:
        return {"target": self.target, "start": self.path[0]}


TASK = Task(id="golden/walk", description="walk a line to a hidden cell", make_game=lambda params, index: WalkGame(),
            default_episodes=3, max_steps=WalkGame.max_steps)

SUITE = Suite(name="golden", tasks=(TASK,))

"""What every SmartPlay game shares: manual, history, rollout limit, score and completion in ``info``."""

from typing import Any

import numpy as np

from playbench.core.game import Game
from playbench.suites.smartplay.facts import SmartPlayTask
from playbench.suites.smartplay.history import HistoryTracker
from playbench.suites.smartplay.params import SmartPlayParams


class SmartPlayGame(Game):
    """A SmartPlay game: subclasses implement ``_reset``, ``_step`` and the manual."""

    actions: list[str] = []

    def __init__(self, params: SmartPlayParams, row: SmartPlayTask) -> None:
        """``row``: the task's facts row (its variant, step limit and history); parameters may set others."""
        super().__init__()
        self.params = params
        self.row = row
        self.compat = params.compat
        self.max_steps: int = params.max_steps or row.max_steps
        self.tracker = HistoryTracker(params.history or row.history)
        self.score = 0.0
        self.completed = 0
        self.t = 0
        self.episode_seed = 0
        self._rng: np.random.Generator | None = None

    @property
    def rng(self) -> np.random.Generator:
        """The episode's generator, from its seed: made on first use (only some games draw; 0.7 KB an episode)."""
        if self._rng is None:
            self._rng = np.random.default_rng(self.episode_seed)
        return self._rng

    @rng.setter
    def rng(self, generator: np.random.Generator) -> None:
        self._rng = generator

    def legal_actions(self) -> list[str]:
        """SmartPlay games always accept every action in their list."""
        return list(self.actions)

    # -- subclass hooks ---------------------------------------------------------------------

    def _reset(self) -> str:
        raise NotImplementedError

    def _step(self, index: int) -> tuple[str, float, bool, dict[str, Any]]:
        raise NotImplementedError

    def _metrics(self) -> dict[str, Any]:
        return {}

    # -- gymnasium ---------------------------------------------------------------------------

    def _info(self, obs: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
        info = {
            "obs": obs,
            "manual": self.manual,
            "history": self.tracker.text(),
            "score": self.score,
            "completed": self.completed,
            "progress": self.progress,
            "metrics": self._metrics(),
            "invalid_actions": self.invalid_actions,
        }
        info.update(extra or {})
        self.tracker.add(obs)
        self._last_obs = obs
        return info

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """Start an episode; all randomness comes from ``seed``."""
        super().reset(seed=seed)
        self.episode_seed = self.next_seed(seed)
        self._rng = None  # made from the episode seed by the games that draw (``rng``)
        self.tracker.reset()
        self.score, self.completed, self.t, self._done = 0.0, 0, 0, False
        self.invalid_actions = 0
        obs = self._reset()
        return obs, self._info(obs)

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Play one action; one not in ``legal_actions()`` plays the default action and counts as invalid."""
        if self._done:
            raise RuntimeError("step() called after the episode ended; call reset()")
        index = self.actions.index(self.legal_or_default(action))
        obs, reward, terminated, extra = self._step(index)
        self.t += 1
        truncated = not terminated and self.t >= self.max_steps
        self._done = terminated or truncated
        return obs, float(reward), terminated, truncated, self._info(obs, extra)


def action_list_text(actions: list[str]) -> str:
    """SmartPlay's ``List of all actions:`` block (no trailing newline)."""
    return "List of all actions:\n" + "\n".join(f"{i + 1}. {a}" for i, a in enumerate(actions))

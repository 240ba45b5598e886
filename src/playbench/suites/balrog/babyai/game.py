"""BabyAI-Text as a BALROG game (``specs/balrog.md`` §6.1) on PyPI Minigrid."""

from typing import Any

import numpy as np
from minigrid.core.grid import Grid
from minigrid.core.world_object import Wall
from minigrid.utils.baby_ai_bot import BabyAIBot

from playbench.suites.balrog import facts
from playbench.suites.balrog.babyai.levels import MixedTrainLocal
from playbench.suites.balrog.babyai.text import balrog_text, describe_view
from playbench.suites.balrog.facts import BalrogTask
from playbench.suites.balrog.game import BalrogGame, Frame
from playbench.suites.balrog.protocol import BABYAI_ACTIONS, babyai_prompt

_ACTION_INDEX = {name: i for i, name in enumerate(BABYAI_ACTIONS)}
#: The POV image is 7 cells of 16 pixels: 112x112.
TILE_SIZE = 16


def share_walls(grid: Grid) -> None:
    """Let every cell of a plain wall (grey, never placed) hold one wall object, the first one's.

    Minigrid makes a wall object per cell and never changes one (what the agent sees, the bot and the images read
    only its type and colour): a level's 28 or more walls took 1.5 KB and more, held by each live episode.
    """
    shared: Wall | None = None
    cells = grid.grid
    for k, obj in enumerate(cells):
        if type(obj) is Wall and obj.color == "grey" and obj.init_pos is None and obj.cur_pos is None:
            if shared is None:
                shared = obj
            else:
                cells[k] = shared


class BabyAIGame(BalrogGame):
    """One ``BabyAI-MixedTrainLocal-v0/<kind>`` episode; the level comes from the reset seed."""

    env_name = "babyai"

    def __init__(self, row: BalrogTask, **kwargs: Any) -> None:
        """``row``: the task's facts row (its ``level`` is the BabyAI kind the game builds)."""
        super().__init__(row, **kwargs)
        self.kind = row.level
        self.env = MixedTrainLocal(self.kind)
        self._success = False
        self._bot: BabyAIBot | None = None
        self._last_action: int | None = None
        self._seed: int | None = None

    def legal_actions(self) -> list[str]:
        """The six BabyAI actions (``done`` is not offered)."""
        return list(BABYAI_ACTIONS)

    @property
    def default_action(self) -> str:
        """``go forward``."""
        return str(facts.env("babyai").default_action)

    def _frame_now(self, obs: dict[str, Any]) -> Frame:
        carrying = self.env.carrying
        carried = (carrying.color, carrying.type) if carrying is not None else None
        text = balrog_text(describe_view(obs["image"], carried))
        image = self.env.get_pov_render(TILE_SIZE) if self.images else None
        return Frame(text, "", image)

    def _engine_reset(self, seed: int) -> tuple[Frame, str]:
        self._seed = seed
        self._success = False
        self._bot = None
        self._last_action = None
        obs, _ = self.env.reset(seed=seed)
        share_walls(self.env.grid)
        return self._frame_now(obs), babyai_prompt(self.env.mission)

    def _engine_step(self, action: str) -> tuple[Frame, float, bool, bool]:
        index = _ACTION_INDEX[action]
        obs, reward, terminated, truncated, _ = self.env.step(index)
        self._last_action = index
        if reward > 0:
            self._success = True
        return self._frame_now(obs), float(reward), bool(terminated), bool(truncated)

    def progression(self) -> float:
        """1.0 once any step returned a positive reward (success), else 0.0."""
        return 1.0 if self._success else 0.0

    def won(self) -> bool:
        """Success of the mission."""
        return self._success

    def stats(self) -> dict[str, Any]:
        """``get_stats()`` also carries the mission."""
        return {"mission": self.env.mission}

    def instance(self) -> dict[str, Any]:
        """Task kind, seed and mission identify the level."""
        return {"env": "babyai", "task": f"BabyAI-MixedTrainLocal-v0/{self.kind}", "seed": self._seed,
                "mission": getattr(self.env, "mission", None)}

    def reference_action(self, policy: str, rng: np.random.Generator) -> str:
        """``oracle``: Minigrid's own BabyAI bot, replanning after every executed action."""
        if policy != "oracle":
            return super().reference_action(policy, rng)
        if self._bot is None:
            self._bot = BabyAIBot(self.env)
            suggestion = self._bot.replan()
        else:
            suggestion = self._bot.replan(self._last_action)
        index = int(suggestion)
        if index >= len(BABYAI_ACTIONS):  # the bot says "done": nothing left to do, step forward
            return self.default_action
        return BABYAI_ACTIONS[index]

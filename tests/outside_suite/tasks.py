"""The ``tiny`` suite: one game of two steps; the score is the number of times the agent said ``left``."""

from typing import Any

from playbench.core.game import Game
from playbench.core.suite import Command, Suite
from playbench.core.task import Task

MAP = "map:\n #####\n #.@.#\n #####\n"


class TinyGame(Game):
    """Say ``left`` or ``right`` twice; the observation carries a tty map the viewer can draw."""

    def legal_actions(self) -> list[str]:
        return ["left", "right"]

    def _info(self) -> dict[str, Any]:
        return {"manual": "Say left or right.", "obs": MAP, "history": "", "score": self.lefts,
                "completed": int(self.t == 2), "progress": self.t / 2}

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        self.t = self.lefts = 0
        return MAP, self._info()

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        self.t += 1
        self.lefts += action == "left"
        return MAP, float(action == "left"), self.t == 2, False, self._info()


TASK = Task(id="tiny/two", description="say left or right twice", make_game=lambda params, index: TinyGame(),
            default_episodes=2, picture="tty")

SUITE = Suite(name="tiny", tasks=(TASK,), summary="outside_suite.summary:SUMMARY",
              pictures="outside_suite.pictures:PICTURES", formats={"tiny": "outside_suite.folder:FORMAT"},
              commands=(Command("tiny-hello", "Say hello from the tiny suite.", "outside_suite.cli:command"),))

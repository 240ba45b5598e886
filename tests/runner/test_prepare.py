"""The runner awaits ``Game.prepare`` before ``reset``: a game's slow set-up does not stall other episodes."""

import asyncio
import time

from playbench.agents.reference import ReferenceAgent
from playbench.core.game import Game
from playbench.core.task import Task
from playbench.runner.plan import EpisodeJob
from playbench.runner.runner import play_episode

EVENTS: list[str] = []


class OneStep(Game):
    """A game of one step; ``slow`` makes its set-up take a second in a thread."""

    def __init__(self, slow: bool) -> None:
        super().__init__()
        self.slow = slow
        self.prepared = False

    async def prepare(self) -> None:
        if self.slow:
            await asyncio.to_thread(time.sleep, 1.0)
            EVENTS.append("slow prepared")
        self.prepared = True

    def legal_actions(self) -> list[str]:
        return ["a"]

    def reset(self, *, seed=None, options=None):
        assert self.prepared, "reset before prepare"
        return "start", {"manual": "", "score": 0.0, "completed": 0, "progress": 0.0}

    def step(self, action):
        EVENTS.append("slow played" if self.slow else "fast played")
        return "end", 1.0, True, False, {"manual": "", "score": 1.0, "completed": 1, "progress": 1.0}


def _job(slow: bool) -> EpisodeJob:
    task = Task(id=f"test/{'slow' if slow else 'fast'}", description="", make_game=lambda p, i: OneStep(slow))
    return EpisodeJob(task, task.params({}), 0, 0)


def test_other_episodes_play_while_a_game_prepares() -> None:
    async def both() -> list:
        agent = ReferenceAgent("random")
        return await asyncio.gather(play_episode(_job(True), agent, "random", None),
                                    play_episode(_job(False), agent, "random", None))

    EVENTS.clear()
    records = asyncio.run(both())
    assert [r.status for r, _ in records] == ["ok", "ok"], [r.error for r, _ in records]
    assert EVENTS == ["fast played", "slow prepared", "slow played"]

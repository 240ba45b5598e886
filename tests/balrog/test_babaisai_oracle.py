"""The Baba Is AI oracle (exact-state search) wins every generated level it is given within 100 steps."""

import numpy as np
import pytest

from playbench.core.registry import get_task
from playbench.suites.balrog.babaisai.data import LEVELS
from playbench.suites.balrog.babaisai.game import BabaGame
from playbench.suites.balrog.babaisai.levels import generate, level_rng
from playbench.suites.balrog.babaisai.solver import solve


def _row(name: str):  # noqa: ANN202
    """The facts row of ``balrog/babaisai/NAME``: the row its task hands the game."""
    return get_task(f"balrog/babaisai/{name}").facts


def play_oracle(level: str, seed: int) -> tuple[int, dict]:
    game = BabaGame(_row(level))
    game.reset(seed=seed)
    rng = np.random.default_rng(0)
    steps, done, info = 0, False, {}
    while not done:
        _, _, term, trunc, info = game.step(game.reference_action("oracle", rng))
        steps += 1
        done = term or trunc
    return steps, info


@pytest.mark.parametrize("level", list(LEVELS))
def test_oracle_wins_every_level(level):
    for seed in (0, 1):
        steps, info = play_oracle(level, seed)
        assert info["completed"] == 1 and info["score"] == 1.0, (level, seed, steps)
        assert steps <= 100


@pytest.mark.slow
@pytest.mark.parametrize("level", list(LEVELS))
def test_oracle_plans_win_on_more_seeds(level):
    for seed in range(2, 8):
        lv = generate(level, level_rng(seed))
        plan = solve(lv.world)
        assert plan is not None and len(plan) <= 100, (level, seed)
        w = lv.world.copy()
        for move in plan:
            _, _, won, _ = w.step(move)
        assert won, (level, seed)

"""A game's generators are made from its seed on first use: the same draws as gymnasium's eager ones, none held before."""

import numpy as np
import pytest
from gymnasium.error import Error
from gymnasium.utils import seeding

from playbench.core.registry import get_task

TASKS = ("smartplay/hanoi-3", "grasp/energy-interactive", "balrog/babyai/goto", "mango/df")


def game_of(task_id: str):  # the unwrapped game, as a run makes it
    task = get_task(task_id)
    return task.make_game(task.params({}), 0)


@pytest.mark.parametrize("task_id", TASKS)
def test_np_random_is_made_on_first_use_and_is_gymnasiums(task_id):
    game = game_of(task_id)
    game.reset(seed=5)
    assert game._generator is None  # a seeded reset holds no generator
    assert game.np_random_seed == 5
    assert game.np_random.bit_generator.state == seeding.np_random(5)[0].bit_generator.state
    game.reset(seed=5)  # seeded again: made afresh from the seed, not continued
    eager = seeding.np_random(5)[0]
    assert game.np_random.integers(1000, size=4).tolist() == eager.integers(1000, size=4).tolist()


def test_an_unseeded_reset_continues_from_the_seeded_generator():
    game = game_of("smartplay/hanoi-3")
    game.reset(seed=3)
    game.reset()
    assert game.episode_seed == int(seeding.np_random(3)[0].integers(2**31 - 1))
    assert game.np_random_seed == 3


@pytest.mark.parametrize("seed", [-1, 1.5])
def test_a_bad_seed_is_refused_as_gymnasium_refuses_it(seed):
    with pytest.raises(Error, match="Seed must be"):
        game_of("grasp/energy-interactive").reset(seed=seed)


def test_a_smartplay_episode_generator_is_made_from_its_seed_when_drawn():
    game = game_of("smartplay/hanoi-3")  # Hanoi never draws
    game.reset(seed=9)
    assert game._rng is None
    assert game.rng.bit_generator.state == np.random.default_rng(game.episode_seed).bit_generator.state
    game.rng = np.random.default_rng(1)  # a test or a replay may set its own
    assert game.rng.bit_generator.state == np.random.default_rng(1).bit_generator.state
    bandit = game_of("smartplay/bandit-highlow")  # draws the arms' order at reset
    bandit.reset(seed=9)
    drawn = np.random.default_rng(bandit.episode_seed)
    drawn.permutation(2)
    assert bandit.rng.bit_generator.state == drawn.bit_generator.state

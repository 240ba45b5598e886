"""Shared pieces of the benchmark scripts."""

import time

import numpy as np

from playbench.core.game import Game


def game_steps_per_second(game: Game, steps: int) -> float:
    """Steps/s of ``game`` under its seeded random policy, resetting (next seed) whenever an episode ends."""
    rng = np.random.default_rng(0)
    episode = 0
    game.reset(seed=episode)
    t0 = time.perf_counter()
    for _ in range(steps):
        _, _, term, trunc, _ = game.step(game.reference_action("random", rng))
        if term or trunc:
            episode += 1
            game.reset(seed=episode)
    return steps / (time.perf_counter() - t0)

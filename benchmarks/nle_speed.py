"""Steps per second of BALROG's NetHack/MiniHack through playbench's Game (text mode) beside the raw engine.

Run: .venv/bin/python benchmarks/nle_speed.py [steps]
"""

import sys
import time

import numpy as np
from common import game_steps_per_second

import playbench.suites.balrog.nle.tasks  # noqa: F401  (registers the tasks)
from playbench.core.registry import get_task
from playbench.suites.balrog.nle.engine import Engine


def raw_engine(env_id: str, steps: int) -> float:
    """Raw NLE steps/s: integer actions straight into the gym env, resetting when an episode ends."""
    engine = Engine(env_id)
    env = engine.env
    rng = np.random.default_rng(0)
    n_actions = len(engine.nle.actions)
    engine.seed(0)
    env.reset()
    t0 = time.perf_counter()
    for _ in range(steps):
        _, _, done, _ = env.step(int(rng.integers(n_actions)))
        if done:
            env.reset()
    rate = steps / (time.perf_counter() - t0)
    engine.close()
    return rate


def through_game(task_id: str, steps: int) -> float:
    """playbench Game steps/s with the random policy (language texts, ASCII map, AutoMore, progression)."""
    task = get_task(task_id)
    game = task.make_game(task.params({}), 0)
    rate = game_steps_per_second(game, steps)
    game.close()
    return rate


def main() -> None:
    """Print steps/s for NetHackChallenge and MiniHack Corridor-R3."""
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    for task_id, env_id in [
        ("balrog/nle/nethackchallenge", "NetHackChallenge-v0"),
        ("balrog/minihack/corridor-r3", "MiniHack-Corridor-R3-v0"),
    ]:
        raw = raw_engine(env_id, steps)
        game = through_game(task_id, steps)
        print(f"{task_id:32s} raw engine {raw:8.0f} steps/s   playbench Game (text) {game:8.0f} steps/s")


if __name__ == "__main__":
    main()

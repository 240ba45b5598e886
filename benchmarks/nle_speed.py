"""Steps per second of BALROG's NetHack/MiniHack through playbench's Game (text mode) beside the raw engine.

Both sides are sampled ``repeat`` times, interleaved, and printed as min / median / max of steps/s (wall) with
the CPU time of each sample (this process only: the Game runs NLE in a worker process, whose CPU is not
counted). No goal is set: the figure shows what the Game adds to the engine.

Run: .venv/bin/python benchmarks/nle_speed.py [steps] [repeat]
"""

import sys
import time

import numpy as np
from common import game_steps_per_second, interleaved, machine_note, spread

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
    repeat = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    print(machine_note())
    for task_id, env_id in [
        ("balrog/nle/nethackchallenge", "NetHackChallenge-v0"),
        ("balrog/minihack/corridor-r3", "MiniHack-Corridor-R3-v0"),
    ]:
        rows = interleaved({"raw engine": lambda e=env_id: raw_engine(e, steps),
                            "playbench Game (text)": lambda t=task_id: through_game(t, steps)}, repeat)
        for name, samples in rows.items():
            print(f"{task_id:32s} {name:<22} {spread(samples.results, digits=0)} steps/s   "
                  f"CPU {spread(samples.cpu, digits=2)} s per {steps} steps (set-up included)")


if __name__ == "__main__":
    main()

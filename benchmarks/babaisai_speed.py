"""Steps per second of Baba Is AI through playbench's Game (text and image modes) beside the raw engine.

The original engine (nacloos/baba-is-ai) is not on PyPI, so "raw" here is playbench's own World.step
without the text view; also timed: level generation and the oracle's search per level.
Run: .venv/bin/python benchmarks/babaisai_speed.py [steps]
"""

import statistics
import sys
import time

import numpy as np
from common import game_steps_per_second, interleaved, machine_note, spread

import playbench.suites.balrog.babaisai.tasks  # noqa: F401  (registers the tasks)
from playbench.core.registry import get_task
from playbench.suites.balrog.babaisai.data import ACTIONS, LEVELS
from playbench.suites.balrog.babaisai.levels import generate, level_rng
from playbench.suites.balrog.babaisai.solver import solve

LEVEL_SAMPLE = ("goto_win", "make_win-distr_obj_rule", "two_room-break_stop-make_win-distr_obj_rule",
                "two_room-make_you-make_win", "two_room-make_wall_win")


def raw_engine(level: str, steps: int) -> float:
    """World.step with uniformly random actions, regenerating the level when an episode ends."""
    rng = np.random.default_rng(0)
    lrng = level_rng(0)
    world = generate(level, lrng).world
    t0 = time.perf_counter()
    for _ in range(steps):
        _, done, _, _ = world.step(ACTIONS[int(rng.integers(5))])
        if done:
            world = generate(level, lrng).world
    return steps / (time.perf_counter() - t0)


def through_game(level: str, steps: int, images: bool) -> float:
    """Game.step with the random policy: engine, BALROG text view, info dict (and the image)."""
    task = get_task(f"balrog/babaisai/{level}")
    game = task.make_game(task.params({"images": str(images).lower()}), 0)
    return game_steps_per_second(game, steps)


def generation_ms(level: str, n: int = 200) -> float:
    t0 = time.perf_counter()
    for seed in range(n):
        generate(level, level_rng(seed))
    return 1000 * (time.perf_counter() - t0) / n


def oracle_s(level: str, seeds: range) -> tuple[float, float]:
    times = []
    for seed in seeds:
        world = generate(level, level_rng(seed)).world
        t0 = time.perf_counter()
        solve(world)
        times.append(time.perf_counter() - t0)
    return float(np.mean(times)), float(np.max(times))


def main() -> None:
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    repeat = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    print(machine_note())
    print(f"Baba Is AI speed ({steps} random steps per row), {repeat} interleaved samples per column: "
          "min / median / max of steps/s (wall), and the median CPU ms per step of each column. No goal is set.")
    for level in LEVEL_SAMPLE:
        rows = interleaved({
            "raw steps/s": lambda level=level: raw_engine(level, steps),
            "game text": lambda level=level: through_game(level, steps, False),
            "game image": lambda level=level: through_game(level, max(200, steps // 10), True),
            "gen ms": lambda level=level: generation_ms(level),
        }, repeat)
        cells = []
        for name, samples in rows.items():
            if name == "gen ms":
                cells.append(f"generation {spread(samples.results, digits=2)} ms")
                continue
            n = max(200, steps // 10) if name == "game image" else steps
            cells.append(f"{name} {spread(samples.results, digits=0)} (CPU {statistics.median(samples.cpu) / n * 1e3:.3f} ms)")
        print(f"{level}: " + "; ".join(cells))
    print("\noracle search time per level (seeds 0-4): mean / max seconds (one sample)")
    for level in LEVELS:
        mean, worst = oracle_s(level, range(5))
        print(f"  {level:62s} {mean:6.2f} / {worst:6.2f}")


if __name__ == "__main__":
    main()

"""BALROG (BabyAI-Text, TextWorld): steps per second through playbench's Game vs the raw engine,
and TextWorld game generation time per game.

    .venv/bin/python benchmarks/balrog_speed.py [--steps 2000] [--treasure-hunter]

TextWorld games (BALROG's first game of each task) are made into a temporary directory (each is timed);
the treasure hunter (level 30, the slowest) only with ``--treasure-hunter``.
"""

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
from common import interleaved, machine_note, spread

from playbench.core.registry import get_task
from playbench.suites.balrog.babyai.game import BabyAIGame
from playbench.suites.balrog.babyai.levels import MixedTrainLocal
from playbench.suites.balrog.facts import BABYAI_LEVELS
from playbench.suites.balrog.protocol import BABYAI_ACTIONS
from playbench.suites.balrog.textworld.cache import ensure
from playbench.suites.balrog.textworld.game import TextWorldGame
from playbench.suites.balrog.textworld.sets import balrog_specs, game_set


def babyai_game(kind: str, steps: int) -> float:
    rng = np.random.default_rng(0)
    game = BabyAIGame(get_task(f"balrog/babyai/{kind}").facts)
    game.reset(seed=0)
    episodes, t0 = 0, time.perf_counter()
    for _ in range(steps):
        _, _, term, trunc, _ = game.step(BABYAI_ACTIONS[int(rng.integers(6))])
        if term or trunc:
            episodes += 1
            game.reset(seed=episodes)
    return steps / (time.perf_counter() - t0)


def babyai_raw(kind: str, steps: int) -> float:
    rng = np.random.default_rng(0)
    env = MixedTrainLocal(kind)
    env.reset(seed=0)
    episodes, t0 = 0, time.perf_counter()
    for _ in range(steps):
        _, _, term, trunc, _ = env.step(int(rng.integers(6)))
        if term or trunc:
            episodes += 1
            env.reset(seed=episodes)
    return steps / (time.perf_counter() - t0)


def textworld_rates(task: str, root: Path, steps: int) -> tuple[float, float]:
    import textworld

    game = TextWorldGame(get_task(f"balrog/textworld/{task}").facts, 0, game_set(task, 1, "balrog", 1), root=root)
    game.reset(seed=0)
    walk = game._walkthrough or ["look"]
    t0 = time.perf_counter()
    for i in range(steps):
        _, _, term, trunc, _ = game.step(walk[i % len(walk)] if i < len(walk) else "look")
        if term or trunc:
            game.reset(seed=0)
    ours = steps / (time.perf_counter() - t0)
    path = game.game_file()
    infos = textworld.EnvInfos(objective=True, description=True, score=True, max_score=True, won=True, lost=True)
    env = textworld.start(str(path), request_infos=infos)
    env.reset()
    t0 = time.perf_counter()
    for i in range(steps):
        _, _, done = env.step(walk[i % len(walk)] if i < len(walk) else "look")
        if done:
            env.reset()
    raw = steps / (time.perf_counter() - t0)
    game.close()
    env.close()
    return ours, raw


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--tw-steps", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3, help="interleaved samples per figure")
    parser.add_argument("--treasure-hunter", action="store_true")
    args = parser.parse_args()
    print(machine_note())
    print(f"BabyAI-Text (random actions, text mode), {args.repeat} interleaved samples: min / median / max steps/s "
          "(wall) and median CPU ms per step. No goal is set.")
    for kind in BABYAI_LEVELS:
        rows = interleaved({"Game": lambda kind=kind: babyai_game(kind, args.steps),
                            "raw env": lambda kind=kind: babyai_raw(kind, args.steps)}, args.repeat)
        print(f"{kind:<20}" + "; ".join(
            f"{name} {spread(r.results, digits=0)} (CPU {statistics.median(r.cpu) / args.steps * 1e3:.3f} ms)"
            for name, r in rows.items()))

    tasks = ["coin_collector", "the_cooking_game"] + (["treasure_hunter"] if args.treasure_hunter else [])
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        print("\nTextWorld generation (one game, child process, Inform 7 compile included; one sample each)")
        for task in tasks:
            t0 = time.perf_counter()
            entry = ensure(balrog_specs(task)[:1], root, show_progress=False)[0]
            print(f"{task:<20}{time.perf_counter() - t0:>8.1f} s wall   {entry['command']}")
        print(f"\nTextWorld (walkthrough then 'look', text mode), {args.repeat} samples: min / median / max steps/s")
        for task in tasks:
            samples = interleaved({"rates": lambda task=task: textworld_rates(task, root, args.tw_steps)},
                                  args.repeat)["rates"]
            print(f"{task:<20}Game {spread([r[0] for r in samples.results], digits=1)}; "
                  f"raw env {spread([r[1] for r in samples.results], digits=1)}")


if __name__ == "__main__":
    main()

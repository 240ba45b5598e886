"""SmartPlay native engines: Messenger and the Minecraft substitute world, milliseconds per agent step.

Messenger: ``Game.step`` (engine tick, observation text, history) under a uniform random policy, per level.
Minecraft substitute: ``Game.step`` (turn tick, up to 50 move ticks, mob walk, observation with the 17×17
lidar and the voxel cube) under the random policy and under the explorer (which keeps walking into new
terrain), plus the share spent generating regions and the reset time. The spec's target is ≤ 5 ms per
Minecraft step on one core. Wall and CPU time are both printed (they differ on a busy machine). Usage::

    python benchmarks/smartplay_speed.py [--episodes 200] [--mc-episodes 4]
"""

import argparse
import statistics
import time

import numpy as np

from playbench.suites.smartplay.base import MessengerParams, SmartPlayParams
from playbench.suites.smartplay.messenger.game import MessengerGame
from playbench.suites.smartplay.voxel import world as world_mod
from playbench.suites.smartplay.voxel.game import MinecraftGame


def messenger(episodes: int) -> None:
    for level in (1, 2, 3):
        game = MessengerGame(MessengerParams(), level)
        steps, spent = 0, 0.0
        for seed in range(episodes):
            game.reset(seed=seed)
            rng = np.random.default_rng(seed)
            done = False
            while not done:
                action = game.reference_action("random", rng)
                t0 = time.perf_counter()
                *_, term, trunc, _info = game.step(action)
                spent += time.perf_counter() - t0
                steps += 1
                done = term or trunc
        print(f"messenger L{level}: {spent / steps * 1e3:.3f} ms/step over {steps} steps")


def minecraft(episodes: int, policy: str) -> None:
    gen = {"t": 0.0, "n": 0}
    original = world_mod.generate_region

    def timed(seed, rx, rz):
        t0 = time.perf_counter()
        out = original(seed, rx, rz)
        gen["t"] += time.perf_counter() - t0
        gen["n"] += 1
        return out

    world_mod.generate_region = timed
    try:
        per_step, resets = [], []
        steps, spent, gen_in_steps, cpu = 0, 0.0, 0.0, 0.0
        for seed in range(episodes):
            game = MinecraftGame(SmartPlayParams(), "desert")  # rarely completed early: long walks
            t0 = time.perf_counter()
            game.reset(seed=seed)
            resets.append(time.perf_counter() - t0)
            rng = np.random.default_rng(seed)
            done = False
            while not done:
                action = game.reference_action(policy, rng)
                before = gen["t"]
                t0, c0 = time.perf_counter(), time.process_time()
                *_, term, trunc, _info = game.step(action)
                dt = time.perf_counter() - t0
                cpu += time.process_time() - c0
                spent += dt
                gen_in_steps += gen["t"] - before
                per_step.append(dt)
                steps += 1
                done = term or trunc
        per_step.sort()
        print(f"minecraft substitute ({policy}): {spent / steps * 1e3:.2f} ms/step mean wall "
              f"({cpu / steps * 1e3:.2f} ms CPU), "
              f"median {statistics.median(per_step) * 1e3:.2f}, p95 {per_step[int(0.95 * len(per_step))] * 1e3:.2f} "
              f"over {steps} steps; region generation {gen_in_steps / spent:.0%} of step time "
              f"({gen['t'] / max(gen['n'], 1) * 1e3:.1f} ms/region); reset {statistics.mean(resets) * 1e3:.0f} ms")
    finally:
        world_mod.generate_region = original


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--episodes", type=int, default=200)
    parser.add_argument("--mc-episodes", type=int, default=4)
    args = parser.parse_args()
    messenger(args.episodes)
    minecraft(args.mc_episodes, "random")
    minecraft(args.mc_episodes, "oracle")


if __name__ == "__main__":
    main()

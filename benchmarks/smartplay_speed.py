"""SmartPlay native engines: Messenger and the Minecraft substitute world, milliseconds per agent step.

Messenger: ``Game.step`` (engine tick, observation text, history) under a uniform random policy, per level.
Minecraft substitute: ``Game.step`` (turn tick, up to 50 move ticks, mob walk, observation with the 17×17
lidar and the voxel cube) under the random policy and under the explorer (which keeps walking into new
terrain), plus the share spent generating regions and the reset time. The spec's target is ≤ 5 ms per
Minecraft step on one core. Each measurement is sampled ``--repeat`` times, interleaved, and printed as
min / median / max, with the CPU time of each sample (wall and CPU differ on a busy machine). Usage::

    python benchmarks/smartplay_speed.py [--episodes 200] [--mc-episodes 4]
"""

import argparse
import statistics
import time

import numpy as np
from common import interleaved, machine_note, spread

from playbench.core.registry import get_task
from playbench.suites.smartplay.messenger.game import MessengerGame
from playbench.suites.smartplay.params import MessengerParams, SmartPlayParams
from playbench.suites.smartplay.voxel import world as world_mod
from playbench.suites.smartplay.voxel.game import MinecraftGame

GOAL_MC_MS = 5.0


def messenger(episodes: int, levels: tuple[int, ...] = (1, 2, 3)) -> float:
    """Wall seconds per Messenger step (the last level's), printed per level."""
    per_step = 0.0
    for level in levels:
        game = MessengerGame(MessengerParams(), get_task(f"smartplay/messenger-{level}").facts)
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
        per_step = spent / steps
    return per_step


def minecraft(episodes: int, policy: str) -> float:
    """Wall seconds per Minecraft-substitute step (mean), with the details printed."""
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
            game = MinecraftGame(SmartPlayParams(), get_task("smartplay/minecraft-desert").facts)  # rarely completed early: long walks
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
        return spent / steps
    finally:
        world_mod.generate_region = original


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--episodes", type=int, default=200)
    parser.add_argument("--mc-episodes", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3, help="interleaved samples of each measurement")
    args = parser.parse_args()
    print(machine_note())
    variants = {f"messenger L{level}": (lambda level=level: messenger(args.episodes, (level,))) for level in (1, 2, 3)}
    variants["minecraft random"] = lambda: minecraft(args.mc_episodes, "random")
    variants["minecraft oracle"] = lambda: minecraft(args.mc_episodes, "oracle")
    rows = interleaved(variants, args.repeat)
    print(f"ms per agent step (wall), {args.repeat} interleaved samples, min / median / max; goal for the Minecraft "
          f"substitute <= {GOAL_MC_MS} ms on one core; CPU s per sample beside it")
    for name, samples in rows.items():
        goal = f" (goal <= {GOAL_MC_MS})" if name.startswith("minecraft") else ""
        print(f"  {name:<18} {spread(samples.results, 1e3)} ms/step{goal}   CPU {spread(samples.cpu, digits=2)} s per sample")


if __name__ == "__main__":
    main()

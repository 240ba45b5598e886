"""Crafter speed: stock crafter (rendering) vs playbench's text-only mode, and world generation per reset.

Prints steps per second for the same seeded action sequence in

* ``stock``: ``crafter.Env`` 1.8.3 stepping with rendering (what SmartPlay and BALROG do),
* ``engine render``: playbench's reproducible engine, rendering,
* ``engine text-only``: the engine without rendering (night noise burnt, identical worlds),
* ``game text-only``: ``smartplay/crafter`` and ``balrog/crafter/default`` Game.step, i.e. engine plus
  the text descriptor,

and the world-generation time per reset, stock vs playbench (same worlds). Usage::

    python benchmarks/crafter_speed.py [--steps 2000] [--resets 3]
"""

import argparse
import contextlib
import io
import os
import statistics
import tempfile
import time

import numpy as np

os.environ.setdefault("PLAYBENCH_CRAFTER_WORLDS", tempfile.mkdtemp(prefix="crafter-worlds-"))
with contextlib.redirect_stderr(io.StringIO()):  # gym's unmaintained-package banner
    import crafter

from playbench.suites.balrog.crafter.game import BalrogCrafter
from playbench.suites.balrog.crafter.params import BalrogCrafterParams
from playbench.suites.crafter import worldcache
from playbench.suites.crafter.engine import CrafterEngine
from playbench.suites.crafter.prompts import ACTIONS
from playbench.suites.smartplay.crafter.game import SmartPlayCrafter
from playbench.suites.smartplay.crafter.params import SmartPlayCrafterParams


def _rate(step, actions) -> float:
    start = time.perf_counter()
    for a in actions:
        step(int(a))
    return len(actions) / (time.perf_counter() - start)


def _game_rate(game, actions, seed: int) -> float:
    """Game.step rate; a finished episode is reset (not timed) and play goes on."""
    game.reset(seed=seed)
    elapsed = 0.0
    for a in actions:
        start = time.perf_counter()
        _, _, terminated, truncated, _ = game.step(ACTIONS[int(a)])
        elapsed += time.perf_counter() - start
        if terminated or truncated:
            seed += 1
            game.reset(seed=seed)
    return len(actions) / elapsed


def main() -> None:
    """Run the measurements and print a table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--resets", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    actions = np.random.default_rng(0).integers(0, 17, args.steps)

    rows: list[tuple[str, float]] = []
    stock = crafter.Env(seed=args.seed)
    stock.reset()
    rows.append(("stock crafter.Env (rendering 64x64)", _rate(stock.step, actions)))
    for render in (True, False):
        engine = CrafterEngine(seed=args.seed, render_images=render)
        engine.reset()
        rows.append((f"playbench engine ({'rendering' if render else 'text-only'})", _rate(engine.step, actions)))
    game = SmartPlayCrafter(SmartPlayCrafterParams(max_steps=10**9))
    rows.append(("smartplay/crafter Game.step (text-only + descriptor)", _game_rate(game, actions, args.seed)))
    balrog = BalrogCrafter(BalrogCrafterParams(max_steps=10**9))
    rows.append(("balrog/crafter/default Game.step (text-only)", _game_rate(balrog, actions, args.seed)))

    base = rows[0][1]
    print(f"Crafter steps per second over {args.steps} random steps (seed {args.seed})")
    for name, rate in rows:
        print(f"  {name:<55} {rate:8.0f} steps/s   x{rate / base:4.1f} vs stock")

    times: dict[str, list[float]] = {"stock": [], "fast": [], "store": [], "disk": [], "memory": []}
    for k in range(args.resets):
        seed = args.seed + 1000 + k  # worlds not generated above
        env = crafter.Env(seed=seed)
        start = time.perf_counter()
        env.reset()
        times["stock"].append(time.perf_counter() - start)
        for name, cache in (("fast", False), ("store", True), ("disk", True), ("memory", True)):
            if name == "disk":
                worldcache.clear_memory()
            engine = CrafterEngine(seed=seed, render_images=False, world_cache=cache)
            start = time.perf_counter()
            engine.reset()
            times[name].append(time.perf_counter() - start)
        worldcache.clear_memory()
    mean = {name: statistics.mean(values) for name, values in times.items()}
    print(f"World generation per reset (mean of {args.resets} new worlds):")
    print(f"  stock crafter                         {mean['stock']:.3f} s")
    print(f"  playbench, generated (fastgen)        {mean['fast']:.3f} s   x{mean['stock'] / mean['fast']:.1f}")
    print(f"  playbench, cached world (disk)        {mean['disk']:.3f} s   x{mean['stock'] / mean['disk']:.0f}")
    print(f"  playbench, cached world (memory)      {mean['memory']:.3f} s   x{mean['stock'] / mean['memory']:.0f}")


if __name__ == "__main__":
    main()

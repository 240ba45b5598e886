"""Crafter speed: stock crafter (rendering) vs playbench's text-only mode, and world generation per reset.

Prints steps per second for the same seeded action sequence in

* ``stock``: ``crafter.Env`` 1.8.3 stepping with rendering (what SmartPlay and BALROG do),
* ``engine render``: playbench's reproducible engine, rendering,
* ``engine text-only``: the engine without rendering (night noise burnt, identical worlds),
* ``game text-only``: ``smartplay/crafter`` and ``balrog/crafter/default`` Game.step, i.e. engine plus
  the text descriptor,

and the world-generation time per reset, stock vs playbench (same worlds). Every row is sampled
``--repeat`` times, interleaved with the others (a burst of load hits every row alike), and printed as
min / median / max; the speed-up is taken against the stock sample of the same round. No goal is set for
these rows: they compare engines, they do not gate anything. Usage::

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

from common import interleaved, machine_note, spread

from playbench.core.registry import get_task
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
    parser.add_argument("--repeat", type=int, default=3, help="interleaved samples per row")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(machine_note())
    actions = np.random.default_rng(0).integers(0, 17, args.steps)
    stock = crafter.Env(seed=args.seed)
    stock.reset()
    engines = {render: CrafterEngine(seed=args.seed, render_images=render) for render in (True, False)}
    for engine in engines.values():
        engine.reset()
    game = SmartPlayCrafter(SmartPlayCrafterParams(max_steps=10**9), get_task("smartplay/crafter").facts)
    balrog = BalrogCrafter(BalrogCrafterParams(max_steps=10**9), get_task("balrog/crafter/default").facts)
    rows = interleaved({
        "stock crafter.Env (rendering 64x64)": lambda: _rate(stock.step, actions),
        "playbench engine (rendering)": lambda: _rate(engines[True].step, actions),
        "playbench engine (text-only)": lambda: _rate(engines[False].step, actions),
        "smartplay/crafter Game.step (text-only + descriptor)": lambda: _game_rate(game, actions, args.seed),
        "balrog/crafter/default Game.step (text-only)": lambda: _game_rate(balrog, actions, args.seed),
    }, args.repeat)
    base = rows["stock crafter.Env (rendering 64x64)"].results
    print(f"Crafter steps per second over {args.steps} random steps (seed {args.seed}), {args.repeat} interleaved "
          "samples per row: min / median / max of steps/s (wall), of CPU ms per step, and of the speed-up over the "
          "stock sample taken in the same round")
    for name, samples in rows.items():
        cpu_ms = [c / args.steps for c in samples.cpu]
        ratio = [r / b for r, b in zip(samples.results, base, strict=True)]
        print(f"  {name:<53} {spread(samples.results, digits=0):>20} steps/s   CPU {spread(cpu_ms, 1e3)} ms/step   "
              f"x{spread(ratio, digits=1)}")
    times: dict[str, list[float]] = {"stock": [], "fast": [], "store": [], "disk": [], "memory": []}
    cpus: dict[str, list[float]] = {name: [] for name in times}
    for k in range(args.resets):
        seed = args.seed + 1000 + k  # worlds not generated above
        env = crafter.Env(seed=seed)
        start, c0 = time.perf_counter(), time.process_time()
        env.reset()
        times["stock"].append(time.perf_counter() - start)
        cpus["stock"].append(time.process_time() - c0)
        for name, cache in (("fast", False), ("store", True), ("disk", True), ("memory", True)):
            if name == "disk":
                worldcache.clear_memory()
            engine = CrafterEngine(seed=seed, render_images=False, world_cache=cache)
            start, c0 = time.perf_counter(), time.process_time()
            engine.reset()
            times[name].append(time.perf_counter() - start)
            cpus[name].append(time.process_time() - c0)
        worldcache.clear_memory()
    print(f"World generation per reset ({args.resets} new worlds, interleaved): min / median / max, wall and CPU s")
    labels = {"stock": "stock crafter", "fast": "playbench, generated (fastgen)", "disk": "playbench, cached world (disk)",
              "memory": "playbench, cached world (memory)"}
    for name, label in labels.items():
        print(f"  {label:<36} wall {spread(times[name])} s   CPU {spread(cpus[name])} s   "
              f"x{statistics.median(times['stock']) / statistics.median(times[name]):.1f} (medians, wall)")


if __name__ == "__main__":
    main()

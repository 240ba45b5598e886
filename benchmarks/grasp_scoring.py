"""GRASP performance figures: scoring 16,000 plans, and solving ``optimal`` for all 16,000 official instances.

Usage: python benchmarks/grasp_scoring.py [--grids DIR] [--scoring fixed|compat] [--workers N] [--limit N]

The official grids are read from --grids (default: $PLAYBENCH_GRASP_DATA or ../shared/data/grasp next to the
repository); without them the first line says so and nothing is timed. Scoring and parsing are sampled
--repeat times, interleaved, and printed as min / median / max of wall and CPU time; the optimal solver
(minutes for all 16,000 instances) runs once, with --solve. No goal is set for these figures.
"""

from __future__ import annotations

import argparse
import os
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from common import interleaved, machine_note, spread

from playbench.suites.grasp.baselines import greedy, random_walk
from playbench.suites.grasp.game import plan_text
from playbench.suites.grasp.grid import COMBINATIONS
from playbench.suites.grasp.official import FILE_NAMES, load_grids
from playbench.suites.grasp.optimal import solve
from playbench.suites.grasp.parse import parse_plan
from playbench.suites.grasp.simulate import execute

DEFAULT = Path(os.environ.get("PLAYBENCH_GRASP_DATA", Path(__file__).resolve().parents[2] / "shared/data/grasp"))


def _solve_chunk(args: tuple[str, list[tuple[str, int]], str]) -> tuple[list[float], list[int], float]:
    grids_dir, keys, scoring = args
    grids = load_grids(grids_dir)
    t0 = time.process_time()
    energies, nodes = [], []
    for key in keys:
        cache: dict = {}
        for c in COMBINATIONS:
            sol = solve(grids[key].grid, c, scoring, cache=cache)  # type: ignore[arg-type]
            energies.append(sol.energy)
            nodes.append(sol.nodes)
    return energies, nodes, time.process_time() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--grids", type=Path, default=DEFAULT)
    ap.add_argument("--scoring", choices=["fixed", "compat"], default="fixed")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--limit", type=int, default=100, help="grid indices per file (100 = all 16,000 instances)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--solve", action="store_true", help="also time the optimal solver (one sample, minutes)")
    args = ap.parse_args()

    if not Path(args.grids).is_dir():
        print(f"DATA MISSING: no GRASP grids at {args.grids} (give --grids or set PLAYBENCH_GRASP_DATA); nothing timed")
        return
    print(machine_note())
    grids = load_grids(args.grids)
    keys = [(f, i) for f in FILE_NAMES for i in range(args.limit) if (f, i) in grids]
    instances = [(grids[k].grid, c) for k in keys for c in COMBINATIONS]
    print(f"{len(instances)} instances from {len(keys)} grids in {args.grids}")

    rng = np.random.default_rng(0)
    plans = [random_walk(c, rng) if n % 2 else greedy(g, c, rng) for n, (g, c) in enumerate(instances)]
    texts = [plan_text(p) for p in plans]

    def score() -> float:
        return sum(execute(g, c, p).compat for (g, c), p in zip(instances, plans, strict=True))

    def parse_and_score() -> None:
        for (g, c), text in zip(instances, texts, strict=True):
            execute(g, c, parse_plan(text).plan)

    rows = interleaved({f"score {len(plans)} plans": score, f"parse + score {len(texts)} answers": parse_and_score},
                       args.repeat)
    for name, samples in rows.items():
        print(f"{name}: wall {spread(samples.wall, digits=2)} s, CPU {spread(samples.cpu, digits=2)} s "
              f"({args.repeat} interleaved samples, min / median / max)")
    print(f"(mean compat energy of the plans: {rows[f'score {len(plans)} plans'].results[0] / len(plans):.3f})")
    if not args.solve:
        return

    chunks = [keys[i::args.workers * 4] for i in range(args.workers * 4)]
    t0 = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        parts = list(pool.map(_solve_chunk, [(str(args.grids), ch, args.scoring) for ch in chunks]))
    wall = time.perf_counter() - t0
    energies = [e for p in parts for e in p[0]]
    nodes = [n for p in parts for n in p[1]]
    cpu = sum(p[2] for p in parts)
    print(f"optimal ({args.scoring}), one sample, for {len(energies)} instances with {args.workers} workers: {wall:.1f} s wall, "
          f"{cpu:.1f} s CPU ({1000 * cpu / max(1, len(energies)):.1f} ms per instance), "
          f"mean energy {np.mean(energies):.3f}, search nodes mean {np.mean(nodes):.0f} max {max(nodes)}")


if __name__ == "__main__":
    main()

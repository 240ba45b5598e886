"""GRASP performance figures: scoring 16,000 plans, and solving ``optimal`` for all 16,000 official instances.

Usage: python benchmarks/grasp_scoring.py [--grids DIR] [--scoring fixed|compat] [--workers N] [--limit N]

The official grids are read from --grids (default: $PLAYBENCH_GRASP_DATA or ../shared/data/grasp next to the
repository). Prints wall-clock and CPU times; no assertions (figures, not tests).
"""

from __future__ import annotations

import argparse
import os
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

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
    args = ap.parse_args()

    grids = load_grids(args.grids)
    keys = [(f, i) for f in FILE_NAMES for i in range(args.limit) if (f, i) in grids]
    instances = [(grids[k].grid, c) for k in keys for c in COMBINATIONS]
    print(f"{len(instances)} instances from {len(keys)} grids in {args.grids}")

    rng = np.random.default_rng(0)
    plans = [random_walk(c, rng) if n % 2 else greedy(g, c, rng) for n, (g, c) in enumerate(instances)]
    t0, c0 = time.perf_counter(), time.process_time()
    total = sum(execute(g, c, p).compat for (g, c), p in zip(instances, plans, strict=True))
    print(f"score {len(plans)} plans: {time.perf_counter() - t0:.2f} s wall, {time.process_time() - c0:.2f} s CPU "
          f"(mean compat energy {total / len(plans):.3f})")
    texts = [plan_text(p) for p in plans]
    t0, c0 = time.perf_counter(), time.process_time()
    for (g, c), text in zip(instances, texts, strict=True):
        execute(g, c, parse_plan(text).plan)
    print(f"parse + score {len(texts)} answers: {time.perf_counter() - t0:.2f} s wall, "
          f"{time.process_time() - c0:.2f} s CPU")

    chunks = [keys[i::args.workers * 4] for i in range(args.workers * 4)]
    t0 = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        parts = list(pool.map(_solve_chunk, [(str(args.grids), ch, args.scoring) for ch in chunks]))
    wall = time.perf_counter() - t0
    energies = [e for p in parts for e in p[0]]
    nodes = [n for p in parts for n in p[1]]
    cpu = sum(p[2] for p in parts)
    print(f"optimal ({args.scoring}) for {len(energies)} instances with {args.workers} workers: {wall:.1f} s wall, "
          f"{cpu:.1f} s CPU ({1000 * cpu / max(1, len(energies)):.1f} ms per instance), "
          f"mean energy {np.mean(energies):.3f}, search nodes mean {np.mean(nodes):.0f} max {max(nodes)}")


if __name__ == "__main__":
    main()

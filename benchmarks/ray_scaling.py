"""Scaling out on Ray: episodes per second on 1 worker vs 2, and what Ray adds per episode.

Starts two local Ray clusters with ``ray start`` on loopback (tests/raycluster.py): one node of 1 CPU
(1 worker) and two nodes of 1 CPU each (2 workers, separate ``ray start`` processes). Then, in
``--repeat`` interleaved rounds, runs each workload on the local runner, the 1-worker and the 2-worker
cluster, through ``playbench.eval`` (the driver is this process; the timed part is the playing,
``EvalResult.elapsed_s``, which for Ray includes starting the actors):

- cpu: ``smartplay/crafter`` (the real Crafter engine, world generation and stepping) with the random
  agent, ``--episodes`` episodes. Goal: 2 workers / 1 worker close to 2 (linear), given 2 free cores.
- model: ``smartplay/hanoi-3`` with the naive agent against a loopback OpenAI-compatible server that
  answers after 200 ms, 96 episodes of 5 steps, 16 connections for the run (shared by the workers).
  Goal: Ray no slower than local once its start-up is paid (start-up is printed on its own).
- start-up: a 2-episode run, almost all of it joining the cluster's workers (a fixed cost per run).
- overhead: ``smartplay/hanoi-3`` with the random agent (episodes of a few ms) at 40 and 200 episodes on the
  local runner and the 1-worker cluster; the slope difference is Ray's cost per episode (start-up
  cancels out). Goal: below 5 ms per episode.

Prints min/median/max of each figure and the driver's CPU. On a shared 2-core VM the CPU workload cannot
scale past the cores other processes leave free: read the ratio with the machine's load beside it.

    .venv/bin/python benchmarks/ray_scaling.py [--repeat 3] [--episodes 16]
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import playbench
from playbench.models.fakeserver import FakeServer

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from raycluster import LocalRayCluster  # noqa: E402


def timed(tasks: str, address: str | None, **options: object) -> tuple[float, float, int]:
    """(wall seconds playing, driver CPU seconds, episodes) of one run."""
    extra = {"executor": "ray", "ray_address": address} if address else {}
    cpu = time.process_time()
    result = playbench.eval(tasks, log_dir=tempfile.mkdtemp(prefix="pbbench"), **extra, **options)  # type: ignore[arg-type]
    assert result.complete, result.played
    return result.elapsed_s, time.process_time() - cpu, result.episodes


def spread(values: list[float], fmt: str = "{:.2f}") -> str:
    return "min " + fmt.format(min(values)) + "  median " + fmt.format(statistics.median(values)) + \
        "  max " + fmt.format(max(values))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--episodes", type=int, default=16, help="CPU workload episodes per run")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    one, two = LocalRayCluster(nodes=1), LocalRayCluster(nodes=2)
    one.start()
    two.start()
    targets = {"local": None, "ray-1": one.address, "ray-2": two.address}
    rates: dict[str, dict[str, list[float]]] = {w: {t: [] for t in targets} for w in ("cpu", "model")}
    cpus: dict[str, list[float]] = {t: [] for t in targets}
    overhead: list[float] = []
    startup: dict[str, list[float]] = {t: [] for t in targets}
    try:
        with FakeServer(latency=0.2) as server:
            model = {"model": "openai/fake", "base_url": server.url, "episodes": 96, "max_connections": 16,
                     "task_params": {"max_steps": 5}, "retry_backoff": 0.0}
            for address in targets.values():  # untimed: loads what is imported lazily, warms workers
                timed("smartplay/hanoi-3", address, agent="random", episodes=2)
            for _ in range(args.repeat):
                for name, address in targets.items():
                    wall, cpu, n = timed("smartplay/crafter", address, agent="random", episodes=args.episodes,
                                         task_params={"max_steps": 500})
                    rates["cpu"][name].append(n / wall)
                    cpus[name].append(cpu)
                    wall, _, n = timed("smartplay/hanoi-3", address, **model)  # type: ignore[arg-type]
                    rates["model"][name].append(n / wall)
                    startup[name].append(timed("smartplay/hanoi-3", address, agent="random", episodes=2)[0])
                walls = [timed("smartplay/hanoi-3", a, agent="random", episodes=k)[0]
                         for a in (None, one.address) for k in (40, 200)]
                local_slope = (walls[1] - walls[0]) / 160
                ray_slope = (walls[3] - walls[2]) / 160
                overhead.append((ray_slope - local_slope) * 1000)
    finally:
        one.stop()
        two.stop()
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    for workload, goal in (("cpu", "2 workers / 1 worker close to 2.0 (linear)"),
                           ("model", "ray no slower than local")):
        print(f"\n{workload} workload: episodes per second ({args.repeat} rounds)")
        for name in targets:
            print(f"  {name:6} {spread(rates[workload][name])}")
        ratio = [b / a for a, b in zip(rates[workload]["ray-1"], rates[workload]["ray-2"], strict=True)]
        print(f"  scaling 2 workers / 1 worker: {spread(ratio)}   goal: {goal}")
    print("\ndriver CPU seconds per CPU-workload run: " + "; ".join(f"{n} {spread(v)}" for n, v in cpus.items()))
    print("start-up seconds (2-episode run): " + "; ".join(f"{n} {spread(v)}" for n, v in startup.items()))
    print(f"Ray overhead per episode (ms, slope over 40 -> 200 episodes): {spread(overhead)}   goal: below 5 ms")


if __name__ == "__main__":
    main()

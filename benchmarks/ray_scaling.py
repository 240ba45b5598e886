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
- overhead: ``smartplay/hanoi-3`` with the random agent (episodes of a few ms), 200 episodes on the local
  runner and the 1-worker cluster; the difference of their seconds per episode is Ray's cost per episode.
  Goal: below 5 ms per episode.

Rates are "steady": from the first episode recorded to the last (a progress hook notes the times), so the
fixed start-up of a Ray run (joining, starting each worker process) is left out and printed on its own;
the whole-run rate is printed beside.

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


class Clock:
    """A progress hook that notes when each episode is recorded."""

    def __init__(self) -> None:
        self.times: list[float] = []

    def start(self, plan: object) -> None:
        self.times = []

    def step(self, task_id: str) -> None:
        pass

    def episode(self, record: object) -> None:
        self.times.append(time.perf_counter())

    def stop(self) -> None:
        pass

    def steady(self) -> float:
        """Episodes per second from the first recorded episode to the last (start-up left out)."""
        return (len(self.times) - 1) / (self.times[-1] - self.times[0])


def timed(tasks: str, address: str | None, **options: object) -> tuple[float, float, int, float]:
    """(wall seconds playing, driver CPU seconds, episodes, steady episodes/s) of one run."""
    extra = {"executor": "ray", "ray_address": address} if address else {}
    clock = Clock()
    cpu = time.process_time()
    result = playbench.eval(tasks, log_dir=tempfile.mkdtemp(prefix="pbbench"), progress=clock,  # type: ignore[arg-type]
                            **extra, **options)
    assert result.complete, result.played
    return result.elapsed_s, time.process_time() - cpu, result.episodes, clock.steady()


def spread(values: list[float], fmt: str = "{:.2f}") -> str:
    return "min " + fmt.format(min(values)) + "  median " + fmt.format(statistics.median(values)) + \
        "  max " + fmt.format(max(values))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--episodes", type=int, default=24, help="CPU workload episodes per run")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    one, two = LocalRayCluster(nodes=1), LocalRayCluster(nodes=2)
    one.start()
    two.start()
    targets = {"local": None, "ray-1": one.address, "ray-2": two.address}
    rates: dict[str, dict[str, list[float]]] = {w: {t: [] for t in targets} for w in ("cpu", "model")}
    whole: dict[str, dict[str, list[float]]] = {w: {t: [] for t in targets} for w in ("cpu", "model")}
    small: dict[str, list[float]] = {"local": [], "ray-1": []}
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
                    wall, cpu, n, steady = timed("smartplay/crafter", address, agent="random",
                                                 episodes=args.episodes, task_params={"max_steps": 500})
                    rates["cpu"][name].append(steady)
                    whole["cpu"][name].append(n / wall)
                    cpus[name].append(cpu)
                    wall, _, n, steady = timed("smartplay/hanoi-3", address, **model)  # type: ignore[arg-type]
                    rates["model"][name].append(steady)
                    whole["model"][name].append(n / wall)
                    startup[name].append(timed("smartplay/hanoi-3", address, agent="random", episodes=2)[0])
                    if name != "ray-2":
                        small[name].append(timed("smartplay/hanoi-3", address, agent="random", episodes=200)[3])
                overhead.append((1 / small["ray-1"][-1] - 1 / small["local"][-1]) * 1000)
    finally:
        one.stop()
        two.stop()
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    for workload, goal in (("cpu", "2 workers / 1 worker close to 2.0 (linear)"),
                           ("model", "ray no slower than local")):
        print(f"\n{workload} workload: episodes per second, first to last episode recorded ({args.repeat} rounds)")
        for name in targets:
            print(f"  {name:6} {spread(rates[workload][name])}   (whole run, start-up included: "
                  f"{spread(whole[workload][name])})")
        ratio = [b / a for a, b in zip(rates[workload]["ray-1"], rates[workload]["ray-2"], strict=True)]
        print(f"  scaling 2 workers / 1 worker: {spread(ratio)}   goal: {goal}")
    print("\ndriver CPU seconds per CPU-workload run: " + "; ".join(f"{n} {spread(v)}" for n, v in cpus.items()))
    print("start-up seconds (2-episode run): " + "; ".join(f"{n} {spread(v)}" for n, v in startup.items()))
    print("hanoi-3 random agent, 200 episodes of a few ms, steady episodes/s: "
          + "; ".join(f"{n} {spread(v)}" for n, v in small.items()))
    print(f"Ray overhead per episode (ms, 1/rate ray-1 - 1/rate local): {spread(overhead)}   goal: below 5 ms")


if __name__ == "__main__":
    main()

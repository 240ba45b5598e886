"""Throughput of the model layer and runner against a loopback OpenAI-compatible server.

Starts ``python -m playbench.models.fakeserver`` (own process, 200 ms latency per answer), then runs
64 and 256 concurrent ``smartplay/hanoi-3`` episodes (naive agent, ``--max-connections`` equal to
the concurrency) and prints achieved requests/s divided by the ideal (concurrency / latency), and the
client's CPU per request. Goal: >= 0.95 at 64 and >= 0.9 at 256, as the median of ``--repeat`` runs (3 by
default; single runs on a shared VM vary by a few percent). An untimed two-episode run first loads what
is imported lazily; runs go through ``playbench.eval`` and the timed part of each is the playing alone
(``EvalResult.elapsed_s``: no process start-up, imports or run set-up). The client's CPU is measured
around the whole call, set-up included (a few milliseconds).

    .venv/bin/python benchmarks/throughput.py [--latency 0.2] [--concurrency 64 256] [--agent naive] [--repeat 3]
"""

import argparse
import gc
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import playbench

TASK = "smartplay/hanoi-3"


def start_server(latency: float) -> tuple[subprocess.Popen, int]:
    proc = subprocess.Popen([sys.executable, "-m", "playbench.models.fakeserver", "--latency", str(latency)],
                            stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert line.startswith("PORT "), line
    return proc, int(line.split()[1])


def run_once(port: int, concurrency: int, agent_name: str, log_dir: Path) -> tuple[float, float, int, int]:
    # Leave what imports and set-up allocated out of the collector's full scans during the timed run (the
    # same gc.freeze() a long-running eval process can do at start-up); the run's own objects are still
    # collected as usual.
    gc.collect()
    gc.freeze()
    cpu0 = time.thread_time()
    result = playbench.eval(TASK, agent=agent_name, model="openai/bench", episodes=concurrency, log_dir=log_dir,
                            base_url=f"http://127.0.0.1:{port}/v1", max_connections=concurrency, timeout=60)
    cpu = time.thread_time() - cpu0
    assert result.played == {"ok": concurrency}, result.played
    return result.elapsed_s, cpu, result.model_stats.attempts, result.steps


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[64, 256])
    parser.add_argument("--agent", default="naive")
    parser.add_argument("--repeat", type=int, default=3, help="runs per concurrency; the median ratio is the figure")
    args = parser.parse_args()
    server, port = start_server(args.latency)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            run_once(port, 2, args.agent, Path(tmp))  # untimed warm-up: lazy imports of the suite and client
            for n in args.concurrency:
                ideal = n / args.latency
                ratios = []
                for _ in range(args.repeat):
                    elapsed, cpu, requests, steps = run_once(port, n, args.agent, Path(tmp))
                    achieved = requests / elapsed
                    ratios.append(achieved / ideal)
                    print(f"concurrency {n:4d}: {requests} requests, {steps} steps in {elapsed:.2f} s -> "
                          f"{achieved:.1f} req/s, ideal {ideal:.1f} req/s, ratio {achieved / ideal:.3f} "
                          f"(client CPU {cpu / requests * 1000:.3f} ms per request)", flush=True)
                print(f"concurrency {n:4d}: median ratio {statistics.median(ratios):.3f} over {args.repeat} runs",
                      flush=True)
    finally:
        fields = Path(f"/proc/{server.pid}/stat").read_text().rsplit(")", 1)[1].split()
        tick = os.sysconf("SC_CLK_TCK")
        cpu_server = (int(fields[11]) + int(fields[12])) / tick
        cpu_client = sum(os.times()[:2])
        print(f"CPU seconds: benchmark process {cpu_client:.1f}, fake server {cpu_server:.1f}")
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()

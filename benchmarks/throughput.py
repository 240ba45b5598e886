"""Throughput and client CPU against a loopback OpenAI-compatible server with a fixed latency.

Starts ``python -m playbench.models.fakeserver`` in its own process (200 ms per answer by default) and,
for each number of episodes in flight (1, 64, 256, 1024 by default), plays ``--rounds`` times that many
``smartplay/hanoi-3`` episodes with the ``naive`` agent (one request per step, ``--max-connections`` equal
to the episodes in flight; a round is 30 steps, 6 s at 200 ms). The ratio is achieved requests/s over the
ideal (in flight / latency). Three variants run interleaved, ``--repeat`` times each:

* ``run``: ``playbench.eval`` in this process, timed over the playing alone (``EvalResult.elapsed_s``);
  its CPU per request (this process) is the client's cost: parse, build the request, send, receive,
  parse the answer, record.
* ``command``: ``playbench eval …`` as a user types it, in a new process, timed from start to exit (start-up,
  imports and writing the run included); CPU of that process per request. Its fixed cost (the command's
  median wall time less the run's) is printed too: the longer the run, the less it weighs. Bytecode is
  cached, as on a user's machine after the first run (see ``common.user_env``).
* ``floor``: a bare aiohttp client posting a request of the same size as fast as the server answers, with as
  many in flight, on the runner's event loop: the least CPU per request Python and aiohttp need here.

The fake server's own CPU per request is printed too (it shares the machine's cores with the client).
Goals: client CPU <= 0.2 ms per request at every setting; ratio >= 0.97 at 64, >= 0.95 at 256, >= 0.9 at
1,024 in flight (median of 5), for the run and for the command.

    .venv/bin/python benchmarks/throughput.py [--latency 0.2] [--in-flight 1 64 256 1024] [--repeat 5]
                                              [--rounds 1]
"""

import argparse
import asyncio
import gc
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import children_cpu_since, machine_note, spread, user_env

import playbench
from playbench.runner.loop import run as run_loop

TASK = "smartplay/hanoi-3"
STEPS = 30  # a naive agent never solves Hanoi-3 against the fake server: every episode runs 30 steps
GOAL_CPU_MS = 0.2
GOAL_RATIO = {64: 0.97, 256: 0.95, 1024: 0.9}


def start_server(latency: float) -> tuple[subprocess.Popen, int]:
    proc = subprocess.Popen([sys.executable, "-m", "playbench.models.fakeserver", "--latency", str(latency)],
                            stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert line.startswith("PORT "), line
    return proc, int(line.split()[1])


def process_cpu(pid: int) -> float:
    """User + system CPU seconds of a live process, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run(port: int, episodes: int, n: int, log_dir: Path) -> tuple[float, float, int]:
    """(seconds playing, CPU seconds of this process, requests) for ``episodes`` with ``n`` in flight."""
    gc.collect()
    cpu0 = time.process_time()
    result = playbench.eval(TASK, agent="naive", model="openai/bench", episodes=episodes, log_dir=log_dir,
                            base_url=f"http://127.0.0.1:{port}/v1", max_connections=n, timeout=60)
    cpu = time.process_time() - cpu0
    assert result.played == {"ok": episodes}, result.played
    return result.elapsed_s, cpu, result.model_stats.attempts


def command(port: int, episodes: int, n: int, log_dir: Path) -> tuple[float, float, int]:
    """(seconds from start to exit, CPU seconds of the command, requests) for ``playbench eval`` typed."""
    args = [sys.executable, "-m", "playbench.cli.main", "eval", TASK, "--model", "openai/bench", "--episodes",
            str(episodes), "--base-url", f"http://127.0.0.1:{port}/v1", "--max-connections", str(n), "--timeout",
            "60", "--quiet", "--log-dir", str(log_dir)]
    before = os.times()
    start = time.perf_counter()
    env = {**user_env(log_dir.parent / "bytecode"), "OPENAI_API_KEY": ""}
    done = subprocess.run(args, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    cpu = children_cpu_since(before)
    assert done.returncode == 0, done.stderr
    return wall, cpu, episodes * STEPS


def floor(port: int, n: int, requests: int, body_size: int) -> tuple[float, float, int]:
    """A bare aiohttp client: ``requests`` POSTs of ``body_size`` bytes, ``n`` in flight."""
    import aiohttp
    import orjson

    body = orjson.dumps({"model": "bench", "messages": [{"role": "user", "content": "x" * body_size}]})

    async def main() -> None:
        left = [requests]
        connector = aiohttp.TCPConnector(limit=n)
        async with aiohttp.ClientSession(connector=connector) as session:
            async def worker() -> None:
                while left[0] > 0:
                    left[0] -= 1
                    async with session.post(f"http://127.0.0.1:{port}/v1/chat/completions", data=body,
                                            headers={"Content-Type": "application/json"}) as answer:
                        orjson.loads(await answer.read())

            await asyncio.gather(*(worker() for _ in range(n)))

    cpu0, start = time.process_time(), time.perf_counter()
    run_loop(main())  # the same event loop as the runner's (uvloop where installed)
    return time.perf_counter() - start, time.process_time() - cpu0, requests


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--in-flight", type=int, nargs="+", default=[1, 64, 256, 1024])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=1, help="episodes per slot in flight (each 30 steps)")
    parser.add_argument("--body", type=int, default=2500, help="bytes of the floor's request (a Hanoi prompt's size)")
    args = parser.parse_args()
    print(machine_note())
    server, port = start_server(args.latency)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            run(port, 2, 2, root / "warm-up")  # untimed: lazy imports of the suite and the client
            command(port, 2, 2, root / "warm-up-command")  # untimed: writes the command's bytecode cache
            for n in args.in_flight:
                episodes = (4 if n == 1 else n) * args.rounds  # one in flight: a few episodes one after the other
                variants = {
                    "run": lambda n=n, e=episodes: run(port, e, n, root / f"run-{n}"),
                    "command": lambda n=n, e=episodes: command(port, e, n, root / f"cmd-{n}"),
                    "floor": lambda n=n, e=episodes: floor(port, n, e * STEPS, args.body),
                }
                samples: dict[str, list[tuple[float, float, int, float]]] = {k: [] for k in variants}
                for _ in range(args.repeat):
                    for name, fn in variants.items():
                        server0 = process_cpu(server.pid)
                        wall, cpu, requests = fn()
                        samples[name].append((wall, cpu, requests, process_cpu(server.pid) - server0))
                goal = GOAL_RATIO.get(n)
                for name, rows in samples.items():
                    ideal = n / args.latency
                    ratios = [r / w / ideal for w, _, r, _ in rows]
                    cpu_ms = [c / r for _, c, r, _ in rows]
                    server_ms = [s / r for _, _, r, s in rows]
                    print(f"{n:>5} in flight, {name:<7} ({rows[0][2]} requests): ratio {spread(ratios)}"
                          f"{f' (goal >= {goal})' if goal and name != 'floor' else ''}; "
                          f"CPU {spread(cpu_ms, 1e3)} ms/request"
                          f"{f' (goal <= {GOAL_CPU_MS})' if name == 'run' else ''}; server CPU {spread(server_ms, 1e3)} ms/request",
                          flush=True)
                fixed = statistics.median(w for w, *_ in samples["command"]) - statistics.median(
                    w for w, *_ in samples["run"])
                ideal_s = samples["run"][0][2] * args.latency / n
                print(f"{n:>5} in flight: the command's fixed cost (start-up, connections, closing the run) is "
                      f"{fixed:.2f} s of a {ideal_s:.0f} s ideal", flush=True)
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()

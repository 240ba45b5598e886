"""How fast a run admits that its server is dead: ``playbench eval`` of 10 Hanoi episodes against a closed
loopback port, timed as a user types it (interpreter start-up included). Goal: under 10 s wall.

Also times a server that refuses the key (HTTP 401), which must stop the run after one request.

    .venv/bin/python benchmarks/dead_server.py [--repeat 3]
"""

import argparse
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time

from playbench.models.fakeserver import FakeServer

GOAL_SECONDS = 10.0
COMMAND = [sys.executable, "-m", "playbench.cli.main", "eval", "smartplay/hanoi-3", "--model", "openai/x",
           "--episodes", "10", "--quiet"]


def closed_port() -> int:
    """A loopback port nobody listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def timed(url: str) -> tuple[float, float, int]:
    """(wall seconds, child CPU seconds, exit code) of one eval against ``url``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryDirectory() as logs:
        started = time.perf_counter()
        done = subprocess.run([*COMMAND, "--base-url", url, "--log-dir", logs], capture_output=True,
                              env={**os.environ, "OPENAI_API_KEY": "sk-benchmark"})
        wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime), done.returncode


def main() -> None:
    """Interleave the two cases, print min / median / max beside the goal."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    results: dict[str, list[tuple[float, float, int]]] = {"closed port": [], "401 refused": []}
    with FakeServer(reject_auth=True) as refusing:
        for _ in range(args.repeat):
            results["closed port"].append(timed(f"http://127.0.0.1:{closed_port()}/v1"))
            results["401 refused"].append(timed(refusing.url))
    for name, rows in results.items():
        walls = sorted(r[0] for r in rows)
        cpus = sorted(r[1] for r in rows)
        codes = sorted({r[2] for r in rows})
        print(f"{name:12s} wall s min {walls[0]:.2f} median {statistics.median(walls):.2f} max {walls[-1]:.2f} "
              f"| CPU s median {statistics.median(cpus):.2f} | exit {codes} | goal: wall < {GOAL_SECONDS:.0f} s")


if __name__ == "__main__":
    main()

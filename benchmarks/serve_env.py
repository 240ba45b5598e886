"""``playbench serve-env``: steps/s from one process against several (``--workers 2``, or two ports).

Each variant is a running server (started once, before the timing): ``1 process`` (``serve-env``),
``2 workers`` (``serve-env --workers 2``: two processes on one port) and ``2 ports`` (two ``serve-env``
processes, the clients spread over them, the recipe for machines without ``--workers``). Each sample
plays ``--sessions`` concurrent WebSocket sessions for ``--seconds``, every session resetting and
stepping episodes with a fixed answer (a lean client: bare ``websockets``, the OpenEnv messages pre-encoded,
so that the client takes as little of the machine's CPU as it can). Printed per variant: steps/s, the
servers' CPU per step (every server process, from /proc), how many cores the servers kept busy (server
CPU seconds per second: below 1 per process, the servers were not what held the steps back) and the
client's CPU per step. Variants are interleaved,
``--repeat`` times; min / median / max.

Goal (issue 38): steps/s grows with the processes, up to the cores the servers get. On a machine of C
cores where the client itself takes ``c`` ms of CPU a step and a server ``s``, the bound is about
``C / (s + c)`` steps/s a millisecond; printed beside the figures.

    .venv/bin/python benchmarks/serve_env.py [--task smartplay/hanoi-3] [--sessions 16] [--seconds 3] [--repeat 5]
        [--against OTHER/src]
"""

import argparse
import asyncio
import os
import re
import signal
import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path

import orjson
import websockets
from common import interleaved, machine_note, spread

#: task -> (task parameters, the fixed answer)
TASKS = {
    "smartplay/hanoi-3": (("max_steps=50",), "Move the top disk of rod A to the top of rod C"),
    "balrog/babyai/goto": (("max_steps=50",), "turn left"),
}
TICKS = os.sysconf("SC_CLK_TCK")


class Server:
    """A ``playbench serve-env`` process (its workers with it), stopped when the ExitStack closes."""

    def __init__(self, task: str, *options: str, source: str | None = None) -> None:
        params, _ = TASKS[task]
        args = [sys.executable, "-m", "playbench.cli.main", "serve-env", task, "--port", "0", "--max-sessions", "256",
                *(a for p in params for a in ("-T", p)), *options]
        # this process's session, as every variant's: Linux's autogroup shares the CPU among sessions, so a
        # server in a session of its own would get a share of its own on a busy machine
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        if source is not None:  # another checkout's playbench (its src folder) first on the path
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [source, env.get("PYTHONPATH")]))
        self.proc = subprocess.Popen(args, stderr=subprocess.PIPE, text=True, env=env)
        assert self.proc.stderr is not None
        line = self.proc.stderr.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)", line)
        if found is None:
            raise SystemExit(f"serve-env did not start: {line}")
        self.url = f"ws://127.0.0.1:{found.group(1)}/ws"

    def cpu(self) -> float:
        """CPU seconds (user + system) of the server and every process below it, so far."""
        return sum(_cpu(pid) for pid in _tree(self.proc.pid))

    def close(self) -> None:
        self.proc.send_signal(signal.SIGTERM)  # serve-env stops its workers
        self.proc.communicate(timeout=60)


def _tree(pid: int) -> list[int]:
    """``pid`` and its descendants (/proc's children lists)."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        for task in Path(f"/proc/{current}/task").glob("*"):
            try:
                todo.extend(int(c) for c in (task / "children").read_text().split())
            except FileNotFoundError:  # a thread that ended meanwhile
                continue
    return found


def _cpu(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime


async def _session(url: str, task: str, answer: bytes, until: float) -> int:
    """Reset and step episodes until ``until`` (perf_counter); the steps answered in time."""
    reset = orjson.dumps({"type": "reset", "data": {"task": task}}).decode()  # a text frame, as OpenEnv reads
    step = orjson.dumps({"type": "step", "data": {"text": answer.decode()}}).decode()
    steps = 0
    async with websockets.connect(url, max_size=None) as ws:
        while True:
            await ws.send(reset)
            await ws.recv()
            done = False
            while not done:
                await ws.send(step)
                reply = orjson.loads(await ws.recv())
                if time.perf_counter() > until:
                    return steps
                steps += 1
                done = bool(reply["data"].get("done"))


async def _load(urls: list[str], task: str, sessions: int, seconds: float) -> int:
    answer = TASKS[task][1].encode()
    until = time.perf_counter() + seconds
    counts = await asyncio.gather(*(_session(urls[n % len(urls)], task, answer, until) for n in range(sessions)))
    return sum(counts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--task", default="smartplay/hanoi-3", choices=sorted(TASKS))
    parser.add_argument("--sessions", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--against", metavar="SRC", help="also time one process of the playbench in SRC (another "
                        "checkout's src folder, e.g. a git worktree of an older commit)")
    args = parser.parse_args()
    print(machine_note())
    with ExitStack() as stack:
        def server(*options: str) -> Server:
            made = Server(args.task, *options)
            stack.callback(made.close)
            return made

        variants = {"1 process": [server()], "2 workers": [server("--workers", "2")], "2 ports": [server(), server()]}
        if args.against:
            made = Server(args.task, source=args.against)
            stack.callback(made.close)
            variants[f"1 process of {args.against}"] = [made]
        for servers in variants.values():  # every worker started and warm before the timing
            asyncio.run(_load([s.url for s in servers], args.task, args.sessions, 2.0))

        def sample(servers: list[Server]) -> tuple[int, float]:
            before = sum(s.cpu() for s in servers)
            steps = asyncio.run(_load([s.url for s in servers], args.task, args.sessions, args.seconds))
            return steps, sum(s.cpu() for s in servers) - before

        samples = interleaved({name: (lambda s=servers: sample(s)) for name, servers in variants.items()},
                              args.repeat)
    print(f"{args.task}, {args.sessions} sessions, {args.seconds:g} s a sample; min / median / max")
    base = None
    for name, got in samples.items():
        rates = [n / args.seconds for n, _ in got.results]
        server_ms = [c / n * 1e3 for (n, c) in got.results]
        client_ms = [c / n * 1e3 for c, (n, _) in zip(got.cpu, got.results, strict=True)]
        busy = [c / args.seconds for _, c in got.results]  # the servers' cores kept busy (1.0: one core)
        base = base or sorted(rates)[len(rates) // 2]
        print(f"  {name:12} steps/s {spread(rates, digits=0)} (x{sorted(rates)[len(rates) // 2] / base:.2f})"
              f"   server CPU ms/step {spread(server_ms)} (cores busy {spread(busy, digits=2)})"
              f"   client CPU ms/step {spread(client_ms)}")
    cores = os.cpu_count() or 1
    print(f"  goal: steps/s grows with the server processes, up to {cores} core(s) shared with the client "
          "(bound about cores / (server + client CPU per step))")


if __name__ == "__main__":
    main()

"""``playbench serve-env --workers 2`` as real processes on loopback, played through OpenEnv's own client: the
sessions spread over both workers, each episode's observations and end those one process (ChatEnv) gives;
a port already served is refused; workers stop with their supervisor, even one killed outright.
"""

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest
import websockets

from helpers import run_cli, serve_env_process
from playbench.rl import ChatEnv

pytest.importorskip("openenv.core")
if not sys.platform.startswith("linux") or (os.cpu_count() or 1) < 2:
    pytest.skip("--workers 2 needs Linux and two CPUs", allow_module_level=True)

from playbench.rl.openenv import PlaybenchAction, PlaybenchEnvClient  # noqa: E402

SEED = 5
TASK = "smartplay/hanoi-3"
ANSWERS = ["Move the top disk of rod A to the top of rod C", "no idea", "Move the top disk of rod A to the top of rod B"]
#: sessions opened at once: the kernel spreads connections by a hash, so all of them on one worker is 2**-23
SESSIONS = 24


def _serve(*args: str) -> AbstractContextManager[tuple[subprocess.Popen[str], int]]:
    return serve_env_process(TASK, "--seed", str(SEED), *args, announced=" from 2 processes")


def _workers(pid: int) -> list[int]:
    """The worker processes of the supervisor ``pid`` (its children but multiprocessing's resource tracker)."""
    children = [int(c) for task in Path(f"/proc/{pid}/task").iterdir()
                for c in (task / "children").read_text().split()]
    return [c for c in children if "resource_tracker" not in Path(f"/proc/{c}/cmdline").read_text()]


def _connections(pid: int, port: int) -> int:
    """Established TCP connections to ``port`` whose server end ``pid`` holds."""
    inodes = {os.readlink(fd)[8:-1] for fd in Path(f"/proc/{pid}/fd").iterdir()
              if os.readlink(fd).startswith("socket:[")}
    held = 0
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[1].split(":")[1], 16) == port and fields[3] == "01" and fields[9] in inodes:
            held += 1
    return held


def _expected(index: int) -> tuple[list[Any], int]:
    env = ChatEnv(TASK, index=index, seed=SEED)
    requests = [env.reset()] + [env.step(answer).messages for answer in ANSWERS]
    env.close()
    return requests, env.seed


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[subprocess.Popen[str], int]]:
    with _serve("--port", "0", "--workers", "2") as server:
        yield server


def test_two_workers_serve_sessions_each_in_one_process_as_one_process_plays_them(
        served: tuple[subprocess.Popen[str], int]) -> None:
    proc, port = served
    url = f"http://127.0.0.1:{port}"

    async def play() -> tuple[list[list[Any]], list[int]]:
        clients = [PlaybenchEnvClient(base_url=url) for _ in range(SESSIONS)]
        for client in clients:
            await client.connect()
        await asyncio.sleep(0.2)
        held = [_connections(worker, port) for worker in _workers(proc.pid)]

        async def episode(client: PlaybenchEnvClient, index: int) -> list[Any]:
            steps = [await client.reset(task=TASK, index=index)]
            for answer in ANSWERS:
                steps.append(await client.step(PlaybenchAction(text=answer)))
            return [*steps, await client.state()]

        plays = await asyncio.gather(*(episode(c, n % 3) for n, c in enumerate(clients)))
        for client in clients:
            await client.close()
        return plays, held

    plays, held = asyncio.run(play())

    async def extensions() -> str | None:  # what a client that asks for compression gets
        async with websockets.connect(f"ws://127.0.0.1:{port}/ws") as ws:
            assert ws.response is not None
            return ws.response.headers.get("Sec-WebSocket-Extensions")

    assert asyncio.run(extensions()) is None  # messages uncompressed: deflate cost CPU a step on both ends
    assert len(held) == 2 and sum(held) == SESSIONS and min(held) > 0, held  # both workers hold sessions
    expected = {index: _expected(index) for index in range(3)}
    for n, (*steps, state) in enumerate(plays):
        requests, seed = expected[n % 3]
        assert [s.observation.messages for s in steps] == requests
        assert state.index == n % 3 and state.seed == seed and state.step_count == len(ANSWERS)


def test_too_many_workers_and_a_port_already_served_are_refused_in_one_line(
        served: tuple[subprocess.Popen[str], int]) -> None:
    bad = run_cli("serve-env", TASK, "--port", "0", "--workers", str((os.cpu_count() or 1) + 1))
    assert bad.returncode != 0 and "--workers" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
    again = run_cli("serve-env", TASK, "--port", str(served[1]), "--workers", "2")  # would join its port's group
    assert again.returncode != 0 and "cannot listen" in again.stderr, again.stderr
    assert len(again.stderr.strip().splitlines()) == 1


def _started_workers(pid: int) -> list[int]:
    deadline = time.monotonic() + 30
    while len(workers := _workers(pid)) < 2:
        assert time.monotonic() < deadline, "the workers did not start"
        time.sleep(0.05)
    return workers


def _gone(workers: list[int]) -> None:
    deadline = time.monotonic() + 20
    while any(Path(f"/proc/{w}").exists() and "Z" not in _state(w) for w in workers):
        assert time.monotonic() < deadline, "workers outlived their supervisor"
        time.sleep(0.1)


def test_a_worker_that_ends_stops_the_server_and_workers_go_with_their_supervisor() -> None:
    with _serve("--port", "0", "--workers", "2") as (proc, _):
        workers = _started_workers(proc.pid)
        os.kill(workers[0], signal.SIGKILL)
        assert proc.wait(30) != 0 and proc.stderr is not None
        said = proc.stderr.read().strip().splitlines()
        assert said == [f"error: serve-env: a worker ended (serve-env worker 0, exit code {-signal.SIGKILL}); the "
                        "others were stopped"], said
        _gone(workers)
    with _serve("--port", "0", "--workers", "2") as (proc, _):  # the supervisor killed outright
        workers = _started_workers(proc.pid)
        os.kill(proc.pid, signal.SIGKILL)
        _gone(workers)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return "Z"

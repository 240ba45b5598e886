"""playbench over OpenEnv's reset/step/state, driven by OpenEnv's own WebSocket client on loopback: the library's
app in a thread, and ``playbench serve-env`` as a real process. The observations are ChatEnv's requests; a seed
names the same episode every time.
"""

import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from helpers import run_cli
from playbench.core.errors import PlaybenchError
from playbench.rl import ChatEnv

pytest.importorskip("openenv.core")
import uvicorn  # noqa: E402

from playbench.rl.openenv import PlaybenchAction, PlaybenchEnvClient, make_app  # noqa: E402

SEED = 5
HANOI = ["Move the top disk of rod A to the top of rod C", "no idea", "Move the top disk of rod A to the top of rod B"]


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    app = make_app(["smartplay/hanoi-3", "mango/df"], seed=SEED)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="critical"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    server.should_exit = True
    thread.join(10)


async def _play(url: str, answers: list[str], **reset: Any) -> list[Any]:
    async with PlaybenchEnvClient(base_url=url) as client:
        results = [await client.reset(**reset)]
        for answer in answers:
            results.append(await client.step(PlaybenchAction(text=answer)))
            if results[-1].done:
                break
        results.append(await client.state())
    return results


def _first(task: str, index: int, seed: int) -> list[dict[str, Any]]:
    env = ChatEnv(task, index=index, seed=seed)
    messages = env.reset()
    env.close()
    return messages


def test_openenv_client_gets_chatenvs_requests_and_its_step_info(url: str) -> None:
    *steps, state = asyncio.run(_play(url, HANOI, task="smartplay/hanoi-3", index=1))
    env = ChatEnv("smartplay/hanoi-3", index=1, seed=SEED)
    expected = [env.reset()] + [env.step(a).messages for a in HANOI]
    assert [s.observation.messages for s in steps] == expected
    assert [s.done for s in steps] == [False] * 4 and [s.reward for s in steps] == [0.0] * 4  # score comes at the end
    assert [s.observation.info.get("valid") for s in steps] == [None, True, False, True]
    assert state.task == "smartplay/hanoi-3" and state.index == 1 and state.seed == env.seed
    assert state.step_count == 3 and not state.done and state.score == steps[-1].observation.info["score"]
    env.close()


def test_a_seed_names_the_same_episode_in_concurrent_sessions(url: str) -> None:
    async def group() -> list[list[Any]]:
        return await asyncio.gather(*(_play(url, [f"[{n}]"], task="mango/df", index=2, seed=9) for n in range(4)))

    plays = asyncio.run(group())
    firsts = {str(p[0].observation.messages) for p in plays}
    assert len(firsts) == 1  # four copies of one episode start identical
    assert firsts == {str(_first("mango/df", 2, 9))}
    for n, play in enumerate(plays):  # a one-step task: the one answer ends it, rewarded with the official score
        env = ChatEnv("mango/df", index=2, seed=9)
        env.reset()
        env.step(f"[{n}]")
        assert play[1].done and play[1].observation.messages == [] and play[1].reward == env.score is not None
        assert play[-1].seed == play[0].observation.seed and play[-1].status == "ok"
    other = asyncio.run(_play(url, [], task="mango/df", index=2))[0]
    assert other.observation.seed != plays[0][0].observation.seed  # the server's seed is another run's episode


def test_bad_requests_are_refused(url: str) -> None:
    with pytest.raises(Exception, match="not served here"):
        asyncio.run(_play(url, [], task="grasp/energy"))
    with pytest.raises(PlaybenchError, match="nosuch"):
        make_app("nosuch/task")


def test_serve_env_command_serves_openenv_and_refuses_bad_input() -> None:
    bad = run_cli("serve-env", "nosuch/task", "--port", "0")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and "nosuch" in bad.stderr
    proc = subprocess.Popen([sys.executable, "-m", "playbench.cli.main", "serve-env", "mango/df", "--port", "0",
                             "--seed", str(SEED)], stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)", line)
        assert found, line
        reset, step, state = asyncio.run(_play(f"http://127.0.0.1:{found.group(1)}", ["[]"], index=0))
        assert reset.observation.messages == _first("mango/df", 0, SEED)
        assert step.done and state.done and state.status == "ok"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(30)

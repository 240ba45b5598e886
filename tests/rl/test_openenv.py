"""playbench over OpenEnv's reset/step/state, driven by OpenEnv's own WebSocket client on loopback: the library's
app in a thread, and ``playbench serve-env`` as a real process. The observations are ChatEnv's requests; a seed
names the same episode every time.
"""

import asyncio
import contextlib
import json
import logging
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from helpers import run_cli, serve_app, serve_env_process
from playbench.core.errors import PlaybenchError
from playbench.rl import ChatEnv

pytest.importorskip("openenv.core")
import websockets  # noqa: E402
from starlette.websockets import WebSocket  # noqa: E402

from playbench.rl.openenv import SPEC_CACHE, PlaybenchAction, PlaybenchEnvClient, make_app  # noqa: E402

SEED = 5
HANOI = ["Move the top disk of rod A to the top of rod C", "no idea", "Move the top disk of rod A to the top of rod B"]


@pytest.fixture(scope="module")
def app() -> Any:
    return make_app(["smartplay/hanoi-3", "mango/df"], seed=SEED)


@pytest.fixture(scope="module")
def url(app: Any) -> Iterator[str]:
    with serve_app(app) as served:
        yield served


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
    with serve_env_process("mango/df", "--port", "0", "--seed", str(SEED)) as (_, port):
        reset, step, state = asyncio.run(_play(f"http://127.0.0.1:{port}", ["[]"], index=0))
        assert reset.observation.messages == _first("mango/df", 0, SEED)
        assert step.done and state.done and state.status == "ok"


# -- bounds, refusals and a quiet server --------------------------------------------------------------------


def test_seeds_a_client_names_are_not_kept_for_ever(app: Any, url: str) -> None:
    async def resets() -> list[Any]:
        async with PlaybenchEnvClient(base_url=url) as client:
            firsts = [await client.reset(task="mango/df", index=0, seed=1000 + n) for n in range(SPEC_CACHE + 20)]
            firsts.append(await client.reset(task="mango/df", index=0, seed=1000))  # long since dropped: made again
        return firsts

    firsts = asyncio.run(resets())
    specs = app.state.playbench_specs
    assert len(specs) <= SPEC_CACHE + 2  # the served tasks under the server's seed, and the recent others
    assert firsts[-1].observation.messages == firsts[0].observation.messages == _first("mango/df", 0, 1000)
    assert firsts[1].observation.messages != firsts[0].observation.messages


def _post(url: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


def test_stateless_http_step_and_bad_resets_are_refused_with_their_message(url: str) -> None:
    status, body = _post(f"{url}/step", {"action": {"text": "Move the top disk of rod A to the top of rod C"}})
    assert status == 409 and "step before reset" in body["detail"] and "/ws" in body["detail"], body
    status, body = _post(f"{url}/reset", {"task": "grasp/energy"})
    assert status == 400 and "not served here" in body["detail"], body
    status, body = _post(f"{url}/reset", {"task": "mango/df", "seed": "abc"})
    assert status == 422 and body["detail"][0]["loc"] == ["body", "seed"], body
    status, body = _post(f"{url}/reset", {"task": "mango/df", "index": 1})
    assert status == 200 and body["observation"]["messages"] == _first("mango/df", 1, SEED)


def test_mcp_is_refused_and_holds_no_session() -> None:
    """OpenEnv's HTTP /mcp kept a session per ``openenv/session/create``, tied to no connection, never freed."""
    create = {"jsonrpc": "2.0", "method": "openenv/session/create", "params": {}, "id": 1}
    with serve_app(make_app("mango/df", seed=SEED, max_sessions=2)) as url:
        for _ in range(3):
            status, body = _post(f"{url}/mcp", create)
            assert status == 404 and "no MCP" in body["detail"], body
        first = asyncio.run(_play(url, [], task="mango/df", index=3))[0]  # the sessions are all still free
    assert first.observation.messages == _first("mango/df", 3, SEED)


def test_sessions_are_bounded_and_freed_when_their_client_goes() -> None:
    async def hold(url: str) -> Any:
        first, second = PlaybenchEnvClient(base_url=url), PlaybenchEnvClient(base_url=url)
        await first.connect()
        await second.connect()
        await first.reset(task="mango/df")
        await second.reset(task="mango/df")
        async with websockets.connect(url.replace("http", "ws", 1) + "/ws") as third:
            refusal = json.loads(await third.recv())
        assert refusal["type"] == "error" and refusal["data"]["max_sessions"] == 2, refusal
        await first.close()
        for _ in range(100):  # the server frees the session once it sees the client go
            again = PlaybenchEnvClient(base_url=url)
            try:
                await again.connect()
                result = await again.reset(task="mango/df", index=3)
                break
            except Exception:
                await again.close()
                await asyncio.sleep(0.05)
        await again.close()
        await second.close()
        return result

    with serve_app(make_app("mango/df", seed=SEED, max_sessions=2)) as url:
        result = asyncio.run(hold(url))
    assert result.observation.messages == _first("mango/df", 3, SEED)


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def test_real_errors_are_still_reported_and_client_departures_are_not() -> None:
    app = make_app("mango/df", seed=SEED)

    @app.websocket("/broken")
    async def broken(websocket: WebSocket) -> None:
        await websocket.accept()
        raise RuntimeError("a real fault")

    seen = _Records()
    with serve_app(app, log_level="error") as url:
        logging.getLogger("uvicorn.error").addHandler(seen)
        try:
            asyncio.run(_play(url, ["[]"], index=0))  # a whole session, closed as OpenEnv's client closes it
            asyncio.run(_drop_connection(url))
            time.sleep(0.3)
            assert seen.records == [], [r.getMessage() for r in seen.records]
            asyncio.run(_drop_connection(url, "/broken"))
            deadline = time.monotonic() + 10
            while not seen.records and time.monotonic() < deadline:
                time.sleep(0.02)
        finally:
            logging.getLogger("uvicorn.error").removeHandler(seen)
    (record,) = seen.records
    assert record.exc_info is not None and str(record.exc_info[1]) == "a real fault"


async def _drop_connection(url: str, path: str = "/ws") -> None:
    """A client that resets, then goes without saying goodbye (no close message)."""
    async with websockets.connect(url.replace("http", "ws", 1) + path) as ws:
        if path == "/ws":
            await ws.send(json.dumps({"type": "reset", "data": {"task": "mango/df"}}))
            await ws.recv()
        else:
            with contextlib.suppress(websockets.ConnectionClosed):
                await ws.recv()


def test_serve_env_stderr_stays_quiet_when_clients_come_and_go() -> None:
    proc = subprocess.Popen([sys.executable, "-m", "playbench.cli.main", "serve-env", "mango/df", "--port", "0",
                             "--seed", str(SEED)], stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)", line)
        assert found, line
        url = f"http://127.0.0.1:{found.group(1)}"
        for index in range(3):  # whole sessions, ended as OpenEnv's client ends them
            reset, step, state = asyncio.run(_play(url, ["[]"], index=index))
            assert state.status == "ok"
        asyncio.run(_drop_connection(url))  # a client that goes without a word
        status, _ = _post(f"{url}/step", {"action": {"text": "[]"}})
        assert status == 409
        time.sleep(0.5)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        _, rest = proc.communicate(timeout=30)
    assert rest == "", rest  # nothing after the line saying where it serves: no traceback

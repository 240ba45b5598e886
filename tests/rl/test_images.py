"""BALROG's image mode in every RL face: each hands the policy the very PNG bytes ``playbench eval`` sends.

The reference is what a ``playbench eval ... -T images=true --model openai/x`` run sends to the recording
loopback FakeServer. Each face is then played against the same server (its answers are a function of the
request, so equal requests get equal answers and the episodes go the same way): ChatEnv's wire form,
the verifiers adapter through verifiers' own evaluation loop, and ``playbench serve-env`` through OpenEnv's
client. Every request each face hands over must equal one eval sent, byte for byte as JSON, images included.
"""

import asyncio
import base64
import json
import os
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from helpers import run_cli
from playbench.models import fakeserver
from playbench.models.fakeserver import FakeServer
from playbench.models.providers.openai import wire_messages
from playbench.rl import ChatEnv

SEED = 3
EPISODES = 2
BABYAI = "balrog/babyai/goto"
PARAMS = {"images": "true", "max_steps": "3"}
NO_KEYS = {"OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""}
PNG = b"\x89PNG\r\n\x1a\n"


def _dump(messages: list[dict[str, Any]]) -> str:
    return json.dumps(messages, ensure_ascii=False)


def _pngs(requests: list[str]) -> list[bytes]:
    """Every image the requests carry, decoded from its data URL (in order)."""
    out = []
    for request in requests:
        for message in json.loads(request):
            for part in message["content"] if isinstance(message["content"], list) else []:
                if part["type"] == "image_url":
                    head, _, data = part["image_url"]["url"].partition(",")
                    assert head == "data:image/png;base64"
                    out.append(base64.b64decode(data, validate=True))
    return out


def _eval_requests(tmp: Path, task: str) -> list[str]:
    """The requests (their messages, as JSON) a ``playbench eval`` run sent to the recording server, sorted."""
    targs = [x for k, v in PARAMS.items() for x in ("-T", f"{k}={v}")]
    with FakeServer(record=True) as srv:
        res = run_cli("eval", task, *targs, "--episodes", str(EPISODES), "--seed", str(SEED), "--model", "openai/x",
                      "--base-url", srv.url, "--quiet", "--log-dir", str(tmp), env=NO_KEYS)
        assert res.returncode == 0, res.stderr
        requests = sorted(_dump(body["messages"]) for _, body in srv.received)
    pngs = _pngs(requests)
    assert len(pngs) >= len(requests) > EPISODES and all(p.startswith(PNG) for p in pngs)  # each has its image
    return requests


def _ask(url: str, messages: list[dict[str, Any]]) -> str:
    """The policy: the messages as they are, sent to the server; its answer's text."""
    body = json.dumps({"model": "x", "messages": messages}).encode()
    request = urllib.request.Request(f"{url}/chat/completions", body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return str(json.loads(answer.read())["choices"][0]["message"]["content"])


def _chat_env_requests(task: str, url: str) -> list[str]:
    """Each episode played through ChatEnv, its wire form sent as the policy's request; the requests, sorted."""
    seen = []
    for index in range(EPISODES):
        env = ChatEnv(task, index=index, seed=SEED, task_params=PARAMS)
        env.reset()
        while not env.done:
            messages = env.wire_messages()
            seen.append(_dump(messages))
            env.step(_ask(url, messages))
    return sorted(seen)


@pytest.mark.parametrize("task", [BABYAI, "balrog/babaisai/goto_win", "balrog/crafter/default"])
def test_chat_env_wire_form_is_what_eval_sends(tmp_path: Path, task: str) -> None:
    expected = _eval_requests(tmp_path, task)
    with FakeServer() as srv:
        assert _chat_env_requests(task, srv.url) == expected


def test_wire_form_carries_the_request_png_bytes_and_nothing_else_changes() -> None:
    env = ChatEnv(BABYAI, index=1, seed=SEED, task_params=PARAMS)
    stubs = env.reset()
    request = env.request
    assert request is not None
    wire = env.wire_messages()
    assert wire == wire_messages(request)  # the OpenAI provider's own encoder: one truth
    assert [m["role"] for m in wire] == [m["role"] for m in stubs]
    for sent, stub, message in zip(wire, stubs, request, strict=True):
        if not message.images:
            assert sent == stub  # text-only messages are the dicts reset() gives
            continue
        assert [i["sha256"] for i in stub["images"]] == [i.digest for i in message.images]
        text, *images = sent["content"]
        assert text == {"type": "text", "text": stub["content"]}
        assert _pngs([_dump([{"role": "user", "content": images}])]) == [i.png for i in message.images]
    wire[-1]["content"].clear()  # fresh data: the caller may change it
    assert env.wire_messages()[-1]["content"] and env.request is request
    env.close()
    assert env.wire_messages() == []


def test_text_tasks_wire_form_equals_reset() -> None:
    env = ChatEnv("smartplay/hanoi-3", seed=SEED)
    assert env.wire_messages() == []  # nothing pending before reset
    messages = env.reset()
    assert messages == env.wire_messages() and messages
    env.close()


# -- verifiers -------------------------------------------------------------------------------------------------


@pytest.fixture
def openai_answers_with_created():
    """verifiers checks answers against OpenAI's schema, which requires ``created``; the FakeServer leaves it out."""
    plain = fakeserver.reply_body

    def reply(fmt: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
        body = plain(fmt, *args, **kwargs)
        return {**body, "created": 0} if fmt == "openai" else body

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fakeserver, "reply_body", reply)
        yield


def _verifiers_requests(history: str) -> list[str]:
    """The requests verifiers' evaluation loop (what vf-eval runs in process) sent to the server, sorted."""
    vf = pytest.importorskip("verifiers.v1")
    from playbench.rl.verifiers import load_environment

    env = load_environment(BABYAI, episodes=EPISODES, seed=SEED, history=history, task_params=PARAMS)

    async def play(url: str) -> list[Any]:  # serving, then one slot per row
        ctx = vf.ModelContext(model="x", client=vf.EvalClientConfig(base_url=f"{url}/v1", api_key_var="PB_NO_KEY"))
        async with env.serving():
            return await asyncio.gather(*(env.run_slot(slot, ctx) for task in env.taskset
                                          for slot in env.slots(task, 1)))

    with FakeServer(record=True) as srv:
        episodes = asyncio.run(play(srv.url))
        requests = sorted(_dump(body["messages"]) for _, body in srv.received)
    assert len(episodes) == EPISODES and all(e.ok for e in episodes), [e.errors for e in episodes]
    return requests


def test_verifiers_loop_sends_the_images_eval_sends(tmp_path: Path, openai_answers_with_created: None) -> None:
    expected = _eval_requests(tmp_path, BABYAI)
    requests = _verifiers_requests("window")
    assert requests == expected
    assert _pngs(requests) == _pngs(expected)


def test_verifiers_full_history_appends_each_observation_with_its_image(openai_answers_with_created: None) -> None:
    requests = [json.loads(r) for r in _verifiers_requests("full")]
    assert len(requests) > EPISODES
    for request in requests:  # the newest observation, as eval's wire form has it: its text, then its PNG
        assert len(_pngs([_dump(request[-1:])])) == 1
        assert len(_pngs([_dump(request)])) == sum(m["role"] == "user" for m in request) - 1  # all but the instruction


# -- OpenEnv (serve-env) ---------------------------------------------------------------------------------------


def test_serve_env_observations_carry_the_images_eval_sends(tmp_path: Path) -> None:
    pytest.importorskip("openenv.core")
    from playbench.rl.openenv import PlaybenchAction, PlaybenchEnvClient

    expected = _eval_requests(tmp_path, BABYAI)
    targs = [x for k, v in PARAMS.items() for x in ("-T", f"{k}={v}")]
    proc = subprocess.Popen([sys.executable, "-m", "playbench.cli.main", "serve-env", BABYAI, *targs, "--port", "0",
                             "--seed", str(SEED)], stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})

    async def play(env_url: str, model_url: str) -> list[str]:
        seen = []
        async with PlaybenchEnvClient(base_url=env_url) as client:
            for index in range(EPISODES):
                result = await client.reset(index=index)
                while not result.done:
                    seen.append(_dump(result.observation.messages))
                    result = await client.step(PlaybenchAction(text=_ask(model_url, result.observation.messages)))
        return sorted(seen)

    try:
        assert proc.stderr is not None
        found = re.search(r"http://127\.0\.0\.1:(\d+)", proc.stderr.readline())
        assert found
        with FakeServer() as srv:
            requests = asyncio.run(play(f"http://127.0.0.1:{found.group(1)}", srv.url))
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(30)
    assert requests == expected

"""Runs you can trust: the cache never merges samples, usage counts every request, faults are blamed on the
right party, a dead server stops the run fast, and no answer can break a run. Real loopback HTTP throughout."""

import asyncio
import base64
import copy
import json
import socket
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from playbench.agents.base import EpisodeContext, Turn
from playbench.agents.registry import get_agent
from playbench.core.errors import InfraError, PlaybenchError, StopRun
from playbench.core.ledger import CURRENT_EPISODE, EpisodeLedger
from playbench.core.registry import get_task
from playbench.models import Message, ModelOutput, ModelSettings, create_model
from playbench.models.cache import cache_key
from playbench.models.errors import AuthError, RetryableError, ServerUnreachable
from playbench.models.factory import PROVIDERS
from playbench.models.fakeserver import HUGE_CHARS, ODD_TEXT, WRONG_SHAPES, FakeServer, reply_body
from playbench.models.model import Model
from playbench.models.providers.anthropic import AnthropicProvider
from playbench.models.providers.google import GoogleProvider
from playbench.models.providers.openai import OpenAIProvider
from playbench.models.redact import KEY_VARIABLES
from playbench.models.types import GenerateConfig

PLANTED = "sk-planted-0b9e2d71c4a8f356"
ASK = [Message("system", "Play well."), Message("user", "Pick one:\n1. left\n2. right\n3. wait")]
#: model name, URL suffix, fake-server format
PROVIDER_CASES = [("openai/fake", "/v1", "openai"), ("anthropic/fake", "", "anthropic"), ("google/fake", "", "gemini")]


@pytest.fixture(autouse=True)
def _no_real_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in KEY_VARIABLES:
        monkeypatch.delenv(name, raising=False)


def model_for(srv: FakeServer, name: str = "openai/fake", suffix: str = "/v1", params: dict | None = None,
              **settings: Any) -> Model:
    settings.setdefault("retry_backoff", 0.001)
    return create_model(name, params or {}, ModelSettings(base_url=srv.url + suffix, **settings))


async def in_episode(task: str, index: int, body: Callable[[], Awaitable[Any]]) -> tuple[EpisodeLedger, Any]:
    """Run ``body`` as the runner runs an episode: with its own current ledger."""
    ledger = EpisodeLedger(task, index)
    CURRENT_EPISODE.set(ledger)  # this task's context only
    return ledger, await body()


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# -- 1. the cache is the same run replayed --------------------------------------------------------------

def test_cache_keeps_every_sample_of_every_episode(tmp_path: Path) -> None:
    async def episode(model: Model, index: int) -> tuple[EpisodeLedger, list[ModelOutput]]:
        async def five() -> list[ModelOutput]:
            return [await model.generate(ASK) for _ in range(5)]  # the same question five times
        return await in_episode("t/x", index, five)

    async def run(model: Model, concurrent: bool) -> list:
        if concurrent:
            return list(await asyncio.gather(*(episode(model, i) for i in range(3))))
        return [await episode(model, i) for i in range(3)]

    params = {"temperature": "1.0"}
    with FakeServer() as srv:
        first = asyncio.run(run(model_for(srv, params=params, cache=tmp_path / "a"), concurrent=True))
        assert srv.stats.requests == 15  # 3 episodes x 5 calls: no sample stands in for another
        again = asyncio.run(run(model_for(srv, params=params, cache=tmp_path / "a"), concurrent=False))
        assert srv.stats.requests == 15  # the replay sends nothing
        asyncio.run(run(model_for(srv, params=params, cache=tmp_path / "b"), concurrent=False))
        assert srv.stats.requests == 30
    assert all(out.cached for _, outs in again for out in outs)
    assert [[o.text for o in outs] for _, outs in first] == [[o.text for o in outs] for _, outs in again]
    # the same entries whatever the concurrency
    names = {p.name for p in (tmp_path / "a").rglob("*.json")}
    assert len(names) == 15 and names == {p.name for p in (tmp_path / "b").rglob("*.json")}


def test_cache_is_never_shared_between_servers(tmp_path: Path) -> None:
    async def ask(model: Model) -> ModelOutput:
        return (await in_episode("t/x", 0, lambda: model.generate(ASK)))[1]

    with FakeServer() as a, FakeServer() as b:
        asyncio.run(ask(model_for(a, cache=tmp_path)))
        out = asyncio.run(ask(model_for(b, cache=tmp_path)))
        assert (a.stats.requests, b.stats.requests) == (1, 1) and not out.cached
        assert asyncio.run(ask(model_for(b, cache=tmp_path))).cached


def test_cache_key_holds_everything_that_can_change_an_answer() -> None:
    where = {"task": "t/x", "index": 0, "seed": 7, "call": 0}
    base = {"model": "openai/m", "api": "openai", "base_url": "http://h:1/v1", "messages": ASK,
            "config": GenerateConfig(), "episode": where}
    key = cache_key(**base)
    # credentials are not part of the server's identity (and never written anywhere)
    assert cache_key(**{**base, "base_url": "http://user:pw@h:1/v1"}) == key
    changed = [{"model": "vllm/m"}, {"api": "anthropic"}, {"base_url": "http://h:2/v1"},
               {"messages": ASK[:1]}, {"episode": None}, {"episode": {**where, "task": "t/y"}},
               {"episode": {**where, "index": 1}}, {"episode": {**where, "seed": 8}}, {"episode": {**where, "call": 1}}]
    settings = {"temperature": 1.0, "max_tokens": 9, "top_p": 0.5, "seed": 3, "stop": ["X"], "context_window": 99,
                "script": "s.json", "invalid_rate": 0.5, "latency": 1.0, "top_k": 5, "reasoning_effort": "high",
                "max_completion_tokens": 9}
    assert set(settings) == set(GenerateConfig.model_fields) - {"price_input", "price_output", "price_cache_read",
                                                                 "price_cache_write", "cache_prompt"}
    changed += [{"config": GenerateConfig(**{k: v})} for k, v in settings.items()]
    keys = [cache_key(**{**base, **change}) for change in changed]
    assert key not in keys and len(set(keys)) == len(keys)
    assert cache_key(**{**base, "config": GenerateConfig(price_input=5)}) == key  # prices change the bill only
    # and cache breakpoints change neither the answer nor what the model reads
    assert cache_key(**{**base, "config": GenerateConfig(cache_prompt=False, price_cache_read=1.0)}) == key


def test_cache_hits_cost_nothing(tmp_path: Path) -> None:
    async def ask(model: Model) -> tuple[EpisodeLedger, ModelOutput]:
        return await in_episode("t/x", 0, lambda: model.generate(ASK))

    params = {"price_input": "2", "price_output": "10"}
    with FakeServer() as srv:
        model = model_for(srv, params=params, cache=tmp_path)
        ledger1, paid = asyncio.run(ask(model))
        spent = model.stats.input_tokens, model.stats.output_tokens
        ledger2, hit = asyncio.run(ask(model))
    assert paid.input_tokens > 0 and model.usage(paid)["cost_micro_usd"] > 0
    assert hit.cached and hit.text == paid.text
    assert (model.stats.input_tokens, model.stats.output_tokens) == spent and model.stats.cache_hits == 1
    usage = model.usage(hit)
    assert usage == {"input_tokens": 0, "output_tokens": 0, "calls": 1, "attempts": 0, "cache_hits": 1,
                     "cached_input_tokens": paid.input_tokens, "cached_output_tokens": paid.output_tokens,
                     "cost_micro_usd": 0}
    assert ledger2.usage == usage and ledger1.usage == model.usage(paid)


# -- 2. usage counts every request sent -----------------------------------------------------------------

def test_ledger_counts_every_attempt_even_of_failed_calls() -> None:
    with FakeServer(sequence=["500", "drop", "429"]) as srv:
        model = model_for(srv, max_retries=5)
        ledger, out = asyncio.run(in_episode("t/x", 0, lambda: model.generate(ASK)))
        assert srv.stats.requests == 4 and out.attempts == 4
    assert ledger.usage == model.usage(out) == {"calls": 1, "attempts": 4, "cache_hits": 0,
                                                "input_tokens": out.input_tokens, "output_tokens": out.output_tokens}
    assert ledger.calls == 1
    with FakeServer(down=True) as srv:
        model = model_for(srv, max_retries=2)
        ledger = EpisodeLedger("t/x", 0)

        async def failing() -> None:
            CURRENT_EPISODE.set(ledger)
            await model.generate(ASK)

        with pytest.raises(InfraError, match="3 attempts"):
            asyncio.run(failing())
    assert ledger.usage == {"calls": 1, "attempts": 3}  # the episode ends in infra-error, its cost is known
    with FakeServer() as srv:  # outside an episode (no ledger) everything still works
        model = model_for(srv)
        assert CURRENT_EPISODE.get() is None and asyncio.run(model.generate(ASK)).text
        assert model.stats.attempts == 1


async def _play(agent_name: str, model: Model, task_id: str, index: int) -> tuple[EpisodeLedger, list[dict]]:
    """A minimal driver (as the runner's): one episode, its ledger, and every step's ``Decision.usage``."""
    task = get_task(task_id)
    spec = get_agent(agent_name)
    agent = spec.factory(spec.params({}), model)
    game = task.make_game(task.params({"max_steps": "8"}), index)
    obs, info = game.reset(seed=100 + index)
    ledger = EpisodeLedger(task_id, index)
    CURRENT_EPISODE.set(ledger)
    await agent.start(EpisodeContext(task_id, index, 100 + index, info.get("manual", ""), game.unwrapped))
    usages, done = [], False
    while not done:
        legal = game.legal_actions()
        decision = await agent.act(Turn(len(usages), obs, info, legal))
        usages.append(decision.usage)
        valid = decision.action is not None and (legal is None or decision.action in legal)
        obs, _, terminated, truncated, info = game.step(decision.action if valid else game.default_action)
        done = bool(terminated or truncated)
    return ledger, usages


def _summed(usages: list[dict]) -> dict[str, int]:
    total: dict[str, int] = {}
    for usage in usages:
        for key, value in usage.items():
            total[key] = total.get(key, 0) + value
    return total


@pytest.mark.parametrize("agent_name", ["naive", "two-stage"])
def test_ledger_of_an_ok_episode_equals_the_sum_of_its_steps(tmp_path: Path, agent_name: str) -> None:
    faults = {"429": 0.1, "500": 0.1, "drop": 0.1, "malformed": 0.1}
    params = {"price_input": "3", "price_output": "7"}

    async def episodes(model: Model) -> list:
        return list(await asyncio.gather(*(_play(agent_name, model, "smartplay/rps-basic", i) for i in range(3))))

    with FakeServer(faults=faults, seed=3, retry_after="0") as srv:
        played = asyncio.run(episodes(model_for(srv, params=params, max_retries=20, cache=tmp_path)))
        replayed = asyncio.run(episodes(model_for(srv, params=params, max_retries=20, cache=tmp_path)))
        requests = srv.stats.requests
    for ledger, usages in played + replayed:
        assert ledger.usage == _summed(usages)
    assert sum(ledger.usage["attempts"] for ledger, _ in played) == requests > srv.stats.answers
    assert all(ledger.usage["cost_micro_usd"] > 0 for ledger, _ in played)
    for ledger, _ in replayed:  # a replay from the cache: the same calls, nothing spent
        assert ledger.usage["cache_hits"] == ledger.usage["calls"] > 0
        assert ledger.usage["attempts"] == ledger.usage["input_tokens"] == ledger.usage["cost_micro_usd"] == 0


def test_mock_model_fills_the_ledger_too() -> None:
    model = create_model("mock/m", {"price_input": "1", "price_output": "1"})
    ledger, usages = asyncio.run(_play("naive", model, "smartplay/rps-basic", 0))
    assert ledger.usage == _summed(usages) and ledger.usage["calls"] == len(usages) == ledger.calls


# -- 3. faults on the right party ---------------------------------------------------------------------

@pytest.mark.parametrize("name,suffix,fmt", PROVIDER_CASES)
def test_every_wrong_shape_is_a_retried_malformed_answer(name: str, suffix: str, fmt: str) -> None:
    with FakeServer(faults={"shape": 1.0}) as srv:
        model = model_for(srv, name, suffix, max_retries=1)
        for shape in WRONG_SHAPES[fmt]:
            srv.shapes = [shape]
            before = srv.stats.requests
            with pytest.raises(InfraError, match="malformed") as caught:
                asyncio.run(model.generate(ASK))
            assert not isinstance(caught.value, StopRun), shape
            assert srv.stats.requests - before == 2, shape  # retried once, then given up
        assert set(srv.stats.shapes) == set(WRONG_SHAPES[fmt])
    with FakeServer(sequence=["shape", "shape"]) as srv:  # a retry that gets a good answer succeeds
        out = asyncio.run(model_for(srv, name, suffix, max_retries=2).generate(ASK))
        assert out.attempts == 3 and out.text


BAD_VALUES = [None, "x", "", 7, -1, 1.5, True, [], {}, [1], {"a": 1}, float("inf"), float("nan")]


def _paths(node: Any, prefix: tuple = ()) -> Iterator[tuple]:
    yield prefix
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, child in items:
        yield from _paths(child, (*prefix, key))


def _replaced(reply: Any, path: tuple, value: Any) -> Any:
    if not path:
        return value
    out = copy.deepcopy(reply)
    node = out
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    return out


@pytest.mark.parametrize("provider,fmt", [(OpenAIProvider("m", "http://h", None), "openai"),
                                          (AnthropicProvider("m", "http://h", None), "anthropic"),
                                          (GoogleProvider("m", "http://h", None), "gemini")])
def test_parsers_accept_or_call_malformed_whatever_the_json(provider: Any, fmt: str) -> None:
    """Every node of a good answer replaced by every kind of wrong value: an answer or a RetryableError."""
    good = reply_body(fmt, "m", "left", [("user", "hi")], reasoning="hmm")
    checked = 0
    for path in _paths(good):
        for value in BAD_VALUES:
            try:
                out = provider.parse(_replaced(good, path, value))
            except RetryableError as exc:
                assert exc.kind == "malformed"
                continue
            assert isinstance(out.text, str)
            assert out.reasoning is None or isinstance(out.reasoning, str)
            assert isinstance(out.input_tokens, int) and isinstance(out.output_tokens, int)
            assert out.input_tokens >= 0 and out.output_tokens >= 0
            assert out.stop_reason is None or isinstance(out.stop_reason, str)
            checked += 1
    assert checked > 10  # optional fields may vary without failing the answer


@pytest.mark.parametrize("status", ["401", "403"])
@pytest.mark.parametrize("name,suffix,fmt", PROVIDER_CASES)
def test_refused_credentials_stop_the_run(monkeypatch: pytest.MonkeyPatch, name: str, suffix: str, fmt: str,
                                          status: str) -> None:
    monkeypatch.setenv({"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY",
                        "gemini": "GEMINI_API_KEY"}[fmt], PLANTED)
    with FakeServer(faults={status: 1.0}) as srv:
        model = model_for(srv, name, suffix, max_retries=5)

        async def twice() -> list[BaseException]:
            errors = []
            for _ in range(2):
                try:
                    await model.generate(ASK)
                except BaseException as exc:  # noqa: BLE001
                    errors.append(exc)
            return errors

        errors = asyncio.run(twice())
        assert srv.stats.requests == 1  # not retried, and the next call sends nothing
    assert all(isinstance(e, AuthError) and isinstance(e, StopRun) for e in errors) and len(errors) == 2
    message = str(errors[0])
    assert f"HTTP {status}" in message and "$" in message and "\n" not in message
    assert PLANTED not in message and "***" in message  # the echoed key is redacted


def test_url_credentials_go_as_basic_auth_or_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeServer() as srv:
        url = srv.url.replace("http://", "http://alice:s%40cret-pw@")
        for name, suffix in (("openai/fake", "/v1"), ("vllm/fake", "/v1"), ("google/fake", "")):
            model = create_model(name, {}, ModelSettings(base_url=url + suffix))
            assert "s@cret-pw" not in model.provider.base_url and "alice" not in model.provider.base_url
            assert asyncio.run(model.generate(ASK)).text
        basic = "Basic " + base64.b64encode(b"alice:s@cret-pw").decode()
        assert srv.stats.auth == {basic: 3}  # vllm's placeholder key was not sent in its place
        monkeypatch.setenv("ANTHROPIC_API_KEY", PLANTED)
        asyncio.run(create_model("anthropic/fake", {}, ModelSettings(base_url=url)).generate(ASK))
        assert srv.stats.auth[basic] == 4 and srv.stats.auth[PLANTED] == 1  # two headers, no clash
    monkeypatch.setenv("OPENAI_API_KEY", PLANTED)
    with pytest.raises(PlaybenchError, match=r"\$OPENAI_API_KEY") as refused:
        create_model("openai/fake", {}, ModelSettings(base_url="http://bob:hunter2x@127.0.0.1:1/v1"))
    assert "hunter2x" not in str(refused.value) and PLANTED not in str(refused.value)
    for bad in ("ftp://h/v1", "localhost:8000/v1", "http:///v1", "http://h:port/v1"):
        with pytest.raises(PlaybenchError, match="base URL"):
            create_model("openai/fake", {}, ModelSettings(base_url=bad))


# -- 4. a dead server is detected fast ---------------------------------------------------------------------

def test_closed_port_raises_server_unreachable_within_seconds() -> None:
    port = closed_port()
    model = create_model("openai/fake", {}, ModelSettings(
        base_url=f"http://bob:pw-9z7y@127.0.0.1:{port}/v1", max_connections=1, max_connect_failures=4))

    async def calls() -> list[BaseException]:
        errors = []
        for _ in range(3):
            try:
                await model.generate(ASK)
            except InfraError as exc:
                errors.append(exc)
        return errors

    t0 = time.monotonic()
    errors = asyncio.run(calls())  # default backoff (1 s, doubling): connect retries wait far less
    assert time.monotonic() - t0 < 3
    assert [type(e) for e in errors] == [ServerUnreachable] * 3 and model.stats.attempts == 4
    assert f"127.0.0.1:{port}/v1 is unreachable" in str(errors[0]) and "pw-9z7y" not in str(errors[0])


def test_concurrent_calls_against_a_closed_port_stop_together() -> None:
    port = closed_port()
    model = create_model("openai/fake", {}, ModelSettings(base_url=f"http://127.0.0.1:{port}/v1", max_connections=2))

    async def run() -> list:
        return await asyncio.gather(*(model.generate(ASK) for _ in range(10)), return_exceptions=True)

    t0 = time.monotonic()
    results = asyncio.run(run())
    assert time.monotonic() - t0 < 3
    assert all(isinstance(r, ServerUnreachable) for r in results), results
    assert model.stats.attempts <= 6  # 5 to trip, plus at most the other request then in flight


def test_a_call_waiting_to_retry_is_woken_by_the_stop() -> None:
    # the first drop is on the connection the 429 came on: a stale pooled connection, sent again at once
    with FakeServer(sequence=["429", "drop", "drop", "drop"], retry_after="60") as srv:
        model = model_for(srv, max_connect_failures=2, max_retries=3)

        async def run() -> list:
            waiting = asyncio.ensure_future(model.generate(ASK))  # gets the 429 and waits 60 s to retry
            while srv.stats.requests == 0:
                await asyncio.sleep(0.01)
            return await asyncio.gather(waiting, model.generate(ASK), return_exceptions=True)

        t0 = time.monotonic()
        results = asyncio.run(run())
        assert time.monotonic() - t0 < 5 and srv.stats.requests == 4
    assert all(isinstance(r, ServerUnreachable) for r in results), results
    assert model.stats.faults == {"rate-limit": 1, "connect": 2}


def test_any_answer_resets_the_connect_count_and_timeouts_do_not_count() -> None:
    sequence = ["drop", "reset", None, "drop", "500", "drop", "reset", None]
    with FakeServer(sequence=sequence) as srv:
        model = model_for(srv, max_connect_failures=3, max_retries=10)
        assert asyncio.run(model.generate(ASK)).attempts == 3
        assert asyncio.run(model.generate(ASK)).attempts == 5  # never 3 connect failures in a row
        # the drop after the 500 comes on the 500's pooled connection: sent again at once, not a connect fault
        assert model.stats.faults == {"connect": 4, "http-500": 1}
    with FakeServer(sequence=["drop", "drop", "drop"]) as srv:
        with pytest.raises(ServerUnreachable):
            asyncio.run(model_for(srv, max_connect_failures=3, max_retries=10).generate(ASK))
        assert srv.stats.requests == 3
    with FakeServer(faults={"slow": 1.0}, slow_seconds=1.0) as srv:
        with pytest.raises(InfraError) as caught:
            asyncio.run(model_for(srv, max_connect_failures=2, max_retries=2, timeout=0.2).generate(ASK))
        assert not isinstance(caught.value, StopRun) and srv.stats.requests == 3
    with FakeServer(down=True) as srv:  # 5xx: the server is there
        with pytest.raises(InfraError) as caught:
            asyncio.run(model_for(srv, max_connect_failures=2, max_retries=3).generate(ASK))
        assert not isinstance(caught.value, StopRun) and srv.stats.requests == 4


def test_max_connect_failures_is_checked() -> None:
    with pytest.raises(PlaybenchError, match="max-connect-failures"):
        create_model("mock/m", {}, ModelSettings(max_connect_failures=0))
    assert ModelSettings().max_connect_failures == 5


# -- 5. no answer can break a run ---------------------------------------------------------------------

@pytest.mark.parametrize("name,suffix,fmt", PROVIDER_CASES)
def test_hostile_answers_come_out_as_clean_text(monkeypatch: pytest.MonkeyPatch, name: str, suffix: str,
                                                fmt: str) -> None:
    key_var = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY", "gemini": "GOOGLE_API_KEY"}[fmt]
    monkeypatch.setenv(key_var, PLANTED)
    faults = ["surrogate", "invalid-utf8", "odd", "echo-key", "huge"]
    with FakeServer(sequence=faults) as srv:
        model = model_for(srv, name, suffix, max_retries=0)
        outs = [asyncio.run(model.generate(ASK)) for _ in faults]
        assert srv.stats.answers == len(faults) and srv.stats.requests == len(faults)
    for out in outs:
        for text in (out.text, out.reasoning or ""):
            text.encode("utf-8")  # never raises
            json.dumps(text, ensure_ascii=False).encode("utf-8")
    surrogate, invalid, odd, echo, huge = outs
    assert "\ufffd lone \ufffd" in surrogate.text and surrogate.reasoning == "thinking \ufffd"
    assert "\ufffd" in invalid.text
    assert odd.text.endswith(ODD_TEXT.strip()) and odd.reasoning == ODD_TEXT  # kept as sent
    assert PLANTED not in echo.text + (echo.reasoning or "") and "***" in echo.text and "***" in echo.reasoning
    assert len(huge.text) > HUGE_CHARS


def test_every_provider_key_variable_is_redacted() -> None:
    for row in PROVIDERS.values():
        assert set(row.key_variables) <= set(KEY_VARIABLES)


def test_echoed_keys_never_reach_the_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", PLANTED)
    with FakeServer(sequence=["echo-key"]) as srv:
        out = asyncio.run(model_for(srv, cache=tmp_path).generate(ASK))
        assert srv.stats.auth[f"Bearer {PLANTED}"] == 1
    files = list(tmp_path.rglob("*.json"))
    assert PLANTED not in out.text and len(files) == 1 and PLANTED.encode() not in files[0].read_bytes()

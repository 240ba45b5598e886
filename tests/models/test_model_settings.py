"""Open model settings: every ``-M`` setting reaches the provider's request body (captured on the loopback
server), typed ones validated, unknown ones passed through parsed; recorded in run.json and in the cache key."""

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from playbench.cli.eval_cmd import command as eval_command
from playbench.core.errors import PlaybenchError
from playbench.models import Message, ModelSettings, create_model
from playbench.models.cache import cache_key
from playbench.models.fakeserver import FakeServer
from playbench.models.redact import KEY_VARIABLES
from playbench.models.types import GenerateConfig, build_generate_config

ASK = [Message("system", "Play well."), Message("user", "Pick one:\n1. left\n2. right\n3. wait")]
SETTINGS = {"temperature": "0.5", "max_tokens": "64", "top_p": "0.9", "top_k": "40", "seed": "7",
            "stop": '["END"]', "context_window": "100000", "price_input": "3", "price_output": "9"}


@pytest.fixture(autouse=True)
def _no_real_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in KEY_VARIABLES:
        monkeypatch.delenv(name, raising=False)


def sent_body(name: str, suffix: str, params: dict[str, str]) -> dict[str, Any]:
    """The JSON body the provider of ``name`` sends with these ``-M`` settings (one request)."""
    with FakeServer(record=True) as srv:
        model = create_model(name, params, ModelSettings(base_url=srv.url + suffix))

        async def ask() -> None:
            await model.generate(ASK)
            await model.aclose()

        asyncio.run(ask())
    assert len(srv.received) == 1
    return srv.received[0][1]


def test_openai_compatible_sends_every_setting_top_level() -> None:
    params = {**SETTINGS, "reasoning_effort": "high", "max_completion_tokens": "900", "logprobs": "true",
              "n": "1", "chat_template_kwargs": '{"enable_thinking": false}', "service_tier": "flex"}
    del params["max_tokens"]  # reasoning models take max_completion_tokens instead
    body = sent_body("openai/fake", "/v1", params)
    settings = {k: v for k, v in body.items() if k not in ("model", "messages")}
    assert settings == {"temperature": 0.5, "top_p": 0.9, "top_k": 40, "seed": 7, "stop": ["END"],
                        "reasoning_effort": "high", "max_completion_tokens": 900, "logprobs": True, "n": 1,
                        "chat_template_kwargs": {"enable_thinking": False}, "service_tier": "flex"}


def test_anthropic_maps_its_names_and_sends_extras_top_level() -> None:
    params = {**SETTINGS, "thinking": '{"type": "enabled", "budget_tokens": 1024}', "metadata": '{"user_id": "u"}'}
    body = sent_body("anthropic/fake", "", params)
    settings = {k: v for k, v in body.items() if k not in ("model", "messages", "system")}
    # no seed: the Messages API has none
    assert settings == {"max_tokens": 64, "temperature": 0.5, "top_p": 0.9, "top_k": 40, "stop_sequences": ["END"],
                        "thinking": {"type": "enabled", "budget_tokens": 1024}, "metadata": {"user_id": "u"}}
    assert sent_body("anthropic/fake", "", {"max_completion_tokens": "300"})["max_tokens"] == 300


def test_google_puts_settings_in_generation_config_with_its_names() -> None:
    params = {**SETTINGS, "reasoning_effort": "low", "responseMimeType": "text/plain", "candidateCount": "1"}
    body = sent_body("google/fake", "", params)
    assert set(body) == {"contents", "systemInstruction", "generationConfig"}
    assert body["generationConfig"] == {
        "temperature": 0.5, "topP": 0.9, "topK": 40, "seed": 7, "stopSequences": ["END"], "maxOutputTokens": 64,
        "thinkingConfig": {"thinkingLevel": "low"}, "responseMimeType": "text/plain", "candidateCount": 1}
    budget = sent_body("google/fake", "", {"thinkingConfig": '{"thinkingBudget": 0}', "max_completion_tokens": "50"})
    assert budget["generationConfig"] == {"maxOutputTokens": 50, "thinkingConfig": {"thinkingBudget": 0}}


def test_playbench_side_settings_never_go_on_the_wire() -> None:
    body = sent_body("openai/fake", "/v1", {"context_window": "5000", "price_input": "1", "price_output": "2"})
    assert set(body) == {"model", "messages"}


@pytest.mark.parametrize(("name", "params", "message"), [
    ("openai/x", {"temperature": "hot"}, "bad value 'hot' for parameter 'temperature'"),
    ("openai/x", {"max_completion_tokens": "1.5"}, "max_completion_tokens"),
    ("openai/x", {"top_k": "many"}, "top_k"),
    ("openai/x", {"temprature": "1"}, "did you mean 'temperature'"),
    ("openai/x", {"reasoning_efort": "high"}, "did you mean 'reasoning_effort'"),
    ("openai/x", {"script": "s.json"}, "mock provider only"),
    ("vllm/x", {"latency": "1"}, "mock provider only"),
    ("openai/x", {"messages": "[]"}, "playbench writes 'messages'"),
    ("openai/x", {"stream": "true"}, "playbench writes 'stream'"),
    ("anthropic/x", {"system": "hi"}, "playbench writes 'system'"),
    ("anthropic/x", {"reasoning_effort": "high"}, "not a setting of the anthropic API"),
    ("google/x", {"contents": "[]"}, "playbench writes 'contents'"),
    ("google/x", {"reasoning_effort": "low", "thinkingConfig": "{}"}, "give one"),
    ("openai/x", {"a b": "1"}, "bad setting name"),
])
def test_bad_settings_are_refused_before_any_request(name: str, params: dict[str, str], message: str) -> None:
    with pytest.raises(PlaybenchError, match=message.replace("(", r"\(")):
        create_model(name, params, ModelSettings(base_url="http://127.0.0.1:9/v1"))


def test_every_setting_changes_the_cache_key_and_old_keys_stay() -> None:
    base = {"model": "openai/m", "api": "openai", "base_url": "http://h:1/v1", "messages": ASK,
            "episode": {"task": "t/x", "index": 0, "seed": 7, "call": 0}}
    plain = cache_key(**base, config=GenerateConfig())
    # the identity of a configuration that existed before open settings is unchanged
    assert GenerateConfig().cache_identity() == {
        "temperature": None, "max_tokens": None, "top_p": None, "seed": None, "stop": None, "context_window": None,
        "script": None, "invalid_rate": 0.0, "latency": 0.0}
    variants = [{"reasoning_effort": "high"}, {"reasoning_effort": "low"}, {"max_completion_tokens": "9"},
                {"top_k": "4"}, {"logprobs": "true"}, {"logprobs": "false"}, {"service_tier": "flex"}]
    keys = [cache_key(**base, config=build_generate_config(v, "m")) for v in variants]
    assert plain not in keys and len(set(keys)) == len(keys)
    priced = build_generate_config({"price_input": "3", "price_output": "4"}, "m")
    assert cache_key(**base, config=priced) == plain


def test_eval_records_settings_and_sends_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLAYBENCH_CACHE_DIR", str(tmp_path / "cache"))
    args = ["-M", "reasoning_effort=high", "-M", "max_completion_tokens=512", "-M", "verbosity=low"]
    with FakeServer(record=True) as srv:
        proc = CliRunner().invoke(eval_command, [
            "smartplay/hanoi-3", "--model", "openai/fake", "--base-url", srv.url + "/v1", "--episodes", "1",
            "-T", "max_steps=2", "--log-dir", str(tmp_path / "runs"), "--quiet", "--cache", *args],
            catch_exceptions=False)
        sent = [body for _, body in srv.received]
    assert proc.exit_code == 0, proc.output
    assert len(sent) == 2
    assert all((b["reasoning_effort"], b["max_completion_tokens"], b["verbosity"]) == ("high", 512, "low")
               for b in sent)
    run = next((tmp_path / "runs").iterdir())
    meta = json.loads((run / "run.json").read_text())
    assert meta["config"]["model_params"] == {"reasoning_effort": "high", "max_completion_tokens": "512",
                                              "verbosity": "low"}

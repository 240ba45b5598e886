"""Unit checks of the model layer: wire formats, backoff, Retry-After, redaction, mock, cache, prices."""

import asyncio
import json
import time
from pathlib import Path

import pytest

from playbench.core.errors import InfraError, PlaybenchError
from playbench.models import Image, Message, ModelSettings, create_model
from playbench.models.cache import ResponseCache, cache_key
from playbench.models.fakeserver import FakeServer
from playbench.models.http import Response
from playbench.models.mockbrain import numbered_actions
from playbench.models.providers.anthropic import AnthropicProvider
from playbench.models.providers.google import GoogleProvider
from playbench.models.providers.openai import OpenAIProvider
from playbench.models.redact import redact
from playbench.models.retry import Backoff, retry_after_seconds
from playbench.models.types import GenerateConfig

MSGS = [Message("system", "rules"), Message("user", "hi", [Image(b"\x89PNG", 2, 2)]), Message("user", "more"),
        Message("assistant", "ok"), Message("user", "Pick:\n1. left\n2. right")]


def test_wire_formats() -> None:
    cfg = GenerateConfig(temperature=0.5, max_tokens=7, stop="END", seed=3)
    body = OpenAIProvider("m", "http://x/v1", None).body(MSGS, cfg)
    assert body["messages"][1]["content"][1]["image_url"]["url"].startswith("data:image/png;base64,")
    assert body["messages"][0] == {"role": "system", "content": "rules"}
    assert (body["temperature"], body["max_tokens"], body["stop"], body["seed"]) == (0.5, 7, ["END"], 3)
    body = AnthropicProvider("m", "http://x", None).body(MSGS, cfg)
    assert [t["role"] for t in body["messages"]] == ["user", "assistant", "user"]
    assert body["system"] == [{"type": "text", "text": "rules", "cache_control": {"type": "ephemeral"}}]
    assert AnthropicProvider("m", "http://x", None).body(MSGS, GenerateConfig(cache_prompt=False))["system"] == "rules"
    assert body["messages"][0]["content"][0]["type"] == "image" and body["stop_sequences"] == ["END"]
    body = GoogleProvider("m", "http://x", None).body(MSGS, cfg)
    assert body["systemInstruction"]["parts"][0]["text"] == "rules"
    assert [c["role"] for c in body["contents"]] == ["user", "model", "user"]
    assert body["generationConfig"] == {"temperature": 0.5, "maxOutputTokens": 7, "seed": 3, "stopSequences": ["END"]}


def test_backoff_and_retry_after() -> None:
    b = Backoff(base=1.0, cap=8.0)
    for k, hi in ((1, 1), (2, 2), (3, 4), (4, 8), (9, 8)):
        d = b.delay(k)
        assert hi / 2 <= d <= hi
    assert b.delay(1, retry_after=5.0) >= 5.0
    assert b.delay(1, retry_after=1e6) <= b.max_retry_after
    assert retry_after_seconds(Response(429, headers={"retry-after": "3"})) == 3.0
    assert retry_after_seconds(Response(429, headers={"retry-after-ms": "250"})) == 0.25
    date = Response(429, headers={"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"})
    assert retry_after_seconds(date) == 0.0
    assert retry_after_seconds(Response(429)) is None


def test_retry_after_is_honoured_over_the_wire() -> None:
    with FakeServer(faults={"429": 1.0}, retry_after="0.3") as srv:
        model = create_model("openai/m", {}, ModelSettings(base_url=srv.url + "/v1", max_retries=2, retry_backoff=0.001))
        t0 = time.monotonic()
        with pytest.raises(InfraError, match="3 attempts"):
            asyncio.run(model.generate([Message("user", "x")]))
        assert srv.stats.requests == 3 and model.stats.faults["rate-limit"] == 3
        elapsed = time.monotonic() - t0
    assert elapsed >= 0.6  # two waits of at least Retry-After


def test_redaction(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value-123")
    assert "sk-secret" not in redact("failed with key sk-secret-value-123 here")
    assert redact("Authorization: Bearer abcdef123456") == "Authorization: Bearer ***"
    assert redact("https://x/y?key=AIzaXYZ&alt=1") == "https://x/y?key=***&alt=1"


def test_missing_key_and_bad_settings_are_user_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(PlaybenchError, match="OPENAI_API_KEY"):
        create_model("openai/gpt-4o")
    with pytest.raises(PlaybenchError, match="provider"):
        create_model("nope/x")
    with pytest.raises(PlaybenchError, match="unknown parameter"):
        create_model("mock/x", {"temprature": "1"})
    with pytest.raises(PlaybenchError, match="mock provider only"):
        create_model("vllm/x", {"script": "a.json"})
    assert create_model("vllm/x").provider.base_url == "http://localhost:8000/v1"
    assert create_model("ollama/x").provider.base_url == "http://localhost:11434/v1"


def test_mock_is_deterministic_and_scripted(tmp_path: Path) -> None:
    prompt = [Message("user", "Actions:\n1. go left\n2. go right\n3. wait\n\nanswer")]
    a = [asyncio.run(create_model("mock/a").generate(prompt)).text for _ in range(3)]
    assert len(set(a)) == 1 and a[0] in ("go left", "go right", "wait")
    assert numbered_actions("x\n1. a\n2. b\nz\n1. c\n2. d\n3. e") == ["c", "d", "e"]
    script = tmp_path / "s.json"
    script.write_text(json.dumps([{"match": "answer$", "answer": "go right"}]))
    m = create_model("mock/a", {"script": str(script)})
    assert asyncio.run(m.generate(prompt)).text == "go right"
    script.write_text(json.dumps(["one", "two"]))
    m = create_model("mock/a", {"script": str(script)})
    assert [asyncio.run(m.generate(prompt)).text for _ in range(3)] == ["one", "two", "one"]
    robust = [Message("user", "1. up\n2. down\n<|ACTION|>YOUR_CHOSEN_ACTION<|END|>")]
    assert asyncio.run(create_model("mock/a").generate(robust)).text.startswith("<|ACTION|>")


def test_cache_key_and_roundtrip(tmp_path: Path) -> None:
    cfg = GenerateConfig(temperature=0.0)
    def key(model: str, messages: list[Message], config: GenerateConfig) -> str:
        return cache_key(model=model, api="openai", base_url="http://h/v1", messages=messages, config=config,
                         episode=None)

    k1 = key("openai/m", MSGS, cfg)
    assert k1 == key("openai/m", list(MSGS), GenerateConfig(temperature=0.0))
    assert k1 != key("openai/m", MSGS, GenerateConfig(temperature=1.0))
    assert k1 != key("openai/n", MSGS, cfg)
    model = create_model("mock/m", {}, ModelSettings(cache=tmp_path))
    first = asyncio.run(model.generate(MSGS))
    second = asyncio.run(model.generate(MSGS))
    assert second.cached and second.text == first.text and model.stats.cache_hits == 1
    assert ResponseCache(tmp_path).get("0" * 64) is None


def test_prices_turn_usage_into_cost() -> None:
    model = create_model("mock/m", {"price_input": "2", "price_output": "10"})
    out = asyncio.run(model.generate([Message("user", "x" * 400)]))
    usage = model.usage(out)
    assert usage["cost_micro_usd"] == round(out.input_tokens * 2 + out.output_tokens * 10)
    assert "cost_micro_usd" not in create_model("mock/m").usage(out)
    prices = create_model("openai/gpt-4o", {}, ModelSettings(base_url="http://x")).prices
    assert prices is not None and (prices.input, prices.output) == (2.5, 10.0)


def test_context_overflow_from_server_is_not_retried() -> None:
    from playbench.models.errors import ContextOverflowError

    class Overflow(FakeServer):
        async def _respond(self, writer, method, path, headers, body):  # noqa: ANN001
            self.stats.requests += 1
            await self._send(writer, 400, b'{"error": {"message": "This model\'s maximum context length is 10"}}')
            return True

    with Overflow() as srv:
        model = create_model("openai/m", {}, ModelSettings(base_url=srv.url + "/v1", max_retries=5))
        with pytest.raises(ContextOverflowError):
            asyncio.run(model.generate([Message("user", "x")]))
        assert srv.stats.requests == 1


def test_http_client_framing_over_real_sockets() -> None:
    from playbench.models.http import HttpClient

    replies = [
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"a\":\r\n3\r\n 1}\r\n0\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\n{\"b\":2}",
        b"HTTP/1.0 200 OK\r\n\r\n{\"c\":3}",
    ]

    async def go() -> list:
        seen = []

        async def handle(reader, writer) -> None:  # noqa: ANN001
            while replies:
                head = await reader.readuntil(b"\r\n\r\n")
                length = int([h for h in head.split(b"\r\n") if h.lower().startswith(b"content-length")][0].split(b":")[1])
                seen.append(await reader.readexactly(length))
                reply = replies.pop(0)
                writer.write(reply)
                await writer.drain()
                if reply.startswith(b"HTTP/1.0"):
                    break
            writer.close()

        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        client = HttpClient(timeout=5, max_connections=4)
        out = [json.loads((await client.post(f"http://127.0.0.1:{port}/x", {}, {"n": i})).content) for i in range(3)]
        await client.aclose()
        server.close()
        return [out, seen]

    out, seen = asyncio.run(go())
    assert out == [{"a": 1}, {"b": 2}, {"c": 3}]
    assert [json.loads(s) for s in seen] == [{"n": 0}, {"n": 1}, {"n": 2}]


def test_credentials_inside_urls_are_redacted() -> None:
    assert redact("POST http://user:s3cret@gateway:8000/v1 failed") == "POST http://***@gateway:8000/v1 failed"
    assert redact("http://localhost:8000/v1") == "http://localhost:8000/v1"


def test_mock_answers_hash_the_compact_json_of_the_request() -> None:
    """The digest that picks a mock answer is sha256 of the request as compact UTF-8 JSON, whatever it holds."""
    import hashlib

    from playbench.models.mockbrain import request_digest

    odd = ["plain", "quote \" and \\ backslash", "ünïcödé 東京 🎲", "\x00\x01\x1f\x7f", "\b\f\n\r\t", "\u2028\u2029",
           "</script>", ""]
    for text in odd:
        contents = [("system", "manual"), ("user", text), ("assistant", text[::-1])]
        reference = json.dumps(["m", "s", [list(c) for c in contents]], ensure_ascii=False, separators=(",", ":"))
        assert request_digest("m", contents, "s") == hashlib.sha256(reference.encode()).digest(), repr(text)
    assert len(request_digest("m", [("user", "lone \ud800 surrogate")])) == 32  # answered, not a crash


def test_mock_action_lists_are_read_from_their_own_lines_only() -> None:
    from playbench.models.mockbrain import described_actions

    text = "Intro: not an action\nnoop: do nothing,\nmove: move somewhere.\n  3. third\n"
    assert described_actions(text) == ["noop", "move"]
    assert numbered_actions("x\n1. a\n  2. b\n10. c\nend") == ["a", "b"]
    assert numbered_actions("1. a\nnote\n1. b\n2. c") == ["b", "c"]


def test_clean_output_cleans_in_place_and_keeps_every_other_field() -> None:
    from playbench.models.redact import register_secret
    from playbench.models.sanitize import clean_output
    from playbench.models.types import ModelOutput

    register_secret("sk-clean-output-test")
    raw = ModelOutput(text="a \ud800 sk-clean-output-test", input_tokens=7, output_tokens=3, reasoning="r",
                      attempts=2, cached=True, stop_reason="stop", cache_read_tokens=1, cache_write_tokens=2,
                      batch=True, tokens_reported=False)
    before = dict(vars(raw))
    cleaned = clean_output(raw)
    assert cleaned is raw and cleaned.text == "a \ufffd ***"
    assert vars(cleaned) == {**before, "text": "a \ufffd ***"}
    assert clean_output(ModelOutput(text="t", reasoning="why \udfff", stop_reason="sk-clean-output-test")) \
        == ModelOutput(text="t", reasoning="why \ufffd", stop_reason="***")

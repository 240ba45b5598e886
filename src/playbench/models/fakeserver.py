"""A loopback HTTP server speaking the OpenAI, Anthropic and Gemini wire formats, with injected faults.

Used by the test suite and ``benchmarks/throughput.py``: real sockets, deterministic answers
(:mod:`playbench.models.mockbrain`), optional latency, and faults drawn from a seeded generator:
``429`` (with ``Retry-After``), ``500``, ``malformed`` JSON, ``empty`` body, ``drop`` (connection
closed without an answer) and ``slow`` (answer later than the client's timeout). Every request,
fault and delivered answer is counted, so tests can check exact accounting.

Run standalone: ``python -m playbench.models.fakeserver --port 0 --latency 0.2`` prints ``PORT <n>``.
"""

import argparse
import asyncio
import json
import random
import re
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import orjson

from playbench.models.mockbrain import NO_ACTION, answer, approx_tokens

FAULTS = ("429", "500", "malformed", "empty", "drop", "slow")
_GEMINI = re.compile(r"^/v1beta/models/([^/:]+):generateContent")


@dataclass
class ServerStats:
    """What the server saw and did."""

    requests: int = 0
    answers: int = 0  # well-formed answers delivered
    unusable: int = 0  # delivered answers that deliberately name no action
    faults: Counter = field(default_factory=Counter)
    formats: Counter = field(default_factory=Counter)
    auth: Counter = field(default_factory=Counter)  # credentials seen (the value itself, for key tests)


class FakeServer:
    """An asyncio HTTP/1.1 server (keep-alive) in its own thread. Use as a context manager."""

    def __init__(self, latency: float = 0.0, faults: dict[str, float] | None = None, unusable_rate: float = 0.0,
                 seed: int = 0, retry_after: str = "0", slow_seconds: float = 5.0, down: bool = False,
                 port: int = 0, reject_auth: bool = False, fast_loop: bool = False) -> None:
        self.latency = latency
        self.faults = dict(faults or {})
        unknown = set(self.faults) - set(FAULTS)
        if unknown:
            raise ValueError(f"unknown faults {unknown}")
        self.unusable_rate = unusable_rate
        self.retry_after = retry_after
        self.slow_seconds = slow_seconds
        self.down = down  # every request is answered 503
        self.reject_auth = reject_auth  # every request is answered 401, echoing the credentials it got
        self.rng = random.Random(seed)
        self.stats = ServerStats()
        self.port = port
        self.fast_loop = fast_loop
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.base_events.Server | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()

    # -- lifecycle ---------------------------------------------------------------------------

    @property
    def url(self) -> str:
        """Base URL (OpenAI-style clients add ``/v1``)."""
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> "FakeServer":
        """Start serving in a background thread."""
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        self._ready.wait(10)
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread is not None:
            self._thread.join(10)

    def __enter__(self) -> "FakeServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _run(self) -> None:
        loop = self._new_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        self._server = loop.run_until_complete(
            asyncio.start_server(self._handle, "127.0.0.1", self.port, backlog=2048))
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            self._server.close()
            tasks = asyncio.all_tasks(loop)
            for task in tasks:
                task.cancel()
            loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
            loop.close()

    def serve_forever(self) -> None:
        """Serve in the calling thread (standalone use)."""
        self._run()

    def _new_loop(self) -> asyncio.AbstractEventLoop:
        # uvloop (when installed) for the standalone server: the benchmark's server shares two cores with
        # the client it measures, so its own CPU per request must stay small.
        if self.fast_loop:
            try:
                import uvloop
            except ImportError:
                pass
            else:
                return uvloop.new_event_loop()
        return asyncio.new_event_loop()

    # -- HTTP --------------------------------------------------------------------------------

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, path, _ = lines[0].split(" ", 2)
                headers = {}
                for line in lines[1:]:
                    if ":" in line:
                        k, v = line.split(":", 1)
                        headers[k.strip().lower()] = v.strip()
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                keep = await self._respond(writer, method, path, headers, body)
                if not keep:
                    break
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError, asyncio.CancelledError):
            pass  # client went away, or the server is shutting down
        finally:
            writer.close()

    @staticmethod
    async def _send(writer: asyncio.StreamWriter, status: int, payload: bytes, extra: dict[str, str] | None = None
                    ) -> None:
        reason = {200: "OK", 429: "Too Many Requests", 500: "Internal Server Error", 503: "Service Unavailable",
                  404: "Not Found", 401: "Unauthorized"}.get(status, "Status")
        head = [f"HTTP/1.1 {status} {reason}", "Content-Type: application/json",
                f"Content-Length: {len(payload)}", "Connection: keep-alive"]
        head += [f"{k}: {v}" for k, v in (extra or {}).items()]
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + payload)
        await writer.drain()

    async def _respond(self, writer: asyncio.StreamWriter, method: str, path: str, headers: dict[str, str],
                       body: bytes) -> bool:
        stats = self.stats
        stats.requests += 1
        for name in ("authorization", "x-api-key", "x-goog-api-key"):
            if name in headers:
                stats.auth[headers[name]] += 1
        if self.reject_auth:
            stats.faults["auth"] += 1
            echo = json.dumps({"error": f"invalid key {headers.get('authorization', '')}"}).encode()
            await self._send(writer, 401, echo)
            return True
        if self.down:
            stats.faults["down"] += 1
            await self._send(writer, 503, b'{"error": "down"}')
            return True
        fault = self._draw_fault()
        if self.latency:
            await asyncio.sleep(self.latency)
        if fault is not None:
            stats.faults[fault] += 1
            if fault == "429":
                await self._send(writer, 429, b'{"error": {"type": "rate_limit"}}', {"Retry-After": self.retry_after})
            elif fault == "500":
                await self._send(writer, 500, b'{"error": "boom"}')
            elif fault == "malformed":
                await self._send(writer, 200, b'{"choices": [ {"message": ')
            elif fault == "empty":
                await self._send(writer, 200, b"")
            elif fault == "drop":
                return False
            elif fault == "slow":
                await asyncio.sleep(self.slow_seconds)
                return False
            return True
        try:
            request = orjson.loads(body)  # fast path; json.loads decides whatever orjson refuses
        except ValueError:
            try:
                request = json.loads(body)
            except ValueError:
                await self._send(writer, 400, b'{"error": "bad json"}')
                return True
        fmt, model, contents = _parse_request(path, request)
        if fmt is None:
            await self._send(writer, 404, b'{"error": "unknown path"}')
            return True
        stats.formats[fmt] += 1
        if self.unusable_rate and self.rng.random() < self.unusable_rate:
            text = NO_ACTION
            stats.unusable += 1
        else:
            text = answer(model, contents)
        stats.answers += 1
        await self._send(writer, 200, orjson.dumps(_reply(fmt, model, text, contents)))
        return True

    def _draw_fault(self) -> str | None:
        roll = self.rng.random()
        for name in FAULTS:
            rate = self.faults.get(name, 0.0)
            if roll < rate:
                return name
            roll -= rate
        return None


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for part in content or []:
        if isinstance(part, dict):
            parts.append(str(part.get("text", "")))
    return "\n".join(p for p in parts if p)


def _parse_request(path: str, request: dict[str, Any]) -> tuple[str | None, str, list[tuple[str, str]]]:
    """(format, model, (role, content) pairs) of a request in any of the three formats."""
    if path.endswith("/chat/completions"):
        pairs = [(m["role"], _text_of(m["content"])) for m in request["messages"]]
        return "openai", request["model"], pairs
    if path.endswith("/v1/messages"):
        pairs = [("system", request["system"])] if request.get("system") else []
        pairs += [(m["role"], _text_of(m["content"])) for m in request["messages"]]
        return "anthropic", request["model"], pairs
    match = _GEMINI.match(path)
    if match:
        pairs = []
        if request.get("systemInstruction"):
            pairs.append(("system", _text_of(request["systemInstruction"]["parts"])))
        for c in request["contents"]:
            pairs.append(("assistant" if c["role"] == "model" else "user", _text_of(c["parts"])))
        return "gemini", match.group(1), pairs
    return None, "", []


def _reply(fmt: str, model: str, text: str, contents: list[tuple[str, str]]) -> dict[str, Any]:
    prompt = sum(approx_tokens(c) for _, c in contents)
    out = approx_tokens(text)
    if fmt == "openai":
        return {"id": "chatcmpl-fake", "object": "chat.completion", "model": model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": prompt, "completion_tokens": out, "total_tokens": prompt + out}}
    if fmt == "anthropic":
        return {"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
                "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
                "usage": {"input_tokens": prompt, "output_tokens": out}}
    return {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}],
            "usageMetadata": {"promptTokenCount": prompt, "candidatesTokenCount": out,
                              "totalTokenCount": prompt + out}}


def main() -> None:
    """Standalone server for benchmarks and manual tests."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--unusable-rate", type=float, default=0.0)
    args = parser.parse_args()
    server = FakeServer(latency=args.latency, unusable_rate=args.unusable_rate, port=args.port, fast_loop=True)

    def announce() -> None:
        server._ready.wait()
        print(f"PORT {server.port}", flush=True)

    threading.Thread(target=announce, daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()

"""A loopback HTTP server speaking the OpenAI, Anthropic and Gemini wire formats, with injected faults.

Used by the test suite and ``benchmarks/throughput.py``: real sockets, deterministic answers
(:mod:`playbench.models.mockbrain`), optional latency, and faults drawn from a seeded generator (or
given in order with ``sequence``):

* no answer: ``drop`` (connection closed after the request), ``reset`` (connection reset), ``slow``
  (answer later than the client's timeout);
* error answers: ``429`` (with ``Retry-After``), ``500``, ``401`` and ``403`` (echoing the credentials
  received), ``malformed`` (truncated JSON), ``empty`` body, ``shape`` (valid JSON of a wrong shape:
  one of :data:`WRONG_SHAPES` in turn, or of ``shapes``);
* well-formed answers with hostile content: ``surrogate`` (an escaped lone surrogate), ``invalid-utf8``
  (raw bytes that are not UTF-8), ``echo-key`` (the credentials received, in the text and the
  reasoning), ``odd`` (NUL, ANSI escapes, rich markup), ``huge`` (10 MB of text);
* answers too large to read: ``bomb`` (gzip-encoded, about 1 MiB as sent that inflates to
  :data:`BOMB_BYTES`, compressed as it is sent), ``oversize`` (a body whose Content-Length is over the
  client's cap, then its first bytes);
* ``overflow``: the HTTP 400 each API sends for a prompt longer than the model's context
  (:data:`OVERFLOW_BODIES`, or the chosen ``overflow_body``).

``context`` (tokens, counted as :func:`playbench.models.mockbrain.approx_tokens` counts them) answers every
prompt longer than that with the ``overflow`` answer, as a server started with that context does, and the
others normally; ``overflow_body`` (bytes) is then sent instead of the API's own wording (another server's).

``usage="missing"`` leaves the token counts (``usage``, Gemini's ``usageMetadata``) out of the answers, and
``usage="null"`` sends them as null, as some OpenAI-compatible servers do; ``usage_answers`` answers first
still carry them (a server that stops reporting partway).

``keep_alive`` (seconds) closes a connection that stays idle that long, as real servers do (uvicorn: 5 s).
``prompt_cache=True`` keeps a prefix cache (:mod:`playbench.models.prefixcache`) and answers with the
provider's cached-token usage fields (OpenAI's ``prompt_tokens_details.cached_tokens``, Anthropic's
``cache_read_input_tokens`` / ``cache_creation_input_tokens`` at its breakpoints, Gemini's
``cachedContentTokenCount``).

``slots`` (an integer) serves that many requests at a time, as llama.cpp's server (``--parallel``) and Ollama
(``OLLAMA_NUM_PARALLEL``) do, 1 by default: the others wait their turn in arrival order, each holding its slot
for ``latency`` seconds of "generation", so a request's time in the queue counts against the client's
timeout. A queued request whose client has gone when its turn comes is dropped unanswered, as those
servers cancel the work of a closed connection (counted as the ``abandoned`` fault).

Every request, fault and delivered answer is counted (and with ``record=True`` every request's path and
decoded body kept in ``received``), so tests can check exact accounting (hostile
well-formed answers count both as a fault and as an answer).

Run standalone: ``python -m playbench.models.fakeserver --port 0 --latency 0.2`` prints ``PORT <n>``
(``--slots 1``: one request at a time).
"""

import argparse
import asyncio
import copy
import json
import random
import re
import socket
import struct
import threading
import zlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from playbench.models.mockbrain import NO_ACTION, answer, approx_tokens
from playbench.models.prefixcache import PromptCache, request_blocks, with_cached_usage

# New faults go at the end: the seeded draws of the existing ones stay the same.
FAULTS = ("429", "500", "malformed", "empty", "drop", "slow", "401", "403", "reset", "shape", "surrogate",
          "invalid-utf8", "echo-key", "odd", "huge", "bomb", "oversize", "overflow")
#: faults whose answer is still well-formed for the client
CONTENT_FAULTS = ("surrogate", "invalid-utf8", "echo-key", "odd", "huge")
ODD_TEXT = "\x00 \x1b[31mred\x1b[0m [/] [bold]x[/bold] \u202e \r\n\t"
HUGE_CHARS = 10_000_000
_BAD_UTF8 = b"\xff\xfe\xc3("  # a stray continuation, an invalid start byte and a truncated sequence
_BAD_UTF8_MARK = "<<not-utf8>>"

_GEMINI = re.compile(r"^/v1beta/models/([^/:]+):generateContent")
#: what a ``bomb`` answer inflates to (sent as gzip, compressed while it is sent: about 1 MiB on the wire)
BOMB_BYTES = 2**30
#: format -> the error body its API sends for a prompt longer than the context (each with HTTP 400)
OVERFLOW_BODIES = {
    "openai": {"error": {"message": "This model's maximum context length is 4096 tokens. However, your messages "
                                    "resulted in 5120 tokens. Please reduce the length of the messages.",
                         "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}},
    "anthropic": {"type": "error", "error": {"type": "invalid_request_error",
                                             "message": "prompt is too long: 208656 tokens > 200000 maximum"}},
    "gemini": {"error": {"code": 400, "message": "The input token count (1200293) exceeds the maximum number of "
                                                 "tokens allowed (1048576).", "status": "INVALID_ARGUMENT"}},
}


@dataclass
class ServerStats:
    """What the server saw and did."""

    requests: int = 0
    answers: int = 0  # well-formed answers delivered
    unusable: int = 0  # delivered answers that deliberately name no action
    faults: Counter[str] = field(default_factory=Counter)
    formats: Counter[str] = field(default_factory=Counter)
    auth: Counter[str] = field(default_factory=Counter)  # credentials seen (the value itself, for key tests)
    shapes: Counter[str] = field(default_factory=Counter)  # wrong shapes sent, by name (all counted as "shape" faults)
    queued: int = 0  # with ``slots``: requests now waiting for a slot
    queue_peak: int = 0  # the most that ever waited at once


class FakeServer:
    """An asyncio HTTP/1.1 server (keep-alive) in its own thread. Use as a context manager."""

    def __init__(self, latency: float = 0.0, faults: dict[str, float] | None = None, unusable_rate: float = 0.0,
                 seed: int = 0, retry_after: str = "0", slow_seconds: float = 5.0, down: bool = False,
                 port: int = 0, reject_auth: bool = False, fast_loop: bool = False,
                 sequence: list[str | None] | None = None, shapes: list[str] | None = None,
                 record: bool = False, keep_alive: float | None = None, slots: int | None = None,
                 prompt_cache: bool = False, context: int | None = None, overflow_body: bytes | None = None,
                 usage: str = "sent", usage_answers: int = 0) -> None:
        self.latency = latency
        if usage not in ("sent", "missing", "null"):
            raise ValueError(f"usage must be sent, missing or null, not {usage!r}")
        self.usage = usage  # how answers carry their token counts
        self.usage_answers = usage_answers  # answers sent with their counts before ``usage`` applies
        self.context = context  # longest prompt answered (approximate tokens); longer ones overflow
        self.overflow_body = overflow_body  # the HTTP 400 body of an overflow (None: the API's own)
        # with ``prompt_cache``: per format, the prompt prefixes the server has cached
        self.prompt_caches = ({fmt: PromptCache(explicit=fmt == "anthropic") for fmt in OVERFLOW_BODIES}
                              if prompt_cache else None)
        self.slots = slots  # requests served at a time (None: all at once); the others queue
        self._turns: asyncio.Semaphore | None = None
        self.keep_alive = keep_alive  # seconds an idle connection is kept open (None: until the client closes)
        self.record = record  # keep every request's path and decoded body in ``received`` (tests)
        self.received: list[tuple[str, Any]] = []
        self.bodies: list[bytes] = []  # with ``record``: each request body exactly as it arrived
        self.faults = dict(faults or {})
        self.sequence = list(sequence or [])  # faults of the first requests, in order (None: a normal answer)
        unknown = (set(self.faults) | set(self.sequence)) - set(FAULTS) - {None}
        if unknown:
            raise ValueError(f"unknown faults {unknown}")
        self.shapes = shapes  # names of WRONG_SHAPES the "shape" fault cycles through (None: all)
        self.unusable_rate = unusable_rate
        self.retry_after = retry_after
        self.slow_seconds = slow_seconds
        self.down = down  # every request is answered 503
        self.reject_auth = reject_auth  # every request is answered 401, echoing the credentials it got
        self.rng = random.Random(seed)
        self.stats = ServerStats()
        self._shape_turn = 0
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
        if self.slots is not None:
            self._turns = asyncio.Semaphore(self.slots)
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
                if self.keep_alive is None:
                    head = await reader.readuntil(b"\r\n\r\n")
                else:
                    try:
                        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), self.keep_alive)
                    except TimeoutError:
                        break  # idle too long: closed, as uvicorn closes keep-alive connections
                lines = head.decode("latin-1").split("\r\n")
                method, path, _ = lines[0].split(" ", 2)
                headers = {}
                for line in lines[1:]:
                    if ":" in line:
                        k, v = line.split(":", 1)
                        headers[k.strip().lower()] = v.strip()
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                keep = await self._in_turn(reader, writer, method, path, headers, body)
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
                  404: "Not Found", 401: "Unauthorized", 403: "Forbidden"}.get(status, "Status")
        head = [f"HTTP/1.1 {status} {reason}", "Content-Type: application/json",
                f"Content-Length: {len(payload)}", "Connection: keep-alive"]
        head += [f"{k}: {v}" for k, v in (extra or {}).items()]
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + payload)
        await writer.drain()

    async def _in_turn(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, method: str, path: str,
                       headers: dict[str, str], body: bytes) -> bool:
        """Answer the request, with ``slots`` once a slot is free (dropped if its client has gone by then)."""
        if self._turns is None:
            return await self._respond(writer, method, path, headers, body)
        stats = self.stats
        stats.queued += 1
        stats.queue_peak = max(stats.queue_peak, stats.queued)
        try:
            await self._turns.acquire()
        finally:
            stats.queued -= 1
        try:
            if reader.at_eof():  # the client closed the connection (it timed out) while the request queued
                stats.requests += 1
                stats.faults["abandoned"] += 1
                return False
            return await self._respond(writer, method, path, headers, body)
        finally:
            self._turns.release()

    async def _respond(self, writer: asyncio.StreamWriter, method: str, path: str, headers: dict[str, str],
                       body: bytes) -> bool:
        stats = self.stats
        stats.requests += 1
        if self.record:
            self.bodies.append(body)
            try:
                self.received.append((path, json.loads(body)))
            except ValueError:
                self.received.append((path, body))
        for name in ("authorization", "x-api-key", "x-goog-api-key"):
            if name in headers:
                stats.auth[headers[name]] += 1
        if self.reject_auth:
            stats.faults["auth"] += 1
            await self._refuse(writer, 401, headers)
            return True
        if self.down:
            stats.faults["down"] += 1
            await self._send(writer, 503, b'{"error": "down"}')
            return True
        fault = self._draw_fault()
        # The answer leaves ``latency`` after the request arrived, its own work done meanwhile (as a remote
        # server's would be): the server's CPU is not added to the latency the client measures.
        deadline = asyncio.get_running_loop().time() + self.latency
        if fault is not None and fault not in CONTENT_FAULTS:
            await _sleep_until(deadline)
            stats.faults[fault] += 1
            if fault == "drop":
                return False
            if fault == "reset":
                _reset(writer)
                return False
            if fault == "slow":
                await asyncio.sleep(self.slow_seconds)
                return False
            if fault == "shape":
                return await self._answer(writer, path, body, None, wrong_shape=True, deadline=deadline)
            if fault == "bomb":
                await _send_bomb(writer)
                return False
            if fault == "overflow":
                await self._send_overflow(writer, path)
                return True
            await self._send_fault(writer, fault, headers)
            return True
        if fault is not None:
            stats.faults[fault] += 1
        return await self._answer(writer, path, body, fault, headers=headers, deadline=deadline)

    async def _send_overflow(self, writer: asyncio.StreamWriter, path: str) -> None:
        """The HTTP 400 of a prompt longer than the context: the chosen body, else the API's own."""
        body = self.overflow_body or _dumps(OVERFLOW_BODIES[_format_of(path) or "openai"])
        await self._send(writer, 400, body)

    async def _send_fault(self, writer: asyncio.StreamWriter, fault: str, headers: dict[str, str]) -> None:
        if fault == "429":
            await self._send(writer, 429, b'{"error": {"type": "rate_limit"}}', {"Retry-After": self.retry_after})
        elif fault == "500":
            await self._send(writer, 500, b'{"error": "boom"}')
        elif fault == "malformed":
            await self._send(writer, 200, b'{"choices": [ {"message": ')
        elif fault == "empty":
            await self._send(writer, 200, b"")
        elif fault == "oversize":
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n"
                         + b'{"choices": [{"message": {"content": "' + b"x" * 65536)
            await writer.drain()
        elif fault in ("401", "403"):
            await self._refuse(writer, int(fault), headers)

    async def _refuse(self, writer: asyncio.StreamWriter, status: int, headers: dict[str, str]) -> None:
        """An authentication error that echoes the credentials it got (as careless servers do)."""
        echo = json.dumps({"error": f"invalid key {headers.get('authorization', '')}"
                                    f"{headers.get('x-api-key', '')}{headers.get('x-goog-api-key', '')}"})
        await self._send(writer, status, echo.encode())

    async def _answer(self, writer: asyncio.StreamWriter, path: str, body: bytes, content_fault: str | None,
                      headers: dict[str, str] | None = None, wrong_shape: bool = False, deadline: float = 0.0
                      ) -> bool:
        """A normal answer to the request, its content spoiled by ``content_fault`` or its shape broken.

        Sent at loop time ``deadline`` (at once when that has passed).
        """
        stats = self.stats
        try:
            request = orjson.loads(body)  # fast path; json.loads decides whatever orjson refuses
        except ValueError:
            try:
                request = json.loads(body)
            except ValueError:
                await _sleep_until(deadline)
                await self._send(writer, 400, b'{"error": "bad json"}')
                return True
        fmt, model, contents = _parse_request(path.partition("?")[0], request)  # a query is not routing
        if fmt is None:
            await _sleep_until(deadline)
            await self._send(writer, 404, b'{"error": "unknown path"}')
            return True
        if self.context is not None and sum(approx_tokens(c) for _, c in contents) > self.context:
            stats.faults["overflow"] += 1
            await _sleep_until(deadline)
            await self._send_overflow(writer, path)
            return True
        stats.formats[fmt] += 1
        if not wrong_shape and self.unusable_rate and self.rng.random() < self.unusable_rate:
            text = NO_ACTION
            stats.unusable += 1
        else:
            text = answer(model, contents)
        reasoning = None
        if content_fault is not None:
            text, reasoning = _spoil(text, content_fault, headers or {})
        reply = reply_body(fmt, model, text, contents, reasoning)
        if self.prompt_caches is not None:
            reply = with_cached_usage(fmt, reply, *self.prompt_caches[fmt].use(request_blocks(fmt, request)))
        if self.usage != "sent" and stats.answers >= self.usage_answers:
            block = _USAGE[fmt][0]
            reply.pop(block)
            if self.usage == "null":
                reply[block] = None
        if wrong_shape:
            payload = self._wrong_shape(fmt, reply)
            await _sleep_until(deadline)
            await self._send(writer, 200, payload)
            return True
        stats.answers += 1
        payload = _dumps(reply)
        if content_fault == "invalid-utf8":
            payload = payload.replace(_BAD_UTF8_MARK.encode(), _BAD_UTF8)
        await _sleep_until(deadline)
        await self._send(writer, 200, payload)
        return True

    def _wrong_shape(self, fmt: str, reply: dict[str, Any]) -> bytes:
        names = self.shapes or list(WRONG_SHAPES[fmt])
        name = names[self._shape_turn % len(names)]
        self._shape_turn += 1
        self.stats.shapes[name] += 1
        broken = WRONG_SHAPES[fmt][name](copy.deepcopy(reply))
        return broken if isinstance(broken, bytes) else _dumps(broken)

    def _draw_fault(self) -> str | None:
        if self.sequence:
            return self.sequence.pop(0)
        roll = self.rng.random()
        for name in FAULTS:
            rate = self.faults.get(name, 0.0)
            if roll < rate:
                return name
            roll -= rate
        return None


async def _send_bomb(writer: asyncio.StreamWriter) -> None:
    """A 200 answer, gzip-encoded and chunked, whose body inflates to BOMB_BYTES of spaces (compressed as sent)."""
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
                 b"Transfer-Encoding: chunked\r\n\r\n")
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # 31: the gzip format
    block = b" " * 2**20

    def chunk(data: bytes) -> bytes:
        return f"{len(data):x}\r\n".encode() + data + b"\r\n" if data else b""

    for _ in range(BOMB_BYTES // len(block)):
        writer.write(chunk(packer.compress(block)))
        await writer.drain()  # raises once the client has given up and closed the connection
    writer.write(chunk(packer.flush()) + b"0\r\n\r\n")
    await writer.drain()


def _reset(writer: asyncio.StreamWriter) -> None:
    """Close the connection with a TCP reset (RST) instead of an orderly close."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


def _dumps(value: Any) -> bytes:
    try:
        return orjson.dumps(value)
    except TypeError:  # lone surrogates: the standard encoder writes them as \uXXXX escapes
        return json.dumps(value).encode()


def _spoil(text: str, fault: str, headers: dict[str, str]) -> tuple[str, str | None]:
    """(text, reasoning) of a well-formed answer with hostile content."""
    if fault == "surrogate":
        return f"{text} \ud800 lone \udfff", "thinking \udc00"
    if fault == "invalid-utf8":
        return f"{text} {_BAD_UTF8_MARK}", None
    if fault == "echo-key":
        keys = [v.split(" ", 1)[-1] for k, v in headers.items() if k in ("authorization", "x-api-key", "x-goog-api-key")]
        echo = " ".join(keys)
        return f"{text} (you sent {echo})", f"the key is {echo}"
    if fault == "odd":
        return f"{text} {ODD_TEXT}", ODD_TEXT
    if fault == "huge":
        return f"{text} " + "x" * HUGE_CHARS, None
    return text, None


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for part in content or []:
        if isinstance(part, dict):
            parts.append(str(part.get("text", "")))
    return "\n".join(p for p in parts if p)


def _format_of(path: str) -> str | None:
    """The wire format a request path belongs to (None: an unknown path)."""
    if path.endswith("/chat/completions"):
        return "openai"
    if path.endswith("/v1/messages"):
        return "anthropic"
    return "gemini" if _GEMINI.match(path) else None


def _parse_request(path: str, request: dict[str, Any]) -> tuple[str | None, str, list[tuple[str, str]]]:
    """(format, model, (role, content) pairs) of a request in any of the three formats."""
    if path.endswith("/chat/completions"):
        pairs = [(m["role"], _text_of(m["content"])) for m in request["messages"]]
        return "openai", request["model"], pairs
    if path.endswith("/v1/messages"):
        pairs = [("system", _text_of(request["system"]))] if request.get("system") else []
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


def reply_body(fmt: str, model: str, text: str, contents: list[tuple[str, str]], reasoning: str | None = None
               ) -> dict[str, Any]:
    """The well-formed answer body of format ``fmt`` (``openai``, ``anthropic``, ``gemini``)."""
    prompt = sum(approx_tokens(c) for _, c in contents)
    out = approx_tokens(text)
    if fmt == "openai":
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if reasoning is not None:
            message["reasoning_content"] = reasoning
        return {"id": "chatcmpl-fake", "object": "chat.completion", "model": model,
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": prompt, "completion_tokens": out, "total_tokens": prompt + out}}
    if fmt == "anthropic":
        blocks = [{"type": "thinking", "thinking": reasoning}] if reasoning is not None else []
        return {"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
                "content": [*blocks, {"type": "text", "text": text}], "stop_reason": "end_turn",
                "usage": {"input_tokens": prompt, "output_tokens": out}}
    parts: list[dict[str, Any]] = [{"text": reasoning, "thought": True}] if reasoning is not None else []
    return {"candidates": [{"content": {"role": "model", "parts": [*parts, {"text": text}]}, "finishReason": "STOP"}],
            "usageMetadata": {"promptTokenCount": prompt, "candidatesTokenCount": out,
                              "totalTokenCount": prompt + out}}


def _set(path: tuple[Any, ...], value: Any) -> Callable[[Any], Any]:
    """A WRONG_SHAPES entry: the reply with the item at ``path`` replaced by ``value``."""
    def apply(reply: Any) -> Any:
        node = reply
        for step in path[:-1]:
            node = node[step]
        node[path[-1]] = value
        return reply
    return apply


_DEEP = b"[" * 100_000 + b"]" * 100_000  # deeper than any JSON decoder's stack
_COMMON: dict[str, Callable[[Any], Any]] = {
    "top-list": lambda r: [r],
    "top-string": lambda r: "hello",
    "top-null": lambda r: None,
    "deep": lambda r: _DEEP,
}
_USAGE = {"openai": ("usage", "prompt_tokens"), "anthropic": ("usage", "input_tokens"),
          "gemini": ("usageMetadata", "promptTokenCount")}


def _usage_shapes(fmt: str) -> dict[str, Callable[[Any], Any]]:
    block, field_ = _USAGE[fmt]
    return {
        "usage-list": _set((block,), []),
        "usage-string": _set((block,), "many"),
        "usage-count-string": _set((block, field_), "12"),
        "usage-count-object": _set((block, field_), {"n": 1}),
        "usage-count-bool": _set((block, field_), True),
        "usage-count-negative": _set((block, field_), -5),
        "usage-count-inf": lambda r: _dumps(_set((block, field_), 123456789012)(r)).replace(b"123456789012", b"1e999"),
    }


#: format -> name -> function turning a good reply into valid JSON of a wrong shape (or raw bytes)
WRONG_SHAPES: dict[str, dict[str, Callable[[Any], Any]]] = {
    "openai": {
        **_COMMON, **_usage_shapes("openai"),
        "choices-missing": lambda r: {k: v for k, v in r.items() if k != "choices"},
        "choices-empty": _set(("choices",), []),
        "choices-object": _set(("choices",), {"0": {}}),
        "choice-string": _set(("choices", 0), "hello"),
        "message-string": _set(("choices", 0, "message"), "hello"),
        "message-missing": _set(("choices", 0, "message"), None),
        "content-number": _set(("choices", 0, "message", "content"), 42),
        "content-object": _set(("choices", 0, "message", "content"), {"text": "hi"}),
        "error-with-200": lambda r: {"error": {"message": "overloaded", "type": "server_error"}},
    },
    "anthropic": {
        **_COMMON, **_usage_shapes("anthropic"),
        "content-missing": lambda r: {k: v for k, v in r.items() if k != "content"},
        "content-string": _set(("content",), "hello"),
        "content-object": _set(("content",), {"type": "text", "text": "hi"}),
        "block-string": _set(("content", 0), "hello"),
        "text-number": _set(("content", 0, "text"), 5),
        "text-list": _set(("content", 0, "text"), ["a"]),
    },
    "gemini": {
        **_COMMON, **_usage_shapes("gemini"),
        "candidates-missing": lambda r: {k: v for k, v in r.items() if k != "candidates"},
        "candidates-object": _set(("candidates",), {"0": {}}),
        "candidates-string": _set(("candidates",), "x"),
        "candidate-string": _set(("candidates", 0), "x"),
        "content-string": _set(("candidates", 0, "content"), "x"),
        "parts-object": _set(("candidates", 0, "content", "parts"), {"text": "hi"}),
        "part-string": _set(("candidates", 0, "content", "parts", 0), "x"),
        "text-number": _set(("candidates", 0, "content", "parts", 0, "text"), 5),
        "feedback-string": lambda r: {"promptFeedback": "blocked"},
    },
}


async def _sleep_until(deadline: float) -> None:
    """Sleep until loop time ``deadline`` (not at all when it has passed)."""
    delay = deadline - asyncio.get_running_loop().time()
    if delay > 0:
        await asyncio.sleep(delay)


def main() -> None:
    """Standalone server for benchmarks and manual tests."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--unusable-rate", type=float, default=0.0)
    parser.add_argument("--slots", type=int, default=None, help="requests served at a time (default: all)")
    args = parser.parse_args()
    server = FakeServer(latency=args.latency, unusable_rate=args.unusable_rate, port=args.port, fast_loop=True,
                        slots=args.slots)

    def announce() -> None:
        server._ready.wait()
        print(f"PORT {server.port}", flush=True)

    threading.Thread(target=announce, daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()

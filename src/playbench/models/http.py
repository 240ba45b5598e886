"""The HTTP transport of every provider: one aiohttp session per event loop.

aiohttp keeps a cheap per-origin connection pool, which matters at hundreds of concurrent episodes on a
small machine (see benchmarks/throughput.py). It never retries on its own: every attempt is visible to
the one retry layer in :mod:`playbench.models.model`, which also tells a pooled connection the server
closed while it was idle (:class:`StaleConnection`) from a server that cannot be reached. Answers are read
whole (:func:`read_body`, also used by provider batches), incrementally up to :data:`MAX_ANSWER_BYTES`. Proxies are taken from the environment (``HTTPS_PROXY`` and
friends).
"""

import json as stdjson
import os
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import aiohttp
import orjson
import yarl
from multidict import CIMultiDict

from playbench.core.turns import take_turn

_JSON_CONTENT = (("Content-Type", "application/json"),)


#: Longest wait for a TCP connection (capped by the request timeout): a host that does not even accept a
#: connection within it is counted as unreachable, like a refused one, not as a slow server.
CONNECT_TIMEOUT = 30.0

#: Seconds an idle pooled connection is kept: below the 5 s after which common servers (uvicorn, hence
#: vLLM and llama-cpp-python) close idle keep-alive connections, so a reused connection is rarely stale.
KEEPALIVE_TIMEOUT = 4.0

#: Largest answer read, both as sent (compressed) and after Content-Encoding is undone: a larger one is
#: refused (:class:`AnswerTooLarge`) before it can fill the memory. Model answers are far smaller. Half of
#: a step line's limit (``log.shard.MAX_STEP_BYTES``), so the step recording an answer this size still fits.
MAX_ANSWER_BYTES = 16 * 2**20

# Failures before the first byte of an answer: the request never reached a server that answers.
_NO_ANSWER = (aiohttp.ClientConnectorError, aiohttp.ServerDisconnectedError, aiohttp.ClientOSError,
              aiohttp.ConnectionTimeoutError)


class ProtocolError(ConnectionError):
    """The connection failed or closed mid-answer, or the answer was not valid HTTP."""


class ConnectFailed(ProtocolError):
    """No answer at all: connection refused or timed out, DNS failure, or closed before the status line."""


class StaleConnection(ConnectFailed):
    """No answer on a pooled connection that had served an earlier request.

    The server closed it while it was idle (as servers do after their keep-alive time): the request did
    not reach a server that answers, and the connection is gone from the pool.
    """


class AnswerTooLarge(ProtocolError):
    """The answer is larger than its cap (:data:`MAX_ANSWER_BYTES`, as sent or decompressed); reading stopped there."""


class ShortAnswer(ProtocolError):
    """The answer's body ended before the length its Content-Length announced (the connection dropped)."""


async def _on_reuse(session: aiohttp.ClientSession, context: SimpleNamespace, params: object) -> None:
    context.trace_request_ctx.pooled = True  # the request goes out on a connection that served an earlier one


def _trace_reuse() -> aiohttp.TraceConfig:
    """A trace that marks, on the request's own context, a connection taken from the pool."""
    trace = aiohttp.TraceConfig()
    trace.on_connection_reuseconn.append(_on_reuse)
    return trace


def _size(limit: int) -> str:
    return f"{limit >> 20} MiB" if limit % 2**20 == 0 else f"{limit:,} bytes"


async def read_body(answer: aiohttp.ClientResponse, limit: int | None = None) -> bytes:
    """The whole body of ``answer``, read to its end (every transport of playbench reads bodies here).

    Read piece by piece (aiohttp inflates a compressed body in bounded steps) with a running total: a body
    over ``limit`` (default :data:`MAX_ANSWER_BYTES`), as sent or after decompression, is refused
    (:class:`AnswerTooLarge`); one that ends short of its Content-Length is :class:`ShortAnswer` (a dropped
    connection, worth another attempt).
    """
    if limit is None:
        limit = MAX_ANSWER_BYTES
    if answer.content_length is not None and answer.content_length > limit:
        raise AnswerTooLarge(f"answer larger than {_size(limit)} (Content-Length {answer.content_length})")
    encoded = answer.headers.get("Content-Encoding", "identity").strip().lower() not in ("", "identity")
    stream = answer.content
    parts: list[bytes] = []
    size = 0
    while chunk := await stream.readany():
        if getattr(stream, "total_raw_bytes", 0) > limit:  # what was sent so far (aiohttp >= 3.12 counts it)
            raise AnswerTooLarge(f"answer larger than {_size(limit)}" + (" (as sent, compressed)" if encoded else ""))
        size += len(chunk)
        if size > limit:
            raise AnswerTooLarge(f"answer larger than {_size(limit)} (after decompression)")
        parts.append(chunk)
    sent = getattr(stream, "total_raw_bytes", None) if encoded else size  # what the Content-Length counts
    expected = answer.content_length
    if expected is not None and sent is not None and sent < expected and answer.status not in (204, 304):
        raise ShortAnswer(f"answer ended after {sent} of its {expected} bytes (Content-Length)")
    return b"".join(parts)


@dataclass
class Response:
    """The parts of an HTTP answer the providers use."""

    status_code: int
    headers: dict[str, str] = field(default_factory=dict)  # lower-case names
    content: bytes = b""

    @property
    def text(self) -> str:
        """The body decoded as UTF-8 (lenient)."""
        return self.content.decode("utf-8", "replace")


def _encode(payload: Any) -> bytes:
    """JSON bytes of a request body."""
    try:
        return orjson.dumps(payload)  # several times faster than json.dumps on long prompts
    except TypeError:  # orjson refuses lone surrogates; the standard encoder escapes them as \uXXXX
        return stdjson.dumps(payload).encode()


def _proxy_in_env() -> bool:
    # aiohttp looks proxies and .netrc up in a thread for every request when trust_env is on: only pay that
    # when a proxy is configured.
    return any(os.environ.get(name) for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy",
                                                  "https_proxy", "all_proxy"))


class HttpClient:
    """``await client.post(url, headers=..., json=...)`` with a total ``timeout`` (seconds) per request."""

    def __init__(self, timeout: float, max_connections: int) -> None:
        self.timeout = timeout
        self.max_connections = max_connections
        self._session: aiohttp.ClientSession | None = None
        self._urls: dict[str, yarl.URL] = {}


    def _get_session(self) -> aiohttp.ClientSession:
        if self._session is None:  # created lazily: a session belongs to the running event loop
            connector = aiohttp.TCPConnector(limit=self.max_connections, limit_per_host=self.max_connections,
                                             keepalive_timeout=KEEPALIVE_TIMEOUT)
            self._session = aiohttp.ClientSession(
                connector=connector, trust_env=_proxy_in_env(), trace_configs=[_trace_reuse()],
                timeout=aiohttp.ClientTimeout(total=self.timeout, sock_connect=min(self.timeout, CONNECT_TIMEOUT)),
                cookie_jar=aiohttp.DummyCookieJar(), skip_auto_headers=("User-Agent",))
        return self._session

    def _url(self, url: str) -> yarl.URL:
        # Parsed once per distinct URL (a provider posts to one or two), not on every request.
        parsed = self._urls.get(url)
        if parsed is None:
            parsed = self._urls[url] = yarl.URL(url)
        return parsed

    async def post(self, url: str, headers: dict[str, str], json: Any) -> Response:  # noqa: A002
        """One POST; raises TimeoutError, ConnectFailed (no answer at all), or ProtocolError (broken answer).

        ConnectFailed is StaleConnection when the request went out on a pooled connection; ProtocolError is
        AnswerTooLarge for an answer over :data:`MAX_ANSWER_BYTES`.
        """
        body = _encode(json)
        all_headers = CIMultiDict(_JSON_CONTENT)  # what aiohttp would build from a dict anyway
        all_headers.update(headers)
        connection = SimpleNamespace(pooled=False)  # set by _on_reuse
        try:
            answer = await self._get_session().post(self._url(url), headers=all_headers, data=body,
                                                    trace_request_ctx=connection)
        except _NO_ANSWER as exc:  # checked first: a connect timeout is also a TimeoutError
            kind = StaleConnection if connection.pooled else ConnectFailed
            raise kind(f"{type(exc).__name__}: {exc}") from None
        except TimeoutError:
            raise TimeoutError(f"no answer within {self.timeout} s") from None
        except aiohttp.ClientError as exc:
            raise ProtocolError(f"{type(exc).__name__}: {exc}") from None
        try:
            content = await read_body(answer)
            response = Response(answer.status, {k.lower(): v for k, v in answer.headers.items()}, content)
        except AnswerTooLarge:
            answer.close()  # the rest of the body is never read: this connection cannot serve another request
            raise
        except TimeoutError:
            raise TimeoutError(f"no answer within {self.timeout} s") from None
        except aiohttp.ClientError as exc:
            raise ProtocolError(f"{type(exc).__name__}: {exc}") from None
        finally:
            answer.release()
        await take_turn()  # the caller's CPU work on this answer starts in turn (see core.turns)
        return response

    async def aclose(self) -> None:
        """Close the pooled connections."""
        if self._session is not None:
            await self._session.close()
            self._session = None

"""A lean asyncio HTTP/1.1 client (keep-alive, TLS, chunked bodies) for high-concurrency model calls.

httpx's connection pool costs O(connections x waiting requests) per state change, which dominates
at hundreds of concurrent episodes on a small machine (see benchmarks/throughput.py). This client
keeps one idle list per origin and never retries on its own: every attempt is visible to the one
retry layer in :mod:`playbench.models.model`. Proxies are not supported; with a proxy in the
environment (or ``PLAYBENCH_HTTP=httpx``) the Model uses httpx instead.
"""

import asyncio
import json
import ssl
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit


class ProtocolError(ConnectionError):
    """The server's answer is not valid HTTP/1.1 (or the connection closed mid-answer)."""


@dataclass
class Response:
    """The parts of an HTTP answer the providers use (names as in httpx)."""

    status_code: int
    headers: dict[str, str] = field(default_factory=dict)  # lower-case names
    content: bytes = b""

    @property
    def text(self) -> str:
        """The body decoded as UTF-8 (lenient)."""
        return self.content.decode("utf-8", "replace")


_Conn = tuple[asyncio.StreamReader, asyncio.StreamWriter]


class FastClient:
    """``await client.post(url, headers=..., json=...)`` with a per-request ``timeout`` (seconds)."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self._idle: dict[tuple[str, str, int], list[_Conn]] = {}
        self._ssl: ssl.SSLContext | None = None

    async def post(self, url: str, headers: dict[str, str], json: Any) -> Response:  # noqa: A002
        """One POST; raises TimeoutError, ConnectionError/OSError or ProtocolError on failure."""
        parts = urlsplit(url)
        https = parts.scheme == "https"
        host = parts.hostname or "localhost"
        port = parts.port or (443 if https else 80)
        key = (parts.scheme, host, port)
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        body = _dumps(json)
        head = [f"POST {target or '/'} HTTP/1.1", f"Host: {parts.netloc}", "Content-Type: application/json",
                f"Content-Length: {len(body)}", "Accept: application/json", "Connection: keep-alive"]
        head += [f"{k}: {v}" for k, v in headers.items()]
        payload = ("\r\n".join(head) + "\r\n\r\n").encode() + body
        conn: _Conn | None = None
        try:
            async with asyncio.timeout(self.timeout):
                conn = await self._connect(key, https, host, port)
                conn[1].write(payload)
                await conn[1].drain()
                response, keep = await _read_response(conn[0])
        except BaseException:
            if conn is not None:
                conn[1].close()
            raise
        if keep:
            self._idle.setdefault(key, []).append(conn)
        else:
            conn[1].close()
        return response

    async def _connect(self, key: tuple[str, str, int], https: bool, host: str, port: int) -> _Conn:
        idle = self._idle.get(key)
        while idle:
            reader, writer = idle.pop()
            if not reader.at_eof() and not writer.is_closing():
                return reader, writer
            writer.close()
        if https and self._ssl is None:
            self._ssl = ssl.create_default_context()
        return await asyncio.open_connection(host, port, ssl=self._ssl if https else None, limit=2**22)

    async def aclose(self) -> None:
        """Close every idle connection."""
        for conns in self._idle.values():
            for _, writer in conns:
                writer.close()
        self._idle.clear()


def _dumps(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()


async def _read_response(reader: asyncio.StreamReader) -> tuple[Response, bool]:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as exc:
        raise ProtocolError("server closed the connection without an answer") from exc
    except asyncio.LimitOverrunError as exc:
        raise ProtocolError("response headers too long") from exc
    lines = head.decode("latin-1").split("\r\n")
    status = lines[0].split(" ", 2)
    if len(status) < 2 or not status[0].startswith("HTTP/1.") or not status[1].isdigit():
        raise ProtocolError(f"not an HTTP/1.1 status line: {lines[0][:60]!r}")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    try:
        if "chunked" in headers.get("transfer-encoding", "").lower():
            content = await _read_chunked(reader)
        elif "content-length" in headers:
            content = await reader.readexactly(int(headers["content-length"]))
        else:
            content = await reader.read()  # delimited by close
            headers["connection"] = "close"
    except asyncio.IncompleteReadError as exc:
        raise ProtocolError("connection closed in the middle of the body") from exc
    except ValueError as exc:
        raise ProtocolError(f"bad body framing: {exc}") from exc
    keep = headers.get("connection", "").lower() != "close" and status[0] != "HTTP/1.0"
    return Response(int(status[1]), headers, content), keep


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    chunks = []
    while True:
        size_line = await reader.readuntil(b"\r\n")
        size = int(size_line.split(b";", 1)[0].strip(), 16)
        if size == 0:
            while (await reader.readuntil(b"\r\n")) != b"\r\n":  # trailers
                pass
            return b"".join(chunks)
        chunks.append(await reader.readexactly(size))
        await reader.readexactly(2)

"""The transport's error contract over real sockets: no answer, a broken answer and a late answer differ."""

import asyncio
import socket
import struct
import time

import pytest

from playbench.models import http
from playbench.models.http import ConnectFailed, HttpClient, ProtocolError

# What a loopback server does after reading one request, by path.
REPLIES: dict[str, bytes | str] = {
    "drop": b"",  # closes before the status line
    "reset": "reset",  # TCP reset before the status line
    "head-cut": b"HTTP/1.1 200 OK\r\nContent-Le",  # closes inside the head
    "garbage": b"NOT HTTP AT ALL\r\n\r\n",
    "body-cut": b'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"a":',
    "bad-chunk": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    "late": "late",  # no answer at all within the timeout
    "late-body": "late-body",  # the head, then nothing within the timeout
    "ok": b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: 3\r\nContent-Length: 2\r\n\r\n{}",
}
EXPECTED = {
    "drop": ConnectFailed, "reset": ConnectFailed, "head-cut": ConnectFailed, "garbage": ProtocolError,
    "body-cut": ProtocolError, "bad-chunk": ProtocolError, "late": TimeoutError, "late-body": TimeoutError,
    "refused": ConnectFailed, "connect-timeout": ConnectFailed,
}


async def _handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, ConnectionError):
        return
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length"))
    await reader.readexactly(length)
    reply = REPLIES[head.split(b" ")[1].decode().strip("/")]
    if reply == "reset":
        writer.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        writer.transport.abort()
        return
    if reply == "late-body":
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{")
    if reply in ("late", "late-body"):
        await asyncio.sleep(2)
    elif isinstance(reply, bytes):
        writer.write(reply)
    writer.close()


def _full_listener() -> tuple[socket.socket, list[socket.socket]]:
    """A listening socket whose accept queue is full: a new connection attempt hangs (no SYN-ACK)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    fillers = []
    for _ in range(8):
        filler = socket.socket()
        filler.setblocking(False)
        try:
            filler.connect(listener.getsockname())
        except BlockingIOError:
            pass
        fillers.append(filler)
    time.sleep(0.1)
    return listener, fillers


def test_each_failure_maps_to_its_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http, "CONNECT_TIMEOUT", 0.2)
    listener, fillers = _full_listener()

    async def go() -> tuple[dict[str, tuple[type, float]], http.Response]:
        server = await asyncio.start_server(_handle, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        client = HttpClient(timeout=0.6, max_connections=4)
        urls = {name: f"http://127.0.0.1:{port}/{name}" for name in REPLIES if name != "ok"}
        urls["refused"] = "http://127.0.0.1:1/x"
        urls["connect-timeout"] = f"http://127.0.0.1:{listener.getsockname()[1]}/x"
        seen: dict[str, tuple[type, float]] = {}
        for name, url in urls.items():
            start = time.monotonic()
            with pytest.raises((TimeoutError, ProtocolError)) as caught:
                await client.post(url, {"Authorization": "Bearer k"}, {"n": 1})
            seen[name] = (caught.type, time.monotonic() - start)
        ok = await client.post(f"http://127.0.0.1:{port}/ok", {}, {"n": 1})  # errors left the pool usable
        await client.aclose()
        server.close()
        return seen, ok

    try:
        seen, ok = asyncio.run(go())
    finally:
        for sock in (listener, *fillers):
            sock.close()
    assert {name: kind for name, (kind, _) in seen.items()} == EXPECTED
    assert seen["connect-timeout"][1] < 0.5  # the connect timeout, not the total one
    assert seen["late"][1] >= 0.55 and seen["late-body"][1] >= 0.55
    assert ok.status_code == 429 and ok.headers["retry-after"] == "3" and ok.content == b"{}"


def test_proxy_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bytes] = []

    async def proxy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen.append(await reader.readuntil(b"\r\n\r\n"))
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")
        await writer.drain()
        writer.close()

    async def go() -> http.Response:
        server = await asyncio.start_server(proxy, "127.0.0.1", 0)
        monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}")
        client = HttpClient(timeout=5, max_connections=1)
        answer = await client.post("http://upstream.invalid/v1/chat/completions", {}, {"n": 1})
        await client.aclose()
        server.close()
        return answer

    assert asyncio.run(go()).content == b"{}"
    assert seen and seen[0].startswith(b"POST http://upstream.invalid/v1/chat/completions HTTP/1.1\r\n")


def test_at_most_max_connections_at_a_time() -> None:
    connections: list[int] = []
    busy = [0, 0]  # now, most

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(1)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                              if line.lower().startswith(b"content-length"))
                await reader.readexactly(length)
                busy[0] += 1
                busy[1] = max(busy)
                await asyncio.sleep(0.05)
                busy[0] -= 1
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    async def go() -> list[int]:
        server = await asyncio.start_server(serve, "127.0.0.1", 0)
        client = HttpClient(timeout=5, max_connections=2)
        url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/x"
        answers = await asyncio.gather(*(client.post(url, {}, {"n": i}) for i in range(8)))
        await client.aclose()
        server.close()
        return [a.status_code for a in answers]

    assert asyncio.run(go()) == [200] * 8
    assert len(connections) == 2 and busy[1] == 2

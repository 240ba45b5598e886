"""Answers are read up to a cap, as sent and after decompression: a gzip bomb or an endless body is a
``malformed`` fault with one line, and the client's memory stays bounded (issue 27)."""

import asyncio
import gzip
import json
import os
import subprocess
import sys
import textwrap
import zlib

import pytest

from playbench.core.errors import InfraError
from playbench.models import Message, ModelSettings, create_model, http
from playbench.models.fakeserver import BOMB_BYTES, FakeServer
from playbench.models.http import AnswerTooLarge, HttpClient

ASK = [Message("user", "Pick one:\n1. left\n2. right")]
MIB = 2**20

# Runs in a child process, so that its peak memory (ru_maxrss) is the client's alone.
_CHILD = textwrap.dedent("""
    import asyncio, json, resource, sys
    from playbench.core.errors import InfraError
    from playbench.models import Message, ModelSettings, create_model

    model = create_model("openai/fake", {}, ModelSettings(base_url=sys.argv[1], max_retries=1, retry_backoff=0.001))
    ask = [Message("user", "Pick one:\\n1. left\\n2. right")]

    async def go():
        first = await model.generate(ask)  # a normal answer: everything the client needs is loaded
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        try:
            await model.generate(ask)
            error = None
        except InfraError as exc:
            error = str(exc)
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        await model.aclose()
        return {"first": first.text, "error": error, "grew_kib": after - before, "faults": dict(model.stats.faults)}

    print(json.dumps(asyncio.run(go())))
""")


def test_a_gzip_bomb_is_malformed_and_memory_stays_bounded() -> None:
    with FakeServer(sequence=[None, "bomb", "bomb"]) as srv:
        child = subprocess.run([sys.executable, "-c", _CHILD, srv.url + "/v1"], capture_output=True, text=True,
                               timeout=120, env={**os.environ, "OPENAI_API_KEY": ""})
        assert child.returncode == 0, child.stderr
        seen = json.loads(child.stdout.splitlines()[-1])
        assert srv.stats.faults == {"bomb": 2}
    assert seen["first"]
    assert seen["faults"] == {"malformed": 2}  # one retry, then the call gives up
    assert seen["error"].endswith("(last: malformed: answer larger than 16 MiB (after decompression))")
    assert "\n" not in seen["error"]
    # 1 GiB when inflated; the cap (16 MiB) and its copy, not the bomb, set the peak (today: 2-3 GB)
    assert BOMB_BYTES == 2**30 and seen["grew_kib"] * 1024 < 160 * MIB, seen


def test_a_declared_length_over_the_cap_is_refused_before_reading() -> None:
    with FakeServer(sequence=["oversize", None]) as srv:
        model = create_model("openai/fake", {}, ModelSettings(base_url=srv.url + "/v1", retry_backoff=0.001))
        out = asyncio.run(model.generate(ASK))
    assert out.attempts == 2 and out.text  # malformed is retried like any broken answer
    assert model.stats.faults == {"malformed": 1}


async def _serve_once(reply: bytes) -> tuple[asyncio.Server, str]:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length"))
        await reader.readexactly(length)
        try:
            writer.write(reply)
            await writer.drain()
        except ConnectionError:
            pass
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/x"


def _chunked(head: str, body: bytes) -> bytes:
    out = [f"HTTP/1.1 200 OK\r\n{head}Transfer-Encoding: chunked\r\n\r\n".encode()]
    for at in range(0, len(body), 65536):
        part = body[at:at + 65536]
        out.append(f"{len(part):x}\r\n".encode() + part + b"\r\n")
    return b"".join([*out, b"0\r\n\r\n"])


def _deflate_raw(data: bytes) -> bytes:
    packer = zlib.compressobj(6, zlib.DEFLATED, -15)
    return packer.compress(data) + packer.flush()


CASES = {  # name -> (response, the end of the refusal's line); bodies of 2 MiB against a 1 MiB cap
    "plain": (_chunked("", b"x" * (2 * MIB)), "larger than 1 MiB"),
    "gzip": (_chunked("Content-Encoding: gzip\r\n", gzip.compress(b" " * (2 * MIB))),
             "larger than 1 MiB (after decompression)"),
    "deflate-raw": (_chunked("Content-Encoding: deflate\r\n", _deflate_raw(b" " * (2 * MIB))),
                    "larger than 1 MiB (after decompression)"),
    # random bytes do not compress: what is sent passes the cap first
    "gzip-incompressible": (_chunked("Content-Encoding: gzip\r\n", gzip.compress(os.urandom(2 * MIB), 0)),
                            "larger than 1 MiB (as sent, compressed)"),
    "declared": (b"HTTP/1.1 200 OK\r\nContent-Length: 2097152\r\n\r\n{", "(Content-Length 2097152)"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_transport_stops_reading_at_the_cap(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setattr(http, "MAX_ANSWER_BYTES", MIB)
    reply, ending = CASES[name]

    async def go() -> tuple[BaseException | None, bytes]:
        server, url = await _serve_once(reply)
        client = HttpClient(timeout=10, max_connections=1)
        try:
            await client.post(url, {}, {"n": 1})
            caught = None
        except AnswerTooLarge as exc:
            caught = exc
        small_server, small_url = await _serve_once(_chunked("Content-Encoding: gzip\r\n", gzip.compress(b"{}" * 1000)))
        small = await client.post(small_url, {}, {"n": 2})  # under the cap: read whole, inflated
        await client.aclose()
        server.close()
        small_server.close()
        return caught, small.content

    caught, small = asyncio.run(go())
    assert caught is not None and str(caught).startswith("answer larger than 1 MiB") and str(caught).endswith(ending)
    assert small == b"{}" * 1000


def test_an_over_size_answer_is_an_infra_error_with_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeServer(sequence=["bomb"]) as srv:
        model = create_model("openai/fake", {}, ModelSettings(base_url=srv.url + "/v1", max_retries=0))
        with pytest.raises(InfraError) as caught:
            asyncio.run(model.generate(ASK))
    assert str(caught.value) == ("openai/fake: no answer after 1 attempts "
                                 "(last: malformed: answer larger than 16 MiB (after decompression))")
    assert model.stats.faults == {"malformed": 1} and model.stats.calls == 1 and model.stats.gave_up == 1

"""Client CPU per request of candidate Python HTTP clients against the loopback OpenAI-compatible server.

Starts ``python -m playbench.models.fakeserver`` in its own process (200 ms per answer by default) and, for
each number of requests in flight (1, 64, 256 by default), posts a ~2,500-byte JSON chat request as fast as
the server answers (one request built per post with orjson, the JSON answer parsed with orjson) through each
client, with a pool of as many connections as requests in flight:

* ``floor``: a bare keep-alive HTTP/1.1 client on asyncio streams written here (no timeouts, no error
  handling, a list of idle connections as the pool): the least CPU per request Python needs here;
* ``playbench``: :class:`playbench.models.http.HttpClient`, the transport every provider uses (what the
  OpenAI-compatible path pays for HTTP: aiohttp, its error mapping and its turn-taking);
* ``aiohttp`` (configured as ``HttpClient`` configures it), on uvloop and on the standard asyncio loop;
* ``httpx`` (``AsyncClient``), ``aiosonic``, ``niquests`` (``AsyncSession``): pure-Python clients;
* ``pyreqwest`` and ``rnet`` (Rust: reqwest/hyper on a Tokio runtime), ``curl_cffi`` (libcurl): native clients.

Every asyncio-based client runs on uvloop with the runner's garbage-collector settings, as episodes do
(:mod:`playbench.runner.loop`), except ``aiohttp-asyncio``. A client that is not installed is named on the
first lines and skipped. Each sample builds a new client, sends one untimed request per slot (opening the
connections), then times the rest: CPU is ``process_time`` (every thread of this process: the Rust and C
clients work in threads of their own), wall is ``perf_counter``. Variants run interleaved, ``--repeat``
times each; min / median / max are printed with the goal (client CPU <= 0.2 ms per request) beside them.

    PYTHONPATH=src .venv/bin/python benchmarks/http_clients.py [--repeat 3] [--in-flight 1 64 256]
        [--clients floor aiohttp ...] [--latency 0.2]
"""

import argparse
import asyncio
import gc
import importlib.util
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

import orjson
from common import interleaved, machine_note, spread

GOAL_CPU_MS = 0.2
CONNECT_TIMEOUT = 30.0
TOTAL_TIMEOUT = 60.0
# The runner's collector settings for a run (playbench.runner.loop), applied to every variant alike.
RUN_GC_THRESHOLD = (20_000, 10, 10)

# A chat request of the size of a Hanoi prompt (~2,500 bytes of JSON), as the OpenAI provider sends it.
SYSTEM = ("You are playing the Tower of Hanoi. Move all disks from the first rod to the last rod. A larger disk "
          "may never be placed on a smaller one. Answer with exactly one action from the list. ") * 3
USER = ("Rod A: 3, 2, 1. Rod B: empty. Rod C: empty. Previous moves: none. Available actions: move disk from A "
        "to B, move disk from A to C, move disk from B to A, move disk from B to C, move disk from C to A, move "
        "disk from C to B. ") * 7
PAYLOAD = {"model": "bench", "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": USER}],
           "temperature": 0.0, "max_tokens": 256}
HEADERS = {"Content-Type": "application/json", "Authorization": "Bearer sk-bench-not-a-key"}

Post = Callable[[], Awaitable[bytes]]  # one request; the answer's body
Close = Callable[[], Awaitable[None]]


def start_server(latency: float) -> tuple[subprocess.Popen, int]:
    """The fake server in its own process (as benchmarks/throughput.py starts it) and its port."""
    proc = subprocess.Popen([sys.executable, "-m", "playbench.models.fakeserver", "--latency", str(latency)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.startswith("PORT "), line
    return proc, int(line.split()[1])


# -- the clients: each builds (post, close) for ``url`` with a pool of ``n`` connections ------------------------

async def make_floor(url: str, n: int) -> tuple[Post, Close]:
    """A bare keep-alive HTTP/1.1 client on asyncio streams: idle connections in a list, nothing else."""
    host_port = url.split("/")[2]
    host, port = host_port.rsplit(":", 1)
    path = "/" + url.split("/", 3)[3]
    head = (f"POST {path} HTTP/1.1\r\nHost: {host_port}\r\n"
            + "".join(f"{k}: {v}\r\n" for k, v in HEADERS.items())).encode()
    idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []

    async def post() -> bytes:
        body = orjson.dumps(PAYLOAD)
        reader, writer = idle.pop() if idle else await asyncio.open_connection(host, int(port))
        writer.write(b"%sContent-Length: %d\r\n\r\n%s" % (head, len(body), body))
        answer_head = await reader.readuntil(b"\r\n\r\n")
        status = int(answer_head[9:12])
        lower = answer_head.lower()
        start = lower.index(b"content-length:") + 15
        length = int(lower[start:lower.index(b"\r\n", start)])
        content = await reader.readexactly(length)
        assert status == 200, status
        idle.append((reader, writer))
        return content

    async def close() -> None:
        for _, writer in idle:
            writer.close()

    return post, close


async def make_playbench(url: str, n: int) -> tuple[Post, Close]:
    from playbench.models.http import HttpClient

    client = HttpClient(timeout=TOTAL_TIMEOUT, max_connections=n)

    async def post() -> bytes:
        answer = await client.post(url, HEADERS, PAYLOAD)
        assert answer.status_code == 200, answer.status_code
        return answer.content

    return post, client.aclose


async def make_aiohttp(url: str, n: int) -> tuple[Post, Close]:
    import aiohttp
    import yarl

    connector = aiohttp.TCPConnector(limit=n, limit_per_host=n)
    session = aiohttp.ClientSession(
        connector=connector, timeout=aiohttp.ClientTimeout(total=TOTAL_TIMEOUT, sock_connect=CONNECT_TIMEOUT),
        cookie_jar=aiohttp.DummyCookieJar(), skip_auto_headers=("User-Agent",))
    target = yarl.URL(url)

    async def post() -> bytes:
        async with session.post(target, data=orjson.dumps(PAYLOAD), headers=HEADERS) as answer:
            content = await answer.read()
            assert answer.status == 200, answer.status
            return content

    return post, session.close


async def make_httpx(url: str, n: int) -> tuple[Post, Close]:
    import httpx

    client = httpx.AsyncClient(limits=httpx.Limits(max_connections=n, max_keepalive_connections=n),
                               timeout=httpx.Timeout(TOTAL_TIMEOUT, connect=CONNECT_TIMEOUT), trust_env=False)

    async def post() -> bytes:
        answer = await client.post(url, content=orjson.dumps(PAYLOAD), headers=HEADERS)
        assert answer.status_code == 200, answer.status_code
        return answer.content

    return post, client.aclose


async def make_aiosonic(url: str, n: int) -> tuple[Post, Close]:
    import aiosonic
    from aiosonic.pools import PoolConfig
    from aiosonic.timeout import Timeouts

    timeouts = Timeouts(sock_connect=CONNECT_TIMEOUT, sock_read=TOTAL_TIMEOUT, request_timeout=TOTAL_TIMEOUT)
    connector = aiosonic.TCPConnector(pool_configs={":default": PoolConfig(size=n)}, timeouts=timeouts)
    client = aiosonic.HTTPClient(connector=connector)

    async def post() -> bytes:
        answer = await client.post(url, data=orjson.dumps(PAYLOAD), headers=HEADERS)
        content = await answer.content()
        assert answer.status_code == 200, answer.status_code
        return content

    async def close() -> None:
        await connector.cleanup()

    return post, close


async def make_niquests(url: str, n: int) -> tuple[Post, Close]:
    import niquests

    session = niquests.AsyncSession(pool_connections=1, pool_maxsize=n)
    session.trust_env = False

    async def post() -> bytes:
        answer = await session.post(url, data=orjson.dumps(PAYLOAD), headers=HEADERS,
                                    timeout=(CONNECT_TIMEOUT, TOTAL_TIMEOUT), allow_redirects=False)
        assert answer.status_code == 200, answer.status_code
        return answer.content or b""

    return post, session.close


async def make_pyreqwest(url: str, n: int) -> tuple[Post, Close]:
    from pyreqwest.client import ClientBuilder

    client = (ClientBuilder().max_connections(n).pool_max_idle_per_host(n)
              .timeout(timedelta(seconds=TOTAL_TIMEOUT)).connect_timeout(timedelta(seconds=CONNECT_TIMEOUT))
              .follow_redirects(False).no_proxy().build())

    async def post() -> bytes:
        answer = await client.post(url).headers(HEADERS).body_bytes(orjson.dumps(PAYLOAD)).build().send()
        content = await answer.bytes()
        assert answer.status == 200, answer.status
        return memoryview(content)  # type: ignore[return-value]  # a Rust buffer: orjson reads it through a view

    return post, client.close


async def make_rnet(url: str, n: int) -> tuple[Post, Close]:
    import rnet

    client = rnet.Client(timeout=int(TOTAL_TIMEOUT), connect_timeout=int(CONNECT_TIMEOUT), pool_max_size=n,
                         pool_max_idle_per_host=n, allow_redirects=False, cookie_store=False, no_proxy=True)

    async def post() -> bytes:
        answer = await client.post(url, body=orjson.dumps(PAYLOAD), headers=HEADERS)
        content = await answer.bytes()
        assert answer.status == 200, answer.status
        return content

    async def close() -> None:
        pass  # rnet's client has no close: its pool goes with the object

    return post, close


async def make_curl_cffi(url: str, n: int) -> tuple[Post, Close]:
    from curl_cffi.requests import AsyncSession

    session = AsyncSession(max_clients=n, timeout=(CONNECT_TIMEOUT, TOTAL_TIMEOUT), trust_env=False,
                           allow_redirects=False)

    async def post() -> bytes:
        answer = await session.post(url, data=orjson.dumps(PAYLOAD), headers=HEADERS)
        assert answer.status_code == 200, answer.status_code
        return answer.content

    return post, session.close


# name: (module that must be installed, event loop, factory)
CLIENTS: dict[str, tuple[str, str, Callable[[str, int], Awaitable[tuple[Post, Close]]]]] = {
    "floor": ("asyncio", "uvloop", make_floor),
    "playbench": ("aiohttp", "uvloop", make_playbench),
    "aiohttp": ("aiohttp", "uvloop", make_aiohttp),
    "aiohttp-asyncio": ("aiohttp", "asyncio", make_aiohttp),
    "httpx": ("httpx", "uvloop", make_httpx),
    "aiosonic": ("aiosonic", "uvloop", make_aiosonic),
    "niquests": ("niquests", "uvloop", make_niquests),
    "pyreqwest": ("pyreqwest", "uvloop", make_pyreqwest),
    "rnet": ("rnet", "uvloop", make_rnet),
    "curl_cffi": ("curl_cffi", "uvloop", make_curl_cffi),
}


async def drive(make: Callable[[str, int], Awaitable[tuple[Post, Close]]], url: str, n: int, requests: int
                ) -> tuple[float, float, int]:
    """(wall s, CPU s, requests) of ``requests`` posts, ``n`` in flight, after one untimed post per slot."""
    post, close = await make(url, n)
    try:
        await asyncio.gather(*(post() for _ in range(n)))  # opens the pool's connections
        left = requests
        done = 0

        async def worker() -> None:
            nonlocal left, done
            while left > 0:
                left -= 1
                answer = orjson.loads(await post())
                assert answer["choices"][0]["message"]["content"], answer
                done += 1

        gc.collect()
        cpu0, wall0 = time.process_time(), time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(n)))
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    finally:
        await close()
    return wall, cpu, done


def sample(name: str, url: str, n: int, requests: int) -> tuple[float, float, int] | str:
    """One timed sample of client ``name`` on its event loop, with the runner's collector settings.

    A sample that fails gives the error's text instead: it is printed, never averaged in.
    """
    _, loop, make = CLIENTS[name]
    previous = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.set_threshold(*RUN_GC_THRESHOLD)
    try:
        if loop == "uvloop":
            import uvloop

            return uvloop.run(drive(make, url, n, requests))
        return asyncio.run(drive(make, url, n, requests))
    except Exception as exc:  # noqa: BLE001  (reported beside the figures)
        return f"{type(exc).__name__}: {exc}"[:200]
    finally:
        gc.set_threshold(*previous)
        gc.unfreeze()


def versions(names: list[str]) -> str:
    """``name version`` of each client's distribution."""
    from importlib.metadata import PackageNotFoundError, version

    out = []
    for name in dict.fromkeys(CLIENTS[n][0] for n in names):
        try:
            out.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            pass
    return ", ".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--in-flight", type=int, nargs="+", default=[1, 64, 256])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--clients", nargs="+", default=list(CLIENTS), choices=list(CLIENTS))
    args = parser.parse_args()
    print(machine_note())
    missing = [n for n in args.clients if importlib.util.find_spec(CLIENTS[n][0]) is None]
    if missing:
        print(f"not installed, skipped: {', '.join(missing)}")
    names = [n for n in args.clients if n not in missing]
    print(f"clients: {versions(names)}; request {len(orjson.dumps(PAYLOAD))} bytes of JSON; server latency "
          f"{args.latency} s", flush=True)
    server, port = start_server(args.latency)
    url = f"http://127.0.0.1:{port}/v1/chat/completions"
    try:
        for name in names:  # untimed: imports, and a first pool on each loop
            sample(name, url, 2, 4)
        for n in args.in_flight:
            requests = 120 if n == 1 else 30 * n
            variants: dict[str, Callable[[], Any]] = {
                name: (lambda name=name, n=n, requests=requests: sample(name, url, n, requests)) for name in names}
            results = interleaved(variants, args.repeat)
            good = {name: [r for r in s.results if not isinstance(r, str)] for name, s in results.items()}
            floor_cpu = good.get("floor")
            for name, samples in results.items():
                failed = [r for r in samples.results if isinstance(r, str)]
                note = f"; {len(failed)} of {args.repeat} samples FAILED: {failed[0]}" if failed else ""
                if not good[name]:
                    print(f"{n:>4} in flight, {name:<15}: no figure{note}", flush=True)
                    continue
                cpu_ms = [c / r for _, c, r in good[name]]
                wall_ms = [w / r for w, _, r in good[name]]
                versus = ""
                if floor_cpu:
                    floor_ms = statistics.median(c / r for _, c, r in floor_cpu)
                    versus = f" = {statistics.median(cpu_ms) / floor_ms:.1f}x floor"
                print(f"{n:>4} in flight, {name:<15} ({requests} requests): CPU "
                      f"{spread(cpu_ms, 1e3)} ms/request (goal <= {GOAL_CPU_MS}){versus}; wall "
                      f"{spread(wall_ms, 1e3)} ms/request{note}", flush=True)
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()

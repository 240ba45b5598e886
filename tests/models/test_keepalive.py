"""Idle keep-alive connections that the server closed are not an unreachable server (issue 28).

uvicorn-based servers (vLLM, llama-cpp-python) close a connection idle for 5 s. When the event loop is busy
for longer (a slow game step, a GC pause), the next requests go out on dead pooled connections; those
are sent again at once on fresh ones, never counted as faults nor towards ``max_connect_failures``.
"""

import asyncio
import time

import pytest

from playbench.models import Message, ModelSettings, create_model, http
from playbench.models.fakeserver import FakeServer
from playbench.models.http import HttpClient, StaleConnection

ASK = [Message("user", "Pick one:\n1. left\n2. right")]
SERVER_KEEP_ALIVE = 1.0
PAUSE = 1.6  # longer than the server's keep-alive, shorter than the client's


def _two_rounds(srv: FakeServer, **settings: float) -> tuple[list, object]:
    model = create_model("openai/fake", {}, ModelSettings(base_url=srv.url + "/v1", max_connections=6,
                                                          max_connect_failures=5, retry_backoff=0.001, **settings))

    async def go() -> list:
        first = await asyncio.gather(*(model.generate(ASK) for _ in range(6)), return_exceptions=True)
        time.sleep(PAUSE)  # the event loop is blocked: a slow game step
        second = await asyncio.gather(*(model.generate(ASK) for _ in range(6)), return_exceptions=True)
        await model.aclose()
        return [*first, *second]

    return asyncio.run(go()), model


def test_stale_pooled_connections_are_sent_again_and_not_counted_as_faults() -> None:
    with FakeServer(keep_alive=SERVER_KEEP_ALIVE, latency=0.05) as srv:
        results, model = _two_rounds(srv)
        assert srv.stats.requests == 12 and srv.stats.answers == 12
    assert all(not isinstance(r, BaseException) and r.text for r in results), results
    stats = model.stats  # type: ignore[attr-defined]
    assert stats.faults == {} and stats.gave_up == 0 and stats.answers == 12
    # the six requests written on dead connections were sent (and are counted as attempts), then sent again
    assert stats.attempts == 18 and sum(r.attempts for r in results) == 18


def test_idle_connections_are_dropped_before_the_servers_keep_alive(monkeypatch: pytest.MonkeyPatch) -> None:
    assert http.KEEPALIVE_TIMEOUT < 5  # uvicorn's default keep-alive
    monkeypatch.setattr(http, "KEEPALIVE_TIMEOUT", SERVER_KEEP_ALIVE / 2)  # the same ratio, on a short clock
    with FakeServer(keep_alive=SERVER_KEEP_ALIVE, latency=0.05) as srv:
        results, model = _two_rounds(srv)
        assert srv.stats.requests == 12
    assert all(not isinstance(r, BaseException) for r in results), results
    stats = model.stats  # type: ignore[attr-defined]
    assert stats.faults == {} and stats.attempts == 12  # no dead connection was even tried


def test_the_transport_names_a_dead_pooled_connection() -> None:
    with FakeServer(keep_alive=SERVER_KEEP_ALIVE) as srv:

        async def go() -> tuple[int, type, int]:
            client = HttpClient(timeout=5, max_connections=1)
            url = srv.url + "/v1/chat/completions"
            body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
            first = await client.post(url, {}, body)
            time.sleep(PAUSE)
            with pytest.raises(StaleConnection) as caught:
                await client.post(url, {}, body)
            again = await client.post(url, {}, body)  # the dead connection left the pool
            await client.aclose()
            return first.status_code, caught.type, again.status_code

        assert asyncio.run(go()) == (200, StaleConnection, 200)

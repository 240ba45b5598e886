"""Requests in flight adapt to what the server sustains (issue 28): a server that answers one request at a
time and queues the others must not turn its queue into timeouts, retries and infra-errors."""

import asyncio
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from helpers import stable_trajectories
from playbench.cli.eval_cmd import command as eval_command
from playbench.core.errors import InfraError
from playbench.models import Message, ModelSettings, create_model
from playbench.models.fakeserver import FakeServer
from playbench.models.limiter import ConcurrencyLimit, Ticket

ASK = [Message("user", "Pick one:\n1. left\n2. right")]
HINT = "time out while others are in flight"


# -- the arithmetic ---------------------------------------------------------------------------------


def test_a_timeout_halves_the_limit_once_per_burst_down_to_one() -> None:
    limit = ConcurrencyLimit(8, timeout=10)
    assert limit.limit == 8
    assert limit.congested(Ticket(epoch=0, crowded=True, started=0, flight=8)) and limit.limit == 4
    # sent before that decrease, under the old limit: the same burst, not a new signal
    assert not limit.congested(Ticket(epoch=0, crowded=True, started=0, flight=8)) and limit.limit == 4
    assert limit.congested(Ticket(epoch=1, crowded=True, started=0, flight=4)) and limit.limit == 2
    assert limit.congested(Ticket(epoch=2, crowded=True, started=0, flight=2)) and limit.limit == 1
    assert not limit.congested(Ticket(epoch=3, crowded=False, started=0)) and limit.limit == 1
    assert ConcurrencyLimit(5).congested(Ticket(0, True, 0, flight=5)) and ConcurrencyLimit(0).limit == 1


def test_the_limit_is_halved_from_the_requests_in_flight_not_from_the_ceiling() -> None:
    # --max-connections 64 with 31 in flight: halving 64 to 32 would change nothing and waste a timeout
    limit = ConcurrencyLimit(64, timeout=5)
    assert limit.congested(Ticket(epoch=0, crowded=True, started=0, flight=31))
    assert limit.limit <= 16 and limit.limit == 15
    # more in flight than the limit (requests admitted before a decrease): half the limit, never more
    assert limit.congested(Ticket(epoch=1, crowded=True, started=0, flight=40)) and limit.limit == 7
    alone = ConcurrencyLimit(8)  # overloaded with one request on the wire: one at a time
    assert alone.congested(Ticket(0, False, 0, flight=1)) and alone.limit == 1


def test_a_failed_slot_records_how_many_were_in_flight() -> None:
    async def scenario() -> tuple[int, int]:
        limit = ConcurrencyLimit(64)
        release = asyncio.Event()

        async def waiting() -> None:
            async with limit.slot():
                await release.wait()

        others = [asyncio.create_task(waiting()) for _ in range(30)]
        await asyncio.sleep(0)
        with pytest.raises(TimeoutError):
            async with limit.slot() as ticket:
                raise TimeoutError
        limit.congested(ticket)
        lowered = limit.limit
        release.set()
        await asyncio.gather(*others)
        return ticket.flight, lowered

    assert asyncio.run(scenario()) == (31, 15)


async def _fill(limit: ConcurrencyLimit, answers: list[float]) -> None:
    """Send as many requests at once as the limit allows, each answered after its time in ``answers``."""

    async def one(seconds: float) -> None:
        async with limit.slot():
            await asyncio.sleep(seconds)

    await asyncio.gather(*(one(s) for s in answers))


def test_the_limit_grows_by_one_after_a_run_of_quick_answers_when_it_was_used() -> None:
    limit = ConcurrencyLimit(4, timeout=1.0)
    limit.congested(Ticket(0, True, 0, flight=4))
    assert limit.limit == 2
    asyncio.run(_fill(limit, [0.01, 0.01]))  # both slots used, answers far within the timeout
    assert limit.limit == 3 and limit.in_flight == 0
    asyncio.run(_fill(limit, [0.01] * 3))
    assert limit.limit == 4
    asyncio.run(_fill(limit, [0.01] * 8))
    assert limit.limit == 4  # never above --max-connections


def test_the_limit_does_not_grow_on_slow_answers_or_unused_slots() -> None:
    slow = ConcurrencyLimit(4, timeout=0.1)
    slow.congested(Ticket(0, True, 0, flight=4))
    asyncio.run(_fill(slow, [0.06, 0.06]))  # over half the timeout: one more in a queue would near it
    assert slow.limit == 2

    idle = ConcurrencyLimit(4, timeout=10)
    idle.congested(Ticket(0, True, 0, flight=4))
    for _ in range(4):
        asyncio.run(_fill(idle, [0.001]))  # one at a time: a limit of 2 was never reached
    assert idle.limit == 2


def test_slots_hold_the_limit_say_who_shared_the_server_and_let_a_retry_go_first() -> None:
    async def scenario() -> tuple[list[str], list[bool], int]:
        limit = ConcurrencyLimit(1)
        order: list[str] = []
        crowded: list[bool] = []
        gate = asyncio.Event()

        async def request(name: str, first: bool = False) -> None:
            async with limit.slot(first=first) as ticket:
                order.append(name)
                assert limit.in_flight <= limit.limit
                if name == "a":
                    await gate.wait()
            crowded.append(ticket.crowded)

        a = asyncio.create_task(request("a"))
        await asyncio.sleep(0)
        rest = [asyncio.create_task(request("b")), asyncio.create_task(request("retry", first=True))]
        cancelled = asyncio.create_task(request("gone"))
        await asyncio.sleep(0.01)
        cancelled.cancel()  # a request cancelled while it waits takes no slot
        gate.set()
        await asyncio.gather(a, *rest)
        return order, crowded, limit.in_flight

    order, crowded, in_flight = asyncio.run(scenario())
    assert order == ["a", "retry", "b"] and crowded == [False] * 3 and in_flight == 0

    async def two_at_once() -> bool:
        limit = ConcurrencyLimit(2)
        async with limit.slot() as first:
            async with limit.slot() as second:
                pass
        return not first.crowded and second.crowded

    assert asyncio.run(two_at_once())


def test_a_failed_request_frees_its_slot_and_notes_the_others_in_flight() -> None:
    async def scenario() -> tuple[bool, int]:
        limit = ConcurrencyLimit(2)
        release = asyncio.Event()

        async def long() -> None:
            async with limit.slot():
                await release.wait()

        other = asyncio.create_task(long())
        await asyncio.sleep(0)
        ticket = None
        with pytest.raises(TimeoutError):
            async with limit.slot() as ticket:
                raise TimeoutError
        release.set()
        await other
        assert ticket is not None
        return ticket.crowded, limit.in_flight

    assert asyncio.run(scenario()) == (True, 0)


# -- against a server that answers one request at a time --------------------------------------------


def _eval(srv: FakeServer, log_dir: Path, *extra: str) -> tuple[int, str, list[str]]:
    result = CliRunner().invoke(eval_command, [
        "smartplay/bandit-highlow", "--model", "openai/fake", "--base-url", srv.url + "/v1", "--episodes", "6",
        "-T", "max_steps=3", "--retry-backoff", "0.01", "--log-dir", str(log_dir), "--quiet", *extra],
        env={"OPENAI_API_KEY": ""}, catch_exceptions=False)
    runs = [p for p in log_dir.iterdir() if (p / "run.json").exists()]
    assert len(runs) == 1
    statuses = [json.loads(line)["status"] for line in (runs[0] / "episodes.jsonl").read_text().splitlines()]
    return result.exit_code, result.output, statuses


def _trajectories(log_dir: Path) -> dict[str, list[dict]]:
    """Every step as recorded but its timing and the requests it took (the only parts concurrency may change)."""
    out = stable_trajectories(next(p for p in log_dir.iterdir() if (p / "run.json").exists()))
    for steps in out.values():
        for step in steps:
            step["usage"].pop("attempts")
    return out


def test_a_server_that_queues_gets_no_infra_errors_and_one_hint(tmp_path: Path) -> None:
    # 4 requests at once, 0.3 s each, one at a time: the fourth waits 0.9 s and its answer is due after the
    # 1 s timeout. Before the limiter, 2 or 3 of the 6 episodes ended infra-error here.
    with FakeServer(slots=1, latency=0.3) as srv:
        code, output, statuses = _eval(srv, tmp_path / "four", "--timeout", "1", "--max-connections", "4")
        requests = srv.stats.requests
    assert code == 0, output
    assert statuses == ["ok"] * 6
    assert output.count(HINT) == 1, output
    hint = next(line for line in output.splitlines() if HINT in line)
    assert f"requests to 127.0.0.1:{srv.port} " in hint and "--max-connections" in hint
    assert requests < 18 * 1.5  # 18 calls: a few timed out, no retry storm
    with FakeServer() as srv:  # a server that answers all at once: the same records, no timeout, no hint
        code, output, _ = _eval(srv, tmp_path / "free", "--timeout", "1", "--max-connections", "4")
        assert srv.stats.requests == 18
    assert code == 0 and HINT not in output
    assert _trajectories(tmp_path / "four") == _trajectories(tmp_path / "free")


def test_queued_timeouts_do_not_use_up_the_retries() -> None:
    # 4 calls at once against one slot, 0.25 s each, a 0.6 s timeout: the third and fourth are due at 0.75 s
    # and 1 s, so they time out while others are on the wire. Even with no retry at all (max_retries=0) they
    # are sent again, first in line, as the limit drops (4, 2, then 1), and answered.
    with FakeServer(slots=1, latency=0.25) as srv:
        model = create_model("openai/fake", {}, ModelSettings(base_url=srv.url + "/v1", max_connections=4,
                                                               timeout=0.6, max_retries=0))
        told: list[str] = []
        model.on_note = told.append

        async def four() -> tuple[list, int]:
            outs = await asyncio.gather(*(model.generate(ASK) for _ in range(4)), return_exceptions=True)
            assert model._slots is not None
            limit = model._slots.limit
            await model.aclose()
            return outs, limit

        outs, limit = asyncio.run(four())
    assert not [o for o in outs if isinstance(o, BaseException)], outs
    assert model.stats.faults["timeout"] >= 2 and model.stats.gave_up == 0
    assert len(told) == 1 and HINT in told[0]
    assert limit < 4


def test_a_timeout_alone_on_the_wire_still_uses_up_a_retry() -> None:
    with FakeServer(faults={"slow": 1.0}, slow_seconds=1.0) as srv:
        model = create_model("openai/fake", {}, ModelSettings(base_url=srv.url + "/v1", max_connections=4,
                                                               timeout=0.2, max_retries=1, retry_backoff=0.01))
        told: list[str] = []
        model.on_note = told.append
        async def one() -> None:
            try:
                await model.generate(ASK)
            finally:
                await model.aclose()

        with pytest.raises(InfraError):
            asyncio.run(one())
        assert srv.stats.requests == 2
    assert told == []


@pytest.mark.parametrize("fault", ["429", "down"])
def test_overload_answers_halve_the_limit_without_a_hint(fault: str) -> None:
    server = FakeServer(sequence=["429"], retry_after="0") if fault == "429" else FakeServer(down=True)
    with server as srv:
        model = create_model("openai/fake", {}, ModelSettings(base_url=srv.url + "/v1", max_connections=4,
                                                               max_retries=1, retry_backoff=0.001))
        told: list[str] = []
        model.on_note = told.append

        async def one() -> int:
            try:
                await model.generate(ASK)
            except InfraError:
                pass
            assert model._slots is not None
            limit = model._slots.limit
            await model.aclose()
            return limit

        # one request in flight when the server said it was overloaded: down to one at a time; after a 429 the
        # answer to the retry (the limit reached and answered) raises it by one again
        assert asyncio.run(one()) == (2 if fault == "429" else 1)
    assert told == []


def test_the_hint_names_a_concurrency_below_the_requests_in_flight() -> None:
    # 5 calls at once against one slot, 0.25 s each, a 0.6 s timeout, --max-connections 16: three are still
    # in flight at the first timeout. Halving the ceiling (16 -> 8) changed nothing, and the hint said 8.
    with FakeServer(slots=1, latency=0.25) as srv:
        model = create_model("openai/fake", {}, ModelSettings(base_url=srv.url + "/v1", max_connections=16,
                                                               timeout=0.6, max_retries=0))
        told: list[str] = []
        model.on_note = told.append

        async def five() -> list:
            try:
                return await asyncio.gather(*(model.generate(ASK) for _ in range(5)), return_exceptions=True)
            finally:
                await model.aclose()

        outs = asyncio.run(five())
    assert not [o for o in outs if isinstance(o, BaseException)], outs
    assert len(told) == 1
    figure = int(told[0].split("lowering concurrency to ")[1].split()[0])
    assert figure < 5 and figure == 1, told[0]

"""``ConcurrencyLimit.slot``: a request holds a slot while on the wire; a failed one notes what was in flight."""

import asyncio

import pytest

from playbench.models.limiter import ConcurrencyLimit, Ticket


def test_an_answered_request_counts_and_a_failed_one_notes_the_flight_and_frees_its_slot() -> None:
    limit = ConcurrencyLimit(2)

    async def main() -> Ticket:
        async with limit.slot() as first:
            assert limit.in_flight == 1 and not first.crowded and first.flight == 1
            with pytest.raises(TimeoutError):
                async with limit.slot() as second:
                    assert limit.in_flight == 2 and second.crowded
                    raise TimeoutError
            assert limit.in_flight == 1 and limit._run == 0  # freed, not counted as an answer
            assert second.flight == 2 and second.crowded
        assert limit.in_flight == 0 and limit._run == 1  # the first one answered
        return second

    assert asyncio.run(main()).epoch == 0


def test_a_request_past_the_limit_waits_for_a_slot_and_first_goes_ahead() -> None:
    limit = ConcurrencyLimit(1)
    order: list[str] = []

    async def request(name: str, first: bool = False) -> None:
        async with limit.slot(first=first):
            order.append(name)
            await asyncio.sleep(0)

    async def main() -> None:
        async with limit.slot():
            waiting = [asyncio.create_task(request("late")), asyncio.create_task(request("first", first=True))]
            await asyncio.sleep(0)  # both queue behind the held slot
            assert limit.in_flight == 1 and not order
        await asyncio.gather(*waiting)

    asyncio.run(main())
    assert order == ["first", "late"] and limit.in_flight == 0

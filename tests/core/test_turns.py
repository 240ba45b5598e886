"""The turnstile admits waiting tasks one per event-loop iteration, in order, skipping cancelled ones."""

import asyncio

from playbench.core.turns import take_turn


async def _admissions(count: int, cancel: int | None = None) -> list[tuple[int, int]]:
    loop = asyncio.get_running_loop()
    iteration = 0
    running = True

    def tick() -> None:  # counts loop iterations: re-scheduled once per iteration
        nonlocal iteration
        iteration += 1
        if running:
            loop.call_soon(tick)

    loop.call_soon(tick)
    admitted: list[tuple[int, int]] = []

    async def waiter(name: int) -> None:
        await take_turn()
        admitted.append((name, iteration))

    tasks = [asyncio.create_task(waiter(i)) for i in range(count)]
    await asyncio.sleep(0)  # every waiter is queued now
    if cancel is not None:
        tasks[cancel].cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    running = False
    return admitted


def test_one_waiter_per_iteration_in_arrival_order() -> None:
    admitted = asyncio.run(_admissions(6))
    assert [name for name, _ in admitted] == list(range(6))
    iterations = [it for _, it in admitted]
    assert len(set(iterations)) == 6  # never two in the same iteration
    assert iterations == sorted(iterations)


def test_a_cancelled_waiter_gives_its_turn_away() -> None:
    admitted = asyncio.run(_admissions(4, cancel=1))
    assert [name for name, _ in admitted] == [0, 2, 3]

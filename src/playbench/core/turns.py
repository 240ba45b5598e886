"""Taking turns: CPU work of concurrent episodes runs one episode per event-loop iteration.

When many answers arrive together, asyncio wakes every waiting episode in the same loop iteration and
each does its CPU work (parse, play the step, build the next prompt) before any request built there is
written: on Python < 3.12 aiohttp writes a request body in a task of its own, which runs only in the
next iteration. The whole batch then leaves together, comes back together, and every episode waits for
the whole batch's CPU work at every step (lock-step). Admitting one episode per iteration lets each
request go out as soon as it is built, so episodes spread out over time instead.
"""

import asyncio
from collections import deque
from weakref import WeakKeyDictionary


class Turnstile:
    """Admits waiting callers one per event-loop iteration, in arrival order."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._waiting: deque[asyncio.Future[None]] = deque()
        self._admitting = False

    async def pass_through(self) -> None:
        """Wait for this caller's turn (the next iteration, when nobody else is waiting)."""
        turn = self._loop.create_future()
        self._waiting.append(turn)
        if not self._admitting:
            self._admitting = True
            self._loop.call_soon(self._admit_one)
        await turn

    def _admit_one(self) -> None:
        while self._waiting:
            turn = self._waiting.popleft()
            if not turn.done():  # a cancelled waiter gives its turn away
                turn.set_result(None)
                break
        if self._waiting:
            self._loop.call_soon(self._admit_one)
        else:
            self._admitting = False


_turnstiles: "WeakKeyDictionary[asyncio.AbstractEventLoop, Turnstile]" = WeakKeyDictionary()


async def take_turn() -> None:
    """Continue once it is this task's turn on the running loop (see the module docstring)."""
    loop = asyncio.get_running_loop()
    turnstile = _turnstiles.get(loop)
    if turnstile is None:
        turnstile = _turnstiles[loop] = Turnstile(loop)
    await turnstile.pass_through()

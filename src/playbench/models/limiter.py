"""How many requests a model keeps in flight, adapted to what its server sustains (AIMD).

Many local servers (llama.cpp's and Ollama's defaults) answer one request at a time and queue the others,
and a request's timeout counts its time in that queue: sending more than the server serves turns queueing
into timeouts. The limit starts at ``--max-connections`` (the ceiling) and moves between 1 and it:

* **halved** when a request sent since the last decrease times out or is refused as overloaded (429,
  503): set to half the requests in flight when it failed (itself included), or half the limit if that is
  lower, as TCP sets its window from the data in flight; halving a limit that nobody reaches would change
  nothing and waste a timeout. Requests sent before the decrease were admitted under the old limit, so
  their failures do not halve it again (one burst of timeouts is one signal, as in TCP congestion control);
* **raised by one** after a run of answers as long as the limit (every slot answered once), when the limit
  was reached during the run (a limit nobody uses proves nothing) and the slowest of those answers took
  at most half the request timeout: on a server that queues, the latency grows with each request in
  flight, and growing stops before it nears the timeout.

The limiter only decides *when* a request is sent, never what is sent, so records do not depend on it.
"""

import asyncio
import time
from collections import deque
from dataclasses import dataclass
from types import TracebackType

#: Grow only while the slowest answer of the run took at most this share of the request timeout.
HEADROOM = 0.5


@dataclass
class Ticket:
    """One request's slot: when it was admitted and whether other requests shared the server meanwhile."""

    epoch: int  # decreases of the limit before this request was sent
    crowded: bool  # other requests were in flight when it was sent or when it ended
    started: float  # monotonic seconds
    flight: int = 1  # requests in flight, itself included: when it was sent, then when it failed


class Slot:
    """``ConcurrencyLimit.slot``'s context, held while a request is on the wire.

    A class, not a generator, as every request passes through it: a generator's frame, held while the
    request waits for its answer, is 2-4 KB, and entering and leaving it takes twice as long.
    """

    __slots__ = ("_first", "_limit", "_ticket")

    def __init__(self, limit: "ConcurrencyLimit", first: bool) -> None:
        self._limit = limit
        self._first = first
        self._ticket: Ticket | None = None

    async def __aenter__(self) -> Ticket:
        limit = self._limit
        if not limit._take():  # a free slot is taken without a coroutine (most requests)
            await limit._acquire(self._first)
        self._ticket = Ticket(limit.epoch, limit.in_flight > 1, time.monotonic(), limit.in_flight)
        return self._ticket

    async def __aexit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        limit, ticket = self._limit, self._ticket
        assert ticket is not None  # entered: __aexit__ runs only after __aenter__ returned
        if kind is not None:  # only freed (the exception goes on), what was in flight when it failed noted first
            ticket.flight = limit.in_flight
            ticket.crowded = ticket.crowded or limit.in_flight > 1
            limit._release()
            return
        limit._release()
        limit.answered(time.monotonic() - ticket.started)


class ConcurrencyLimit:
    """Requests in flight, at most ``limit`` (adapted between 1 and ``ceiling``); one per event loop.

    ``timeout`` is the request timeout (seconds), against which answer times are weighed before growing.
    """

    def __init__(self, ceiling: int, timeout: float | None = None) -> None:
        self.ceiling = max(1, ceiling)
        self.timeout = timeout
        self.limit = self.ceiling
        self.in_flight = 0
        self.epoch = 0
        self._run = 0  # answers since the limit last changed
        self._slowest = 0.0  # the slowest of them (seconds)
        self._full = False  # the limit was reached since it last changed
        self._waiters: deque[asyncio.Future[None]] = deque()

    # -- the arithmetic -----------------------------------------------------------------------

    def answered(self, seconds: float) -> bool:
        """Count an answer that took ``seconds``; whether the limit grew."""
        self._run += 1
        self._slowest = max(self._slowest, seconds)
        if self._run < self.limit:
            return False
        grow = (self._full and self.limit < self.ceiling
                and (self.timeout is None or self._slowest <= HEADROOM * self.timeout))
        if grow:
            self.limit += 1
        self._restart()
        if grow:
            self._wake()
        return grow

    def congested(self, ticket: Ticket) -> bool:
        """A request timed out or was refused as overloaded; whether the limit was lowered.

        Lowered to half the requests in flight when it failed (``ticket.flight``), or half the limit if lower.
        """
        self._run, self._slowest = 0, 0.0
        if ticket.epoch != self.epoch or self.limit == 1:
            return False  # sent under a larger limit that is already lowered (or nothing left to lower)
        self.limit = max(1, min(self.limit, ticket.flight) // 2)
        self.epoch += 1
        self._restart()
        return True

    def _restart(self) -> None:
        self._run, self._slowest = 0, 0.0
        self._full = self.in_flight >= self.limit

    # -- slots --------------------------------------------------------------------------------

    def slot(self, first: bool = False) -> "Slot":
        """Hold a slot while a request is on the wire (``async with``); ``first`` goes ahead of the requests waiting.

        A request that returns normally counts as an answer (see :meth:`answered`); one that raises only
        frees its slot (the caller tells :meth:`congested` what was congestion).
        """
        return Slot(self, first)

    def _take(self) -> bool:
        """Take a slot if one is free and nobody waits for one; whether it was taken."""
        if self.in_flight >= self.limit or self._waiters:
            return False
        self.in_flight += 1
        if self.in_flight >= self.limit:
            self._full = True
        return True

    async def _acquire(self, first: bool) -> None:
        """Wait for a slot (none was free, or others wait first)."""
        waiter = asyncio.get_running_loop().create_future()
        if first:
            self._waiters.appendleft(waiter)
        else:
            self._waiters.append(waiter)
        try:
            await waiter  # the slot is counted as taken when the waiter is woken (see _wake)
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():  # woken just as it was cancelled
                self._release()
            raise
        if self.in_flight >= self.limit:
            self._full = True

    def _release(self) -> None:
        self.in_flight -= 1
        self._wake()

    def _wake(self) -> None:
        while self._waiters and self.in_flight < self.limit:
            waiter = self._waiters.popleft()
            if not waiter.done():  # a cancelled waiter is skipped
                self.in_flight += 1
                waiter.set_result(None)

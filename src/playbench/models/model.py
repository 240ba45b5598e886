"""The Model: one async chat interface with the one retry layer, an adaptive concurrency limit, usage and cache."""

import asyncio
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from playbench.core.errors import InfraError, StopRun
from playbench.core.ledger import CURRENT_EPISODE
from playbench.core.records import RunSettings
from playbench.models.budget import Budget, CostLimitReached, answer_entry, answer_key, kept_output
from playbench.models.cache import ResponseCache, cache_key
from playbench.models.errors import (
    STALE,
    AuthError,
    ContextOverflowError,
    FatalModelError,
    RetryableError,
    ServerUnreachable,
)
from playbench.models.http import HttpClient
from playbench.models.limiter import ConcurrencyLimit, Ticket
from playbench.models.pricing import cost_micro_usd, price_for, token_cost_usd
from playbench.models.providers.base import Provider
from playbench.models.redact import redact
from playbench.models.retry import Backoff
from playbench.models.sanitize import clean_output
from playbench.models.tokens import count_message_tokens
from playbench.models.types import GenerateConfig, Message, ModelOutput

#: Longest wait before retrying a request that could not connect: a dead server must be detected in
#: seconds (see ``max_connect_failures``), not after the full exponential backoff.
CONNECT_RETRY_DELAY = 0.5

#: Waits before a retry longer than this (seconds) are told to ``Model.on_wait`` (the progress bar shows them).
WAIT_SHOWN = 3.0

#: Faults that say the server has more requests than it serves: each lowers the number sent at once.
CONGESTION = ("timeout", "rate-limit", "http-503")


#: a run's default settings, whose connection part a Model takes
_RUN = RunSettings()


@dataclass
class ModelSettings:
    """How to call (not what to ask): not part of a run's identity.

    Each field but ``backoff_cap`` is the run setting of the same name (``RunSettings``: its default and
    meaning), ``cache`` may also name a directory. ``max_connect_failures`` is how many requests in a row
    (over all episodes) fail to connect before the server counts as unreachable and every call raises
    ServerUnreachable.
    """

    base_url: str | None = _RUN.base_url
    max_connections: int = _RUN.max_connections
    max_retries: int = _RUN.max_retries
    timeout: float = _RUN.timeout
    cache: bool | str | Path = _RUN.cache  # True: the default cache directory; a path: that directory
    retry_backoff: float = _RUN.retry_backoff
    backoff_cap: float = 30.0
    max_connect_failures: int = _RUN.max_connect_failures

    @classmethod
    def of(cls, run: RunSettings) -> "ModelSettings":
        """The connection part of a run's settings."""
        return cls(**{f.name: getattr(run, f.name) for f in fields(cls) if f.name in RunSettings.model_fields})


@dataclass
class ModelStats:
    """Counters over the life of a Model (every attempt is counted; cache hits spend no tokens)."""

    calls: int = 0  # generate() calls, but those the server refused (HTTP 4xx: only attempts)
    answers: int = 0  # well-formed answers received from the provider
    attempts: int = 0  # requests actually sent
    cache_hits: int = 0
    gave_up: int = 0  # calls that ended in InfraError
    input_tokens: int = 0
    output_tokens: int = 0
    paid_earlier: int = 0  # answers kept by an earlier session stopped at its cost limit, used instead of asked
    cost_limit_reached: bool = False  # the run stopped at its ``--cost-limit`` (``models/budget.py``)
    faults: Counter[str] = field(default_factory=Counter)  # kind -> count

    def as_dict(self) -> dict[str, Any]:
        """Plain-JSON form."""
        out = {k: getattr(self, k) for k in ("calls", "answers", "attempts", "cache_hits", "gave_up",
                                               "input_tokens", "output_tokens")}
        out["faults"] = dict(self.faults)
        return out


#: what a call and a request add to the ledger: made once, never changed (a ledger only reads what it adds)
_A_CALL = {"calls": 1, "attempts": 0}
_AN_ATTEMPT = {"attempts": 1}


def _without_call_counts(usage: dict[str, int]) -> dict[str, int]:
    """An answer's fresh ``usage`` without its call and request counts (the ledger adds those as they happen)."""
    usage.pop("calls", None)
    usage.pop("attempts", None)
    return usage


def _no_ledger(counts: dict[str, int]) -> None:
    """Where usage goes when no episode is current (a Model used outside the runner)."""


class Model:
    """``provider/name`` with its settings. Safe to share between all concurrent episodes."""

    def __init__(self, name: str, provider: Provider, config: GenerateConfig, settings: ModelSettings) -> None:
        self.name = name
        self.provider = provider
        self.config = config
        self.settings = settings
        self.stats = ModelStats()
        self.backoff = Backoff(base=settings.retry_backoff, cap=settings.backoff_cap)
        self.prices = price_for(name, config)
        cache = settings.cache
        self.cache = ResponseCache(None if cache is True else Path(cache)) if cache else None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._client: Any = None
        self._slots: ConcurrencyLimit | None = None
        self._stop: StopRun | None = None  # set once the run is pointless; every call then raises it
        self._stopped: asyncio.Event | None = None  # wakes calls waiting to retry when _stop is set
        self._connect_failures = 0  # requests in a row that could not connect
        #: told a line when calls wait long to retry (``"rate limited: retrying in 118 s"``), None when no
        #: call waits any more; the progress bar shows the line
        self.on_wait: Callable[[str | None], None] | None = None
        self._waiting = 0  # calls now in a long wait
        #: told a line once, at the first timeout of a request that shared the server with others (what to set)
        self.on_note: Callable[[str], None] | None = None
        self._told_queueing = False
        #: under ``--batch``, the run's ``models.batch.BatchCollector``: requests go through provider batches
        self.batch: Any = None
        #: under ``--cost-limit`` (or resuming a run that had one), the run's cost so far, its limit and its kept
        #: answers (``models/budget.py``)
        self.budget: Budget | None = None

    # -- per-event-loop resources -------------------------------------------------------------

    def _resources(self) -> tuple[Any, ConcurrencyLimit]:
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # a new asyncio.run(): fresh client, limiter and fault state
            self._loop = loop
            self._slots = ConcurrencyLimit(self.settings.max_connections, self.settings.timeout)
            self._stopped = asyncio.Event()
            self._stop = None
            self._connect_failures = 0
            self._client = None
            if self.provider.uses_http:
                self._client = HttpClient(self.settings.timeout, self.settings.max_connections)
        assert self._slots is not None
        return self._client, self._slots

    async def aclose(self) -> None:
        """Close the HTTP connections of the current event loop."""
        if self.batch is not None:
            await self.batch.aclose()
        if self._client is not None and self._loop is asyncio.get_running_loop():
            await self._client.aclose()
        self._client, self._loop, self._slots = None, None, None

    # -- the interface ------------------------------------------------------------------------

    def count_tokens(self, messages: list[Message]) -> int:
        """Estimated prompt tokens."""
        return count_message_tokens(messages)

    def fits(self, messages: list[Message]) -> bool:
        """Whether the prompt plus the answer budget fits the configured context window (always, if unset)."""
        window = self.config.context_window
        if not window:
            return True
        return self.count_tokens(messages) + (self.config.output_budget() or 0) <= window

    def usage(self, output: ModelOutput) -> dict[str, int]:
        """``Decision.usage`` for one answer, with cost when a price is known (0 for a cache hit)."""
        usage = output.usage()
        if self.prices is not None:
            usage["cost_micro_usd"] = cost_micro_usd(output, self.prices)  # at the batch rates when a batch answered
        return usage

    async def generate(self, messages: list[Message]) -> ModelOutput:
        """Ask the model. Retries faults with backoff; raises InfraError once retries are exhausted.

        A well-formed answer (even an empty one) is returned as is and never asked for again. Raises a
        StopRun (AuthError, ServerUnreachable) when no further call can succeed. Every call, request and
        answer is added to the current episode's ledger (when there is one), failed ones included.
        """
        self.stats.calls += 1
        ledger = CURRENT_EPISODE.get()
        episode = None if ledger is None else ledger.next_call()
        spend = ledger.add if ledger is not None else _no_ledger
        spend(_A_CALL)
        client, slots = self._resources()
        self._check_stopped()
        kept = None
        if self.budget is not None and self.budget.kept is not None:  # bought before the run stopped at its limit
            kept = answer_key(self.name, messages, self.config, episode)
            entry = self.budget.kept.find(kept)
            if entry is not None:
                return self._paid_earlier(entry, spend)
        key = None
        if self.cache is not None:
            key = cache_key(model=self.name, api=self.provider.name, base_url=self.provider.base_url,
                            messages=messages, config=self.config, episode=episode)
            hit = self.cache.get(key)
            if hit is not None:
                hit = clean_output(hit)  # keys registered since it was stored are hidden too
                self.stats.cache_hits += 1
                spend(self._answer_usage(hit))
                return hit
        if self.batch is not None:
            output = await self._batched(client, slots, messages, episode, spend)
        elif self.provider.in_process and self.budget is None:  # what ``_ask`` does of one attempt that succeeds
            self.stats.attempts += 1
            spend(_AN_ATTEMPT)
            output = self._answered(clean_output(await self.provider.generate(client, messages, self.config)), spend)
        else:
            output = await self._ask(client, slots, messages, spend)
        if kept is not None and self.budget is not None and self.budget.limit is not None:
            self._keep(kept, output)
        if self.cache is not None and key is not None:
            self._store(key, output)
        return output

    async def _batched(self, client: Any, slots: ConcurrencyLimit, messages: list[Message],
                       episode: dict[str, Any] | None, spend: Callable[[dict[str, int]], None]) -> ModelOutput:
        """Ask through the run's provider batch; a request the batch did not answer is sent live (counted)."""
        body = self.provider.request(messages, self.config)[2]
        most = self._committed(messages)
        try:
            outcome = await self.batch.ask(body, episode)
        except StopRun as exc:  # the batch was refused, or the server could not be reached to send or poll it
            self.stats.gave_up += 1
            raise self._halt(type(exc)(redact(f"{self.name}: {exc}"))) from None
        finally:
            if self.budget is not None:
                self.budget.pending -= most
        self.stats.attempts += 1
        spend(_AN_ATTEMPT)
        if outcome.output is None:
            self.stats.faults[f"batch-{outcome.fault}"] += 1
            self.batch.resent()
            spend({"batch_resent": 1})
            return await self._ask(client, slots, messages, spend)
        output = clean_output(outcome.output)
        output.batch = True
        return self._answered(output, spend)

    # -- the retry loop -----------------------------------------------------------------------

    async def _ask(self, client: Any, slots: ConcurrencyLimit, messages: list[Message],
                   spend: Callable[[dict[str, int]], None]) -> ModelOutput:
        # requests sent; of them, failed on a pooled connection the server had closed, and timed out in a
        # server shared with other requests (neither uses up a retry)
        attempt = stale = queued = 0
        ticket = Ticket(0, False, 0.0)
        while True:
            attempt += 1
            self._check_stopped()
            try:
                async with slots.slot(first=queued > 0) as ticket:  # a request that queued goes first
                    self._check_stopped()  # the run may have stopped while this call waited for a slot
                    if self.budget is not None:  # without a cost limit no coroutine is made for it (every request)
                        await self._within_budget()
                    self.stats.attempts += 1
                    spend(_AN_ATTEMPT)
                    output = await (self._send(client, messages) if self.budget is not None
                                    else self.provider.generate(client, messages, self.config))
            except RetryableError as exc:
                if exc.kind == STALE:
                    if stale < self.settings.max_connections:  # each idle pooled connection fails so at most once
                        stale += 1
                        continue  # not a fault: sent again at once, on another connection
                    exc = RetryableError("connect", str(exc))
                self.stats.faults[exc.kind] += 1
                if exc.kind in CONGESTION:
                    self._congested(slots, ticket, exc)
                unreachable = self._count_connect(exc)
                if unreachable is not None:
                    self.stats.gave_up += 1
                    raise self._halt(unreachable) from None
                if exc.kind == "timeout" and ticket.crowded and queued < slots.ceiling.bit_length():
                    # It may have waited behind the others, and the limit is now lower: sent again, first in
                    # line, without using up a retry. At most as often as halving takes the ceiling to 1.
                    queued += 1
                    continue
                if attempt - stale - queued > self.settings.max_retries:
                    self.stats.gave_up += 1
                    raise InfraError(redact(f"{self.name}: no answer after {attempt} attempts (last: {exc})")) from None
                await self._wait_to_retry(self._retry_delay(attempt - stale - queued, exc), exc)
                continue
            except StopRun as exc:  # refused credentials: nothing else can succeed
                self.stats.gave_up += 1
                self._connect_failures = 0
                if isinstance(exc, AuthError):
                    self._refused(spend)
                raise self._halt(type(exc)(redact(f"{self.name}: {exc}"))) from None
            except InfraError as exc:
                self.stats.gave_up += 1
                self._connect_failures = 0  # the server did answer
                if isinstance(exc, ContextOverflowError):
                    self.stats.faults["context-overflow"] += 1
                if isinstance(exc, ContextOverflowError | FatalModelError):
                    self._refused(spend)
                raise type(exc)(redact(f"{self.name}: {exc}")) from None
            self._connect_failures = 0
            output = clean_output(output)
            output.attempts = attempt
            return self._answered(output, spend)

    def _answered(self, output: ModelOutput, spend: Callable[[dict[str, int]], None]) -> ModelOutput:
        """Count a server's answer (live or batched) in the stats, the ledger and the cost so far."""
        self.stats.answers += 1
        self.stats.input_tokens += output.input_tokens
        self.stats.output_tokens += output.output_tokens
        usage = self._answer_usage(output)
        spend(usage)
        if self.budget is not None:
            self.budget.paid(usage.get("cost_micro_usd", 0), output.tokens_reported)
        return output

    # -- the cost limit (models/budget.py) --------------------------------------------------------

    async def _send(self, client: Any, messages: list[Message]) -> ModelOutput:
        """One request to the provider, counted in flight for the cost limit while it is out."""
        if self.budget is None:
            return await self.provider.generate(client, messages, self.config)
        self.budget.sending()
        try:
            return await self.provider.generate(client, messages, self.config)
        finally:
            self.budget.sent()

    async def _within_budget(self) -> None:
        """Return while a live request may go out; else, once the requests in flight are back, stop the run."""
        budget = self.budget
        if budget is None or budget.reason is None:
            return
        await budget.settled()  # their answers are paid for: counted and kept before the run stops
        self._over_budget(budget)

    def _committed(self, messages: list[Message]) -> int:
        """Commit the most a batched request may cost (micro-dollars) to the cost so far; stop at the limit."""
        budget = self.budget
        if budget is None or budget.limit is None or self.prices is None:
            return 0
        if budget.reason is not None:  # the batches already submitted go on: a resumed run collects them
            self._over_budget(budget)
        prompt = self.count_tokens(messages)
        most = round(token_cost_usd(self.prices, prompt, self.config.output_budget() or 0, batch=True) * 1e6)
        budget.pending += most
        return most

    def _over_budget(self, budget: Budget) -> None:
        """Stop the run at its cost limit (raises)."""
        self._check_stopped()
        self.stats.gave_up += 1
        self.stats.cost_limit_reached = True
        raise self._halt(CostLimitReached(budget.reason or "cost limit reached"))

    def _paid_earlier(self, entry: dict[str, Any], spend: Callable[[dict[str, int]], None]) -> ModelOutput:
        """A kept answer bought before the run stopped at its limit: counted at what it cost then, not asked again."""
        assert self.budget is not None
        output = clean_output(kept_output(entry))
        usage = _without_call_counts(output.usage())
        usage.update(cost_micro_usd=entry["cost_micro_usd"], paid_earlier=1)
        self.stats.paid_earlier += 1
        spend(usage)
        self.budget.paid(entry["cost_micro_usd"], output.tokens_reported)
        return output

    def _keep(self, key: str, output: ModelOutput) -> None:
        """Keep an answer bought under the cost limit in the run, so that a resume does not buy it again."""
        assert self.budget is not None and self.budget.kept is not None
        cost = self.usage(output).get("cost_micro_usd", 0) if not output.cached else 0
        try:
            self.budget.kept.add(answer_entry(key, output, cost))
        except Exception as exc:  # a full disk stops the run (finished episodes kept), never blames the agent
            raise self._halt(StopRun(redact(f"cannot keep a paid answer in the run: {exc}"))) from None

    def _congested(self, slots: ConcurrencyLimit, ticket: Ticket, exc: RetryableError) -> None:
        """Lower the requests sent at once; at the first timeout among others, say what to set (once)."""
        slots.congested(ticket)
        if exc.kind != "timeout" or not ticket.crowded or self._told_queueing or self.on_note is None:
            return
        self._told_queueing = True
        where = urlsplit(self.provider.base_url or "").netloc or "the server"  # credentials already taken out
        self.on_note(redact(
            f"requests to {where} time out while others are in flight: the server may answer one at a time; "
            f"lowering concurrency to {slots.limit} and adapting (set --max-connections to the server's parallel "
            f"slots, e.g. --max-connections 1, to fix it)"))

    def _refused(self, spend: Callable[[dict[str, int]], None]) -> None:
        """The server refused the request (HTTP 4xx): its attempt stays counted, the call does not."""
        self.stats.calls -= 1
        spend({"calls": -1})

    async def _wait_to_retry(self, seconds: float, exc: RetryableError) -> None:
        """Pause before a retry; a long pause is told to ``on_wait`` while it lasts."""
        tell = self.on_wait if seconds > WAIT_SHOWN else None
        if tell is None:
            await self._pause(seconds)
            return
        reason = "rate limited" if exc.kind == "rate-limit" else f"last request failed ({exc.kind})"
        self._waiting += 1
        tell(f"{reason}: retrying in {seconds:.0f} s")
        try:
            await self._pause(seconds)
        finally:
            self._waiting -= 1
            if not self._waiting:
                tell(None)

    def _retry_delay(self, attempt: int, exc: RetryableError) -> float:
        delay = self.backoff.delay(attempt, exc.retry_after)
        if exc.kind == "connect":  # short waits: consecutive failures must add up to a stop within seconds
            return min(delay, CONNECT_RETRY_DELAY)
        return delay

    def _count_connect(self, exc: RetryableError) -> ServerUnreachable | None:
        """Count requests in a row that could not connect; the error to stop with once there are too many."""
        if exc.kind == "timeout":
            return None  # a slow server neither proves nor disproves that it is up
        if exc.kind != "connect":
            self._connect_failures = 0  # something answered
            return None
        self._connect_failures += 1
        if self._connect_failures < self.settings.max_connect_failures:
            return None
        return ServerUnreachable(redact(
            f"{self.name}: the server at {self.provider.base_url} is unreachable: {self._connect_failures} "
            f"requests in a row failed to connect (last: {exc}); no further requests are sent"))

    def _halt(self, stop: StopRun) -> StopRun:
        """Make every pending and later call raise ``stop`` (the first stop wins); returns what to raise."""
        if self._stop is None:
            self._stop = stop
            if self._stopped is not None:
                self._stopped.set()
        return type(self._stop)(str(self._stop))

    def _check_stopped(self) -> None:
        if self._stop is not None:
            self.stats.gave_up += 1
            raise type(self._stop)(str(self._stop))

    async def _pause(self, seconds: float) -> None:
        """Sleep before a retry, waking early when the run stops."""
        assert self._stopped is not None
        try:
            await asyncio.wait_for(self._stopped.wait(), seconds)
        except TimeoutError:
            pass

    # -- cache and usage ----------------------------------------------------------------------

    def _answer_usage(self, output: ModelOutput) -> dict[str, int]:
        """What an answer adds to the ledger: its usage but the call and request counts (added as they happen)."""
        return _without_call_counts(self.usage(output))

    def _store(self, key: str, output: ModelOutput) -> None:
        assert self.cache is not None
        try:
            self.cache.put(key, output)
        except OSError:  # a full or read-only disk costs the cache, not the answer
            self.stats.faults["cache-write"] += 1

"""Provider batches (``--batch``): a Model's requests collected and sent as OpenAI, Anthropic or Gemini batches.

Agents and the episode loop do not change: under ``--batch`` the Model hands each request to a
:class:`BatchCollector` instead of sending it, and the call waits for its answer as it would wait for a slow
server. The collector sends what has queued once no new request came for a moment (every episode in
flight is then waiting), polls the batch, and answers each waiting call from the batch's results.

Durability (the run's ``batches.jsonl``, written through ``log/batches.py``): before a batch is sent its
request file is written into the run, and once the provider has accepted it the batch id and every
item's ``custom_id`` and request digest are appended and fsynced. A ``custom_id`` is derived from where the
call stands (task, episode index and seed, the call's position in the episode), so a resumed run that plays
an episode again asks for the same ids: an item recorded with the same id and the same request digest is
collected from its batch instead of being sent again; a different request gets an id of its own and goes
in a new batch. An item the batch did not answer (errored, expired, cancelled, a failed batch, an answer of
the wrong shape) is returned unanswered, and the Model sends that request live (counted).

Every body is read whole (``http.read_body``): a body cut short of its Content-Length is fetched again
like any dropped connection, never taken as a batch that left items out. A batch that has not ended by
its deadline (the provider's completion window plus :data:`DEADLINE_MARGIN`, or ``--batch-timeout``) is
cancelled and its items are returned unanswered (``timeout``): the Model sends them live, counted.

This module is the collector (journal, grouping, deadline, the HTTP transport). How each provider writes,
submits, polls, reads and cancels a batch is its batch flow, beside it (``providers/openai_batch.py``,
``anthropic_batch.py``, ``google_batch.py``: a ``providers.batching.BatchFlow``), named by its wire format in
``providers/wires.py``.
"""

import asyncio
import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import aiohttp
import orjson

from playbench.core.errors import PlaybenchError
from playbench.models.errors import AuthError, RetryableError
from playbench.models.http import AnswerTooLarge, Response, read_body
from playbench.models.pricing import Price, token_cost_usd
from playbench.models.providers.anthropic_batch import AnthropicBatches as AnthropicBatches  # importable from here too
from playbench.models.providers.base import Provider, decode_json, snippet
from playbench.models.providers.batching import BatchFailed, BatchFlow, BatchUnknown, Outcome
from playbench.models.providers.google_batch import GeminiBatches as GeminiBatches  # importable from here too
from playbench.models.providers.openai_batch import OpenAIBatches as OpenAIBatches  # importable from here too
from playbench.models.providers.wires import batch_flow
from playbench.models.redact import redact
from playbench.models.retry import Backoff, retry_after_seconds
from playbench.models.types import GenerateConfig, Message, ModelOutput

#: seconds between two polls of a batch (``$PLAYBENCH_BATCH_POLL`` overrides it)
POLL_SECONDS = 30.0
#: a queue is sent once no request joined it for this long (``$PLAYBENCH_BATCH_WAIT``): the episodes in
#: flight are then all waiting for answers
QUIET_SECONDS = 2.0
#: ... or once its first request has waited this long, or it holds this many requests
MAX_WAIT_SECONDS = 60.0
MAX_ITEMS = 10_000
#: episodes in flight under ``--batch`` when ``--max-episodes`` is not given: each waits for its answer
IN_FLIGHT = MAX_ITEMS
#: largest batch output read (a batch of MAX_ITEMS long answers)
MAX_RESULTS_BYTES = 2**30
#: added to a provider's completion window to make a batch's default deadline: a provider ends a batch
#: (expired) some time after its window, with the answers it has; giving up earlier would buy them twice
DEADLINE_MARGIN = 6 * 3600.0


class Journal(Protocol):
    """Where a run keeps its batches (``playbench.log.batches.BatchJournal``)."""

    def entries(self) -> list[dict[str, Any]]:
        """Every recorded entry, in order."""

    def save_requests(self, content: bytes) -> str:
        """Write the next batch's request file durably; its name in the run."""

    def append(self, entry: dict[str, Any]) -> None:
        """Append an entry durably."""


def env_seconds(name: str, default: float) -> float:
    """A positive number of seconds from the environment, else ``default``."""
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        raise PlaybenchError(f"${name} must be a number of seconds, got {text!r}") from None
    if not value > 0:
        raise PlaybenchError(f"${name} must be a positive number of seconds, got {text!r}")
    return value


def digest(body: dict[str, Any]) -> str:
    """SHA-256 of a request body's canonical JSON: what makes a recorded item the same request."""
    return hashlib.sha256(orjson.dumps(body, option=orjson.OPT_SORT_KEYS)).hexdigest()


def custom_id(where: dict[str, Any] | None, fallback: int) -> str:
    """The item id of the call at ``where`` (``EpisodeLedger.next_call``): the same when an episode is re-played.

    Letters, digits and ``-`` only, at most 64 characters (Anthropic's rule; OpenAI takes any text).
    """
    if where is None:
        return f"pb-free-{fallback}"
    who = hashlib.sha256(f"{where['task']}\0{where['index']}\0{where['seed']}".encode()).hexdigest()[:12]
    return f"pb-{who}-{where['index']}-{where['call']}"


def batch_cost_micro_usd(output: ModelOutput, prices: Price) -> int:
    """An answer's cost at the provider's batch rate, cached prompt tokens at their rates."""
    return round(token_cost_usd(prices, output.input_tokens, output.output_tokens, output.cache_read_tokens or 0,
                                output.cache_write_tokens or 0, batch=True) * 1e6)


# -- the transport and the flow -------------------------------------------------------------------

class _Http:
    """The few HTTP calls of batch management, each retried on the faults the Model retries (a ``BatchHttp``)."""

    def __init__(self, provider: Provider, timeout: float, max_retries: int, backoff: Backoff) -> None:
        self.provider = provider
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self.headers = provider.request([Message("user", "")], GenerateConfig())[1]  # its key, as it sends it
        self._session: aiohttp.ClientSession | None = None

    def url(self, path: str) -> str:
        """``base_url + path``, with the base URL's query (an Azure-style ``?api-key=``) after it."""
        url = f"{self.provider.base_url}{path}"
        return f"{url}?{self.provider.query}" if self.provider.query else url

    async def call(self, method: str, path: str, what: str, *, json: Any = None,
                   form: Callable[[], aiohttp.FormData] | None = None, raw: bool = False) -> Any:
        """The decoded JSON answer (the bytes with ``raw``); BatchFailed once retries run out or on a refusal."""
        if self._session is None:
            self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=max(self.timeout, 600.0)),
                                                  cookie_jar=aiohttp.DummyCookieJar())
        url = self.url(path)
        attempt = 0
        while True:
            attempt += 1
            retry_after = None
            try:
                async with self._session.request(method, url, headers=self.headers, json=json,
                                                 data=form() if form is not None else None) as answer:
                    status, headers = answer.status, {k.lower(): v for k, v in answer.headers.items()}
                    content = await read_body(answer, MAX_RESULTS_BYTES)  # whole: a short one is retried
                if status in (401, 403):
                    raise AuthError(f"{what}: HTTP {status} from {redact(url)}: the server refused "
                                    f"{self.provider.credentials()}; no further requests are sent")
                if status in (408, 409, 429) or status >= 500:
                    fault = f"HTTP {status}"
                    retry_after = retry_after_seconds(Response(status, headers))
                elif status == 404 and method == "GET":
                    raise BatchUnknown(f"{what}: HTTP 404 from {redact(url)}")
                elif status >= 400:
                    raise BatchFailed(f"{what}: HTTP {status} from {redact(url)}: "
                                      f"{snippet(content.decode('utf-8', 'replace'), 300)} (--batch needs a server "
                                      f"offering the {self.provider.name} batch API)")
                else:
                    if raw:
                        return content
                    try:
                        return decode_json(content, status)
                    except RetryableError as exc:
                        fault = str(exc)
            except AnswerTooLarge as exc:  # another attempt would be as large
                raise BatchFailed(f"{what}: {exc} from {redact(url)}; refused") from None
            except (aiohttp.ClientError, TimeoutError, OSError) as exc:  # a ShortAnswer among them
                fault = redact(f"{type(exc).__name__}: {exc}")
            if attempt > self.max_retries:
                raise BatchFailed(f"{what}: no answer from {redact(url)} after {attempt} attempts (last: {fault})")
            await asyncio.sleep(self.backoff.delay(attempt, retry_after))

    async def aclose(self) -> None:
        """Close the connections."""
        if self._session is not None:
            await self._session.close()
            self._session = None


def batch_api(provider: Provider) -> BatchFlow:
    """The batch flow of ``provider``'s wire format (``providers/wires.py``); PlaybenchError for none (one line)."""
    flow = batch_flow(provider)
    if flow is None:
        raise PlaybenchError(f"--batch needs a provider with a batch API: openai/ (or an OpenAI-compatible server "
                             f"offering /v1/batches), anthropic/ or google/; {provider.name}/ has none")
    return flow(provider)


# -- the collector ---------------------------------------------------------------------------

@dataclass
class _Item:
    item_id: str
    digest: str
    line: dict[str, Any]
    future: "asyncio.Future[Outcome]"


class BatchCollector:
    """Collects one Model's requests into provider batches, records them in the run, and answers from them."""

    def __init__(self, provider: Provider, journal: Journal, *, timeout: float = 120.0, max_retries: int = 6,
                 backoff: Backoff | None = None, batch_timeout: float | None = None) -> None:
        self.api = batch_api(provider)
        self.journal = journal
        #: seconds a batch is waited for before its items are sent live (``--batch-timeout``)
        self.deadline = self.api.window + DEADLINE_MARGIN if batch_timeout is None else batch_timeout
        self.poll_seconds = env_seconds("PLAYBENCH_BATCH_POLL", POLL_SECONDS)
        self.quiet_seconds = env_seconds("PLAYBENCH_BATCH_WAIT", QUIET_SECONDS)
        self.http = _Http(provider, timeout, max_retries, backoff or Backoff())
        #: custom_id -> (batch id, request digest) of every item a batch of this run holds
        self.recorded: dict[str, tuple[str, str]] = {}
        #: batch id -> its items' custom_ids, in the batch's order (Gemini may answer by position)
        self.order: dict[str, list[str]] = {}
        ended: set[str] = set()
        submitted: list[str] = []
        #: batches an earlier run gave up at their deadline: polled once, not waited for again
        self._timed_out: set[str] = set()
        for entry in journal.entries():
            if entry["kind"] == "ended":
                ended.add(entry["batch"])
                if entry["status"] == "timeout":
                    self._timed_out.add(entry["batch"])
            elif entry["api"] == self.api.name:
                submitted.append(entry["batch"])
                self.order[entry["batch"]] = [item_id for item_id, _ in entry["items"]]
                for item_id, item_digest in entry["items"]:
                    self.recorded[item_id] = (entry["batch"], item_digest)
        self._journal_ended = ended
        #: batches sent (this run and before), still at the provider, collected; requests the batches did not answer
        self.counts = {"submitted": len(submitted), "in progress": 0, "done": len(set(submitted) & ended),
                       "re-sent": 0}
        #: told a line whenever the counts change (the progress bar shows it)
        self.on_change: Callable[[str], None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pending: list[_Item] = []
        self._flusher: asyncio.Task[None] | None = None
        self._results: dict[str, asyncio.Task[dict[str, Outcome]]] = {}
        self._waiters: set[asyncio.Task[None]] = set()
        self._used: set[str] = set()
        self._free = 0

    def _bind(self) -> asyncio.AbstractEventLoop:
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # a new event loop: what belonged to the last one is gone
            self._loop, self._pending, self._flusher, self._results, self._waiters = loop, [], None, {}, set()
            self.http._session = None
        return loop

    async def ask(self, body: dict[str, Any], where: dict[str, Any] | None) -> Outcome:
        """The batch outcome for one request body (``where``: the call's place, ``EpisodeLedger.next_call``)."""
        loop = self._bind()
        item_digest = digest(body)
        self._free += 1
        base = custom_id(where, self._free)
        item_id, n = base, 0
        while item_id in self._used or (item_id in self.recorded and self.recorded[item_id][1] != item_digest):
            n += 1  # another request at the same place (a re-played episode that went another way)
            item_id = f"{base}-{n}"
        self._used.add(item_id)
        if item_id in self.recorded:  # sent before this run was stopped: collected, not sent again
            return await self._collected(self.recorded[item_id][0], item_id)
        item = _Item(item_id, item_digest, self.api.line(item_id, body), loop.create_future())
        self._pending.append(item)
        if self._flusher is None or self._flusher.done():
            self._flusher = loop.create_task(self._flush())
        return await item.future

    async def _collected(self, batch: str, item_id: str) -> Outcome:
        task = self._results.get(batch)
        if task is None:
            task = self._results[batch] = asyncio.get_running_loop().create_task(self._collect(batch))
        results = await asyncio.shield(task)
        return results.pop(item_id, None) or Outcome(None, "missing", f"batch {batch} did not report it")

    async def _flush(self) -> None:
        """Send the queue once it has been quiet for a moment (or is full, or has waited long)."""
        loop = asyncio.get_running_loop()
        while self._pending:
            first, seen = loop.time(), -1
            while (seen != len(self._pending) and len(self._pending) < MAX_ITEMS
                   and loop.time() - first < MAX_WAIT_SECONDS):
                seen = len(self._pending)
                await asyncio.sleep(self.quiet_seconds)
            cut = self._cut(self._pending[:MAX_ITEMS])
            items, self._pending = self._pending[:cut], self._pending[cut:]
            try:
                batch = await self._submit(items)
            except Exception as exc:  # told to every waiting call (the Model stops the run on it)
                for item in [*items, *self._pending]:
                    if not item.future.done():
                        item.future.set_exception(exc)
                self._pending = []
                return
            except BaseException:
                for item in items:
                    item.future.cancel()
                raise
            for item in items:
                waiter = loop.create_task(self._answer(batch, item))
                self._waiters.add(waiter)
                waiter.add_done_callback(self._waiters.discard)

    def _cut(self, items: list[_Item]) -> int:
        """How many of ``items`` go in the next batch: all, or as many as fit the API's size limit (at least one)."""
        if self.api.max_bytes is None:
            return len(items)
        size = 0
        for n, item in enumerate(items):
            size += len(orjson.dumps(item.line)) + 1
            if size > self.api.max_bytes and n:
                return n
        return len(items)

    async def _answer(self, batch: str, item: _Item) -> None:
        try:
            outcome = await self._collected(batch, item.item_id)
        except BaseException as exc:
            if not item.future.done():
                item.future.set_exception(exc if isinstance(exc, Exception) else asyncio.CancelledError())
            return
        if not item.future.done():
            item.future.set_result(outcome)

    async def _submit(self, items: list[_Item]) -> str:
        """Write the request file, send the batch, and record it (fsynced) before anything else happens."""
        lines = [item.line for item in items]
        content = b"".join(orjson.dumps(line) + b"\n" for line in lines)
        name = await asyncio.to_thread(self.journal.save_requests, content)
        batch = await self.api.submit(self.http, lines, content)
        entry = {"kind": "submitted", "api": self.api.name, "batch": batch, "requests": name,
                 "items": [[item.item_id, item.digest] for item in items]}
        await asyncio.to_thread(self.journal.append, entry)
        for item in items:
            self.recorded[item.item_id] = (batch, item.digest)
        self.order[batch] = [item.item_id for item in items]
        self.counts["submitted"] += 1
        self._told()
        return batch

    async def _collect(self, batch: str) -> dict[str, Outcome]:
        """Poll ``batch`` until it ends or its deadline passes, then read its results (and record its end)."""
        self.counts["in progress"] += 1
        self._told()
        try:
            detail = ""
            try:
                ended, status, info = await self._wait(batch)
                if ended:
                    results = await self.api.results(self.http, batch, info, self.order.get(batch, []))
                else:  # given up at its deadline: its items are sent live
                    status, results, detail = "timeout", {}, await self._cancel(batch)
            except BatchUnknown:  # its requests are sent again live, each counted
                status, results = "unknown", {}
            if status in ("failed", "expired", "cancelled", "unknown", "timeout"):  # items without a result share its fate
                fate = {"failed": "failed", "expired": "expired", "cancelled": "canceled", "unknown": "missing",
                        "timeout": "timeout"}[status]
                for item_id, (where, _) in self.recorded.items():
                    if where == batch and item_id not in results:
                        results[item_id] = Outcome(None, fate, detail or f"batch {batch} {status}")
            if batch not in self._journal_ended:
                await asyncio.to_thread(self.journal.append, {"kind": "ended", "batch": batch, "status": status})
                self._journal_ended.add(batch)
                self.counts["done"] += 1
            return results
        finally:
            self.counts["in progress"] -= 1
            self._told()

    async def _wait(self, batch: str) -> tuple[bool, str, dict[str, Any]]:
        """Poll ``batch`` until it ends or its deadline passes (one poll for a batch given up before)."""
        loop = asyncio.get_running_loop()
        give_up = loop.time() + (0.0 if batch in self._timed_out else self.deadline)
        while True:
            ended, status, info = await self.api.poll(self.http, batch)
            left = give_up - loop.time()
            if ended or left <= 0:
                return ended, status, info
            await asyncio.sleep(min(self.poll_seconds, left))

    async def _cancel(self, batch: str) -> str:
        """Cancel a batch given up at its deadline (so it stops costing); what to say about its items."""
        said = f"batch {batch} had not ended after {self.deadline:g} s"
        if batch in self._timed_out:
            return f"batch {batch} had not ended by its deadline in an earlier run"
        try:
            await self.api.cancel(self.http, batch)
        except BatchFailed as exc:  # its items go live all the same
            return f"{said} (cancelling it failed: {exc})"
        return f"{said} (cancelled)"

    def resent(self) -> None:
        """Count a request a batch did not answer, sent live instead."""
        self.counts["re-sent"] += 1
        self._told()

    def line(self) -> str:
        """The counts in words (what the progress bar shows)."""
        c = self.counts
        text = f"batches: {c['submitted']} submitted, {c['in progress']} in progress, {c['done']} done"
        return text + (f"; {c['re-sent']} requests re-sent live" if c["re-sent"] else "")

    def _told(self) -> None:
        if self.on_change is not None:
            self.on_change(self.line())

    async def aclose(self) -> None:
        """Stop waiting (the batches go on at the provider: a resumed run collects them) and close the connections."""
        tasks = [t for t in (self._flusher, *self._results.values(), *self._waiters) if t is not None and not t.done()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self.http.aclose()

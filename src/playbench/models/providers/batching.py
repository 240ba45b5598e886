"""What a provider's batch flow implements (``--batch``): submit items, poll, fetch results, cancel.

Each wire format with a batch API has its flow beside its provider (``openai_batch.py``, ``anthropic_batch.py``,
``google_batch.py``), named in ``wires.py``. A flow only speaks the wire format: the collector
(``models/batch.py``) owns the journal, the grouping of requests, the deadline and the HTTP transport (the
:class:`BatchHttp` it hands every call), so retries, size limits and refusals are the same for every provider.
"""

import re
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import aiohttp
import orjson

from playbench.core.errors import StopRun
from playbench.models.errors import RetryableError
from playbench.models.providers.base import Provider
from playbench.models.types import ModelOutput


class BatchFailed(StopRun):
    """The provider refused a batch, or could not be reached to send or collect one: the run stops (resumable)."""


class BatchUnknown(BatchFailed):
    """The server does not know a batch (HTTP 404 while polling it): another server, or results long deleted."""


@dataclass
class Outcome:
    """What a batch gave for one request: the answer, or why there is none (the request is then sent live)."""

    output: ModelOutput | None
    fault: str = ""  # errored, expired, canceled, failed, missing, malformed
    detail: str = ""


class BatchHttp(Protocol):
    """The collector's HTTP calls (each retried on the faults the Model retries; BatchFailed when they run out)."""

    async def call(self, method: str, path: str, what: str, *, json: Any = None,
                   form: Callable[[], aiohttp.FormData] | None = None, raw: bool = False) -> Any:
        """``method`` on ``base_url + path``: the decoded JSON answer, or its bytes with ``raw``."""


_NAME = re.compile(r"[A-Za-z0-9_-]{1,200}")


def is_name(value: Any) -> bool:
    """Whether ``value`` is a batch or file id that can go into a URL path as it is (letters, digits, ``_``, ``-``)."""
    return isinstance(value, str) and _NAME.fullmatch(value) is not None


def named_id(answer: Any, doing: str, what: str) -> str:
    """The ``id`` an API's answer names, checked as :func:`is_name` (it goes into later URL paths)."""
    value = answer.get("id") if isinstance(answer, dict) else None
    if not is_name(value):
        raise BatchFailed(f"{doing}: the answer names no {what} id")
    return str(value)


def jsonl_objects(content: bytes) -> list[dict[str, Any]]:
    """The objects of a JSONL answer; a line that is not an object is skipped (its item counts as missing)."""
    out = []
    for line in content.splitlines():
        if not line.strip():
            continue
        try:
            value = orjson.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


class BatchFlow(ABC):
    """One provider's batch wire format: how items are written, submitted, polled, read back and cancelled."""

    #: the wire format's name, as the run's batch journal records it (``api``)
    name = "?"
    #: largest batch (its lines' JSON) the API takes in one request; None: only the collector's item count bounds it
    max_bytes: int | None = None
    #: seconds the provider takes at most to end a batch (its completion window)
    window = 24 * 3600.0

    def __init__(self, provider: Provider) -> None:
        self.provider = provider

    @abstractmethod
    def line(self, item_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """One request of a batch."""

    @abstractmethod
    async def submit(self, http: BatchHttp, lines: list[dict[str, Any]], content: bytes) -> str:
        """Send a batch (``content``: its lines as the JSONL the run keeps); its id."""

    @abstractmethod
    async def poll(self, http: BatchHttp, batch: str) -> tuple[bool, str, dict[str, Any]]:
        """(ended, status, the batch object)."""

    @abstractmethod
    async def results(self, http: BatchHttp, batch: str, info: dict[str, Any],
                      items: list[str]) -> dict[str, Outcome]:
        """custom_id -> outcome, for the items the provider reports (``items``: the batch's ids, in its order)."""

    @abstractmethod
    async def cancel(self, http: BatchHttp, batch: str) -> None:
        """Ask the provider to stop a batch (it may still bill the items it had finished)."""

    def answer(self, body: Any) -> Outcome:
        """A successful item's body parsed as the provider's answer (a wrong shape is a ``malformed`` item)."""
        try:
            return Outcome(self.provider.parse(body))
        except RetryableError as exc:
            return Outcome(None, "malformed", str(exc))
        except (TypeError, ValueError, KeyError, IndexError, AttributeError, OverflowError) as exc:
            return Outcome(None, "malformed", type(exc).__name__)

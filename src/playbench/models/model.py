"""The Model: one async chat interface with the one retry layer, a concurrency limit, usage and cache."""

import asyncio
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playbench.core.errors import InfraError
from playbench.models.cache import ResponseCache, cache_key
from playbench.models.errors import RetryableError
from playbench.models.http import HttpClient
from playbench.models.pricing import cost_micro_usd, price_for
from playbench.models.providers.base import Provider
from playbench.models.redact import redact
from playbench.models.retry import Backoff
from playbench.models.tokens import count_message_tokens
from playbench.models.types import GenerateConfig, Message, ModelOutput


@dataclass
class ModelSettings:
    """How to call (not what to ask): not part of a run's identity."""

    base_url: str | None = None
    max_connections: int = 8
    max_retries: int = 6
    timeout: float = 120.0
    cache: bool | str | Path = False  # True: the default cache directory; a path: that directory
    backoff_base: float = 1.0
    backoff_cap: float = 30.0


@dataclass
class ModelStats:
    """Counters over the life of a Model (every attempt is counted)."""

    calls: int = 0  # generate() calls
    answers: int = 0  # well-formed answers received from the provider
    attempts: int = 0  # requests actually sent
    cache_hits: int = 0
    gave_up: int = 0  # calls that ended in InfraError
    input_tokens: int = 0
    output_tokens: int = 0
    faults: Counter = field(default_factory=Counter)  # kind -> count

    def as_dict(self) -> dict:
        """Plain-JSON form."""
        out = {k: getattr(self, k) for k in ("calls", "answers", "attempts", "cache_hits", "gave_up",
                                               "input_tokens", "output_tokens")}
        out["faults"] = dict(self.faults)
        return out


class Model:
    """``provider/name`` with its settings. Safe to share between all concurrent episodes."""

    def __init__(self, name: str, provider: Provider, config: GenerateConfig, settings: ModelSettings) -> None:
        self.name = name
        self.provider = provider
        self.config = config
        self.settings = settings
        self.stats = ModelStats()
        self.backoff = Backoff(base=settings.backoff_base, cap=settings.backoff_cap)
        self.prices = price_for(provider.model, config)
        cache = settings.cache
        self.cache = ResponseCache(None if cache is True else Path(cache)) if cache else None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._client: Any = None
        self._slots: asyncio.Semaphore | None = None

    # -- per-event-loop resources -------------------------------------------------------------

    def _resources(self) -> tuple[Any, asyncio.Semaphore]:
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # a new asyncio.run(): fresh client and limiter
            self._loop = loop
            self._slots = asyncio.Semaphore(self.settings.max_connections)
            self._client = None
            if self.provider.uses_http:
                self._client = HttpClient(self.settings.timeout, self.settings.max_connections)
        assert self._slots is not None
        return self._client, self._slots

    async def aclose(self) -> None:
        """Close the HTTP connections of the current event loop."""
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
        return self.count_tokens(messages) + (self.config.max_tokens or 0) <= window

    def usage(self, output: ModelOutput) -> dict[str, int]:
        """``Decision.usage`` for one answer, with cost when a price is known."""
        usage = output.usage()
        if self.prices is not None:
            usage["cost_micro_usd"] = cost_micro_usd(output, self.prices)
        return usage

    async def generate(self, messages: list[Message]) -> ModelOutput:
        """Ask the model. Retries faults with backoff; raises InfraError once retries are exhausted.

        A well-formed answer (even an empty one) is returned as is and never asked for again.
        """
        self.stats.calls += 1
        key = None
        if self.cache is not None:
            key = cache_key(self.name, messages, self.config)
            hit = self.cache.get(key)
            if hit is not None:
                self.stats.cache_hits += 1
                return hit
        client, slots = self._resources()
        attempt = 0
        while True:
            attempt += 1
            try:
                async with slots:
                    self.stats.attempts += 1
                    output = await self.provider.generate(client, messages, self.config)
            except RetryableError as exc:
                self.stats.faults[exc.kind] += 1
                if attempt > self.settings.max_retries:
                    self.stats.gave_up += 1
                    raise InfraError(redact(f"{self.name}: no answer after {attempt} attempts (last: {exc})")) from None
                await asyncio.sleep(self.backoff.delay(attempt, exc.retry_after))
                continue
            except InfraError as exc:
                self.stats.gave_up += 1
                raise type(exc)(redact(f"{self.name}: {exc}")) from None
            output.attempts = attempt
            self.stats.answers += 1
            self.stats.input_tokens += output.input_tokens
            self.stats.output_tokens += output.output_tokens
            if self.cache is not None and key is not None:
                self.cache.put(key, output)
            return output

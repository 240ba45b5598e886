"""``--cost-limit``: the run's cost so far held to its limit, and the answers it paid for kept for a resume.

The cost so far counts every answer at what it cost: a live answer at the live rates, one a provider batch
answered at the batch rates, prompt-cache reads and writes at theirs (``models/pricing.py``), an answer-cache
hit (``--cache``) at nothing, and, when resumed, the run's recorded episodes. An answer without token counts
(``tokens_unreported``) has no known cost: the limit can no longer be held, so no further request is sent
(the run stops, saying so) rather than guessing one.

Live: a request is sent only while the cost so far is below the limit. Once it is not, no new request goes
out; the requests in flight are let finish (their answers are paid for), and then the run stops. So a run
spends at most the limit plus what was in flight when it was reached.

``--batch``: a batch is paid when it completes, so what counts is the committed cost: the cost so far plus,
for every request handed to a batch and not yet answered, the most it may cost (its prompt, counted with the
local tokenizer, and ``max_tokens`` of answer, at the batch rates). A request joins a batch only while the
committed cost is below the limit; once it is not, the run stops at once: the batches already submitted go on
at the provider and a resumed run collects them (``models/batch.py``), nothing sent twice.

Every answer paid for under a limit is kept in the run (``RUN/paid-answers.jsonl``, ``log/answers.py``), keyed
by where the call stands in its episode and what it asks. A stop cancels the episodes still playing and
records nothing for them; the resumed run plays them again from the start, and each call that asks what a
kept answer answered gets that answer, counted at what it cost then (``paid_earlier``), never asked again.
"""

import asyncio
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Protocol

from playbench.core.errors import StopRun
from playbench.models.types import GenerateConfig, Message, ModelOutput


class CostLimitReached(StopRun):
    """The run's cost so far reached its ``--cost-limit`` (or can no longer be known): no request is sent."""


class PaidAnswers(Protocol):
    """Where a run keeps the answers it paid for (``playbench.log.answers.AnswerJournal``)."""

    def find(self, key: str) -> dict[str, Any] | None:
        """The kept answer of ``key`` (``answer_entry``'s form), or None."""

    def add(self, entry: dict[str, Any]) -> None:
        """Keep one answer (``answer_entry``'s form)."""


def answer_key(model: str, messages: list[Message], config: GenerateConfig, where: dict[str, Any] | None) -> str:
    """SHA-256 of what a call asks and where it stands in its episode (``EpisodeLedger.next_call``).

    The server is left out: a resume may move to another one, and the answer was bought for this run.
    """
    blob = json.dumps({"model": model, "settings": config.cache_identity(), "messages": [m.record() for m in messages],
                       "episode": where}, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()


def answer_entry(key: str, output: ModelOutput, cost: int) -> dict[str, Any]:
    """The kept form of an answer paid for: its text, its counts, how it was bought and what it cost."""
    return {"key": key, "text": output.text, "reasoning": output.reasoning, "stop_reason": output.stop_reason,
            "input_tokens": output.input_tokens, "output_tokens": output.output_tokens,
            "cache_read_tokens": output.cache_read_tokens, "cache_write_tokens": output.cache_write_tokens,
            "batch": output.batch, "tokens_reported": output.tokens_reported, "cost_micro_usd": cost}


def kept_output(entry: dict[str, Any]) -> ModelOutput:
    """The answer a kept entry holds, as a call returns it (no request sent for it now)."""
    return ModelOutput(text=entry["text"], input_tokens=entry["input_tokens"], output_tokens=entry["output_tokens"],
                       reasoning=entry.get("reasoning"), attempts=0, stop_reason=entry.get("stop_reason"),
                       cache_read_tokens=entry.get("cache_read_tokens"), cache_write_tokens=entry.get("cache_write_tokens"),
                       batch=entry["batch"], tokens_reported=entry.get("tokens_reported", True))


def usd(micro: int) -> str:
    """``$0.0123`` for micro-dollars."""
    return f"${micro / 1e6:.4f}"


@dataclass
class Budget:
    """A run's cost so far against its limit, in micro-dollars; one per Model, shared by all its calls.

    ``limit`` None: no limit (a resume that lifted it still uses the answers kept before). ``spent`` starts at
    the cost of the run's recorded episodes.
    """

    limit: int | None
    spent: int = 0
    pending: int = 0  # the most the requests handed to a batch and not yet answered may cost
    in_flight: int = 0  # live requests sent and not answered yet
    unknown: int = 0  # answers without token counts: the cost so far is not known
    kept: PaidAnswers | None = None
    _idle: asyncio.Event | None = field(default=None, repr=False)  # set when the last request in flight is back
    _loop: asyncio.AbstractEventLoop | None = field(default=None, repr=False)

    @property
    def reason(self) -> str | None:
        """Why no new request may be sent (one line), or None while requests may go out."""
        if self.limit is None:
            return None
        if self.unknown:
            return (f"cost limit: the server sent no token counts for {self.unknown} answer(s), so the cost so far "
                    f"is not known and the {usd(self.limit)} limit cannot be held; no further request was sent")
        committed = self.spent + self.pending
        if committed < self.limit:
            return None
        what = f"{usd(self.spent)} spent" + (f" and {usd(self.pending)} committed in batches" if self.pending else "")
        return f"cost limit reached: {what} of the {usd(self.limit)} limit; no further request was sent"

    def paid(self, cost: int, reported: bool = True) -> None:
        """Count an answer's cost (one without token counts makes the cost so far unknown)."""
        self.spent += cost
        if not reported:
            self.unknown += 1

    def sending(self) -> None:
        """A live request goes out."""
        self.in_flight += 1

    def sent(self) -> None:
        """A live request came back (answered or not)."""
        self.in_flight -= 1
        if not self.in_flight and self._idle is not None:
            self._idle.set()

    async def settled(self) -> None:
        """Wait until no live request is in flight (their answers are then counted and kept)."""
        loop = asyncio.get_running_loop()
        if self._idle is None or self._loop is not loop:  # one event per event loop (a new asyncio.run)
            self._idle, self._loop = asyncio.Event(), loop
        while self.in_flight:
            self._idle.clear()
            await self._idle.wait()

"""Which episode a model call belongs to, and what that episode's calls cost.

The runner opens a ledger for every episode and makes it current for the episode's task (a context
variable, so concurrent episodes never share one). A Model reads it to key its cache by the episode's
identity and the call's position in it, and adds every request it sends to the episode's usage, even
requests whose episode later fails.
"""

from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True, weakref_slot=True)  # weakly referred to: a provider forgets per-episode state with it
class EpisodeLedger:
    """One episode's identity and its model usage so far."""

    task: str
    index: int
    seed: int | None = None  # the episode's game seed: another seed is another sample
    calls: int = 0  # generate() calls made so far
    usage: dict[str, int] = field(default_factory=dict)

    def next_call(self) -> dict[str, Any]:
        """Where a new call stands: the episode's identity and the call's position in it (0, 1, 2, ...)."""
        position = self.calls
        self.calls += 1
        return {"task": self.task, "index": self.index, "seed": self.seed, "call": position}

    def add(self, counts: dict[str, int]) -> None:
        """Add counts (tokens, requests, cost) to the episode's usage."""
        for key, value in counts.items():
            self.usage[key] = self.usage.get(key, 0) + int(value)


#: The ledger of the episode whose code is running now (None outside an episode).
CURRENT_EPISODE: ContextVar[EpisodeLedger | None] = ContextVar("playbench_episode", default=None)

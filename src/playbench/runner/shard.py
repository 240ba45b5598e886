"""Shards of a run for batch schedulers (``--shard K/N``): which episodes shard K of N plays.

The rule depends only on the episode's identity, ``(task, index)``: episode ``index`` of ``task`` belongs
to shard ``1 + h mod N``, where ``h`` is the first 8 bytes (big-endian) of the SHA-256 of
``"<task>#<index>"``. It does not depend on the seed, on the other tasks of the run or on the machine, so
every shard of a Slurm array computes the same split on its own, and N shards together hold every episode
exactly once (``playbench merge`` checks it).
"""

import hashlib
import re
from dataclasses import dataclass

from playbench.core.errors import PlaybenchError
from playbench.core.records import RunConfig

_SPEC = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


@dataclass(frozen=True)
class Shard:
    """Shard ``k`` (1-based) of ``n``."""

    k: int
    n: int

    def __str__(self) -> str:
        return f"{self.k}/{self.n}"

    def holds(self, task_id: str, index: int) -> bool:
        """Whether episode ``index`` of ``task_id`` belongs to this shard."""
        return shard_of(task_id, index, self.n) == self.k


def shard_of(task_id: str, index: int, n: int) -> int:
    """The shard (1..n) that episode ``index`` of ``task_id`` belongs to when a run is split in ``n``."""
    digest = hashlib.sha256(f"{task_id}#{index}".encode()).digest()
    return 1 + int.from_bytes(digest[:8], "big") % n


def parse_shard(text: str | None) -> Shard | None:
    """``"K/N"`` -> Shard (None for None); anything else, or K outside 1..N, is a PlaybenchError."""
    if text is None:
        return None
    match = _SPEC.match(str(text))
    if not match:
        raise PlaybenchError(f"--shard expects K/N (e.g. 2/8), got {text!r}")
    k, n = int(match.group(1)), int(match.group(2))
    if n < 1 or not 1 <= k <= n:
        raise PlaybenchError(f"--shard {text}: K must be between 1 and N (N at least 1)")
    return Shard(k, n)


def episodes_per_task(config: RunConfig, shard: Shard | None) -> dict[str, int]:
    """Task id -> episodes the run (or its shard) plays."""
    if shard is None:
        return {t.id: t.episodes for t in config.tasks}
    return {t.id: sum(shard.holds(t.id, i) for i in range(t.episodes)) for t in config.tasks}

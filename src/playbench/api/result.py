"""What ``playbench.eval`` returns, and the exception it raises when interrupted."""

import shlex
import signal
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from playbench.core.records import RunConfig
from playbench.log.read import RunLog, read_run
from playbench.runner.runner import RunTotals
from playbench.runner.shard import Shard, episodes_per_task


def _resume_command(path: Path) -> str:
    return f"playbench eval --resume {shlex.quote(str(path))}"


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a run: finished episodes are saved in ``path``; ``playbench.eval`` with ``resume=path`` continues it.

    ``signal`` is the signal that stopped it: ``SIGINT`` (Ctrl-C), ``SIGTERM`` or ``SIGHUP``.
    """

    def __init__(self, path: Path, signum: int = signal.SIGINT) -> None:
        super().__init__(str(path))
        self.path = path
        self.signal = signum

    @property
    def resume_command(self) -> str:
        """The command that continues the run."""
        return _resume_command(self.path)


@dataclass
class EvalResult:
    """One call of ``playbench.eval``: where the run is, what this call played and how the whole run stands.

    ``totals`` (and ``episodes``, ``steps``, ``played``, ``stopped``) count what this call played (a resume
    plays only what was missing); ``status_counts``, ``recorded`` and ``scheduled`` describe the whole run on
    disk.
    """

    path: Path
    config: RunConfig
    totals: RunTotals = field(default_factory=RunTotals)  # what this call played
    model_stats: Any = None  # the model's call counts (``calls``, ``attempts``, ``cache_hits`` ...), if any
    elapsed_s: float = 0.0  # wall-clock seconds spent playing (set-up and imports excluded)
    shard: Shard | None = None  # the shard of the run this run plays (``--shard K/N``), if any

    @property
    def episodes(self) -> int:
        """Episodes this call played."""
        return self.totals.episodes

    @property
    def steps(self) -> int:
        """Steps this call played."""
        return self.totals.steps

    @property
    def played(self) -> dict[str, int]:
        """Status -> episodes, over the episodes this call played."""
        return dict(self.totals.by_status)

    @property
    def stopped(self) -> str | None:
        """Why the run stopped early (credentials refused, server gone, disk full); None if it was not."""
        return self.totals.stopped

    @cached_property
    def log(self) -> RunLog:
        """The run as recorded, for reading (meta, episodes, trajectories)."""
        return read_run(self.path)

    @property
    def status_counts(self) -> dict[str, int]:
        """Status -> episodes, over the record that counts for each episode of the whole run."""
        counts: dict[str, int] = {}
        for record in self.log.latest_episodes().values():
            counts[record.status] = counts.get(record.status, 0) + 1
        return counts

    @property
    def scheduled(self) -> int:
        """Episodes the run's config asks for (those of its shard, for a shard)."""
        return sum(episodes_per_task(self.config, self.shard).values())

    @property
    def recorded(self) -> int:
        """Episodes with a record (of any status)."""
        return len(self.log.latest_episodes())

    @property
    def complete(self) -> bool:
        """Every scheduled episode recorded and none left with an infra-error (nothing for a resume to do)."""
        return self.stopped is None and self.recorded >= self.scheduled and not self.status_counts.get("infra-error")

    @property
    def resume_command(self) -> str:
        """The command that continues this run."""
        return _resume_command(self.path)

    def report(self) -> dict[str, Any]:
        """The run's JSON report (per-task statistics and each suite's summary), as ``playbench report --json``."""
        from playbench.report.build import build_report

        return build_report(self.log)

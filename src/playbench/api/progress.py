"""Progress of a run as it plays: a small hook protocol, and the terminal bar the command line shows."""

import time
from collections.abc import Mapping
from typing import Any, Protocol

from playbench.core.records import EpisodeRecord


class ProgressHook(Protocol):
    """What the ``progress`` argument of ``playbench.eval`` calls while a run plays (all calls come from the run's event loop).

    A hook may also have ``wait(line: str | None)``: told a line while model calls wait long to retry
    (``"rate limited: retrying in 118 s"``), and None when none waits any more; and ``batches(line: str)``:
    told, under ``batch=True``, the provider batches sent, in progress and done whenever they change.
    """

    def start(self, plan: Mapping[str, tuple[int, int]]) -> None:
        """Before the first episode: task id -> (episodes scheduled, episodes already finished)."""

    def step(self, task_id: str) -> None:
        """After every step of every episode."""

    def episode(self, record: EpisodeRecord) -> None:
        """After each episode's record is durably written."""

    def stop(self) -> None:
        """When the run ends, however it ends."""


class Bar:
    """A rich progress bar on stderr: episodes per task, steps/s, elapsed time."""

    def __init__(self, console: Any = None) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
        from rich.text import Text

        class NotedProgress(Progress):
            """The bars, then a line saying why the run waits (when it does)."""

            note = ""
            batches = ""

            def get_renderables(self) -> Any:
                yield self.make_tasks_table(self.tasks)
                if self.batches:
                    yield Text(self.batches)
                if self.note:
                    yield Text(self.note, style="yellow")

        self._progress = NotedProgress(
            TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("{task.fields[rate]:>8} steps/s"), TimeElapsedColumn(),
            console=console or Console(stderr=True), transient=False,
        )
        self._bars: dict[str, Any] = {}
        self._steps = 0
        self._start = time.perf_counter()

    def start(self, plan: Mapping[str, tuple[int, int]]) -> None:
        """Show one bar per task, already advanced by the episodes a resumed run had finished."""
        from rich.markup import escape

        from playbench.report.inert import inert_text

        self._start = time.perf_counter()
        self._progress.start()
        for task_id, (total, done) in plan.items():
            label = escape(inert_text(task_id, limit=200, one_line=True))  # task ids come from records
            self._bars[task_id] = self._progress.add_task(label, total=total, completed=done, rate="-")

    def step(self, task_id: str) -> None:
        """Count a step (the rate shown is steps per second since the start)."""
        self._steps += 1

    def episode(self, record: EpisodeRecord) -> None:
        """Advance the episode's task bar."""
        rate = self._steps / max(time.perf_counter() - self._start, 1e-9)
        self._progress.update(self._bars[record.task], advance=1, rate=f"{rate:,.0f}")

    def wait(self, line: str | None) -> None:
        """Show under the bars why the run waits (``"rate limited: retrying in 118 s"``); None clears it."""
        self._progress.note = line or ""
        self._progress.refresh()

    def batches(self, line: str) -> None:
        """Show under the bars the provider batches sent, in progress and done (``batch=True``)."""
        self._progress.batches = line
        self._progress.refresh()

    def stop(self) -> None:
        """Leave the final bars on the screen."""
        self._progress.note = ""
        self._progress.stop()

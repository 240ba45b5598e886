"""What ``playbench verify`` finds, in the words every re-play shares.

A run's re-play (``api/verify.py``) and a folder format's (a suite's ``FormatHooks.verify``, such as BALROG's
submission folder) both speak them.

A verdict per episode (``Finding``), its first ``Difference``, and the helpers both re-plays use to make a
game, settle a re-play into a verdict and compare values as records hold them.
"""

import asyncio
import math
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from playbench.core.errors import PlaybenchError
from playbench.core.task import Task

Verdict = Literal["verified", "differs", "not-verifiable"]


@dataclass(frozen=True)
class Difference:
    """The first place where a record and its re-play part: ``step`` is None for the episode's totals."""

    field: str
    recorded: Any
    replayed: Any
    step: int | None = None

    def describe(self, width: int = 60) -> str:
        """``step 4 reward: recorded 1.0, replayed 0.0`` with long values cut around where they part."""
        where = f"step {self.step} " if self.step is not None else ""
        recorded, replayed = shorten(self.recorded, self.replayed, width)
        return f"{where}{self.field}: recorded {recorded}, replayed {replayed}"


@dataclass(frozen=True)
class Finding:
    """One episode's verdict: its first difference, or why it could not be checked."""

    task: str
    index: int
    verdict: Verdict
    difference: Difference | None = None
    reason: str | None = None  # why it is not verifiable
    #: not verifiable, but hiding no score: the episode is not scored (an error status) or its task is declared
    #: not reproducible. Any other unchecked episode is a score nobody vouched for (``VerifyResult.complete``).
    excused: bool = False

    @property
    def name(self) -> str:
        """``task #index`` (the task alone for a file that says no index: a BALROG file not named ``_run_NN``)."""
        return f"{self.task} #{self.index}" if self.index >= 0 else self.task


@dataclass
class VerifyResult:
    """What ``verify`` found: a verdict per episode, plus what concerns the whole folder.

    ``kind`` is ``run`` for a playbench run, else what a folder format calls its folders
    (``balrog-submission``); ``label`` is how a report names such a folder (``BALROG submission``).
    """

    path: Path
    kind: str = "run"
    label: str = "run"
    findings: list[Finding] = field(default_factory=list)
    #: figures of the folder that do not match its episodes (a BALROG ``summary.json``): each is a difference
    folder_differences: list[str] = field(default_factory=list)
    #: lines to show beside the counts (what was not compared, versions that differ from this machine's)
    notes: list[str] = field(default_factory=list)
    #: episodes run.json schedules (a folder that records no schedule: 0)
    scheduled: int = 0
    #: scheduled episodes without a record, and the first few of them (``task #index``)
    missing: int = 0
    missing_named: list[str] = field(default_factory=list)

    def _count(self, verdict: Verdict) -> int:
        return sum(f.verdict == verdict for f in self.findings)

    @property
    def verified(self) -> int:
        """Episodes whose every record the engines gave again."""
        return self._count("verified")

    @property
    def differing(self) -> int:
        """Episodes with at least one record the engines do not give."""
        return self._count("differs")

    @property
    def not_verifiable(self) -> int:
        """Episodes that could not be re-played (each finding says why)."""
        return self._count("not-verifiable")

    @property
    def unchecked(self) -> int:
        """Scored episodes that could not be re-played here (steps missing or damaged, engine or data missing)."""
        return sum(f.verdict == "not-verifiable" and not f.excused for f in self.findings)

    @property
    def ok(self) -> bool:
        """Nothing differs (episodes that could not be checked do not make it fail, nor count as verified)."""
        return self.differing == 0 and not self.folder_differences

    @property
    def complete(self) -> bool:
        """Nothing differs, every scheduled episode is recorded, and every scored one was re-played.

        (Or its task is not reproducible by design.)
        """
        return self.ok and self.unchecked == 0 and self.missing == 0


class NotVerifiable(Exception):
    """Raised by a re-play that finds it cannot check what follows (the message says why)."""


def task_problem(task: Task, params: dict[str, Any], problems: dict[str, str | None]) -> str | None:
    """Why ``task``'s episodes cannot be re-played here (declared not reproducible, engine or data missing).

    ``problems`` remembers the answer per task id.
    """
    if task.id not in problems:
        problem: str | None = None
        if task.not_reproducible:
            problem = f"not reproducible by design: {task.not_reproducible}"
        else:
            try:
                task.validate_inputs(task.params(params))
            except PlaybenchError as exc:
                problem = str(exc)
        problems[task.id] = problem
    return problems[task.id]


@contextmanager
def fresh_game(task: Task, params: Any, index: int) -> Iterator[Any]:
    """The task's game for episode ``index``, made as the runner makes it, closed afterwards."""
    game = task.make_game(params, index)
    try:
        yield game
    finally:
        try:
            game.close()
        except Exception:  # noqa: BLE001  (closing is best effort, as in the runner)
            pass


def settle(runner: asyncio.Runner, task: str, index: int, replay: Coroutine[Any, Any, Difference | None],
           status: str = "ok") -> Finding:
    """Run one episode's re-play to its verdict (what the game raises is blamed as the runner blames it).

    ``status`` is the record's: an episode whose recorded steps the game no longer plays differs there.
    """
    try:
        difference = runner.run(replay)
    except (PlaybenchError, NotVerifiable) as exc:
        return Finding(task, index, "not-verifiable", reason=str(exc))
    except OSError as exc:  # the machine, not the record
        return Finding(task, index, "not-verifiable", reason=f"environment: {exc}")
    except Exception as exc:  # noqa: BLE001  (the recorded steps were played; their re-play raised)
        difference = Difference("status", status, f"the game raised {type(exc).__name__}: {exc}")
    if difference is None:
        return Finding(task, index, "verified")
    return Finding(task, index, "differs", difference=difference)


def same(a: Any, b: Any) -> bool:
    """Equal as records hold them (JSON values: a tuple is a list, 1 is 1.0, numbers compared exactly)."""
    if type(a) is type(b) and type(a) in (str, float):  # most values, the fast way
        return bool(a == b)
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def shorten(a: Any, b: Any, width: int = 60) -> tuple[str, str]:
    """``a`` and ``b`` as short texts; two strings are cut around the first character where they part."""
    if isinstance(a, str) and isinstance(b, str):
        at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
        start = max(0, at - width // 3) if max(len(a), len(b)) > width else 0
        return _window(a, start, width), _window(b, start, width)
    return _window(repr(a), 0, width, quote=False), _window(repr(b), 0, width, quote=False)


def _window(text: str, start: int, width: int, quote: bool = True) -> str:
    piece = text[start:start + width]
    return ("…" if start else "") + (repr(piece) if quote else piece) + ("…" if start + width < len(text) else "")

"""``playbench verify``: re-play a run's recorded episodes through fresh engines and check every record.

Each ``ok`` episode is played again exactly as the runner played it: the task's game made from the
parameters in ``run.json``, reset with the episode's recorded seed (itself checked against the run's base
seed), then stepped with each recorded *executed* action. Model output is never re-used: what the agent
answered is the agent's business; what the engine did with the executed action is checked. At each step
the recorded observation (and frame, in image mode), validity (a valid step executed a legal action named by the agent; an invalid
one the game's default action), reward, score and done must be what the engine gives, and at the end the
episode's totals (reward, steps, invalid actions, score, completion, progress, metrics, instance).

Episodes that cannot be checked are counted apart, each with why: not ``ok``, steps missing or damaged,
an engine or data file missing here, or a task that declares its engine not reproducible
(``Task.not_reproducible``). BALROG's submission folders (``export --format balrog``) are re-played by
``verify_balrog.py``.
"""

import asyncio
import math
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from playbench.agents.base import Agent, EpisodeContext, Turn
from playbench.core.errors import PlaybenchError
from playbench.core.records import EpisodeRecord, StepRecord
from playbench.core.registry import find_task
from playbench.core.seeding import episode_seed
from playbench.core.task import Task
from playbench.log.read import RunLog, read_run

Verdict = Literal["verified", "differs", "not-verifiable"]
#: Episode totals compared after the last step, in the order they are reported.
TOTALS = ("steps", "reward", "invalid_actions", "score", "completion", "progress", "metrics", "instance")


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
        """``task #index``."""
        return f"{self.task} #{self.index}"


@dataclass
class VerifyResult:
    """What ``verify`` found: a verdict per episode, plus what concerns the whole folder."""

    path: Path
    kind: Literal["run", "balrog-submission"] = "run"
    findings: list[Finding] = field(default_factory=list)
    #: figures of the folder that do not match its episodes (a BALROG ``summary.json``): each is a difference
    folder_differences: list[str] = field(default_factory=list)
    #: lines to show beside the counts (what was not compared, versions that differ from this machine's)
    notes: list[str] = field(default_factory=list)

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
        """Nothing differs and every scored episode was re-played (or its task is not reproducible by design)."""
        return self.ok and self.unchecked == 0


def verify(path: Path | str) -> VerifyResult:
    """Re-play every episode of the run (or BALROG submission folder) at ``path``; see the module doc.

    A folder that is neither is a PlaybenchError. Nothing is written to the folder.
    """
    path = Path(path)
    from playbench.log import RUN_JSON, is_run

    if not is_run(path):
        from playbench.api.verify_balrog import verify_submission
        from playbench.suites.balrog.submission import is_submission

        if is_submission(path):
            return verify_submission(path)
        if not (path / RUN_JSON).exists():
            raise PlaybenchError(f"{path} is neither a playbench run (no run.json) nor a BALROG submission folder")
    log = read_run(path)  # a run that cannot be read is refused here, in one line
    result = VerifyResult(path)
    with asyncio.Runner() as runner:  # one event loop for every episode's re-play
        _check_run(log, result, runner)
    if result.differing:
        result.notes.extend(version_notes(log))
    return result


def _check_run(log: RunLog, result: VerifyResult, runner: asyncio.Runner) -> None:
    """A finding for each episode that counts."""
    problems: dict[str, str | None] = {}  # task id -> why its episodes cannot be re-played here (None: they can)
    specs = {spec.id: spec for spec in log.config.tasks}
    agent = reference_agent(log.config.agent, log.config.agent_params)
    for record in log.episodes():
        task = find_task(record.task)
        spec = specs.get(record.task)
        if spec is None:
            result.findings.append(_differs(record, Difference("task", record.task, "(not a task of run.json)")))
            continue
        reason = _not_verifiable(record, task, spec.params, problems)
        if reason is not None:
            excused = record.status != "ok" or bool(task is not None and task.not_reproducible)
            result.findings.append(Finding(record.task, record.index, "not-verifiable", reason=reason,
                                           excused=excused))
            continue
        assert task is not None
        expected = episode_seed(log.config.seed, record.task, record.index)
        if record.seed != expected:
            result.findings.append(_differs(record, Difference("seed", record.seed, expected)))
            continue
        if record.index >= spec.episodes:
            result.findings.append(_differs(record, Difference("index", record.index, f"< {spec.episodes}")))
            continue
        steps, why = _steps(log, record)
        if steps is None:
            result.findings.append(Finding(record.task, record.index, "not-verifiable", reason=why))
            continue
        replay = _replay(record, task, task.params(spec.params), steps, agent, log.read_file)
        result.findings.append(settle(runner, record.task, record.index, replay))


def _differs(record: EpisodeRecord, difference: Difference) -> Finding:
    return Finding(record.task, record.index, "differs", difference=difference)


def _not_verifiable(record: EpisodeRecord, task: Task | None, params: dict[str, Any],
                    problems: dict[str, str | None]) -> str | None:
    """Why ``record`` cannot be re-played here, or None."""
    if record.status != "ok":
        return f"status {record.status}: the episode did not finish, so there is nothing to re-play"
    if task is None:
        return f"this playbench has no task {record.task}"
    return task_problem(task, params, problems)


def task_problem(task: Task, params: dict[str, Any], problems: dict[str, str | None]) -> str | None:
    """Why ``task``'s episodes cannot be re-played here (declared not reproducible, engine or data missing)."""
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


def _steps(log: RunLog, record: EpisodeRecord) -> tuple[list[StepRecord] | None, str]:
    """The episode's steps when they are all there, else None and why."""
    if not record.trajectory:
        return None, "no steps were recorded for it"
    try:
        steps = log.read_trajectory(record)
    except PlaybenchError as exc:
        return None, f"its steps cannot be read ({exc})"
    numbers = [s.step for s in steps]
    if numbers != list(range(record.steps)):
        return None, f"its trajectory is incomplete ({len(steps)} of the {record.steps} steps recorded)"
    return steps, ""


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


def reference_agent(name: str, values: dict[str, Any]) -> Callable[[], Agent] | None:
    """How to build agent ``name`` when it is a reference policy (it looks at the game's state), else None."""
    from playbench.agents.registry import get_agent

    try:
        spec = get_agent(name)
    except PlaybenchError:
        return None
    if not spec.reference:
        return None
    params = spec.params(values)
    return lambda: spec.factory(params, None)


class NotVerifiable(Exception):
    """Raised by a re-play that finds it cannot check what follows (the message says why)."""


def settle(runner: asyncio.Runner, task: str, index: int, replay: Coroutine[Any, Any, Difference | None]) -> Finding:
    """Run one episode's re-play to its verdict (what the game raises is blamed as the runner blames it)."""
    try:
        difference = runner.run(replay)
    except (PlaybenchError, NotVerifiable) as exc:
        return Finding(task, index, "not-verifiable", reason=str(exc))
    except OSError as exc:  # the machine, not the record
        return Finding(task, index, "not-verifiable", reason=f"environment: {exc}")
    except Exception as exc:  # noqa: BLE001  (the recorded episode ended ok; its re-play raised)
        difference = Difference("status", "ok", f"the game raised {type(exc).__name__}: {exc}")
    if difference is None:
        return Finding(task, index, "verified")
    return Finding(task, index, "differs", difference=difference)


async def _replay(record: EpisodeRecord, task: Task, params: Any, steps: list[StepRecord],
                  make_agent: Callable[[], Agent] | None, read_frame: Callable[[str], bytes]) -> Difference | None:
    """The runner's loop, with the recorded executed actions in place of the agent's.

    A reference policy looks at the game's state and may change it (TextWorld's random policy tracks
    admissible commands), so it plays alongside as it did, and its choices are checked too.
    """
    with fresh_game(task, params, record.index) as game:
        await game.prepare()
        obs, info = game.reset(seed=record.seed)
        agent = make_agent() if make_agent is not None else None
        if agent is not None:
            await agent.start(EpisodeContext(task.id, record.index, record.seed, info.get("manual", ""),
                                             game.unwrapped, task.one_step))
        total, invalid, done = 0.0, 0, False
        for step in steps:
            if done:
                return Difference("done", False, True, step.step - 1)
            legal = game.legal_actions()
            difference = (_differ("observation", step.observation, obs, step.step)
                          or _frame(step, info.get("image"), read_frame))
            if difference is None and agent is not None:
                decision = await agent.act(Turn(step.step, obs, info, legal))
                difference = _differ("action", step.action, decision.action, step.step)
            difference = difference or _validity(step, legal, game.default_action)
            if difference is not None:
                return difference
            obs, reward, terminated, truncated, info = game.step(step.executed)
            done = bool(terminated or truncated)
            total += float(reward)
            invalid += not step.valid
            difference = (_differ("reward", step.reward, float(reward), step.step)
                          or _differ("score", step.score, _number(info.get("score")) or 0.0, step.step)
                          or _differ("done", step.done, done, step.step))
            if difference is not None:
                return difference
        if not done:
            return Difference("done", True, False, len(steps) - 1)
        replayed = EpisodeRecord(  # the totals exactly as the runner makes them
            task=record.task, index=record.index, seed=record.seed, status="ok", agent=record.agent,
            score=_number(info.get("score")), completion=_number(info.get("completed", 0)),
            progress=_number(game.progress), reward=total, steps=len(steps), invalid_actions=invalid,
            metrics=dict(info.get("metrics", {})), instance=game.instance() or {},
        )
    recorded, again = record.model_dump(mode="json"), replayed.model_dump(mode="json")
    for name in TOTALS:
        difference = _differ(name, recorded[name], again[name])
        if difference is not None:
            return difference
    return None


def _frame(step: StepRecord, image: Any, read_frame: Callable[[str], bytes]) -> Difference | None:
    """In image mode, the recorded frame's pixels must be the image the game shows (PNG decoded, not its bytes)."""
    if image is None or step.frame is None:
        return None if image is None and step.frame is None else Difference(
            "frame", step.frame, None if image is None else "an image", step.step)
    import io

    import numpy as np
    from PIL import Image

    shown = np.asarray(image, dtype=np.uint8)
    try:
        with Image.open(io.BytesIO(read_frame(step.frame))) as png:
            if png.size != (shown.shape[1], shown.shape[0]):  # checked before decoding: a frame may come from anyone
                return Difference("frame", f"{png.size[0]}x{png.size[1]}", f"{shown.shape[1]}x{shown.shape[0]}",
                                  step.step)
            pixels = np.asarray(png.convert("RGB" if shown.ndim == 3 else "L"))
    except (OSError, ValueError, Image.DecompressionBombError) as exc:  # a damaged file, not the machine
        raise NotVerifiable(f"its frame {step.frame} cannot be read ({type(exc).__name__})") from None
    return None if np.array_equal(pixels, shown) else Difference("frame", step.frame, "other pixels", step.step)


def _validity(step: StepRecord, legal: list[str] | None, default: str) -> Difference | None:
    """A valid step executed the legal action the agent named; an invalid one the game's default action."""
    if step.valid:
        if step.action != step.executed:
            return Difference("action", step.action, step.executed, step.step)
        if legal is not None and step.executed not in legal:
            return Difference("valid", True, f"{step.executed!r} is not a legal action here", step.step)
        return None
    if step.action is not None:
        return Difference("action", step.action, None, step.step)
    return _differ("executed", step.executed, default, step.step)


def _differ(name: str, recorded: Any, replayed: Any, step: int | None = None) -> Difference | None:
    return None if same(recorded, replayed) else Difference(name, recorded, replayed, step)


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


def _number(value: Any) -> float | None:
    """The runner's reading of a number in ``info``."""
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None


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


def version_notes(log: RunLog) -> list[str]:
    """A line naming the deciding packages whose version here differs from the run's (engines may differ)."""
    from playbench.api.versions import NOT_DECIDING, versions

    here = versions()
    changed = [f"{name} {was} (here {here.get(name, 'absent')})" for name, was in sorted(log.meta.versions.items())
               if name not in NOT_DECIDING and here.get(name) != was]
    if not changed:
        return []
    return ["the run was recorded with other versions, which may explain differences: " + ", ".join(changed)]

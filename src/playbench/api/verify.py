"""``playbench verify``: re-play a run's recorded episodes through fresh engines and check every record.

Each recorded episode with steps is played again exactly as the runner played it: the task's game made
from the parameters in ``run.json``, reset with the episode's recorded seed (itself checked against the
run's base seed), then stepped with each recorded *executed* action. Model output is never re-used: what
the agent answered is the agent's business; what the engine did with the executed action is checked. At
each step the recorded observation (and frame, in image mode), validity (a valid step executed a legal
action named by the agent; an invalid one the game's default action), reward, score and done must be what
the engine gives, and at the end the episode's status and totals (steps, reward, invalid actions, score,
completion, progress, metrics, instance). An episode recorded as an error (``infra-error`` …) is re-played
through its recorded steps too: if its game ends there, the episode finished, the re-play's status is
``ok`` and the record differs; if not, its totals must be an unfinished episode's (no score). A step count
that is not the number of steps stored differs (the claim is compared, never used to size anything).

Episodes that cannot be checked are counted apart, each with why: steps missing or damaged, an engine or
data file missing here, or a task that declares its engine not reproducible (``Task.not_reproducible``).
The run's own schedule is checked too: each ``(task, index)`` run.json schedules has a record or is counted
missing (the first few named), from the counts alone, never by listing the schedule. BALROG's submission
folders (``export --format balrog``) are re-played by ``verify_balrog.py``.
"""

import asyncio
import itertools
import math
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from playbench.agents.base import Agent, EpisodeContext, Turn
from playbench.core.errors import PlaybenchError
from playbench.core.records import EpisodeRecord, RunConfig, StepRecord, finite
from playbench.core.registry import find_task
from playbench.core.seeding import episode_seed
from playbench.core.task import Task
from playbench.log.read import RunLog, read_run

Verdict = Literal["verified", "differs", "not-verifiable"]
#: How many missing episodes a result names (the rest are counted).
NAMED_MISSING = 5
#: Episode totals compared after the last step, in the order they are reported.
TOTALS = ("status", "steps", "reward", "invalid_actions", "score", "completion", "progress", "metrics", "instance")


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
    """What ``verify`` found: a verdict per episode, plus what concerns the whole folder."""

    path: Path
    kind: Literal["run", "balrog-submission"] = "run"
    findings: list[Finding] = field(default_factory=list)
    #: figures of the folder that do not match its episodes (a BALROG ``summary.json``): each is a difference
    folder_differences: list[str] = field(default_factory=list)
    #: lines to show beside the counts (what was not compared, versions that differ from this machine's)
    notes: list[str] = field(default_factory=list)
    #: episodes run.json schedules (a BALROG folder records no schedule: 0)
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
    _check_schedule(log.config, result)
    if result.differing:
        result.notes.extend(version_notes(log))
    return result


def _check_run(log: RunLog, result: VerifyResult, runner: asyncio.Runner) -> None:
    """A finding for each episode that counts."""
    problems: dict[str, str | None] = {}  # task id -> why its episodes cannot be re-played here (None: they can)
    specs = {spec.id: spec for spec in log.config.tasks}
    agent = reference_agent(log.config.agent, log.config.agent_params)
    for record in log.episodes():
        spec = specs.get(record.task)
        if spec is None:
            result.findings.append(_differs(record, Difference("task", record.task, "(not a task of run.json)")))
            continue
        result.findings.append(_check(log, record, spec.params, spec.episodes, problems, agent, runner))


def _check(log: RunLog, record: EpisodeRecord, values: dict[str, Any], episodes: int,
           problems: dict[str, str | None], agent: Callable[[], Agent] | None, runner: asyncio.Runner) -> Finding:
    """The verdict on one record of a task of the run (``values``: its run.json parameters)."""
    task = find_task(record.task)
    reason = f"this playbench has no task {record.task}" if task is None else task_problem(task, values, problems)
    if reason is not None:
        return _unchecked(record, task, reason)
    assert task is not None
    expected = episode_seed(log.config.seed, record.task, record.index)
    if record.seed != expected:
        return _differs(record, Difference("seed", record.seed, expected))
    if not 0 <= record.index < episodes:
        return _differs(record, Difference("index", record.index, f"0 <= index < {episodes}"))
    steps, why = _steps(log, record)
    if steps is None:
        return _unchecked(record, task, why)
    if len(steps) != record.steps:  # the claim is compared, never used to size anything
        return _differs(record, Difference("steps", record.steps, len(steps)))
    replay = _replay(record, task, task.params(values), steps, agent, log.read_file)
    return settle(runner, record.task, record.index, replay, record.status)


def _differs(record: EpisodeRecord, difference: Difference) -> Finding:
    return Finding(record.task, record.index, "differs", difference=difference)


def _unchecked(record: EpisodeRecord, task: Task | None, reason: str) -> Finding:
    """Not verifiable; excused when the episode holds no score or its task is not reproducible by design."""
    excused = record.status != "ok" or bool(task is not None and task.not_reproducible)
    return Finding(record.task, record.index, "not-verifiable", reason=reason, excused=excused)


def _check_schedule(config: RunConfig, result: VerifyResult) -> None:
    """Count the scheduled episodes without a record and name the first few.

    The work is proportional to the records: counts are compared per task, and the missing indexes named are
    found by walking up from 0 past recorded ones, never by listing the schedule.
    """
    recorded: dict[str, set[int]] = {}
    for finding in result.findings:
        recorded.setdefault(finding.task, set()).add(finding.index)
    for spec in config.tasks:
        count = max(spec.episodes, 0)
        have = {index for index in recorded.get(spec.id, ()) if 0 <= index < count}
        result.scheduled += count
        result.missing += count - len(have)
        wanted = NAMED_MISSING - len(result.missing_named)
        if wanted > 0 and count > len(have):
            gaps = (index for index in itertools.count() if index not in have)
            result.missing_named.extend(f"{spec.id} #{index}" for index in itertools.islice(gaps, wanted)
                                        if index < count)


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
    """The episode's stored steps when they are whole and numbered from 0, else None and why."""
    if not record.trajectory:
        if record.status != "ok":
            return None, f"status {record.status}: no steps were recorded, so there is nothing to re-play"
        return None, "no steps were recorded for it"
    try:
        steps = log.read_trajectory(record)
    except PlaybenchError as exc:
        return None, f"its steps cannot be read ({exc})"
    if any(step.step != number for number, step in enumerate(steps)):
        return None, f"its trajectory is damaged (its {len(steps)} steps are not numbered 0, 1, 2 …)"
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


async def _replay(record: EpisodeRecord, task: Task, params: Any, steps: list[StepRecord],
                  make_agent: Callable[[], Agent] | None, read_frame: Callable[[str], bytes]) -> Difference | None:
    """The runner's loop, with the recorded executed actions in place of the agent's.

    An ``ok`` record must end with its game; an error record is the unfinished episode the runner records,
    unless its game ends with its last step (then the episode finished and the re-play says ``ok``).
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
        if record.status == "ok" and not done:
            return Difference("done", True, False, len(steps) - 1)
        outcome: dict[str, Any] = {"score": _number(info.get("score")), "completion": _number(info.get("completed", 0)),
                                   "progress": _number(game.progress), "metrics": dict(info.get("metrics", {}))}
        replayed = _as_runner_records(record, done, outcome, total, len(steps), invalid, game.instance() or {})
    recorded, again = record.model_dump(mode="json"), replayed.model_dump(mode="json")
    for name in TOTALS:
        difference = _differ(name, recorded[name], again[name])
        if difference is not None:
            return difference
    return None


def _as_runner_records(record: EpisodeRecord, done: bool, outcome: dict[str, Any], reward: float, steps: int,
                       invalid: int, instance: dict[str, Any]) -> EpisodeRecord:
    """The re-played episode's record exactly as the runner makes it.

    A game that ended finished the episode (``ok``, scored); one that did not is the unfinished episode an
    error record describes (its status kept, no score). Numbers that are not finite make it the game's
    error, as in the runner.
    """
    status = "ok" if done else record.status
    if not done:
        outcome = {}
    if not (finite(reward) and finite(outcome) and finite(instance)):
        status, outcome = "game-error", {}
        reward, instance = (reward if finite(reward) else 0.0), (instance if finite(instance) else {})
    ok = status == "ok"
    return EpisodeRecord(
        task=record.task, index=record.index, seed=record.seed, status=status, agent=record.agent,
        score=outcome["score"] if ok else None, completion=outcome["completion"] if ok else None,
        progress=outcome["progress"] if ok else None, reward=reward, steps=steps, invalid_actions=invalid,
        metrics=outcome["metrics"] if ok else {}, instance=instance,
    )


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

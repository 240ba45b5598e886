"""``playbench verify``: re-play a run's recorded episodes through fresh engines and check every record.

Each recorded episode with steps is played again exactly as the runner played it: the task's game made
from the parameters in ``run.json``, reset with the episode's recorded seed (itself checked against the
run's: given by ``--instances``, else derived from the base seed), then stepped with each recorded *executed*
action. Model output is never re-used: what the agent answered is the agent's business; what the engine did
with the executed action is checked. At each step the recorded observation (and frame, in image mode),
validity (a valid step executed a legal action named by the agent; an invalid one the game's default action),
reward, score and done must be what the engine gives, as must the observation after the last step where it is
recorded (runs written before kept none), and at the end the episode's status and totals (steps, reward,
invalid actions, score, completion, progress, metrics, instance). An episode recorded as an error
(``infra-error`` …) is re-played through its recorded steps too: if its game ends there, the episode finished,
the re-play's status is ``ok`` and the record differs; if not, its totals must be an unfinished episode's (no
score). A step count that is not the number of steps stored differs (the claim is compared, never used to size
anything).

Episodes that cannot be checked are counted apart, each with why: steps missing or damaged, an engine or
data file missing here, or a task that declares its engine not reproducible (``Task.not_reproducible``).
The run's own schedule is checked too: each ``(task, index)`` run.json schedules has a record or is counted
missing (the first few named), from the counts alone, never by listing the schedule. The re-played record is
built by the runner's own code (``runner/outcome.py``), so verify and the runner cannot disagree on a rule.

A folder that is no run but is of a format a suite declares (BALROG's submission folder, ``export --format
balrog``) is re-played by that format's ``verify`` hook, to which this module lends the reference policies.
"""

import asyncio
import itertools
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, cast

from playbench.agents.base import Agent, Decision, EpisodeContext, Turn
from playbench.core.errors import PlaybenchError
from playbench.core.game import start
from playbench.core.records import EpisodeRecord, RunConfig, StepRecord
from playbench.core.registry import find_task
from playbench.core.suite import FolderVerify, FormatHooks, Policy, SettingsVerify
from playbench.core.task import Task
from playbench.core.verdict import (
    Difference,
    Finding,
    NotVerifiable,
    Verdict,
    VerifyResult,
    fresh_game,
    same,
    settle,
    shorten,
    task_problem,
)
from playbench.log.read import RunLog, read_run
from playbench.runner.outcome import Fault, Tally, episode_record, final_observation, game_end, number
from playbench.runner.plan import EpisodeJob

__all__ = ["Difference", "Finding", "NotVerifiable", "Verdict", "VerifyResult", "fresh_game", "lend_policy",
           "reference_agent", "same", "settle", "shorten", "task_problem", "verify"]

#: How many missing episodes a result names (the rest are counted).
NAMED_MISSING = 5
#: Episode totals compared after the last step, in the order they are reported.
TOTALS = ("status", "steps", "reward", "invalid_actions", "score", "completion", "progress", "metrics", "instance")


def verify(path: Path | str, settings: Mapping[str, str] | None = None) -> VerifyResult:
    """Re-play every episode of the run (or folder of a suite's format) at ``path``; see the module doc.

    ``settings``: what a suite's folder may need to be re-played (``-T KEY=VALUE``: a BALROG row's Boxoban
    episodes, ``levels``); a run records its own, so it takes none. A folder that is neither is a
    PlaybenchError. Nothing is written to the folder.
    """
    path = Path(path)
    from playbench.api import formats
    from playbench.log import RUN_JSON

    found = formats.format_of(path)
    if found is not None:
        if found[1].verify is None:
            raise PlaybenchError(f"{path} is a {found[1].title} folder, which its format does not re-play")
        return _verify_folder(path, found[1], dict(settings or {}))
    if not (path / RUN_JSON).exists():
        kinds = "".join(f" nor a {hooks.title} folder" for hooks in formats.every().values() if hooks.verify)
        raise PlaybenchError(f"{path} is neither a playbench run (no run.json){kinds}")
    if settings:
        raise PlaybenchError(f"-T {next(iter(settings))[:40]}: a playbench run is re-played with the parameters it "
                             "records; -T is for a suite's folder")
    log = read_run(path)  # a run that cannot be read is refused here, in one line
    result = VerifyResult(path)
    with asyncio.Runner() as runner:  # one event loop for every episode's re-play
        _check_run(log, result, runner)
    _check_schedule(log.config, result)
    if result.differing:
        result.notes.extend(version_notes(log))
    return result


def _verify_folder(path: Path, hooks: FormatHooks, settings: dict[str, str]) -> VerifyResult:
    """The format's re-play of the folder, with verify's ``-T`` settings where it names them."""
    assert hooks.verify is not None
    for name in settings:
        if name not in hooks.verify_options:
            takes = "; ".join(f"-T {key}=...: {help}" for key, help in hooks.verify_options.items())
            raise PlaybenchError(f"-T {name[:40]}: a {hooks.title} folder's verify takes "
                                 f"{takes or 'no -T setting'}")
    if hooks.verify_options:
        return cast(SettingsVerify, hooks.verify)(path, lend_policy, settings)
    return cast(FolderVerify, hooks.verify)(path, lend_policy)


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
    expected = log.config.episode_seed(record.task, record.index)  # given (--instances) or derived
    if record.seed != expected:
        return _differs(record, Difference("seed", record.seed, expected))
    options = log.config.episode_options(record.task, record.index)  # what else fixes the instance (--instances)
    if record.options != options:
        return _differs(record, Difference("options", record.options, options))
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


class _Alongside:
    """A reference agent driven by a format's re-play (``core.suite.Policy``): the agents stay the library's."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent

    async def start(self, task: Task, index: int, seed: int, info: dict[str, Any], game: Any) -> None:
        """Start the agent's episode as the runner does."""
        await self.agent.start(EpisodeContext(task.id, index, seed, info.get("manual", ""), game.unwrapped,
                                              task.one_step))

    async def act(self, step: int, observation: str, info: dict[str, Any], legal: list[str] | None) -> str | None:
        """The legal action the agent names."""
        return (await self.agent.act(Turn(step, observation, info, legal))).action


def lend_policy(agent: str) -> Callable[[], Policy] | None:
    """A maker of reference policy ``agent`` with its default settings, for a format's re-play; None: none."""
    make = reference_agent(agent, {})
    return None if make is None else lambda: _Alongside(make())


#: what the re-play counts a step with: the recorded step's validity and reward, no model usage
_REPLAYED = Decision(raw="", action=None)


async def _replay(record: EpisodeRecord, task: Task, params: Any, steps: list[StepRecord],
                  make_agent: Callable[[], Agent] | None, read_frame: Callable[[str], bytes]) -> Difference | None:
    """The runner's loop, with the recorded executed actions in place of the agent's.

    An ``ok`` record must end with its game; an error record is the unfinished episode the runner records,
    unless its game ends with its last step (then the episode finished and the re-play says ``ok``). The
    re-played record is the runner's own (``outcome.episode_record``), its game ended as the runner ends it.
    """
    tally = Tally()
    game = task.make_game(params, record.index)
    try:
        difference = await _play(game, record, task, steps, make_agent, read_frame, tally)
    finally:
        instance, progress = game_end(game)
    if difference is not None:
        return difference
    if not tally.done:
        if record.status == "ok":
            return Difference("done", True, False, len(steps) - 1)
        tally.fault = Fault(record.status, record.error or "")  # the unfinished episode its error record says
    job = EpisodeJob(task, params, record.index, record.seed, record.options)
    replayed = episode_record(job, record.agent, record.model, tally, instance, progress)
    recorded, again = record.model_dump(mode="json"), replayed.model_dump(mode="json")
    for name in TOTALS:
        difference = _differ(name, recorded[name], again[name])
        if difference is not None:
            return difference
    return None


async def _play(game: Any, record: EpisodeRecord, task: Task, steps: list[StepRecord],
                make_agent: Callable[[], Agent] | None, read_frame: Callable[[str], bytes],
                tally: Tally) -> Difference | None:
    """Play the recorded steps again into ``tally``: the first step that differs from its record, else None.

    A reference policy looks at the game's state and may change it (TextWorld's random policy tracks
    admissible commands), so it plays alongside as it did, and its choices are checked too.
    """
    obs, tally.info = await start(game, record.seed, record.options)
    agent = make_agent() if make_agent is not None else None
    if agent is not None:
        await agent.start(EpisodeContext(task.id, record.index, record.seed, tally.info.get("manual", ""),
                                         game.unwrapped, task.one_step))
    for step in steps:
        if tally.done:
            return Difference("done", False, True, step.step - 1)
        legal = game.legal_actions()
        difference = (_differ("observation", step.observation, obs, step.step)
                      or _frame(step, tally.info.get("image"), read_frame))
        if difference is None and agent is not None:
            decision = await agent.act(Turn(step.step, obs, tally.info, legal))
            difference = _differ("action", step.action, decision.action, step.step)
        difference = difference or _validity(step, legal, game.default_action)
        if difference is not None:
            return difference
        obs, reward, terminated, truncated, tally.info = game.step(step.executed)
        tally.done = bool(terminated or truncated)
        tally.count(_REPLAYED, step.valid, float(reward))
        tally.steps += 1
        difference = (_differ("reward", step.reward, float(reward), step.step)
                      or _differ("score", step.score, number(tally.info.get("score")) or 0.0, step.step)
                      or _differ("done", step.done, tally.done, step.step)
                      or _after(step, tally, obs))
        if difference is not None:
            return difference
    return None


def _after(step: StepRecord, tally: Tally, obs: str) -> Difference | None:
    """The game's observation after the step, where the step records one (a run written before records none)."""
    if step.next_observation is None:
        return None
    return _differ("next_observation", step.next_observation, final_observation(tally, obs), step.step)


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


def version_notes(log: RunLog) -> list[str]:
    """A line naming the deciding packages whose version here differs from the run's (engines may differ)."""
    from playbench.api.versions import NOT_DECIDING, versions

    here = versions()
    changed = [f"{name} {was} (here {here.get(name, 'absent')})" for name, was in sorted(log.meta.versions.items())
               if name not in NOT_DECIDING and here.get(name) != was]
    if not changed:
        return []
    return ["the run was recorded with other versions, which may explain differences: " + ", ".join(changed)]

"""Branching from a recorded step: a run's episode as it stood at step ``k``, for ``ChatEnv.from_branch``.

``branch_point(run, task, index, step)`` reads the run through ``playbench.log`` (a run folder is a trust
boundary) and returns a :class:`Branch`: the environment spec the run's ``run.json`` makes, the answers its
model gave before step ``k``, and what it recorded for those steps. A ChatEnv made from it re-plays that
prefix through the runner, as every ChatEnv plays: the same agent, fed the same answers, makes the same
requests and executes the recorded actions in a fresh game reset as the run reset it (the runner's own
schedule of the run: ``plan_jobs`` over its ``run.json``, so an ``eval --instances`` run's given seeds are
the episodes' seeds, as a resume plays them). Each re-played
step is then compared with the run's, with ``playbench verify``'s comparison (observation, validity,
reward, score, done, and the request, byte for byte as JSON), and so is the request it reaches at step
``k``; the first difference refuses the branch in one line. Nothing of a game is copied: every branch
re-plays its prefix, so ``n`` branches are ``n`` independent games.

Only the agent's side of the prefix is re-made, never a server's: token counts are the channel's estimates
(as for any ChatEnv) and a provider's separate reasoning text is not in the re-played steps' ``extra``.
"""

import dataclasses
import hashlib
from pathlib import Path
from typing import Any

import orjson

from playbench.api.verify import Difference, _steps, same, task_problem
from playbench.core.errors import PlaybenchError
from playbench.core.records import StepRecord
from playbench.core.registry import get_task
from playbench.log.read import read_run
from playbench.models.types import MOCK_KEYS
from playbench.rl.chat_env import EnvSpec, env_spec
from playbench.runner.plan import EpisodeJob, plan_jobs

#: the fields of each step before ``k`` that its re-play must give again (the request is compared apart)
CHECKED = ("observation", "raw_output", "action", "executed", "valid", "reward", "score", "done")
#: answers a step's record keeps besides ``raw_output``, asked before it, per agent that asks more than once
#: a step (SmartPlay's two-stage agent: its *think* answer; that request is not recorded, only the second)
EARLIER_ANSWERS = {"two-stage": ("stage1",)}


@dataclasses.dataclass(frozen=True)
class Recorded:
    """What the run recorded for one step before the branch point."""

    values: tuple[Any, ...]  # the ``CHECKED`` fields, in that order
    request: bytes  # the SHA-256 of the request's JSON (the requests are the bulk of a trajectory)


@dataclasses.dataclass(frozen=True)
class Branch:
    """Episode ``index`` of the run at ``run`` as it stood at step ``step`` (read-only; share it across branches)."""

    run: str  # the run's path as given (for messages)
    spec: EnvSpec
    index: int
    step: int
    job: EpisodeJob  # the episode as the run scheduled it (its seed, and whatever else its reset takes)
    answers: tuple[str, ...]  # the model's answers before ``step``, in the order the agent asked
    recorded: tuple[Recorded, ...]  # steps 0 .. step-1
    request: bytes  # the run's request at ``step``, as JSON

    @property
    def seed(self) -> int:
        """The episode's seed, as the run scheduled it (and its record holds)."""
        return self.job.seed

    @property
    def name(self) -> str:
        """``task #index at step k``."""
        return f"{self.spec.task_id} #{self.index} at step {self.step}"

    def difference(self, steps: list[StepRecord], pending: list[dict[str, Any]] | None) -> Difference | None:
        """Where a re-play (its ``steps`` and the request it now waits on) parts from the run; None if nowhere."""
        for number, (want, got) in enumerate(zip(self.recorded, steps, strict=False)):
            for name, value in zip(CHECKED, want.values, strict=True):
                if not same(value, getattr(got, name)):
                    return Difference(name, value, getattr(got, name), number)
            if _digest(got.messages) != want.request:
                return Difference("messages", "the run's request", "another request", number)
        if len(steps) != self.step:
            return Difference("steps", self.step, len(steps))
        if pending is None:
            return Difference("done", False, True, self.step - 1)
        sent = orjson.dumps(pending)
        if sent == self.request:
            return None
        recorded = orjson.loads(self.request)
        if self.spec.agent.name in EARLIER_ANSWERS and orjson.dumps(recorded[:len(pending)]) == sent:
            return None  # the step's first request: the recorded (last) one extends it
        return Difference("messages", "the run's request", "another request", self.step)


def _digest(messages: Any) -> bytes:
    return hashlib.sha256(orjson.dumps(messages)).digest()


def _given(values: dict[str, Any], leave: tuple[str, ...] = ()) -> dict[str, Any]:
    """Recorded parameters as a caller gives them (``None`` is a default no ``key=value`` can name)."""
    return {key: value for key, value in values.items() if value is not None and key not in leave}


def _whole(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise PlaybenchError(f"{name} {value!r}: must be a whole number of at least 0")
    return value


def branch_point(run: Path | str, task: str, index: int, step: int, model: str | None = None) -> Branch:
    """Read episode ``index`` of ``task`` in the run at ``run`` up to step ``step`` (see the module doc).

    ``model`` is the name the branch's records carry (the run's model when None). What cannot be branched
    is a PlaybenchError of one line: not a run, no such task, episode or step, steps missing or damaged, a
    run played without a model, an engine or data file missing here, a task declared not reproducible.
    """
    _whole("index", index)
    _whole("step", step)
    log = read_run(run)  # a run that cannot be read is refused here, in one line
    config = log.config
    where = f"{run}: {task} #{index}"
    rows = {row.id: row for row in config.tasks}
    if task not in rows:
        task = get_task(task).id  # an alias names the task the run records under its id
    row = rows.get(task)
    if row is None:
        raise PlaybenchError(f"{run}: the run has no task {task} (it has {', '.join(rows) or 'none'})")
    if index >= row.episodes:
        raise PlaybenchError(f"{where}: the run schedules {row.episodes} episode(s) of {task}")
    if config.model is None:
        raise PlaybenchError(f"{run}: agent {config.agent!r} played it without a model; a branch is played by a "
                             "model agent")
    record = log.latest_episodes().get((task, index))
    if record is None:
        raise PlaybenchError(f"{where}: the run has no record of this episode")
    spec = env_spec(task, config.seed, config.agent, _given(row.params), _given(config.agent_params),
                    model or config.model, _given(config.model_params, MOCK_KEYS))  # the caller answers, not a mock
    if spec.config.tasks[0].params != row.params or spec.config.agent_params != config.agent_params:
        raise PlaybenchError(f"{run}: the parameters run.json records are not those this playbench makes of them")
    problem = task_problem(spec.task, row.params, {})
    if problem is not None:
        raise PlaybenchError(f"{where} cannot be re-played here: {problem}")
    job = plan_jobs(config.model_copy(update={"tasks": [row]}))[index]  # the runner's schedule, as a resume reads it
    if record.seed != job.seed:
        raise PlaybenchError(f"{where}: its seed {record.seed} is not the run's ({job.seed})")
    steps, why = _steps(log, record)
    if steps is None:
        raise PlaybenchError(f"{where} cannot be re-played: {why}")
    if len(steps) != record.steps:
        raise PlaybenchError(f"{where}: its record claims {record.steps} steps, its trajectory holds {len(steps)}")
    if step >= len(steps):
        raise PlaybenchError(f"{where}: step {step} is not a recorded step (0 .. {len(steps) - 1})")
    if any(s.messages is None or s.raw_output is None for s in steps[:step + 1]):
        raise PlaybenchError(f"{where}: its steps do not record the model's requests and answers")
    return Branch(run=str(run), spec=spec, index=index, step=step, job=job,
                  answers=tuple(answer for s in steps[:step] for answer in _answers(s, config.agent, where)),
                  recorded=tuple(Recorded(tuple(getattr(s, name) for name in CHECKED), _digest(s.messages))
                                 for s in steps[:step]),
                  request=orjson.dumps(steps[step].messages))


def _answers(step: StepRecord, agent: str, where: str) -> list[str]:
    """The model's answers of one recorded step, in the order they were asked."""
    answers: list[str] = []
    for key in EARLIER_ANSWERS.get(agent, ()):
        answer = step.extra.get(key)
        if not isinstance(answer, str):
            raise PlaybenchError(f"{where}: step {step.step} does not record its {key} answer")
        answers.append(answer)
    return [*answers, step.raw_output or ""]

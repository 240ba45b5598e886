"""``ChatEnv``: one playbench episode as a chat environment, ``reset() -> messages``, ``step(text)``.

The episode is played by the runner's own ``play_episode`` with a registered agent, exactly as in
``playbench eval``; the agent's model is a channel (``rl/channel.py``) that hands each request out of
``reset``/``step`` and waits for the caller's answer. So the requests, the parsing of answers, the step
records and the episode record are those of an eval run, by construction: nothing here re-plays the loop.

Async callers use ``areset``/``astep`` inside their own event loop (the episode runs as a task of that
loop). ``reset``/``step`` play the same episode on an event loop of the calling thread, shared by the
thread's environments (no thread, no loop per environment); they refuse to run inside a running loop.
While the episode awaits nothing but its caller's answers (the usual case: the games step synchronously),
its coroutine is stepped by hand, as the loop's running code, with no task and no pass of the loop: a step
hands the answer in and goes on until the episode asks again. The first time it awaits anything else (a
game prepared in a thread, say), a task of the loop goes on with it from there; a synchronous step then runs
the loop until the episode asks again (one pass, as nothing else is waiting on it).

``ChatEnv.from_record(run, task, index, step=k)`` starts at step ``k`` of a recorded episode: its prefix is
re-played with the run's answers and checked against the run (``rl/branching.py``), then the caller answers.
"""

import asyncio
import contextvars
import dataclasses
import functools
import threading
import types
from collections import deque
from collections.abc import Callable, Coroutine, Generator
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from playbench.agents.base import Agent
from playbench.agents.registry import AgentSpec, get_agent
from playbench.api.config import KeyValues, build_config, check_text, key_value_items
from playbench.api.workers import registered_agent
from playbench.core.errors import PlaybenchError
from playbench.core.params import Params, parse_key_values
from playbench.core.records import EpisodeRecord, RunConfig, StepRecord
from playbench.core.registry import get_task
from playbench.core.seeding import episode_seed
from playbench.core.task import Task
from playbench.log.paths import frame_path
from playbench.models.model import Model
from playbench.models.providers.openai import wire_messages as openai_messages
from playbench.models.types import MOCK_KEYS, GenerateConfig, Message, build_generate_config
from playbench.rl.channel import answered_by, channel_model
from playbench.runner.plan import EpisodeJob
from playbench.runner.runner import play_episode

if TYPE_CHECKING:
    from playbench.rl.branching import Branch

#: the model name records carry when the caller names none (give yours: ``model="vllm/Qwen3-8B"``)
DEFAULT_MODEL = "rl/policy"


@dataclasses.dataclass(frozen=True)
class EnvSpec:
    """A validated request (task, agent, model, seed and parameters), shared read-only by its environments.

    Build it once with :func:`env_spec` and make many environments from it (``ChatEnv.from_spec``): the
    validation (data files included) is then done once, not per environment.
    """

    config: RunConfig  # the run config ``build_config`` makes for this one task (``episodes`` is 1)
    task: Task
    params: Params
    agent: AgentSpec
    agent_params: Params
    generate: GenerateConfig
    channel: "_Channel" = dataclasses.field(default_factory=lambda: _Channel(), init=False, repr=False, compare=False)
    #: the job of the last episode index an environment was made for (a GRPO group's copies come one after another)
    recent: list[EpisodeJob] = dataclasses.field(default_factory=list, init=False, repr=False, compare=False)
    #: ``task`` as its ChatEnvs play it: each game it makes is handed to the episode's ChatEnv (see ``_watched``)
    played: Task = dataclasses.field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        played = dataclasses.replace(self.task, make_game=functools.partial(_watched, self.task.make_game))
        object.__setattr__(self, "played", played)  # made once here, not per episode

    @property
    def task_id(self) -> str:
        """The task's id (an alias given is resolved)."""
        return self.task.id


class _Channel:
    """A spec's channel model on the event loop that last played its episodes.

    One Model serves every episode of a loop, as one serves every episode of an eval run (each episode's
    task names its own answerer); a Model keeps per-loop state, so another loop gets a model of its own.
    """

    def __init__(self) -> None:
        self._held: tuple[asyncio.AbstractEventLoop, Model] | None = None

    def model(self, spec: "EnvSpec", loop: asyncio.AbstractEventLoop) -> Model:
        """The channel model for ``spec``'s episodes on ``loop``."""
        held = self._held  # read once: another thread may replace it
        if held is not None and held[0] is loop:
            return held[1]
        model = channel_model(spec.config.model or DEFAULT_MODEL, spec.generate)
        self._held = (loop, model)
        return model


def env_spec(task: str, seed: int = 0, agent: str = "naive", task_params: KeyValues = None,
             agent_params: KeyValues = None, model: str = DEFAULT_MODEL, model_params: KeyValues = None) -> EnvSpec:
    """Validate a request as ``playbench eval`` does (``build_config``) and return its :class:`EnvSpec`.

    ``task`` is one task id or alias; ``agent`` a registered model agent; ``seed`` the run's base seed.
    Bad input is a PlaybenchError (one line).
    """
    check_text({"tasks": (task,), "task_params": task_params, "agent_params": agent_params,
                "model_params": model_params, "model": model, "agent": agent})
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise PlaybenchError(f"seed {seed!r}: must be a whole number")
    margs = key_value_items(model_params)
    mvalues = parse_key_values(margs, "-M")
    from playbench.models.factory import refuse_credentials

    refuse_credentials(model, mvalues)
    generate = build_generate_config(mvalues, f"model {model}")
    if any(getattr(generate, k) for k in MOCK_KEYS):
        raise PlaybenchError("-M script, invalid_rate and latency are settings of the mock provider; "
                             "a ChatEnv's answers come from its caller")
    if "/" not in model.strip("/"):
        raise PlaybenchError(f"model {model!r}: give provider/name (e.g. vllm/Qwen3-8B), as records name models")
    spec = get_agent(agent)
    if not spec.needs_model:
        raise PlaybenchError(f"agent {agent!r} plays without a model; a ChatEnv is played by a model agent "
                             "(naive, cot, robust-naive, robust-cot, custom, few-shot, two-stage)")
    config = build_config((task,), agent, model, 1, seed, key_value_items(task_params),
                          key_value_items(agent_params), margs)
    if len(config.tasks) != 1:
        raise PlaybenchError(f"{task} names {len(config.tasks)} tasks; a ChatEnv plays one task")
    registered_agent(config, lambda: None)  # the checks eval makes before a run (preflight), once
    found = get_task(config.tasks[0].id)
    return EnvSpec(config=config, task=found, params=found.params(config.tasks[0].params), agent=spec,
                   agent_params=spec.params(config.agent_params), generate=generate)


class StepResult(NamedTuple):
    """What ``step`` returns (unpacks like gymnasium's five values)."""

    messages: list[dict[str, Any]]  # the next request; [] once the episode is over
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any]


@dataclasses.dataclass(frozen=True)
class Rollout:
    """A finished episode: what :func:`playbench.rl.write_run` writes (plain data, picklable)."""

    config: RunConfig
    record: EpisodeRecord
    steps: list[StepRecord]
    frames: dict[int, Any] = dataclasses.field(default_factory=dict)  # step -> the RGB frame the agent saw


class _Watched:
    """The episode's game seen through: the runner plays it unchanged; its last step's flags are kept."""

    __slots__ = ("_game", "_seen")

    def __init__(self, game: Any, seen: Callable[[bool, bool], None]) -> None:
        self._game = game
        self._seen = seen

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)

    # What the runner asks of every game, forwarded without the ``__getattr__`` detour (a failed lookup first).

    @property
    def unwrapped(self) -> Any:
        """The game's own unwrapped game (what the agent's context is given)."""
        return self._game.unwrapped

    def legal_actions(self) -> Any:
        """The game's own legal actions."""
        return self._game.legal_actions()

    @property
    def default_action(self) -> Any:
        """The game's own default action."""
        return self._game.default_action

    def prepare(self, *args: Any, **kwargs: Any) -> Any:
        """The game's own preparation (its coroutine itself: no second one around it)."""
        return self._game.prepare(*args, **kwargs)

    def reset(self, *args: Any, **kwargs: Any) -> Any:
        """The game's own reset."""
        return self._game.reset(*args, **kwargs)

    def instance(self) -> Any:
        """The game's own instance description."""
        return self._game.instance()

    @property
    def progress(self) -> Any:
        """The game's own progress."""
        return self._game.progress

    def close(self) -> None:
        """The game's own close."""
        self._game.close()

    def step(self, action: str) -> Any:
        """The game's own step; ``terminated`` and ``truncated`` are noted on the way out."""
        out = self._game.step(action)
        self._seen(bool(out[2]), bool(out[3]))
        return out


#: the script of an episode that is no branch: empty, so shared (only a branch's own script is taken from)
_NO_SCRIPT: deque[str] = deque()

#: the ChatEnv whose episode task is running (set by the task itself: each task has its own)
_PLAYING: ContextVar["ChatEnv"] = ContextVar("playbench_chat_env")


def _watched(make_game: Callable[[Any, int], Any], params: Any, index: int) -> Any:
    """``make_game`` of an ``EnvSpec.played`` task: the game made, kept by the episode's ChatEnv and watched."""
    env = _PLAYING.get()
    env._game = make_game(params, index)
    return _Watched(env._game, env._note)


def _episode_job(spec: EnvSpec, index: int) -> EpisodeJob:
    """Episode ``index`` of ``spec`` checked and its job made, or the job made last when it is that episode's."""
    recent = spec.recent[-1:]  # read once: another thread may replace it
    if recent and recent[0].index == index:
        return recent[0]
    spec.task.check_episodes(spec.params, index + 1)
    seed = episode_seed(spec.config.seed, spec.task.id, index)  # as plan_jobs derives it
    job = EpisodeJob(spec.played, spec.params, index, seed)
    spec.recent[:] = [job]
    return job


@types.coroutine
def _resume(coro: Coroutine[Any, Any, None], awaited: Any) -> Generator[Any, None, None]:
    """Go on, as a task's, with a coroutine stepped by hand that has just yielded ``awaited`` (what it waits for).

    The task waits for ``awaited`` as if the coroutine had yielded it to the task; what the task throws (its
    cancellation, a future's exception) goes into the coroutine, and from there the coroutine is the task's.
    """
    try:
        yield awaited
    except BaseException as exc:  # noqa: BLE001  (handed to the coroutine, as its task would)
        try:
            awaited = coro.throw(exc)
        except StopIteration:
            return
        yield from _resume(coro, awaited)
        return
    yield from coro


_threads = threading.local()


def _thread_loop() -> asyncio.AbstractEventLoop:
    """The calling thread's event loop for the synchronous API (made on first use)."""
    if asyncio.events._get_running_loop() is not None:  # asking so raises nothing when none runs (the usual case)
        raise PlaybenchError("ChatEnv.reset/step/close run an event loop of their own; inside a running loop, "
                             "await areset()/astep()/aclose()")
    loop: asyncio.AbstractEventLoop | None = getattr(_threads, "loop", None)
    if loop is None or loop.is_closed():
        loop = _threads.loop = asyncio.new_event_loop()
    return loop


class ChatEnv:
    """One episode of a playbench task as a chat environment (see the module doc and docs/rl.md).

    ``ChatEnv("balrog/babyai/goto", index=3, seed=0)``: episode 3 of a run with base seed 0, played by the
    ``naive`` agent. ``reset()`` gives the first request (OpenAI-style message dicts, images as the
    trajectory stores them; ``request`` has them as ``Message`` objects with their PNG bytes, and
    ``wire_messages()`` as eval's OpenAI content parts with the base64 PNG); ``step(text)``
    takes the model's raw answer. Each model request is one step: the two-stage agent makes two per game step.
    ``keep_steps=False`` keeps no step records nor frames (``steps()`` and ``rollout()`` refuse), for many
    live episodes; every step's result, ``record()`` and ``score`` are the same.
    """

    # Slotted: every step reads and writes a dozen of these (and many episodes are alive at once); a trainer
    # may still hold its environments weakly.
    __slots__ = ("spec", "index", "seed", "_job", "_loop", "_episode", "_coro", "_context", "_wake", "_answer",
                 "_request", "_record", "_keep_steps", "_steps", "_frames", "_seen", "_flags", "_game", "_branch",
                 "_script", "_stops", "__weakref__")

    def __init__(self, task: str, index: int = 0, seed: int = 0, agent: str = "naive", task_params: KeyValues = None,
                 agent_params: KeyValues = None, model: str = DEFAULT_MODEL, model_params: KeyValues = None,
                 keep_steps: bool = True) -> None:
        self._setup(env_spec(task, seed, agent, task_params, agent_params, model, model_params), index,
                    keep_steps=keep_steps)

    @classmethod
    def from_spec(cls, spec: EnvSpec, index: int = 0, keep_steps: bool = True) -> "ChatEnv":
        """An environment for episode ``index`` of ``spec`` (cheap: nothing is validated again but the index).

        ``keep_steps=False``: the step records and frames are not kept (``steps()`` and ``rollout()`` refuse);
        each step's reward and info, ``record()`` and ``score`` are the same. For many live episodes.
        """
        env = cls.__new__(cls)
        env._setup(spec, index, keep_steps=keep_steps)
        return env

    @classmethod
    def from_record(cls, run: Path | str, task: str, index: int = 0, step: int = 0,
                    model: str | None = None) -> "ChatEnv":
        """Episode ``index`` of ``task`` in the recorded run at ``run``, branched at its step ``step``.

        ``reset()`` re-plays the recorded steps before ``step`` (the run's answers, checked against its
        records) and returns the request the run sent at ``step``; from there the caller answers. The
        records carry ``model`` (the run's model when None). See :func:`playbench.rl.branching.branch_point`.
        """
        from playbench.rl.branching import branch_point

        return cls.from_branch(branch_point(run, task, index, step, model))

    @classmethod
    def from_branch(cls, branch: "Branch") -> "ChatEnv":
        """A new branch of ``branch`` (read once, shared): each one re-plays the prefix in its own game."""
        env = cls.__new__(cls)
        env._setup(branch.spec, branch.index, branch)
        return env

    def _setup(self, spec: EnvSpec, index: int, branch: "Branch | None" = None, keep_steps: bool = True) -> None:
        if isinstance(index, bool) or not isinstance(index, int) or index < 0:
            raise PlaybenchError(f"index {index!r}: must be a whole number of at least 0")
        if not isinstance(keep_steps, bool):
            raise PlaybenchError(f"keep_steps {keep_steps!r}: must be True or False")
        self.spec = spec
        self.index = index
        if branch is None:
            self._job = _episode_job(spec, index)
        else:  # the job its run scheduled (its seed given by --instances, or derived as plan_jobs derives it)
            spec.task.check_episodes(spec.params, index + 1)
            self._job = dataclasses.replace(branch.job, task=spec.played)
        self.seed = self._job.seed
        self._loop: asyncio.AbstractEventLoop | None = None
        # The episode: its task, or while its coroutine is stepped by hand (``_coro``), a future it ends.
        self._episode: asyncio.Future[None] | None = None
        self._coro: Coroutine[Any, Any, None] | None = None
        self._context: contextvars.Context | None = None  # the hand-stepped coroutine's own (as a task's)
        self._wake: asyncio.Future[None] | None = None
        self._answer: asyncio.Future[str] | None = None
        self._request: list[Message] | None = None
        self._record: EpisodeRecord | None = None
        self._keep_steps = keep_steps
        self._steps: list[StepRecord] = []  # all steps played; with keep_steps=False, those not reported yet
        self._frames: dict[int, Any] = {}
        self._seen = 0  # steps already reported by ``step``
        self._flags = (False, False)  # the last game step's (terminated, truncated)
        self._game: Any = None
        self._branch = branch
        self._script: deque[str] = _NO_SCRIPT  # the recorded answers still to give (a branch's prefix)
        self._stops: asyncio.AbstractEventLoop | None = None  # the loop a synchronous call runs until woken

    # -- what it is ---------------------------------------------------------------------------------

    @property
    def task_id(self) -> str:
        """The task's id."""
        return self.spec.task.id

    @property
    def request(self) -> list[Message] | None:
        """The pending request as ``Message`` objects (images with their PNG bytes); None when none is pending."""
        return self._request if self._answer is not None else None

    def wire_messages(self) -> list[dict[str, Any]]:
        """The pending request as ``playbench eval`` sends it to an OpenAI-compatible server ([] when none).

        Fresh dicts made by the OpenAI provider's own encoder: a text-only message is the dict ``reset``
        gives; one with images has a list of content parts, its text then an ``image_url`` part per image
        whose URL is ``data:image/png;base64,...`` (the PNG bytes eval sends). For a vision policy.
        """
        request = self.request
        return [] if request is None else [dict(m) for m in openai_messages(request)]

    @property
    def done(self) -> bool:
        """Whether the episode has ended (its record is ready)."""
        return self._record is not None

    @property
    def score(self) -> float | None:
        """The suite's official score of the finished episode (None before the end, or for a failed one)."""
        return self._record.score if self._record is not None else None

    def record(self) -> EpisodeRecord:
        """The episode's record, as ``playbench eval`` writes it (but ``timing``, and ``trajectory`` is None)."""
        if self._record is None:
            raise PlaybenchError(f"{self.task_id} #{self.index}: the episode is not over; step until it ends")
        return self._record

    def steps(self) -> list[StepRecord]:
        """The steps played so far, as the run's trajectory records them (refused with ``keep_steps=False``)."""
        if not self._keep_steps:
            raise PlaybenchError(f"{self.task_id} #{self.index}: made with keep_steps=False, it keeps no step "
                                 "records (its record() and score are kept)")
        return list(self._steps)

    def rollout(self) -> Rollout:
        """The finished episode as a :class:`Rollout` (for ``write_run``; picklable)."""
        record = self.record()
        steps = self.steps()
        task = self.spec.config.tasks[0].model_copy(update={"episodes": self.index + 1})
        return Rollout(self.spec.config.model_copy(update={"tasks": [task]}), record, steps, dict(self._frames))

    # -- async API ------------------------------------------------------------------------------

    async def areset(self) -> list[dict[str, Any]]:
        """Start the episode afresh and return the first request's messages ([] if it ended at once).

        A branch (``from_record``) re-plays its recorded prefix first and returns the request at its step;
        a prefix that does not re-play as recorded is a PlaybenchError naming the first difference.
        """
        await self.aclose()
        self._start(asyncio.get_running_loop())
        await self._advance()
        if self._branch is not None:
            await self._check_branch(self._branch)
        return self._messages()

    async def astep(self, text: str) -> StepResult:
        """Answer the pending request with the model's raw ``text``; see :class:`StepResult`."""
        answer = self._pending(text)
        if self._loop is not asyncio.get_running_loop():
            raise PlaybenchError(f"{self.task_id} #{self.index}: its episode runs on another event loop; "
                                 "go on with it there")
        answer.set_result(text)
        await self._advance()
        return self._result()

    async def aclose(self) -> None:
        """Stop an unfinished episode (its game is closed); nothing is recorded for it."""
        self._drop_orphan()
        episode = self._episode
        if episode is not None and not episode.done() and episode.get_loop() is not asyncio.get_running_loop():
            raise PlaybenchError(f"{self.task_id} #{self.index}: its episode runs on another event loop; "
                                 "close or finish it there")
        self._episode = None
        self._answer = self._request = None
        coro, context = self._coro, self._context
        self._let_go()
        if coro is not None:  # stepped by hand: stopped where it waits (its cleanup runs), as a task is cancelled
            assert context is not None and self._loop is not None
            try:
                awaited = context.run(coro.throw, asyncio.CancelledError())
            except BaseException:  # noqa: BLE001  (ended: cancelled, or by its own fault, as gather would keep)
                return
            cleanup = self._loop.create_task(_resume(coro, awaited), context=context)  # its cleanup awaits
            await asyncio.gather(cleanup, return_exceptions=True)
        elif episode is not None and not episode.done():
            episode.cancel()
            await asyncio.gather(episode, return_exceptions=True)

    # -- sync API -------------------------------------------------------------------------------

    def reset(self) -> list[dict[str, Any]]:
        """``areset`` on the calling thread's event loop."""
        loop = self._sync_loop()
        if self._branch is not None or (self._episode is not None and not self._episode.done()):
            return loop.run_until_complete(self.areset())  # a prefix to check, or an episode to stop first
        self._start(loop)
        self._advance_sync(loop)
        return self._messages()

    def step(self, text: str) -> StepResult:
        """``astep`` on the calling thread's event loop (one pass of it: see the module doc)."""
        loop = self._sync_loop()
        self._pending(text).set_result(text)
        self._advance_sync(loop)
        return self._result()

    def close(self) -> None:
        """``aclose`` on the calling thread's event loop."""
        self._drop_orphan()
        if self._episode is not None and not self._episode.done():
            self._sync_loop().run_until_complete(self.aclose())

    def _sync_loop(self) -> asyncio.AbstractEventLoop:
        """The calling thread's loop, where a synchronous call may go on with this episode."""
        loop = _thread_loop()  # never a closed loop: an episode on it is no orphan, and may go on
        if self._loop is loop:
            return loop
        self._drop_orphan()
        if self._episode is not None and not self._episode.done():
            raise PlaybenchError(f"{self.task_id} #{self.index}: its episode runs on another event loop "
                                 "(started by areset, or on another thread); go on with astep there")
        return loop

    def _drop_orphan(self) -> None:
        """Stop a hand-stepped episode whose loop was closed, as closing a loop (``asyncio.run``) ends its tasks."""
        coro = self._coro
        if coro is None or self._loop is None or not self._loop.is_closed():
            return
        self._let_go()
        self._episode = None
        try:
            coro.close()  # GeneratorExit where it waits: its cleanup (the game's close) runs
        except RuntimeError:  # a cleanup that awaits cannot run without its loop
            pass
        self._answer = self._request = None

    def _advance_sync(self, loop: asyncio.AbstractEventLoop) -> None:
        """Go on with the episode until it hands out its next request or ends: by hand, or running ``loop``."""
        if self._coro is not None:
            self._drive()
        assert self._episode is not None
        if self._coro is None and not self._episode.done():  # its task plays it: ``_wake_up`` stops the loop
            self._wake, self._stops = None, loop
            try:
                loop.run_forever()
            finally:
                self._stops = None

    async def _advance(self) -> None:
        """``_advance_sync`` inside the running loop: by hand, or waiting for the episode's task to wake us."""
        if self._coro is not None:
            self._drive()
        assert self._episode is not None and self._loop is not None
        if self._coro is None and not self._episode.done():
            self._wake = self._loop.create_future()
            await self._wake

    def _drive(self) -> None:
        """Step the hand-stepped episode on; once it awaits anything but its answer, a task goes on with it."""
        coro, context, loop, episode = self._coro, self._context, self._loop, self._episode
        assert coro is not None and context is not None and loop is not None and episode is not None
        outer = asyncio.events._get_running_loop()
        if outer is None:  # a synchronous call: the episode's code runs as the loop's (get_running_loop works)
            asyncio.events._set_running_loop(loop)
        try:
            awaited = context.run(coro.send, None)
        except StopIteration:
            self._let_go()
            episode.set_result(None)
            return
        except asyncio.CancelledError:
            self._let_go()
            episode.cancel()
            return
        except BaseException as exc:  # a fault of playbench itself: surfaces as a task's would (``_messages``)
            self._let_go()
            episode.set_exception(exc)
            if not isinstance(exc, Exception):  # KeyboardInterrupt, SystemExit: at once
                raise
            return
        finally:
            if outer is None:
                asyncio.events._set_running_loop(None)
        if awaited is None or awaited is not self._answer:
            self._let_go()
            self._episode = loop.create_task(_resume(coro, awaited), context=context)

    def _let_go(self) -> None:
        """The hand-stepped coroutine is over, or a task's now: its context goes too.

        The context holds this environment (the episode's ``_PLAYING`` and its answerer): kept after the
        episode, it would tie the two in a cycle that only the garbage collector frees.
        """
        self._coro = self._context = None

    # -- the episode side -----------------------------------------------------------------------

    async def _play(self, job: EpisodeJob, agent: Agent) -> None:
        _PLAYING.set(self)  # this task's game and requests are this environment's (its context is its own)
        answered_by(self._ask)
        try:
            config = self.spec.config
            self._record, _ = await play_episode(job, agent, config.agent, config.model, save_frame=self._keep_frame,
                                                 record_step=self._steps.append)
        finally:
            self._answer = self._request = None  # an ended episode's last request is dropped (it holds a history)
            self._wake_up()

    def _ask(self, messages: list[Message]) -> "asyncio.Future[str]":
        """The channel model's request: hand it out (wake the caller); the future of its answer, to await.

        The future itself, not a coroutine awaiting it: one coroutine less to make, suspend and resume a step.
        """
        assert self._loop is not None
        answer: asyncio.Future[str] = self._loop.create_future()
        if self._script:  # a branch's prefix: the run's own answer, there at once
            answer.set_result(self._script.popleft())
            return answer
        if self._answer is not None:  # the caller answers one request at a time (the shared model does not queue)
            raise RuntimeError("the agent made a second request while one was pending")
        self._request = messages
        self._answer = answer
        self._wake_up()
        return answer

    async def _check_branch(self, branch: "Branch") -> None:
        """Refuse (and stop) a branch whose re-played prefix or request at its step is not the run's."""
        over = self._episode is not None and self._episode.done()
        pending = None if over or self._request is None else [m.record() for m in self._request]
        difference = branch.difference(self._steps, pending)
        if difference is not None:
            await self.aclose()
            raise PlaybenchError(f"{branch.run}: {branch.name} is not where the run was: {difference.describe()}")
        self._seen = len(self._steps)  # the first step's reward and info are the caller's step's

    def _start(self, loop: asyncio.AbstractEventLoop) -> None:
        """A fresh episode on ``loop`` (it runs once advanced); nothing of the last one is kept."""
        self._loop = loop
        self._answer = self._request = None
        self._record, self._steps, self._frames, self._seen = None, [], {}, 0
        self._flags = (False, False)
        agent: Agent = self.spec.agent.factory(self.spec.agent_params, self.spec.channel.model(self.spec, loop))
        self._script = deque(self._branch.answers) if self._branch is not None else _NO_SCRIPT
        # Stepped by hand from the start (``_drive``), in a context of its own as a task's is.
        self._coro = self._play(self._job, agent)
        self._context = contextvars.copy_context()
        self._episode = loop.create_future()

    def _pending(self, text: str) -> "asyncio.Future[str]":
        """The pending request's answer future, taken (the caller sets it to ``text``); refused if none is pending."""
        if not isinstance(text, str):
            raise PlaybenchError(f"step takes the model's answer as a str, got {type(text).__name__}")
        answer = self._answer
        if answer is None or self._loop is None:
            raise PlaybenchError(f"{self.task_id} #{self.index}: no request is pending "
                                 + ("(the episode is over; reset() starts it again)" if self.done else "(reset() first)"))
        self._answer = None
        return answer

    def _wake_up(self) -> None:
        """The episode asks again or has ended: stop the synchronous call's loop, or wake the awaiting caller."""
        if self._stops is not None:
            self._stops.stop()  # the loop ends after this pass
            self._stops = None
        elif self._wake is not None and not self._wake.done():
            self._wake.set_result(None)

    def _note(self, terminated: bool, truncated: bool) -> None:
        self._flags = (terminated, truncated)

    def _keep_frame(self, step: int, image: Any) -> str:
        """Keep the frame the agent saw (``write_run`` writes it) and name it as a run does."""
        if self._keep_steps:
            self._frames[step] = image
        return frame_path(self.spec.task.id, self.index, step)

    # -- answers --------------------------------------------------------------------------------

    def _messages(self) -> list[dict[str, Any]]:
        """The pending request as message dicts (fresh dicts: the caller may change them), [] when over."""
        if self._episode is not None and self._episode.done():
            self._episode.result()  # a fault of playbench itself (never the game's nor the agent's) surfaces here
            return []
        assert self._request is not None
        if self._keep_steps:  # its step records hold the messages' cached records: left as they are
            return [m.record_copy() for m in self._request]
        return [m.detached_record() for m in self._request]  # no record kept: none left cached on the history

    def _result(self) -> StepResult:
        messages = self._messages()
        new = self._steps[self._seen:]
        if self._keep_steps:
            self._seen = len(self._steps)
        else:
            self._steps.clear()  # reported now, and not kept
        reward, terminated, truncated = 0.0, False, False
        if new:
            step = new[-1]
            reward = sum([s.reward for s in new])
            info: dict[str, Any] = {  # a literal: faster than update(**keys), the same keys in the same order
                "game_step": True, "step": step.step, "raw_output": step.raw_output, "action": step.action,
                "executed": step.executed, "valid": step.valid, "score": step.score, "progress": self._progress(),
                "extra": step.extra}
            if step.done:
                terminated, truncated = self._flags
        else:
            info = {"game_step": False}
        record = self._record
        if record is not None:
            info.update(status=record.status, error=record.error, episode_score=record.score)
            self._game = None  # closed, its progress read: what an ended episode holds is its records
            if not (terminated or truncated):  # ended by a fault, not by the game: cut short
                truncated = True
        return StepResult(messages, reward, terminated, truncated, info)

    def _progress(self) -> float | None:
        try:
            return float(self._game.progress)
        except Exception:  # noqa: BLE001  (a game that cannot say gives no figure)
            return None

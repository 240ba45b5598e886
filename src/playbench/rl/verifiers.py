"""playbench tasks as a `verifiers` environment (Prime Intellect's v1 API, ``verifiers.v1``).

``load_environment(tasks=..., episodes=..., seed=..., agent=...)`` is the hub's entry point: it returns a
``verifiers.v1.Env`` whose dataset rows (``Taskset``) are playbench episodes ``(task, index, seed)``,
whose turns are a :class:`~playbench.rl.ChatEnv`'s requests and whose reward is the suite's official
score. verifiers resolves a taskset id by importing a top-level module that exports the classes; the
``playbench_rl`` module (beside ``playbench`` in the distribution) is that module, so
``vf-eval playbench-rl`` finds these classes too. Each turn is sent in the form ``playbench eval`` sends to an
OpenAI-compatible server (``ChatEnv.wire_messages``): BALROG's images (``images=true``) as ``image_url``
parts holding the base64 PNG. See docs/rl.md.

Two forms of conversation (``history``):

* ``"window"`` (the default, the benchmark's): each model request is exactly the request ChatEnv (and
  ``playbench eval``) makes — the whole prompt, rebuilt at each step with the benchmark's own sliding
  history window. The harness sends that request as it is, not appended to the previous one, so the
  trace holds one branch per step when the prompt is rewritten (one training sample each).
* ``"full"``: one growing conversation — the first request, then for each step the model's answer and
  the newest message of the next request (the current observation). The game, the parsing and the score
  are the benchmark's; the prompts are not (they are what the hubs' ports send).

Rows may also name recorded states (``branches=[{"run": PATH, "task": ..., "index": i, "step": k}]``):
each such row starts at step ``k`` of that episode of the run (``ChatEnv.from_record``), for training on
late-game states; its prefix is re-played, and checked against the run, by every rollout of the row.
"""

from collections.abc import Iterator, Sequence
from typing import Any, Literal

import verifiers.v1 as vf
from pydantic import BaseModel, ConfigDict, Field

from playbench.api.config import build_config, key_value_items
from playbench.core.errors import PlaybenchError
from playbench.rl.branching import Branch, branch_point
from playbench.rl.chat_env import DEFAULT_MODEL, ChatEnv, EnvSpec, env_spec

__all__ = ["PlaybenchEnv", "PlaybenchHarness", "PlaybenchTaskset", "load_environment"]

#: the taskset id verifiers resolves (module ``playbench_rl``)
TASKSET_ID = "playbench-rl"
History = Literal["window", "full"]


class PlaybenchBranchRow(BaseModel):
    """A recorded state: episode ``index`` of ``task`` in the run at ``run``, at its step ``step``."""

    model_config = ConfigDict(extra="forbid")

    run: str
    task: str
    index: int = Field(0, ge=0)
    step: int = Field(ge=0)


class PlaybenchTasksetConfig(vf.TasksetConfig):
    """The episodes to play (``--env.taskset.*``): as ``playbench eval TASKS --episodes N --seed S``."""

    id: str = TASKSET_ID
    tasks: list[str] = Field(default_factory=list)
    """Task ids or aliases (a group names its tasks), as ``playbench eval`` takes them."""
    episodes: int = Field(1, ge=1)
    """Episodes per task: indices 0 .. episodes-1."""
    seed: int = 0
    """The run's base seed; each episode's seed is derived from it as eval derives it."""
    agent: str = "naive"
    task_params: dict[str, Any] = Field(default_factory=dict)
    agent_params: dict[str, Any] = Field(default_factory=dict)
    model: str = DEFAULT_MODEL
    """The model name playbench's records carry (``provider/name``)."""
    history: History = "window"
    """``window``: each request is the benchmark's (ChatEnv's); ``full``: one growing conversation."""
    shaping: bool = False
    """Add the game's step rewards (summed) as a reward term beside the official score (weight 1)."""
    branches: list[PlaybenchBranchRow] = Field(default_factory=list)
    """Recorded states to start from, one row each (after the episodes of ``tasks``); their run's config rules."""


class PlaybenchData(vf.TaskData):
    """One episode: a dataset row."""

    task: str
    index: int
    seed: int
    """The episode's own seed (derived from the run's base seed)."""
    history: History = "window"
    run: str | None = None
    """A branch row's run (its path); None for an episode played from its start."""
    step: int | None = None
    """A branch row's recorded step, where the model takes over."""


def _row_key(data: PlaybenchData) -> str:
    """A row's name: ``task#index``, or ``run:task#index@step`` for a recorded state."""
    episode = f"{data.task}#{data.index}"
    return episode if data.run is None else f"{data.run}:{episode}@{data.step}"


class PlaybenchTask(vf.Task[PlaybenchData, vf.State, vf.TaskConfig]):
    """A playbench episode (scored by the environment: its score is known only when the game ends)."""

    @property
    def key(self) -> str:
        """Task id and index name an episode of a run (its seed follows from the run's); a branch adds run and step."""
        return _row_key(self.data)


def _specs(config: PlaybenchTasksetConfig) -> dict[str, EnvSpec]:
    """One validated EnvSpec per task of the config (a group is expanded as eval expands it)."""
    if not config.tasks:
        if config.branches:
            return {}
        raise PlaybenchError("verifiers environment: name at least one task (tasks=[...]) or recorded state "
                             "(branches=[...])")
    run = build_config(tuple(config.tasks), config.agent, config.model, config.episodes, config.seed,
                       key_value_items(config.task_params), key_value_items(config.agent_params), ())
    return {t.id: env_spec(t.id, config.seed, config.agent, config.task_params, config.agent_params, config.model)
            for t in run.tasks}


class PlaybenchTaskset(vf.Taskset[PlaybenchTask, PlaybenchTasksetConfig]):
    """The episodes ``(task, index, seed)`` of the config's tasks, task by task, index by index."""

    def __init__(self, config: PlaybenchTasksetConfig) -> None:
        super().__init__(config)
        self.specs = _specs(config)
        #: each branch row's recorded prefix by row name, read (and refused, in one line) now; shared by its rollouts
        self.branches: dict[str, Branch] = {}
        for row in config.branches:
            branch = branch_point(row.run, row.task, row.index, row.step)
            self.branches[_row_key(self._branch_data(branch))] = branch

    def load(self) -> Iterator[PlaybenchTask]:
        """One row per episode: ``(task, index, seed)``.

        The row has no prompt: the episode's first request is made when the episode starts, so listing
        thousands of rows starts no game.
        """
        for task_id, spec in self.specs.items():
            for index in range(self.config.episodes):
                env = ChatEnv.from_spec(spec, index)
                yield PlaybenchTask(PlaybenchData(name=f"{task_id}#{index}", task=task_id, index=index,
                                                  seed=env.seed, history=self.config.history),
                                    self.config.task)
        for branch in self.branches.values():
            yield PlaybenchTask(self._branch_data(branch), self.config.task)

    def _branch_data(self, branch: Branch) -> PlaybenchData:
        """A branch row: the task id and episode seed its run records, the run and the step."""
        data = PlaybenchData(name="", task=branch.spec.task_id, index=branch.index, seed=branch.seed,
                             history=self.config.history, run=branch.run, step=branch.step)
        return data.model_copy(update={"name": _row_key(data)})


class PlaybenchHarnessConfig(vf.HarnessConfig):
    """The harness that sends a playbench request to the model, in process."""

    id: str = TASKSET_ID


class PlaybenchHarness(vf.Harness[PlaybenchHarnessConfig]):
    """One model call per segment, made in process through the rollout's interception endpoint.

    In the ``window`` form a turn's messages are the whole next request, sent as they are; in the
    ``full`` form they are appended to the conversation (verifiers' default resume).
    """

    APPENDS_SYSTEM_PROMPT = True
    SUPPORTS_RESUME = True
    EXECUTES_CODE = False
    NEEDS_CONTAINER = False

    async def launch(self, ctx: vf.ModelContext, trace: vf.Trace, runtime: vf.Runtime, endpoint: str,
                     secret: str, mcp_urls: dict[str, str], data: vf.TaskData) -> vf.ProgramResult:
        """Send ``data.prompt`` (the request) to the model once; the interception records the call."""
        import httpx

        system, prompt = self.resolve_prompt(data)
        messages: list[Any] = [] if system is None else [{"role": "system", "content": system}]
        if isinstance(prompt, str):
            messages.append({"role": "user", "content": prompt})
        else:
            messages += [m.model_dump(mode="json", exclude_none=True) for m in prompt or []]
        async with httpx.AsyncClient(timeout=None) as client:
            answer = await client.post(f"{endpoint.rstrip('/')}/chat/completions",
                                       headers={"Authorization": f"Bearer {secret}"},
                                       json={"model": ctx.model, "messages": messages})
        if answer.status_code != 200:
            return vf.ProgramResult(exit_code=1, stdout="", stderr=answer.text[-2000:])
        return vf.ProgramResult(exit_code=0, stdout="", stderr="")

    async def resume(self, ctx: vf.ModelContext, trace: vf.Trace, runtime: vf.Runtime, endpoint: str,
                     secret: str, mcp_urls: dict[str, str], data: vf.TaskData, messages: vf.Messages,
                     tool_interception_url: str | None = None) -> vf.ProgramResult:
        """The window form sends the turn's messages alone (they are the whole request)."""
        if getattr(data, "history", "window") == "full":
            return await super().resume(ctx, trace, runtime, endpoint, secret, mcp_urls, data, messages)
        return await self.launch(ctx, trace, runtime, endpoint, secret, mcp_urls,
                                 data.model_copy(update={"prompt": list(messages), "system_prompt": None}))


class PlaybenchEnvConfig(vf.EnvConfig):
    """The environment: the taskset above and one model seat (``--env.player.*``)."""

    taskset: PlaybenchTasksetConfig = PlaybenchTasksetConfig()
    player: vf.AgentConfig = vf.AgentConfig(runtime=vf.SubprocessConfig())  # harness: the taskset's own


class PlaybenchEnv(vf.Env[PlaybenchEnvConfig]):
    """Plays each row's episode through a ChatEnv, the model as ChatEnv's policy; rewards the score."""

    async def run(self, task: vf.Task, agents: vf.Agents) -> None:
        """One episode: request, answer, step, until the game ends; the official score is the reward."""
        data = task.data
        assert isinstance(data, PlaybenchData) and isinstance(self.taskset, PlaybenchTaskset)
        if data.run is None:
            env = ChatEnv.from_spec(self.taskset.specs[data.task], data.index)
        else:
            env = ChatEnv.from_branch(self.taskset.branches[_row_key(data)])
        returns = 0.0
        try:
            request = await env.areset()
            async with agents.player.interaction(task.with_data(prompt=None)) as interaction:
                turn: list[dict[str, Any]] = env.wire_messages()  # eval's wire form: images as base64 PNG parts
                while request:
                    segment = await interaction.turn(turn)
                    if segment.terminated:
                        break
                    result = await env.astep(segment.last_reply)
                    returns += result.reward
                    request = result.messages
                    turn = env.wire_messages() if data.history == "window" else env.wire_messages()[-1:]
                trace = interaction.trace
                trace.record_reward("score", float(env.score or 0.0) if env.done else 0.0, 1.0)
                if self.taskset.config.shaping:
                    trace.record_reward("game_reward", returns, 1.0)
                record = env.record() if env.done else None
                trace.info["playbench"] = {"task": data.task, "index": data.index, "seed": data.seed,
                                           "run": data.run, "from_step": data.step,
                                           "status": None if record is None else record.status,
                                           "score": env.score, "steps": None if record is None else record.steps}
        finally:
            if not env.done:
                await env.aclose()


def load_environment(tasks: str | Sequence[str] = (), episodes: int = 1, seed: int = 0, agent: str = "naive",
                     history: History = "window", shaping: bool = False, task_params: dict[str, Any] | None = None,
                     agent_params: dict[str, Any] | None = None, model: str = DEFAULT_MODEL,
                     branches: Sequence[dict[str, Any]] = (), **params: Any) -> PlaybenchEnv:
    """A verifiers environment playing ``episodes`` episodes of each task (see the module doc).

    ``branches`` are rows that start at a recorded step, ``{"run": PATH, "task": ..., "index": i, "step": k}``
    (played with their run's agent, parameters and seed). ``params`` are further task parameters (``-T``),
    merged into ``task_params``.
    """
    import playbench_rl  # noqa: F401  (verifiers resolves the taskset id by importing it)

    names = [tasks] if isinstance(tasks, str) else list(tasks)
    config = PlaybenchEnvConfig(taskset=PlaybenchTasksetConfig(
        tasks=names, episodes=episodes, seed=seed, agent=agent, history=history, shaping=shaping,
        task_params={**(task_params or {}), **params}, agent_params=dict(agent_params or {}), model=model,
        branches=[PlaybenchBranchRow(**row) for row in branches]))
    return PlaybenchEnv(config)

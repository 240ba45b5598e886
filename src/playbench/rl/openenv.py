"""playbench tasks over HTTP through OpenEnv's reset/step/state interface (PyPI ``openenv-core``).

``make_app(tasks, seed=..., agent=...)`` returns OpenEnv's FastAPI app (``create_app``) serving
:class:`PlaybenchEnvironment`: each WebSocket session of an OpenEnv client (``PlaybenchEnvClient``, or
TRL's OpenEnv rollouts) is its own :class:`~playbench.rl.ChatEnv`. ``reset(task=..., index=..., seed=...)``
starts episode ``index`` of a run with base seed ``seed`` (the server's by default), exactly as
``playbench eval --seed`` numbers its episodes, so a seed always names the same episode;
``step(PlaybenchAction(text=answer))`` takes the model's raw answer. Observations carry the next request
(``messages``: as ``playbench eval`` sends it to an OpenAI-compatible server, images as base64 PNG content
parts) and the suite's score. ``playbench serve-env`` runs it. See docs/rl.md.

With ``runs=DIR`` (``serve-env --runs DIR``), ``reset(run=NAME, task=..., index=..., step=k)`` branches a
recorded episode at its step ``k`` (``ChatEnv.from_record``): NAME is a run folder under DIR, and only there
(a client names paths; the server reads none outside the folder its operator gave).
"""

import asyncio
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any, Literal

import orjson
from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient
from openenv.core.env_server import Action, Environment, Observation, State, create_app
from pydantic import Field
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.websockets import WebSocket, WebSocketDisconnect

from playbench.api.config import KeyValues, build_config, key_value_items, taken_by
from playbench.core.errors import PlaybenchError
from playbench.core.params import parse_key_values
from playbench.core.registry import get_task
from playbench.rl.chat_env import DEFAULT_MODEL, ChatEnv, EnvSpec, env_spec

__all__ = ["SPEC_CACHE", "PlaybenchAction", "PlaybenchEnvClient", "PlaybenchEnvironment", "PlaybenchObservation",
           "PlaybenchState", "make_app"]

Rewards = Literal["score", "game"]

#: specs kept for base seeds other than the server's, the least recently used dropped first: a client that
#: names a new seed at every reset costs a remake (about 0.05 ms), never memory
SPEC_CACHE = 64


class PlaybenchAction(Action):
    """The model's raw answer to the last request."""

    text: str = Field(description="the model's answer, as it came (ChatEnv strips surrounding white space)")


class PlaybenchObservation(Observation):
    """The next request and where the episode stands (``done`` and ``reward`` are OpenEnv's own)."""

    messages: list[dict[str, Any]] = Field(default_factory=list,
                                           description="the next request as eval sends it (OpenAI chat messages, "
                                                       "images as base64 PNG image_url parts); [] once done")
    task: str = ""
    index: int = 0
    seed: int = 0
    score: float | None = Field(default=None, description="the suite's official score so far")
    info: dict[str, Any] = Field(default_factory=dict, description="ChatEnv's step info")


class PlaybenchState(State):
    """The session's episode."""

    task: str = ""
    index: int = 0
    seed: int | None = None
    done: bool = False
    score: float | None = None
    status: str | None = None


#: what ``_plain`` writes as text, as ``json.dumps(default=str)`` would (orjson writes them as data by itself)
_AS_TEXT = orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_NON_STR_KEYS


def _plain(value: Any) -> Any:
    """``value`` as JSON data (the step info holds records' plain values; anything else as text).

    orjson, at every step: the standard library's round trip was about a tenth of the server's CPU a step.
    """
    return orjson.loads(orjson.dumps(value, default=str, option=_AS_TEXT))


class _Specs:
    """Validated EnvSpecs per (task, base seed), shared by the sessions (read-only).

    Those of the server's seed are made with the app and kept; those of the seeds clients name are kept
    ``SPEC_CACHE`` at most (a client chooses its seeds: what it names must not grow the server).
    """

    def __init__(self, tasks: list[str], seed: int, agent: str, task_params: KeyValues, agent_params: KeyValues,
                 model: str) -> None:
        run = build_config(tuple(tasks), agent, model, 1, seed, key_value_items(task_params),
                           key_value_items(agent_params), ()) if tasks else None  # a server of runs only
        self.tasks = [t.id for t in run.tasks] if run is not None else []
        self.seed = seed
        self._args = (agent, parse_key_values(key_value_items(task_params), "-T"), agent_params, model)
        self._base = {task: self._make(task, seed) for task in self.tasks}  # validation errors surface now
        self._recent: OrderedDict[tuple[str, int], EnvSpec] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._base) + len(self._recent)

    def _make(self, task: str, seed: int) -> EnvSpec:
        agent, tparams, aparams, model = self._args
        return env_spec(task, seed, agent, taken_by(get_task(task), tparams), aparams, model)  # as eval gives -T

    def get(self, task: str, seed: int) -> EnvSpec:
        """The spec of ``task`` under base seed ``seed`` (a whole number: PlaybenchError otherwise)."""
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise PlaybenchError(f"reset: seed {seed!r} must be a whole number")
        if seed == self.seed:
            return self._base[task]
        key = (task, seed)
        with self._lock:
            spec = self._recent.get(key)
            if spec is None:
                spec = self._recent[key] = self._make(task, seed)
                if len(self._recent) > SPEC_CACHE:
                    self._recent.popitem(last=False)
            self._recent.move_to_end(key)
            return spec


class _StepBeforeReset(PlaybenchError):
    """A step with no episode to play (HTTP 409 on the stateless ``/step``)."""


class PlaybenchEnvironment(Environment[PlaybenchAction, PlaybenchObservation, PlaybenchState]):
    """One OpenEnv session: one ChatEnv at a time, played on the server's event loop.

    ``rewards="score"`` (default): each step's reward is 0 but the last one's, which is the suite's
    official score (0 for an episode that did not end ``ok``); ``"game"``: the game's step rewards.
    """

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, specs: _Specs, rewards: Rewards = "score", runs: Path | None = None) -> None:
        super().__init__()
        self._specs = specs
        self._runs = runs  # the only folder whose runs a reset may name (resolved), or None: no runs
        self._rewards = rewards
        self._env: ChatEnv | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._state = PlaybenchState()

    # -- OpenEnv's interface -------------------------------------------------------------------------

    async def reset_async(self, seed: int | None = None, episode_id: str | None = None, task: str | None = None,
                          index: int = 0, run: str | None = None, step: int | None = None,
                          **kwargs: Any) -> PlaybenchObservation:
        """Start episode ``index`` of ``task`` (default: the first served) under base seed ``seed``.

        With ``run`` and ``step``: that episode of the recorded run ``run`` (a folder under the server's
        runs), branched at its step ``step`` (``ChatEnv.from_record``).
        """
        if kwargs:
            raise PlaybenchError(f"reset: unknown arguments {sorted(kwargs)} (task, index, seed, episode_id, run, "
                                 "step)")
        if run is not None or step is not None:
            return await self._branch(run, task, index, step, seed, episode_id)
        if task is None and not self._specs.tasks:
            raise PlaybenchError("reset: this server serves recorded runs only; name run, task, index and step")
        name = task if task is not None else self._specs.tasks[0]
        if name not in self._specs.tasks:
            raise PlaybenchError(f"reset: task {name!r} is not served here ({', '.join(self._specs.tasks)})")
        await self._drop()
        env = ChatEnv.from_spec(self._specs.get(name, self._specs.seed if seed is None else seed), index)
        self._env, self._loop = env, asyncio.get_running_loop()
        await env.areset()
        self._state = PlaybenchState(episode_id=episode_id or f"{name}#{index}@{env.spec.config.seed}",
                                     task=name, index=index, seed=env.seed)
        return self._observe(0.0, {})

    async def _branch(self, run: str | None, task: str | None, index: int, step: int | None, seed: int | None,
                      episode_id: str | None) -> PlaybenchObservation:
        """Branch episode ``index`` of ``task`` in the run ``run`` (under the server's runs) at ``step``."""
        if self._runs is None:
            raise PlaybenchError("reset: this server reads no runs (start it with serve-env --runs DIR)")
        if run is None or task is None or step is None:
            raise PlaybenchError("reset: a branch names run, task, index and step")
        if seed is not None:
            raise PlaybenchError("reset: a branch plays its run's seed; name no seed")
        from playbench.rl.branching import branch_point

        branch = branch_point(run_under(self._runs, run), task, index, step)
        await self._drop()
        env = ChatEnv.from_branch(branch)
        self._env, self._loop = env, asyncio.get_running_loop()
        await env.areset()
        self._state = PlaybenchState(episode_id=episode_id or f"{run}:{env.task_id}#{index}@{step}",
                                     task=env.task_id, index=index, seed=env.seed)
        return self._observe(0.0, {})

    async def step_async(self, action: PlaybenchAction, timeout_s: float | None = None,
                         **kwargs: Any) -> PlaybenchObservation:
        """Answer the pending request with ``action.text``."""
        env = self._env
        if env is None:
            raise _StepBeforeReset("step before reset: an episode is played over one WebSocket session (/ws, "
                                   "as OpenEnv's EnvClient does); the HTTP /reset and /step each make a new "
                                   "environment")
        result = await env.astep(action.text)
        self._state.step_count += 1
        reward = result.reward
        if self._rewards == "score":
            reward = float(env.score or 0.0) if env.done else 0.0
        return self._observe(reward, result.info)

    def reset(self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any) -> PlaybenchObservation:
        """OpenEnv's synchronous reset (the server awaits ``reset_async``)."""
        return asyncio.run(self.reset_async(seed, episode_id, **kwargs))

    def step(self, action: PlaybenchAction, timeout_s: float | None = None, **kwargs: Any) -> PlaybenchObservation:
        """OpenEnv's synchronous step (the server awaits ``step_async``)."""
        return asyncio.run(self.step_async(action, timeout_s, **kwargs))

    @property
    def state(self) -> PlaybenchState:
        """The session's episode: task, index, episode seed, steps, score when done."""
        return self._state

    def close(self) -> None:
        """Stop an unfinished episode on the loop that plays it (OpenEnv calls this from a worker thread)."""
        loop, self._loop = self._loop, None
        env, self._env = self._env, None
        if env is None or env.done or loop is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            loop.create_task(env.aclose())
        else:
            asyncio.run_coroutine_threadsafe(env.aclose(), loop).result(timeout=60)

    # -- helpers -------------------------------------------------------------------------------------

    async def _drop(self) -> None:
        env, self._env = self._env, None
        if env is not None and not env.done:
            await env.aclose()

    def _observe(self, reward: float, info: dict[str, Any]) -> PlaybenchObservation:
        """The pending request in eval's wire form (``ChatEnv.wire_messages``: the PNG bytes, not the stubs)."""
        env = self._env
        assert env is not None
        done = env.done
        record = env.record() if done else None
        self._state.done = done
        self._state.score = env.score if done else info.get("score")
        self._state.status = None if record is None else record.status
        return PlaybenchObservation(messages=env.wire_messages(), done=done, reward=reward, task=env.task_id,
                                    index=env.index, seed=env.seed, score=self._state.score, info=_plain(info))


def run_under(root: Path, name: Any) -> Path:
    """The run folder ``name`` names under ``root`` (resolved, links followed), refused unless it lies inside.

    ``root`` is resolved already. A client names ``name``: an absolute path, ``..`` or a link out of ``root``
    is refused before anything is read; what the folder holds is read through ``playbench.log`` (confined).
    """
    if not isinstance(name, str) or not name or "\x00" in name:
        raise PlaybenchError("reset: run must name a run folder under the server's runs")
    path = (root / name).resolve()
    if Path(name).is_absolute() or not path.is_relative_to(root):
        raise PlaybenchError(f"reset: run {name!r} is not under the server's runs; nothing was read")
    return path


def make_app(tasks: str | list[str], seed: int = 0, agent: str = "naive", task_params: KeyValues = None,
             agent_params: KeyValues = None, model: str = DEFAULT_MODEL, rewards: Rewards = "score",
             max_sessions: int = 64, runs: str | Path | None = None) -> Any:
    """OpenEnv's FastAPI app serving ``tasks`` (validated now: bad input is a PlaybenchError).

    ``runs`` is a folder whose recorded runs clients may branch (``reset(run=..., step=...)``); none when
    None. With ``runs``, ``tasks`` may be empty. Serve it with uvicorn (``playbench serve-env`` does);
    connect with :class:`PlaybenchEnvClient`.
    """
    if rewards not in ("score", "game"):
        raise PlaybenchError(f"rewards {rewards!r}: score or game")
    names = [tasks] if isinstance(tasks, str) else list(tasks)
    root = None if runs is None else Path(runs).resolve()
    if root is not None and not root.is_dir():
        raise PlaybenchError(f"runs {runs}: not a folder")
    if not names and root is None:
        raise PlaybenchError("name at least one task to serve, or a folder of runs to branch")
    specs = _Specs(names, seed, agent, task_params, agent_params, model)
    app = create_app(lambda: PlaybenchEnvironment(specs, rewards, root), PlaybenchAction, PlaybenchObservation,
                     env_name="playbench", max_concurrent_envs=max_sessions)
    app.state.playbench_specs = specs
    _without_mcp(app)
    app.add_exception_handler(PlaybenchError, _refused)
    app.add_exception_handler(WebSocketDisconnect, _client_left)
    return app


def _without_mcp(app: Any) -> None:
    """OpenEnv's ``/mcp`` routes taken out, the HTTP one answered 404 with a line.

    A playbench environment has no MCP tools, so ``/mcp`` served nothing but sessions; and its HTTP
    ``openenv/session/create`` kept one per request, tied to no connection and never expired (three POSTs
    filled a server of ``--max-sessions 3`` for good; with ``--workers``, the next request may reach
    another process). Episodes are played over ``/ws``, a session per connection.
    """
    app.router.routes[:] = [route for route in app.router.routes if getattr(route, "path", None) != "/mcp"]
    app.add_api_route("/mcp", _no_mcp, methods=["POST"], include_in_schema=False)


async def _no_mcp() -> JSONResponse:
    """``/mcp``: none here."""
    return JSONResponse({"detail": "playbench serves no MCP tools; play episodes over /ws (OpenEnv's EnvClient)"},
                        status_code=404)


async def _refused(request: Request, exc: Exception) -> JSONResponse:
    """A request playbench refuses (the stateless ``/step``, a bad ``/reset``): 4xx with its one line."""
    if request.scope["type"] != "http":
        raise exc
    status = 409 if isinstance(exc, _StepBeforeReset) else 400
    return JSONResponse({"detail": str(exc)}, status_code=status)


async def _client_left(websocket: WebSocket, exc: Exception) -> None:
    """A WebSocket client that went: nothing to report.

    OpenEnv 0.3.0's handler closes the socket after the client has gone and catches RuntimeError where
    starlette raises WebSocketDisconnect; the session is already destroyed by then (its ``finally``).
    Only that exception type is handled here: any other error of a handler is reported as before.
    """


class PlaybenchEnvClient(EnvClient[PlaybenchAction, PlaybenchObservation, PlaybenchState]):
    """OpenEnv's client for a playbench server: ``await client.reset(task=..., index=..., seed=...)``."""

    def _step_payload(self, action: PlaybenchAction) -> dict[str, Any]:
        return action.model_dump(exclude={"metadata"})

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[PlaybenchObservation]:
        observation = PlaybenchObservation(**{**payload.get("observation", {}), "done": payload.get("done", False),
                                              "reward": payload.get("reward")})
        return StepResult(observation=observation, reward=payload.get("reward"), done=payload.get("done", False))

    def _parse_state(self, payload: dict[str, Any]) -> PlaybenchState:
        return PlaybenchState(**payload)

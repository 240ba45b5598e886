"""playbench tasks as a NeMo Gym resources server (PyPI ``nemo-gym``, which needs Python 3.12 or later).

:class:`PlaybenchGymServer` is a ``GymnasiumServer`` (NeMo Gym's ``resources_servers.gymnasium``), played by
NeMo Gym's own ``gymnasium_agent``: each rollout (one session) is a :class:`~playbench.rl.ChatEnv`, so the
game, the benchmark's parsing of answers and the records are ``playbench eval``'s. A dataset row names its
episode, ``{"task", "index", "seed"}``, and carries the episode's first request as its
``responses_create_params.input`` (:func:`dataset_rows` makes the rows). ``gymnasium_agent`` grows one
conversation: after each answer, the observation is the newest message of ChatEnv's next request (the
current observation), and ``info["messages"]`` holds that whole request as ``playbench eval`` sends it. The
reward is the suite's official score, given at the episode's last step (0 for an episode that did not end
``ok``); the game's step rewards are ``info["game_reward"]``. See docs/rl.md.
"""

import json
from collections import OrderedDict
from typing import Any

from fastapi import HTTPException
from nemo_gym.base_resources_server import BaseResourcesServerConfig
from nemo_gym.openai_utils import NeMoGymResponse
from pydantic import Field, PrivateAttr
from resources_servers.gymnasium import GymnasiumServer, extract_text

from playbench.api.config import build_config, key_value_items
from playbench.core.errors import PlaybenchError
from playbench.rl.chat_env import DEFAULT_MODEL, ChatEnv, EnvSpec, env_spec

__all__ = ["PlaybenchGymConfig", "PlaybenchGymServer", "dataset_rows"]

#: specs kept for (task, base seed) pairs, the least recently used dropped first: rows naming many seeds
#: cost a remake each, never memory
SPEC_CACHE = 64


class PlaybenchGymConfig(BaseResourcesServerConfig):
    """The server's episodes (its YAML entry): as ``playbench eval TASKS --agent A -T ... -A ...``."""

    tasks: list[str] = Field(min_length=1)
    agent: str = "naive"
    task_params: dict[str, Any] = Field(default_factory=dict)
    agent_params: dict[str, Any] = Field(default_factory=dict)
    model: str = DEFAULT_MODEL


def _spec(config: PlaybenchGymConfig, task: str, seed: int) -> EnvSpec:
    """``task``'s spec under base seed ``seed``; refused when the text environment cannot carry it."""
    spec = env_spec(task, seed, config.agent, config.task_params, config.agent_params, config.model)
    if getattr(spec.params, "images", False):  # refused rather than played without the images
        raise PlaybenchError(f"{spec.task_id}: images=true is not served to NeMo Gym (its observations are text)")
    return spec


class PlaybenchGymServer(GymnasiumServer):
    """playbench episodes behind NeMo Gym's ``/reset`` and ``/step`` (one ChatEnv per session)."""

    config: PlaybenchGymConfig
    _served: list[str] = PrivateAttr(default_factory=list)
    _specs: "OrderedDict[tuple[str, int], EnvSpec]" = PrivateAttr(default_factory=OrderedDict)

    def model_post_init(self, context: Any, /) -> None:
        """Validate the served tasks (groups and aliases resolved to task ids) before any rollout."""
        super().model_post_init(context)
        config = self.config
        run = build_config(tuple(config.tasks), config.agent, config.model, 1, 0, key_value_items(config.task_params),
                           key_value_items(config.agent_params), ())
        self._served = [task.id for task in run.tasks]
        for task in self._served:
            self.spec(task, 0)

    def spec(self, task: str, seed: int) -> EnvSpec:
        """The spec of ``task`` (a task id the server serves) under base seed ``seed``."""
        if task not in self._served:
            raise PlaybenchError(f"task {task!r} is not served here (served: {', '.join(self._served)})")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise PlaybenchError(f"seed {seed!r}: must be a whole number")
        key = (task, seed)
        spec = self._specs.get(key) or _spec(self.config, task, seed)
        self._specs[key] = spec
        self._specs.move_to_end(key)
        if len(self._specs) > SPEC_CACHE:
            self._specs.popitem(last=False)
        return spec

    async def reset(self, metadata: dict[str, Any], session_id: str | None = None) -> tuple[str | None, dict[str, Any]]:
        """Start the row's episode (``task``, ``index``, ``seed``); the row's input is its first request."""
        await self.close_session(session_id)
        try:
            env = ChatEnv.from_spec(self.spec(metadata.get("task", ""), metadata.get("seed", 0)),
                                    _index(metadata.get("index", 0)))
            messages = await env.areset()
        except PlaybenchError as error:
            raise HTTPException(status_code=422, detail=str(error)) from None
        self.session_state[session_id] = env
        info = {"task": env.task_id, "index": env.index, "seed": env.seed, "messages": messages}
        return None, info | ({} if messages else _end(env))

    async def step(self, action: NeMoGymResponse, metadata: dict[str, Any],
                   session_id: str | None = None) -> tuple[str | None, float, bool, bool, dict[str, Any]]:
        """Answer the pending request with the model's text; the reward is the official score at the end."""
        env = self.session_state.get(session_id)
        if env is None:
            raise HTTPException(status_code=409, detail="no episode in this session: /reset first")
        if env.done:  # ended at reset (a game that could not start): nothing to answer
            return None, 0.0, False, True, _end(env)
        result = await env.astep(extract_text(action))
        info = {"game_reward": result.reward, "messages": result.messages, **_plain(result.info)}
        if not env.done:
            return result.messages[-1]["content"], 0.0, False, False, info
        return None, env.score or 0.0, result.terminated, result.truncated, info | _end(env)

    async def close_session(self, session_id: str | None) -> None:
        """Stop the session's episode if unfinished (its game is closed) and forget it."""
        env = self.session_state.get(session_id)
        if env is not None:
            await env.aclose()
        await super().close_session(session_id)  # NeMo Gym's own clean-up: forgets the session


def _index(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise PlaybenchError(f"index {value!r}: must be a whole number >= 0")
    return value


def _end(env: ChatEnv) -> dict[str, Any]:
    """What the record says of the finished episode."""
    record = env.record()
    return {"status": record.status, "error": record.error, "score": record.score, "steps": len(env.steps())}


def _plain(value: Any) -> Any:
    """``value`` as JSON data (step info holds records' plain values; anything else as text)."""
    return json.loads(json.dumps(value, default=str))


def dataset_rows(tasks: list[str], episodes: int = 1, seed: int = 0, agent: str = "naive",
                 task_params: dict[str, Any] | None = None, agent_params: dict[str, Any] | None = None,
                 model: str = DEFAULT_MODEL) -> list[dict[str, Any]]:
    """NeMo Gym dataset rows (one a line in its JSONL) for episodes ``0 .. episodes-1`` of each task.

    Each row's ``responses_create_params.input`` is the episode's first request (each episode is started,
    and closed, to make it), and ``task``, ``index`` and ``seed`` name the episode for the server.
    """
    rows = []
    for task in tasks:
        spec = env_spec(task, seed, agent, task_params, agent_params, model)
        for index in range(episodes):
            env = ChatEnv.from_spec(spec, index)
            first = env.reset()
            env.close()
            rows.append({"responses_create_params": {"input": first}, "task": spec.task_id, "index": index,
                         "seed": seed})
    return rows

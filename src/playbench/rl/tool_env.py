"""``ToolEnv``: a playbench episode as a tool environment, the form TRL's ``GRPOTrainer(environment_factory=...)`` takes.

TRL builds the environment with no arguments, calls ``reset(**row)`` with a dataset row at the start of each
rollout (the text it returns goes into the prompt) and offers the model every public method but ``reset`` as
a tool. Here that is one tool, ``act(action)``: the model names its action as the tool's argument instead of
in free text, and gets the game's next observation back.

The episode is a :class:`~playbench.rl.ChatEnv` played by the ``naive`` agent, so the game, its seeds, the
handling of an action that is not legal (the benchmark's matching of an answer to an action; the default
action played, and BALROG's note in the next observation), the records and the official score are those of
``playbench eval --agent naive``. What the model sees is not the benchmark's prompt: the first observation
is the text of the first request without naive's answer-format line, each later one only the newest
message of the request (the current observation), and the conversation is TRL's transcript, not the
benchmark's history window. See docs/rl.md.
"""

import dataclasses
import types
from collections.abc import Callable, Mapping
from typing import Any

from playbench.agents.prompts.balrog import NAIVE
from playbench.api.config import KeyValues, key_value_items
from playbench.core.errors import PlaybenchError
from playbench.core.params import parse_key_values
from playbench.rl.chat_env import DEFAULT_MODEL, ChatEnv, EnvSpec, env_spec

__all__ = ["TOOL_AGENT", "ToolEnv"]

#: the agent whose episode a ToolEnv plays: its answer is the action itself, so the tool's argument is the answer
TOOL_AGENT = "naive"
#: the line naive appends to the newest message; it asks for a bare answer, which the tool replaces
_ANSWER_FORMAT = "\n\n" + NAIVE
#: the legal actions a task's episode 0 starts with, by the config that made it: probed once per process, not
#: once per environment (TRL makes one per rollout slot); a few configs at most, the oldest dropped past the bound
_START_ACTIONS: dict[str, list[str] | None] = {}
_START_ACTIONS_KEPT = 64

_TOOL_DOC = """Play one action in the game and return what the game shows next.

An action that is not a legal one plays the game's default action instead, as the benchmark does, and
the next observation says so where the benchmark's does.

Args:
    action: {what}

Returns:
    The game's next observation, or a line saying that the episode is over.
"""


def _tool_doc(actions: list[str] | None) -> str:
    """The docstring TRL turns into the tool's schema: it names the legal actions where the task has a list."""
    if actions is None:
        what = "The command to send to the game (free text)."
    else:
        what = "The action to play, one of: " + ", ".join(f'"{a}"' for a in actions) + "."
    return _TOOL_DOC.format(what=what)


class ToolEnv:
    """One playbench episode per rollout, played through the ``act`` tool (see the module doc and docs/rl.md).

    ``ToolEnv()`` plays whatever task each row names; its tool's docstring says the legal actions are those
    the game's instructions name. ``ToolEnv("balrog/babyai/goto")`` (as a factory,
    ``functools.partial(ToolEnv, "balrog/babyai/goto")``) is made for one task: its tool's docstring, the
    schema the model sees, lists the task's legal actions, and ``reset`` refuses an episode that starts with
    other ones. ``task_params`` (``-T``), ``agent_params`` (``-A``, the naive agent's), ``model`` and
    ``model_params`` (``-M``) are ChatEnv's. Only TRL's reserved ``reset`` and the tool ``act`` are public
    methods: TRL exposes every other public method as a tool.
    """

    def __init__(self, task: str | None = None, *, task_params: KeyValues = None, agent_params: KeyValues = None,
                 model: str = DEFAULT_MODEL, model_params: KeyValues = None) -> None:
        self._task = task
        self._task_params = parse_key_values(key_value_items(task_params), "-T")
        self._agent_params, self._model, self._model_params = agent_params, model, model_params
        self._spec: tuple[tuple[Any, ...], EnvSpec] | None = None  # the last spec made, by what it was made from
        self._game: Any = None  # the current episode's game, as the runner made it (for its legal actions)
        self._return = 0.0
        #: the ChatEnv of the current episode (None before the first reset): its ``record()``, ``rollout()``
        self.chat_env: ChatEnv | None = None
        #: the legal actions the tool names (a ToolEnv made for one task); None: it names none
        self.actions: list[str] | None = None
        self._task_id: str | None = None
        if task is not None:
            spec = self._spec_for(task, 0, {})
            self._task_id = spec.task_id
            self.actions = self._start_actions_of(spec)
            # TRL reads the tool's schema from the bound method's docstring: this instance's names its task's actions
            self.__dict__["act"] = types.MethodType(_documented_act(_tool_doc(self.actions)), self)

    # -- what TRL's reward functions read -----------------------------------------------------------

    @property
    def score(self) -> float | None:
        """The suite's official score of the finished episode (None before its end, or when it did not end ``ok``)."""
        return None if self.chat_env is None else self.chat_env.score

    @property
    def reward(self) -> float:
        """The game's step rewards summed over the episode so far (its shaping; 0 before the first action)."""
        return self._return

    @property
    def done(self) -> bool:
        """Whether the episode has ended."""
        return self.chat_env is not None and self.chat_env.done

    # -- TRL's reserved method and the tool ---------------------------------------------------------

    def reset(self, task: str | None = None, index: int = 0, seed: int = 0, **row: Any) -> str:
        """Start episode ``index`` of ``task`` under base seed ``seed`` and return its first observation.

        TRL passes the whole dataset row: its ``prompt`` column is ignored, any other column besides
        ``task``, ``index`` and ``seed`` is a task parameter (``-T``), over those the environment was made with.
        ``seed`` is the run's base seed, as ``playbench eval --seed`` takes it. An episode that ends before its
        first step (a game that cannot start) gives the line saying it is over.
        """
        row.pop("prompt", None)  # the row's prompt is TRL's; the observation is appended to it
        name = task if task is not None else self._task
        if name is None:
            raise PlaybenchError("ToolEnv.reset: the row names no task (a 'task' column) and the environment was "
                                 "made for none (ToolEnv(task))")
        spec = self._spec_for(name, seed, row)
        if self._task_id is not None and spec.task_id != self._task_id:
            raise PlaybenchError(f"ToolEnv.reset: the row names {spec.task_id}, but this environment was made for "
                                 f"{self._task_id} (its tool lists that task's actions)")
        self._end()
        self.chat_env = ChatEnv.from_spec(self._watched(spec), index)
        self._return = 0.0
        messages = self.chat_env.reset()
        if not messages:
            return self._over()
        if self.actions is not None and self._legal() != self.actions:
            found = self._legal()
            self._end()
            raise PlaybenchError(f"{spec.task_id} #{index}: this episode starts with the legal actions {found}, "
                                 f"not the {self.actions} the tool names; use ToolEnv() (its tool names none)")
        return _text(messages)

    def act(self, action: str) -> str:
        """Play one action in the game and return what the game shows next.

        An action that is not a legal one plays the game's default action instead, as the benchmark does,
        and the next observation says so where the benchmark's does.

        Args:
            action: The action to play, one of the legal actions the game's instructions name.

        Returns:
            The game's next observation, or a line saying that the episode is over.
        """
        chat = self.chat_env
        if chat is None:
            raise PlaybenchError("ToolEnv.act: no episode (reset first)")
        if chat.done:
            return self._over()
        if not isinstance(action, str):
            raise PlaybenchError(f"act takes the action as a string, got {type(action).__name__}")
        result = chat.step(action)
        self._return += result.reward
        return _text(result.messages[-1:]) if result.messages else self._over()

    # -- inside -------------------------------------------------------------------------------------

    def _spec_for(self, task: str, seed: int, row: Mapping[str, Any]) -> EnvSpec:
        """The validated spec of ``task`` under ``seed`` with the row's task parameters (the last one is kept)."""
        params = {**self._task_params, **parse_key_values(key_value_items(row), "-T")}
        key = (task, seed, tuple(sorted(params.items())))
        if self._spec is None or self._spec[0] != key:
            spec = env_spec(task, seed, TOOL_AGENT, params, self._agent_params, self._model, self._model_params)
            if getattr(spec.params, "images", False):  # refused rather than played without the images
                raise PlaybenchError(f"{spec.task_id}: images=true is not served by ToolEnv (its observations are "
                                     "text); use ChatEnv's request for a vision policy")
            self._spec = (key, spec)
        return self._spec[1]

    def _watched(self, spec: EnvSpec) -> EnvSpec:
        """``spec`` whose games are kept as they are made (the runner plays them unchanged)."""
        make = spec.task.make_game

        def make_game(params: Any, index: int) -> Any:
            self._game = make(params, index)
            return self._game

        return dataclasses.replace(spec, task=dataclasses.replace(spec.task, make_game=make_game))

    def _start_actions_of(self, spec: EnvSpec) -> list[str] | None:
        """The legal actions episode 0 of the task starts with (the ones the tool names)."""
        key = spec.config.model_dump_json()
        if key not in _START_ACTIONS:
            if len(_START_ACTIONS) >= _START_ACTIONS_KEPT:
                del _START_ACTIONS[next(iter(_START_ACTIONS))]
            _START_ACTIONS[key] = self._probe(spec)
        found = _START_ACTIONS[key]
        return None if found is None else list(found)

    def _probe(self, spec: EnvSpec) -> list[str] | None:
        """Start episode 0 of ``spec``, read the legal actions of its first step, and close it."""
        chat = ChatEnv.from_spec(self._watched(spec), 0)
        try:
            if not chat.reset():
                record = chat.record()
                raise PlaybenchError(f"{spec.task_id}: its episode 0 ends before its first step ({record.status}: "
                                     f"{record.error}), so the tool cannot name its actions")
            return self._legal()
        finally:
            chat.close()
            self._game = None

    def _legal(self) -> list[str] | None:
        legal = self._game.legal_actions()
        return None if legal is None else list(legal)

    def _over(self) -> str:
        chat = self.chat_env
        assert chat is not None and chat.done
        return f"The episode is over ({chat.record().status})."

    def _end(self) -> None:
        """Close an unfinished episode (its game is closed; nothing is recorded for it)."""
        if self.chat_env is not None:
            self.chat_env.close()


def _documented_act(doc: str) -> Callable[[ToolEnv, str], str]:
    """``ToolEnv.act`` under its own docstring (one function per instance: TRL reads the schema from it)."""

    def act(self: ToolEnv, action: str) -> str:
        return ToolEnv.act(self, action)

    act.__doc__ = doc
    act.__annotations__ = {"action": str, "return": str}  # the schema's hints (transformers reads each one, self too)
    return act


def _text(messages: list[dict[str, Any]]) -> str:
    """The messages' text, one after another, without naive's closing answer-format line."""
    texts = [str(m["content"]) for m in messages]
    texts[-1] = texts[-1].removesuffix(_ANSWER_FORMAT)
    return "\n\n".join(texts)

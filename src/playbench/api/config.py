"""Turning what a caller asks for (task ids, agent, model, ``key=value`` parameters) into a ``RunConfig``."""

import difflib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from playbench.agents.registry import get_agent
from playbench.core.errors import PlaybenchError
from playbench.core.params import declares, parameters, parse_key_values, valid_keys
from playbench.core.records import RunConfig, TaskSpec
from playbench.core.registry import resolve_members
from playbench.core.task import Task

#: ``key=value`` strings (as on the command line) or a mapping of keys to values
KeyValues = Mapping[str, Any] | Iterable[str] | None


def key_value_items(values: KeyValues) -> tuple[str, ...]:
    """``values`` as ``key=value`` strings, the form the command line gives.

    A mapping is written out the way a user would type it (booleans as ``true``/``false``), so the library
    and the command line record the same config for the same request.
    """
    if values is None:
        return ()
    if isinstance(values, str):
        return (values,)
    if isinstance(values, Mapping):
        return tuple(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in values.items())
    return tuple(values)


def build_config(
    tasks: tuple[str, ...], agent: str | None, model: str | None, episodes: int | None, seed: int,
    task_params: tuple[str, ...], agent_params: tuple[str, ...], model_params: tuple[str, ...],
    custom_agent: bool = False,
) -> RunConfig:
    """Validate everything asked for and turn it into a RunConfig (or a PlaybenchError).

    With ``custom_agent`` the agent is the caller's own (``agent`` is only its recorded name): it is not
    looked up in the registry and takes no ``-A`` parameters.
    """
    if not tasks:
        raise PlaybenchError("give at least one task id (see 'playbench list')")
    if episodes is not None and (isinstance(episodes, bool) or not isinstance(episodes, int) or episodes < 1):
        raise PlaybenchError(f"--episodes {episodes!r}: must be a whole number of at least 1")
    resolved = resolve_members(tasks)
    tvals = parse_key_values(task_params, "-T")
    refuse_untaken(tvals, [task for task, _ in resolved])
    agent_name = agent or ("naive" if model else "random")
    if custom_agent:
        if agent_params:
            raise PlaybenchError("a custom agent takes no agent parameters; give them to its factory")
        specs = [_task_spec(task, preset, tvals, episodes) for task, preset in resolved]
        return RunConfig(tasks=specs, agent=agent_name, model=model, model_params=parse_key_values(model_params, "-M"),
                         seed=seed)
    spec = get_agent(agent_name)
    if spec.needs_model and not model:
        raise PlaybenchError(f"agent {agent_name!r} needs --model provider/name (e.g. mock/demo)")
    if spec.reference and model:
        raise PlaybenchError(f"agent {agent_name!r} needs no model; drop --model or pick a model agent")
    specs = []
    for task, preset in resolved:
        if spec.reference and agent_name not in task.reference_agents:
            raise PlaybenchError(
                f"agent {agent_name!r} is not available for {task.id}; reference agents there: "
                + ", ".join(task.reference_agents)
            )
        specs.append(_task_spec(task, preset, tvals, episodes))
    aparams = spec.params(parse_key_values(agent_params, "-A")).model_dump(mode="json")
    mparams = parse_key_values(model_params, "-M")
    return RunConfig(tasks=specs, agent=agent_name, agent_params=aparams, model=model, model_params=mparams, seed=seed)


@dataclass(frozen=True)
class Asked:
    """The config a call asks for, as given: ``build_config``'s arguments (``-T``/``-A``/``-M`` as ``key=value``)."""

    tasks: tuple[str, ...]
    agent: str | None = None
    model: str | None = None
    episodes: int | None = None
    seed: int = 0
    task_params: tuple[str, ...] = ()
    agent_params: tuple[str, ...] = ()
    model_params: tuple[str, ...] = ()
    instances: str | None = None  # ``--instances SOURCE``: the tasks play its instances (``api/instances.py``)

    def config(self, custom_agent: bool = False) -> RunConfig:
        """The ``RunConfig`` asked for (PlaybenchError for what no run can play)."""
        config = build_config(self.tasks, self.agent, self.model, self.episodes, self.seed, self.task_params,
                              self.agent_params, self.model_params, custom_agent=custom_agent)
        if self.instances is None:
            return config
        from playbench.api.instances import with_instances  # reads a run or a folder: only when asked

        return with_instances(config, self.instances, self.episodes)


def taken_by(task: Task, tvals: Mapping[str, Any]) -> dict[str, Any]:
    """The ``-T`` values ``task`` declares: a ``-T`` goes to the tasks named that take it, as Inspect's ``-T`` does."""
    return {key: value for key, value in tvals.items() if declares(task.params_model, key)}


def refuse_untaken(tvals: Mapping[str, Any], tasks: list[Task]) -> None:
    """Refuse, in one line, a ``-T`` that none of ``tasks`` takes (a misspelt key must not pass unnoticed)."""
    for key in tvals:
        if any(declares(task.params_model, key) for task in tasks):
            continue
        ids = list(dict.fromkeys(task.id for task in tasks))
        if len(ids) == 1:
            raise PlaybenchError(f"unknown parameter {key!r} for {ids[0]}; valid keys: "
                                 f"{valid_keys(tasks[0].params_model)}")
        keys = {p.name for task in tasks for p in parameters(task.params_model)}
        close = difflib.get_close_matches(key, sorted(keys), n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise PlaybenchError(f"unknown parameter {key!r}: none of the {len(ids)} tasks named takes it; {hint}"
                             "see a task's keys with: playbench describe TASK")


def _task_spec(task: Task, preset: dict[str, Any], tvals: dict[str, str], episodes: int | None) -> TaskSpec:
    """One task's validated parameters and episode count (the caller's values it takes, over the group's preset)."""
    params = task.params({**preset.get("params", {}), **taken_by(task, tvals)})
    task.validate_inputs(params)
    count = episodes or preset.get("episodes") or task.episodes(params)
    task.check_episodes(params, count)
    return TaskSpec(id=task.id, params=params.model_dump(mode="json"), episodes=count)


#: how the command line spells the library's options, for the lines of ``check_text``
_FLAGS = {"task_params": "-T", "agent_params": "-A", "model_params": "-M", "tasks": "task id"}


def check_text(options: Mapping[str, Any]) -> None:
    """Refuse any text among ``options`` (``tasks`` included) that is not valid UTF-8: one line naming the option.

    On Linux the command line hands undecodable bytes over as lone surrogates (U+DCFF for byte 0xFF); they would
    break writing the run's files (a traceback, a half-made run folder), so they are refused before.
    """
    for name, value in options.items():
        for text in _texts(value):
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                flag = _FLAGS.get(name, f"--{name.replace('_', '-')}")
                raise PlaybenchError(f"{flag} {_shown(text)}: not valid UTF-8") from None


def _shown(text: str) -> str:
    """``text`` with each lone surrogate written as the byte it stands for (a backslash, x and two hex digits)."""
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a surrogate that no undecodable byte makes
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _texts(value: Any) -> Iterator[str]:
    """The strings in an option's value (a text, a path, a list of them, or a mapping as ``key=value`` items)."""
    if isinstance(value, str | PurePath):
        yield str(value)
    elif isinstance(value, Mapping):
        yield from key_value_items(value)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            yield from _texts(item)

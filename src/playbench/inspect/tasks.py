"""playbench's tasks for ``inspect eval``, registered through the ``inspect_ai`` entry point.

``playbench/balrog``, ``playbench/smartplay``, ``playbench/mango`` and ``playbench/grasp`` run tasks of
one suite, ``playbench/group`` any tasks and groups.

``-T task=ID`` names a task id, an alias or a group (several with commas); the suite tasks refuse ids of
another suite. ``-T episodes=N`` (default: the task's own count, or the group's preset), ``-T seed=S``
(the run's base seed, 0), ``-T agent=NAME`` (``naive``), ``-T agent_params=...`` (``-A``:
``key=value`` or a YAML mapping) and ``-T model_params=...`` (``-M`` settings the agent reads,
e.g. ``context_window``) are the ``playbench eval`` options; every other ``-T key=value`` is the task's
own parameter (``-T max_steps=50``, ``-T compat=true``). Validation is ``playbench eval``'s: a bad
request (an unknown id, an engine not installed, a bad parameter, ``-T episodes`` beyond ``MAX_EPISODES``)
is a PlaybenchError before any sample runs, which Inspect's command line prints as its line alone, whatever
its display (``refuse``).

Loading this module (Inspect does when it looks up ``playbench/...``) primes tiktoken's default cache from
bpe-openai's copy, so Inspect's token estimates need no download (``offline.prime_default_cache``).
"""

import sys
from collections.abc import Mapping
from types import TracebackType
from typing import Any

from inspect_ai import Task, task
from inspect_ai._util.error import PrerequisiteError
from inspect_ai.dataset import MemoryDataset, Sample
from rich.markup import escape

from playbench.api.config import build_config, key_value_items, taken_by
from playbench.core.errors import PlaybenchError
from playbench.core.registry import resolve_members
from playbench.core.seeding import episode_seed
from playbench.inspect.offline import prime_default_cache
from playbench.inspect.scoring import playbench_score
from playbench.inspect.solver import play_episode
from playbench.rl.chat_env import EnvSpec, env_spec

prime_default_cache()


class Refused(PlaybenchError, PrerequisiteError):
    """A bad request: a PlaybenchError that Inspect treats as a prerequisite error (no traceback).

    ``message`` is what Inspect's own hook prints, through rich: escaped, so that an install command's
    ``[babyai]`` is not read as markup and dropped.
    """

    def __init__(self, message: str) -> None:
        PlaybenchError.__init__(self, message)
        self.message = escape(message)


_inspects_hook = sys.excepthook


def _print_refusal(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
    """A refusal that nothing caught: its line alone on stderr; anything else goes to the hook found before."""
    if isinstance(exc, Refused):
        print(f"error: {exc}", file=sys.stderr)
    else:
        _inspects_hook(kind, exc, tb)


def refuse(error: PlaybenchError) -> Refused:
    """``error`` as a ``Refused``, and the process set to print it as one line if nothing catches it.

    Inspect's own hook prints a prerequisite error through rich, which wraps it at the terminal's width and
    prints nothing under ``--display none``; so the hook Inspect has set (it does before loading tasks) is
    wrapped once, passing everything else on to it.
    """
    global _inspects_hook
    if sys.excepthook is not _print_refusal:
        _inspects_hook, sys.excepthook = sys.excepthook, _print_refusal
    return Refused(str(error))


def _names(value: Any, option: str) -> tuple[str, ...]:
    """``-T task=a,b`` arrives as a list from Inspect's command line, a string from Python."""
    items = [value] if isinstance(value, str) else list(value) if isinstance(value, list | tuple) else None
    if not items or not all(isinstance(v, str) and v.strip() for v in items):
        raise PlaybenchError(f"-T {option}=...: give a task id, alias or group (see 'playbench list'), got {value!r}")
    return tuple(v.strip() for v in items)


def _key_values(values: Any, option: str) -> tuple[str, ...]:
    """``-T`` values as playbench's ``key=value`` strings (Inspect has parsed them as YAML: lists re-joined)."""
    if values is None:
        return ()
    if isinstance(values, str | list | tuple):
        return key_value_items([values] if isinstance(values, str) else [str(v) for v in values])
    if isinstance(values, Mapping):
        return key_value_items({k: ",".join(map(str, v)) if isinstance(v, list) else v for k, v in values.items()})
    raise PlaybenchError(f"-T {option}={values!r}: give key=value items or a mapping")


def build_task(names: Any, suite: str | None, episodes: int | None, seed: int, agent: str, agent_params: Any,
               model_params: Any, task_params: Mapping[str, Any]) -> Task:
    """The Inspect task for ``names``: one sample per episode, played by ``play_episode``, scored by the suite.

    A bad request raises ``Refused`` (a PlaybenchError) before any sample is made.
    """
    try:
        return _build_task(names, suite, episodes, seed, agent, agent_params, model_params, task_params)
    except PlaybenchError as exc:
        raise refuse(exc) from None


def _build_task(names: Any, suite: str | None, episodes: int | None, seed: int, agent: str, agent_params: Any,
                model_params: Any, task_params: Mapping[str, Any]) -> Task:
    tasks = _names(names, "task")
    members = resolve_members(tasks)
    if suite is not None:
        foreign = [t.id for t, _ in members if t.id.split("/", 1)[0] != suite]
        if foreign:
            raise PlaybenchError(f"playbench/{suite} runs {suite} tasks; {', '.join(foreign)} "
                                 f"{'is' if len(foreign) == 1 else 'are'} not (use playbench/group)")
    targs = _key_values(dict(task_params), "task_params")
    aargs, margs = _key_values(agent_params, "agent_params"), _key_values(model_params, "model_params")
    # the whole request validated once, as eval validates it (groups' presets, episode counts, engines, data)
    config = build_config(tasks, agent, "inspect/model", episodes, seed, targs, aargs, margs)
    specs: dict[str, EnvSpec] = {}
    samples = []
    for spec_entry, (found, preset) in zip(config.tasks, members, strict=True):
        params = {**preset.get("params", {}), **taken_by(found, dict(a.split("=", 1) for a in targs))}
        spec = env_spec(found.id, seed, agent, params, aargs, "inspect/model", margs)
        specs[found.id] = spec
        for index in range(spec_entry.episodes):
            episode = episode_seed(seed, found.id, index)
            samples.append(Sample(id=f"{found.id}#{index}", input=f"{found.id} episode {index} (seed {episode})",
                                  metadata={"task": found.id, "index": index, "seed": episode, "base_seed": seed,
                                            "agent": agent}))
    name = suite or "+".join(tasks)
    return Task(dataset=MemoryDataset(samples, name=name), solver=play_episode(specs), scorer=playbench_score(),
                metadata={"playbench": config.model_dump(mode="json", exclude={"model"})})


@task
def balrog(task: Any = None, episodes: int | None = None, seed: int = 0, agent: str = "naive",
           agent_params: Any = None, model_params: Any = None, **task_params: Any) -> Task:
    """BALROG tasks (``-T task=balrog/babyai/goto``, or a BALROG group such as ``balrog/all``)."""
    return build_task(task, "balrog", episodes, seed, agent, agent_params, model_params, task_params)


@task
def smartplay(task: Any = None, episodes: int | None = None, seed: int = 0, agent: str = "naive",
              agent_params: Any = None, model_params: Any = None, **task_params: Any) -> Task:
    """SmartPlay tasks (``-T task=smartplay/hanoi-3``, or ``smartplay/benchmark-v0``)."""
    return build_task(task, "smartplay", episodes, seed, agent, agent_params, model_params, task_params)


@task
def mango(task: Any = None, episodes: int | None = None, seed: int = 0, agent: str = "naive",
          agent_params: Any = None, model_params: Any = None, **task_params: Any) -> Task:
    """MANGO questions (``-T task=mango/df``)."""
    return build_task(task, "mango", episodes, seed, agent, agent_params, model_params, task_params)


@task
def grasp(task: Any = None, episodes: int | None = None, seed: int = 0, agent: str = "naive",
          agent_params: Any = None, model_params: Any = None, **task_params: Any) -> Task:
    """GRASP grids (``-T task=grasp/energy``)."""
    return build_task(task, "grasp", episodes, seed, agent, agent_params, model_params, task_params)


@task
def group(group: Any = None, episodes: int | None = None, seed: int = 0, agent: str = "naive",
          agent_params: Any = None, model_params: Any = None, **task_params: Any) -> Task:
    """Any tasks and groups, of any suites (``-T group=quickstart``, ``-T group=mango/df,grasp/energy``)."""
    return build_task(group, None, episodes, seed, agent, agent_params, model_params, task_params)

"""The registry of task ids (with aliases and groups), and their gymnasium ids."""

import difflib
import importlib
import pkgutil
from typing import Any

from playbench.core.errors import PlaybenchError
from playbench.core.task import Task
from playbench.gymenvs import gym_id, make_env

__all__ = ["gym_id", "make_env"]  # re-exported: the gymnasium face's names, kept importable from here

_TASKS: dict[str, Task] = {}
_ALIASES: dict[str, str] = {}
_GROUPS: dict[str, str] = {}  # id -> description
_GROUP_MEMBERS: dict[str, list[tuple[str, dict[str, Any]]]] = {}  # id -> [(task id, preset)]
_loaded = False


def register_task(task: Task) -> Task:
    """Add a task (and its aliases) to the registry; its gymnasium id is in ``playbench.gymenvs``."""
    _TASKS[task.id] = task
    for alias in task.aliases:
        _ALIASES[alias] = task.id
    return task


def register_group(group_id: str, description: str, members: list[str | tuple[str, dict[str, Any]]]) -> None:
    """Register a group id that expands to several tasks (e.g. ``smartplay/benchmark-v0``).

    A member may carry a preset ``{"episodes": N, "params": {...}}`` used unless the user overrides it.
    """
    _GROUPS[group_id] = description
    _GROUP_MEMBERS[group_id] = [(m, {}) if isinstance(m, str) else (m[0], dict(m[1])) for m in members]


def load_suites() -> None:
    """Import every suite's ``tasks`` module once, which registers its tasks."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    import playbench.suites as suites

    for mod in pkgutil.iter_modules(suites.__path__):
        if mod.ispkg and importlib.util.find_spec(f"playbench.suites.{mod.name}.tasks") is not None:
            importlib.import_module(f"playbench.suites.{mod.name}.tasks")


def list_tasks() -> list[Task]:
    """All registered tasks, sorted by id."""
    load_suites()
    return [_TASKS[k] for k in sorted(_TASKS)]


def list_groups() -> dict[str, tuple[str, list[str]]]:
    """Group id -> (description, member task ids)."""
    load_suites()
    return {g: (_GROUPS[g], [m for m, _ in _GROUP_MEMBERS[g]]) for g in sorted(_GROUPS)}


def _unknown(name: str) -> PlaybenchError:
    names = list(_TASKS) + list(_ALIASES) + list(_GROUPS)
    close = difflib.get_close_matches(name, names, n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else "; see 'playbench list'"
    return PlaybenchError(f"unknown task {name!r}{hint}")


def get_task(name: str) -> Task:
    """The task with this id or alias (``Hanoi3Disk-v0`` works too)."""
    load_suites()
    key = _ALIASES.get(name, _ALIASES.get(name.removesuffix("-v0"), name))
    if key in _TASKS:
        return _TASKS[key]
    raise _unknown(name)


def resolve_members(names: list[str] | tuple[str, ...]) -> list[tuple[Task, dict[str, Any]]]:
    """Expand ids, aliases and groups into (task, preset) pairs, keeping order and dropping repeats."""
    load_suites()
    out: dict[str, tuple[Task, dict[str, Any]]] = {}
    for name in names:
        members = _GROUP_MEMBERS.get(name)
        for tid, preset in members if members is not None else [(name, {})]:
            task = get_task(tid)
            out.setdefault(task.id, (task, preset))
    return list(out.values())


def resolve_tasks(names: list[str] | tuple[str, ...]) -> list[Task]:
    """Expand ids, aliases and groups into tasks, keeping order and dropping repeats."""
    return [task for task, _ in resolve_members(names)]

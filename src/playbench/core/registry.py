"""The registry of task ids (with aliases and groups).

Faces that need to know every task (the gymnasium ids) subscribe with ``on_register``: the registry
imports none of them.
"""

import difflib
import importlib
import importlib.util
import os
import pkgutil
from collections.abc import Callable
from typing import Any

from playbench.core.errors import PlaybenchError
from playbench.core.suite import Suite
from playbench.core.task import Task

#: Environment variable naming extra suite modules (comma-separated), each exposing ``SUITE``.
EXTRA_SUITES_ENV = "PLAYBENCH_SUITES"

_TASKS: dict[str, Task] = {}
_ALIASES: dict[str, str] = {}
_GROUPS: dict[str, str] = {}  # id -> description
_GROUP_MEMBERS: dict[str, list[tuple[str, dict[str, Any]]]] = {}  # id -> [(task id, preset)]
_SUITES: dict[str, list[Suite]] = {}
_LISTENERS: list[Callable[[Task], None]] = []
_loaded = False
_loading = False


def on_register(listener: Callable[[Task], None]) -> None:
    """Call ``listener(task)`` for every task registered so far and for each one registered later.

    A listener subscribes once however often it asks; subscribing loads no suite.
    """
    if listener in _LISTENERS:
        return
    _LISTENERS.append(listener)
    for task in list(_TASKS.values()):
        listener(task)


def _add_task(task: Task) -> None:
    _TASKS[task.id] = task
    for alias in task.aliases:
        _ALIASES[alias] = task.id
    for listener in _LISTENERS:
        listener(task)


def register_suite(suite: Suite) -> None:
    """Add a suite's tasks (with their aliases and gymnasium ids) and groups to the registry.

    This is the only way tasks and groups enter the registry. A suite name may be declared by several
    modules (a variant added outside the package); a task id may be declared only once.
    """
    ids = [task.id for task in suite.tasks]
    for task in suite.tasks:  # refuse the whole declaration before anything is added
        if task.suite != suite.name:
            raise PlaybenchError(f"task {task.id!r} is not in suite {suite.name!r}")
        if task.id in _TASKS or ids.count(task.id) > 1:
            raise PlaybenchError(f"task {task.id!r} is declared twice")
    for task in suite.tasks:
        _add_task(task)
    for group in suite.groups:
        _GROUPS[group.id] = group.description
        _GROUP_MEMBERS[group.id] = [(m, dict(p)) for m, p in group.members]
    _SUITES.setdefault(suite.name, []).append(suite)


def _suite_modules() -> list[str]:
    """Every built-in suite package's ``tasks`` module, then the modules named in ``PLAYBENCH_SUITES``."""
    import playbench.suites as suites

    found = [
        f"playbench.suites.{mod.name}.tasks"
        for mod in pkgutil.iter_modules(suites.__path__)
        if mod.ispkg and importlib.util.find_spec(f"playbench.suites.{mod.name}.tasks") is not None
    ]
    extra = [name.strip() for name in os.environ.get(EXTRA_SUITES_ENV, "").split(",") if name.strip()]
    return found + extra


_DONE_MODULES: set[str] = set()


def load_suites() -> None:
    """Register, once, the ``SUITE`` of every suite module (see ``_suite_modules``).

    A module that fails is raised again by the next call (the modules before it stay registered); a call made
    while the suites load (a suite module importing gymnasium, whose ids register from here) returns at once.
    """
    global _loaded, _loading
    if _loaded or _loading:
        return
    _loading = True
    try:
        for name in _suite_modules():
            if name not in _DONE_MODULES:
                register_suite(_suite_of(name))
                _DONE_MODULES.add(name)
        _loaded = True
    finally:
        _loading = False


def _suite_of(name: str) -> Suite:
    """The ``SUITE`` of the module ``name``."""
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name == name:
            raise PlaybenchError(f"{EXTRA_SUITES_ENV}: no module {name!r}") from None
        raise
    suite = getattr(module, "SUITE", None)
    if not isinstance(suite, Suite):
        raise PlaybenchError(f"suite module {name!r} has no SUITE (a playbench.core.suite.Suite)")
    return suite


def suites() -> dict[str, list[Suite]]:
    """Suite name -> its declarations, in the order they were registered."""
    load_suites()
    return {name: list(decls) for name, decls in _SUITES.items()}


def find_task(task_id: str) -> Task | None:
    """The task with exactly this id (no aliases), or None."""
    load_suites()
    return _TASKS.get(task_id)


def suite_tasks(suite: str) -> list[Task]:
    """A suite's tasks in the order its declarations list them."""
    return [task for decl in suites().get(suite, []) for task in decl.tasks]


def missing_facts(task: Task) -> list[str]:
    """What a task lacks for its suite's report (empty when it has every fact).

    Every distinct check declared for the task's suite is applied (a suite extended from another module
    usually reuses the suite's own check).
    """
    checks = dict.fromkeys(decl.check_facts for decl in suites().get(task.suite, []))
    return [problem for check in checks for problem in check(task)]


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

"""The vocabulary every other package speaks: Game, Task, registry, records, seeding.

The names below are imported on first use: ``playbench.core.errors`` (which every command imports) must
not pull in the registry, pydantic and numpy.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playbench.core.errors import InfraError, PlaybenchError
    from playbench.core.game import Game
    from playbench.core.registry import get_task, list_tasks, register_suite, resolve_tasks
    from playbench.core.seeding import derive_seed, episode_seed
    from playbench.core.suite import Group, Suite
    from playbench.core.task import Task

_LAZY = {
    "InfraError": "errors", "PlaybenchError": "errors", "Game": "game", "get_task": "registry",
    "list_tasks": "registry", "register_suite": "registry", "resolve_tasks": "registry", "derive_seed": "seeding",
    "episode_seed": "seeding", "Group": "suite", "Suite": "suite", "Task": "task",
}
__all__ = [
    "Game",
    "Group",
    "InfraError",
    "PlaybenchError",
    "Suite",
    "Task",
    "derive_seed",
    "episode_seed",
    "get_task",
    "list_tasks",
    "register_suite",
    "resolve_tasks",
]


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'playbench.core' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"playbench.core.{_LAZY[name]}"), name)
    globals()[name] = value
    return value

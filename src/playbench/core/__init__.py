"""The vocabulary every other package speaks: Game, Task, registry, records, seeding."""

from playbench.core.errors import InfraError, PlaybenchError
from playbench.core.game import Game
from playbench.core.registry import get_task, list_tasks, register_suite, resolve_tasks
from playbench.core.seeding import derive_seed, episode_seed
from playbench.core.suite import Group, Suite
from playbench.core.task import Task

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

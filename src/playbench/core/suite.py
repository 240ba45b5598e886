"""A suite's declaration: the tasks built from its table of facts, its groups, and the check of those facts.

Every suite package ``playbench.suites.<name>`` has a ``tasks`` module exposing ``SUITE``; the registry
reads it (see ``registry.load_suites``). Nothing registers itself as a side effect of an import.
"""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from playbench.core.task import Task


@dataclass(frozen=True)
class Group:
    """A group id that expands to several tasks, each with an optional preset.

    A preset is ``{"episodes": N, "params": {...}}``, used unless the user's ``--episodes``/``-T`` override it.
    """

    id: str
    description: str
    members: tuple[tuple[str, Mapping[str, Any]], ...]

    @classmethod
    def of(cls, group_id: str, description: str, members: Sequence[str | tuple[str, Mapping[str, Any]]]) -> "Group":
        """A group from ids or ``(id, preset)`` pairs."""
        return cls(group_id, description, tuple((m, {}) if isinstance(m, str) else (m[0], dict(m[1])) for m in members))


def _no_check(task: Task) -> list[str]:
    return []


@dataclass(frozen=True)
class Suite:
    """What one suite package declares.

    ``tasks`` are built from the suite's facts table (each ``Task.facts`` is its row); ``check_facts``
    names what a task lacks for the suite's report (an empty list when it has every fact).
    """

    name: str
    tasks: tuple[Task, ...] = ()
    groups: tuple[Group, ...] = ()
    check_facts: Callable[[Task], list[str]] = field(default=_no_check)

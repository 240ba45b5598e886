"""playbench inside Inspect AI (the ``playbench[inspect]`` extra; see docs/inspect.md).

``playbench.inspect.tasks`` holds the tasks ``inspect eval playbench/<suite>`` runs (registered through the
``inspect_ai`` entry point); ``suite_summary(log)`` gives a suite's own aggregate (BALROG's progression
table, SmartPlay's normalised score) from an Inspect log; ``playbench.inspect.export`` writes a playbench
run as an Inspect log (``playbench export RUN --format inspect``).

Nothing here is imported by the rest of playbench except that export command, and only when asked for,
so the core install needs no Inspect. Absolute imports only: the standard library's ``inspect`` stays itself.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playbench.inspect.summary import episode_records, suite_summary

_LAZY = {"suite_summary": "summary", "episode_records": "summary"}

__all__ = ["episode_records", "suite_summary"]


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'playbench.inspect' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"playbench.inspect.{_LAZY[name]}"), name)
    globals()[name] = value
    return value

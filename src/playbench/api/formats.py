"""The folder formats the suites declare (``Suite.formats``), found by name or by what a folder holds.

``report``, ``export`` and ``verify`` reach a suite's folder (BALROG's submission folder) only through here: each
format's ``FormatHooks`` is imported when first asked for, and a playbench run is never taken for one.
"""

from pathlib import Path

from playbench.core import registry
from playbench.core.errors import PlaybenchError
from playbench.core.suite import FormatHooks, Suite


def declared() -> dict[str, Suite]:
    """Format name -> the suite declaring it, in the registry's order; a name two suites declare is refused."""
    found: dict[str, Suite] = {}
    for declarations in registry.suites().values():
        for suite in declarations:
            for name in suite.formats:
                if name in found:
                    raise PlaybenchError(f"folder format {name!r} is declared by suites {found[name].name!r} "
                                         f"and {suite.name!r}; rename one")
                found[name] = suite
    return found


def hooks(name: str) -> FormatHooks:
    """The hooks of the declared format ``name`` (a PlaybenchError naming the known ones when none is)."""
    suites = declared()
    if name not in suites:
        raise PlaybenchError(f"no folder format {name!r} (known: {', '.join(suites) or 'none'})")
    return suites[name].format_hooks(name)


def every() -> dict[str, FormatHooks]:
    """Every declared format's hooks, by name (each imported now)."""
    return {name: suite.format_hooks(name) for name, suite in declared().items()}


def format_of(folder: Path) -> tuple[str, FormatHooks] | None:
    """The declared format ``folder`` is in, or None (always None for a playbench run).

    A folder that two formats both claim is refused in one line rather than read as either.
    """
    from playbench.log import is_run

    if is_run(folder):
        return None
    claims = [(name, found) for name, found in every().items() if found.detect(folder)]
    if len(claims) > 1:
        raise PlaybenchError(f"{folder} looks like a folder of several formats "
                             f"({', '.join(found.title for _, found in claims)}); give a folder of one")
    return claims[0] if claims else None

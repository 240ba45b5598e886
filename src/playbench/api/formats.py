"""The folder formats the suites declare (``Suite.formats``), found by name or by what a folder holds.

``report``, ``export``, ``verify`` and ``compare`` reach a suite's folder (BALROG's submission folder) only through here: each
format's ``FormatHooks`` is imported when first asked for, and a playbench run is never taken for one.
"""

from collections.abc import Mapping
from pathlib import Path

from playbench.core import registry
from playbench.core.errors import PlaybenchError
from playbench.core.suite import Comparable, FormatHooks, Suite


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


def compared(paths: tuple[Path, ...], options: Mapping[str, str]) -> list[tuple[str, Comparable] | None]:
    """Per path, ``(title, what compare reads)`` for one in a declared format; None for a run or any other path.

    ``options`` are compare's ``-S`` settings: each format is handed those it declares. A setting no format of
    these paths declares is refused, as is a format that reads nothing for compare; each in one line.
    """
    from playbench.log import is_run

    found = [format_of(path) for path in paths]
    for path, one in zip(paths, found, strict=True):
        if one is None and not is_run(path):
            kinds = ", ".join(hooks.title for hooks in every().values() if hooks.episodes is not None)
            raise PlaybenchError(f"{path} is neither a playbench run nor a folder compare reads ({kinds})")
    formats = [hooks for _, hooks in filter(None, found)]
    unknown = sorted(set(options) - {name for hooks in formats for name in hooks.options})
    if unknown:
        known = "; ".join(f"{hooks.title}: {', '.join(hooks.options)}" for hooks in formats if hooks.options)
        raise PlaybenchError(f"-S {unknown[0]}: no setting of the folders compared "
                             f"({known or 'they take none: -S is for published answers'})")
    out: list[tuple[str, Comparable] | None] = []
    for path, one in zip(paths, found, strict=True):
        if one is None:
            out.append(None)
            continue
        hooks = one[1]
        if hooks.episodes is None:
            raise PlaybenchError(f"{path} is a {hooks.title}, which compare cannot read")
        given = {name: value for name, value in options.items() if name in hooks.options}
        out.append((hooks.title, hooks.episodes(path, given)))
    return out

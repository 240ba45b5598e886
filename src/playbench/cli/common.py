"""Small helpers shared by commands."""

import importlib.metadata
import platform

from rich.console import Console

from playbench.core.errors import PlaybenchError
from playbench.runner.store import RunStore

console = Console()
if not console.is_terminal:  # pipes and CI logs: wide enough that task ids are not cut
    console = Console(width=160)
err_console = Console(stderr=True)

_PACKAGES = ("playbench", "gymnasium", "numpy", "pydantic", "crafter", "minigrid", "textworld", "nle", "balrog-nle",
             "minihack", "httpx", "bpe-openai")


def versions() -> dict[str, str]:
    """Versions of Python and of the packages that decide results."""
    out = {"python": platform.python_version()}
    for name in _PACKAGES:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return out


def open_runs(paths: tuple[str, ...]) -> list[RunStore]:
    """Open several run directories, failing with one clear line on the first bad one."""
    if not paths:
        raise PlaybenchError("give at least one run directory")
    return [RunStore.open(p) for p in paths]


def fmt_stat(stat: dict, digits: int = 3) -> str:
    """``mean ± stderr`` for a summary dict, ``-`` when empty."""
    if stat.get("mean") is None:
        return "-"
    if stat.get("stderr") is None:
        return f"{stat['mean']:.{digits}f}"
    return f"{stat['mean']:.{digits}f} ± {stat['stderr']:.{digits}f}"

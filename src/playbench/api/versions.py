"""The package versions a run records in ``run.json``."""

import importlib.metadata
import platform

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

"""The package versions a run records in ``run.json``."""

import importlib.metadata
import platform

_PACKAGES = ("playbench", "gymnasium", "numpy", "pydantic", "crafter", "minigrid", "textworld", "nle", "balrog-nle",
             "minihack", "bpe-openai", "genai-prices")
#: recorded versions that decide no record, so shards may differ in them: a patch release of Python, httpx
#: (the HTTP client before aiohttp, recorded by older runs) and the price data (each answer's cost is recorded)
NOT_DECIDING = frozenset({"python", "httpx", "genai-prices"})


def versions() -> dict[str, str]:
    """Versions of Python and of the packages that decide results."""
    out = {"python": platform.python_version()}
    for name in _PACKAGES:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return out

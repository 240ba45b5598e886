"""The event loop runs episodes on: uvloop where installed (a faster drop-in loop), else asyncio's own."""

import asyncio
import gc
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion on a fresh event loop."""
    # Objects alive now (modules, registries) live for the whole run: keep them out of the collector's
    # scans, whose full passes otherwise pause every episode in flight at once.
    gc.freeze()
    try:
        import uvloop
    except ModuleNotFoundError:
        return asyncio.run(coro)
    return uvloop.run(coro)

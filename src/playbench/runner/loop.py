"""The event loop runs episodes on: uvloop where installed (a faster drop-in loop), else asyncio's own."""

import asyncio
import gc
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

# The collector's young generation is scanned every 700 allocations by default. With hundreds of episodes
# in flight each scan pauses all of them, and the scans add up to several percent of a run (measured with
# benchmarks/throughput.py). A larger first threshold keeps the same safety net for cyclic garbage with
# far fewer, cheaper-in-total passes.
_RUN_GC_THRESHOLD = (20_000, 10, 10)


def run(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion on a fresh event loop.

    Only for code that owns its thread (the command line, ``playbench.eval``): the collector settings below
    are the whole process's for the run's length, so ``playbench.eval_async``, which plays on its caller's
    loop, does not come here. Inside a running loop this raises ``RuntimeError`` with ``coro`` closed
    (no "never awaited" warning).
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        coro.close()
        raise RuntimeError("a fresh event loop cannot start inside a running one")
    # Objects alive now (modules, registries) live for the whole run: keep them out of the collector's
    # scans, whose full passes otherwise pause every episode in flight at once.
    gc.freeze()
    previous = gc.get_threshold()
    gc.set_threshold(*_RUN_GC_THRESHOLD)
    try:
        try:
            import uvloop
        except ModuleNotFoundError:
            return asyncio.run(coro)
        return uvloop.run(coro)
    finally:
        gc.set_threshold(*previous)

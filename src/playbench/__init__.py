"""playbench: one harness for spatial reasoning, navigation, planning and game benchmarks.

As a library: ``playbench.eval`` runs tasks (say ``"smartplay/hanoi-3"`` with ``agent="random"`` and
``episodes=3``) and returns a result whose ``path`` ``playbench.read_run`` reads back; inside a running
event loop (a notebook), ``await playbench.eval_async(...)`` does the same. docs/api.md has tested
examples. (``eval`` here is playbench's own function: model output is never executed.)

The names below are imported on first use, so ``import playbench`` (and the ``playbench`` command's
start-up) stays cheap.
"""

from typing import TYPE_CHECKING, Any

from playbench.gymenvs import register_when_imported as _register_envs

__version__ = "0.1.0"

# public name -> (module, attribute)
_LAZY = {
    "eval": ("playbench.api.evaluate", "evaluate"),
    "eval_async": ("playbench.api.evaluate", "evaluate_async"),
    "EvalResult": ("playbench.api.result", "EvalResult"),
    "RunInterrupted": ("playbench.api.result", "RunInterrupted"),
    "merge": ("playbench.api.merge", "merge"),
    "verify": ("playbench.api.verify", "verify"),
    "VerifyResult": ("playbench.api.verify", "VerifyResult"),
    "read_run": ("playbench.log.read", "read_run"),
    "RunLog": ("playbench.log.read", "RunLog"),
    "PlaybenchError": ("playbench.core.errors", "PlaybenchError"),
}

__all__ = ["EvalResult", "PlaybenchError", "RunInterrupted", "RunLog", "VerifyResult", "__version__", "eval", "eval_async",
           "merge", "read_run", "verify"]

if TYPE_CHECKING:
    from playbench.api.evaluate import evaluate as eval  # noqa: A004
    from playbench.api.evaluate import evaluate_async as eval_async
    from playbench.api.merge import merge
    from playbench.api.result import EvalResult, RunInterrupted
    from playbench.api.verify import VerifyResult, verify
    from playbench.core.errors import PlaybenchError
    from playbench.log.read import RunLog, read_run


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'playbench' has no attribute {name!r}")
    import importlib

    module, attribute = _LAZY[name]
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


_register_envs()  # gymnasium.make("playbench/…") works once playbench is imported (gymnasium is not imported here)

"""The library API: ``evaluate`` (exported as ``playbench.eval``) runs tasks and records a run."""

from playbench.api.evaluate import EvalOptions, evaluate
from playbench.api.progress import Bar, ProgressHook
from playbench.api.result import EvalResult, RunInterrupted

__all__ = ["Bar", "EvalOptions", "EvalResult", "ProgressHook", "RunInterrupted", "evaluate"]

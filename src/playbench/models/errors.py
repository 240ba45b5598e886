"""Failure kinds of a model call: retryable faults, context overflow and fatal errors."""

from playbench.core.errors import InfraError


class RetryableError(Exception):
    """A fault worth another attempt: 429, 5xx, timeout, dropped connection, malformed body."""

    def __init__(self, kind: str, detail: str, retry_after: float | None = None) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.retry_after = retry_after


class ContextOverflowError(InfraError):
    """The server refused the prompt as longer than the model's context (agents trim and retry)."""


class FatalModelError(InfraError):
    """A failure that another attempt cannot fix (bad key, unknown model, bad request)."""

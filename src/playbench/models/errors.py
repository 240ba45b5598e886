"""Failure kinds of a model call: retryable faults, context overflow, fatal errors and run stoppers."""

from playbench.core.errors import InfraError, StopRun

#: ``RetryableError.kind`` of a request that failed on a pooled connection the server had closed while idle
STALE = "stale-connection"


class RetryableError(Exception):
    """A fault worth another attempt: 429, 5xx, timeout, dropped connection, malformed body.

    ``kind`` names the fault in the model's counters; ``"connect"`` marks a request that never reached
    the server (refused, DNS failure, reset before any answer), which the Model also counts towards
    :class:`ServerUnreachable`; :data:`STALE` marks a pooled connection the server had closed (sent again
    at once, and neither a fault nor a failure to connect).
    """

    def __init__(self, kind: str, detail: str, retry_after: float | None = None) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.retry_after = retry_after


#: What helps when prompts do not fit the server's context (in each such episode's error, and said by ``eval``).
CONTEXT_OVERFLOW_HINT = "start the server with a larger context or send less history, e.g. -A max_text_history=8"


class ContextOverflowError(InfraError):
    """The server refused the prompt as longer than the model's context (agents trim and retry).

    Counted as the ``context-overflow`` fault of the model's stats; not retried (the same prompt would be
    refused again).
    """


class FatalModelError(InfraError):
    """A failure that another attempt cannot fix (unknown model, bad request)."""


class AuthError(StopRun):
    """The server refused the credentials (HTTP 401 or 403): every further request would be refused too."""


class ServerUnreachable(StopRun):
    """Many requests in a row could not even connect to the server: it is down or the URL is wrong."""

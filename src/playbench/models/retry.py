"""Backoff policy of the one retry layer: exponential, jittered, honouring ``Retry-After``."""

import email.utils
import random
import time
from dataclasses import dataclass, field

from playbench.models.http import Response


@dataclass
class Backoff:
    """Delay before retry ``k`` (1-based): ``base·2^(k-1)`` capped at ``cap``, times a jitter in [0.5, 1].

    A server's ``Retry-After`` is a lower bound (itself capped at ``max_retry_after``).
    """

    base: float = 1.0
    cap: float = 30.0
    max_retry_after: float = 120.0
    rng: random.Random = field(default_factory=random.Random)

    def delay(self, retry: int, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number ``retry``."""
        wait: float = min(self.cap, self.base * 2 ** (retry - 1)) * (0.5 + 0.5 * self.rng.random())
        if retry_after is not None:
            wait = max(wait, min(retry_after, self.max_retry_after))
        return wait


def retry_after_seconds(response: Response) -> float | None:
    """The server's requested wait: ``retry-after-ms``, or ``Retry-After`` as seconds or an HTTP date."""
    headers = response.headers
    if "retry-after-ms" in headers:
        try:
            return max(0.0, float(headers["retry-after-ms"]) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())

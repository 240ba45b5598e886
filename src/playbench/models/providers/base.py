"""What a provider implements, and the HTTP call that classifies every failure."""

import json
from typing import Any

import orjson

from playbench.models.errors import ContextOverflowError, FatalModelError, RetryableError
from playbench.models.http import ProtocolError
from playbench.models.redact import redact
from playbench.models.retry import retry_after_seconds
from playbench.models.types import GenerateConfig, Message, ModelOutput

_CONTEXT_HINTS = ("context length", "context_length", "maximum context", "too many tokens", "prompt is too long",
                  "exceeds the maximum", "context window")


class Provider:
    """One provider's wire format. ``generate`` makes exactly one attempt; the Model retries."""

    name = "?"
    uses_http = True

    def __init__(self, model: str, base_url: str, api_key: str | None) -> None:
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key

    async def generate(self, client: Any, messages: list[Message],
                       config: GenerateConfig) -> ModelOutput:
        """One attempt. Raises RetryableError, ContextOverflowError or FatalModelError."""
        raise NotImplementedError


async def post_json(client: Any, url: str, headers: dict[str, str], body: dict[str, Any]) -> Any:
    """POST ``body`` and return the decoded JSON answer, classifying every failure.

    ``client`` is a :class:`playbench.models.http.HttpClient`.
    """
    try:
        response = await client.post(url, headers=headers, json=body)
    except TimeoutError as exc:
        raise RetryableError("timeout", type(exc).__name__) from None
    except (OSError, ProtocolError) as exc:
        raise RetryableError("connection", redact(f"{type(exc).__name__}: {exc}")) from None
    status = response.status_code
    if status == 429 or status == 408 or status == 409 or status >= 500:
        kind = "rate-limit" if status == 429 else f"http-{status}"
        raise RetryableError(kind, f"HTTP {status}", retry_after_seconds(response))
    if status >= 400:
        text = redact(response.text[:300])
        if status in (400, 413) and any(h in text.lower() for h in _CONTEXT_HINTS):
            raise ContextOverflowError(f"prompt longer than the model's context: HTTP {status}: {text}")
        raise FatalModelError(f"HTTP {status} from {redact(url)}: {text}")
    if not response.content.strip():
        raise RetryableError("empty-body", f"HTTP {status} with an empty body")
    try:
        return orjson.loads(response.content)  # fast path; json.loads decides whatever orjson refuses
    except ValueError:
        pass
    try:
        return json.loads(response.content)
    except ValueError:
        raise RetryableError("malformed", f"HTTP {status} body is not JSON") from None


def malformed(detail: str) -> RetryableError:
    """A body that is JSON but not the provider's answer shape."""
    return RetryableError("malformed", detail)

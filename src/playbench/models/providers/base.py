"""What a provider implements, the HTTP call that classifies every failure, and checked answer parsing.

Who is at fault is decided here, the same way for every provider: anything the server sends that is not
the provider's answer shape is a retryable ``malformed`` fault (never a Python error that would be blamed
on the agent); refused credentials stop the run (:class:`AuthError`).
"""

import base64
import json
import math
import re
from typing import Any, ClassVar
from urllib.parse import unquote, urlsplit, urlunsplit

import orjson

from playbench.core.errors import PlaybenchError
from playbench.models.errors import (
    CONTEXT_OVERFLOW_HINT,
    STALE,
    AuthError,
    ContextOverflowError,
    FatalModelError,
    RetryableError,
)
from playbench.models.http import AnswerTooLarge, ConnectFailed, ProtocolError, StaleConnection
from playbench.models.redact import redact, register_secret
from playbench.models.retry import retry_after_seconds
from playbench.models.types import GenerateConfig, Message, ModelOutput

#: How servers say that a prompt does not fit the model's context (matched in the lower-cased answer body).
CONTEXT_OVERFLOW_SIGNS = (
    "context_length_exceeded",  # OpenAI's error code (also llama-cpp-python's and many gateways')
    "maximum context length",  # OpenAI, vLLM, Mistral, DeepSeek: "This model's maximum context length is N tokens. However, ..."
    "longer than the model's context length",  # vLLM: "The input (N tokens) is longer than the model's context length"
    "longer than the maximum model length",  # vLLM (image prompts): "The decoder prompt (length N) is longer than the maximum model length of M"
    "exceeds the context length",  # Ollama: "the input length exceeds the context length"
    "exceed_context_size_error",  # llama.cpp server's error type
    "exceeds the available context size",  # llama.cpp: "the request exceeds the available context size, try ..."
    "exceed context window of",  # llama-cpp-python: "Requested tokens (N) exceed context window of M"
    "greater than the context length",  # LM Studio: "... tokens to keep ... is greater than the context length"
    "prompt is too long",  # Anthropic: "prompt is too long: N tokens > M maximum"
    "exceeds the maximum number of tokens allowed",  # Gemini: "The input token count (N) exceeds the maximum ..."
)
#: Largest token count believed: anything above is a broken answer, not a bill.
MAX_COUNT = 10**12
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def split_credentials(url: str) -> tuple[str, str | None, str | None]:
    """(``url`` without ``user:password@``, user, password), the last two percent-decoded (None if absent)."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url, None, None
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 literal
        host = f"[{host}]"
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    bare = urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))
    return bare, unquote(parts.username or ""), unquote(parts.password or "")


def basic_auth(user: str, password: str) -> str:
    """The ``Authorization`` value of HTTP basic authentication; both parts are registered as secrets."""
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    register_secret(password)  # in case a server echoes it back
    register_secret(token)
    return f"Basic {token}"


class Provider:
    """One provider's wire format. ``generate`` makes exactly one attempt; the Model retries.

    ``base_url`` may carry ``user:password@``: it is taken out of the URL and sent as HTTP basic
    authentication (the URL itself never reaches the HTTP layer or a message).
    """

    name = "?"
    uses_http = True
    #: whether it answers from inside this process and never fails for a retry (a ChatEnv's caller): its
    #: requests then hold no connection slot and pass through no retry loop
    in_process = False
    #: whether the API key travels in the ``Authorization`` header (then it cannot go with basic auth)
    key_in_authorization = False

    def __init__(self, model: str, base_url: str, api_key: str | None, key_source: str = "the API key") -> None:
        self.model = model
        url, user, password = split_credentials(base_url)
        parts = urlsplit(url)  # a query (an Azure-style ``?api-key=``) goes after the endpoint's path
        self.query = parts.query
        self.base_url = urlunsplit((parts.scheme, parts.netloc, parts.path, "", "")).rstrip("/")
        self.basic_auth = basic_auth(user or "", password or "") if user is not None else None
        self.api_key = api_key
        self.key_source = key_source  # where the key came from, for messages (never the key itself)
        if self.basic_auth and api_key and self.key_in_authorization:
            raise PlaybenchError(
                f"the base URL carries a user:password and {key_source} is set: both would go in the "
                "Authorization header; give the key in the environment only, or the URL credentials only")

    def credentials(self) -> str:
        """What identified us to the server, in words (for an authentication error)."""
        sent = [self.key_source] if self.api_key else []
        if self.basic_auth:
            sent.append("the user:password of the base URL")
        return " and ".join(sent) or "no credentials"

    def auth_headers(self) -> dict[str, str]:
        """Headers of the URL's basic authentication (providers add their key header)."""
        return {"Authorization": self.basic_auth} if self.basic_auth else {}

    #: body keys playbench writes itself: a ``-M`` setting of that name would replace the request
    reserved: tuple[str, ...] = ("model", "messages", "stream")
    #: typed settings the provider's API has no place for: refused before the run, with a hint
    unsupported: ClassVar[dict[str, str]] = {"cache_prompt": "only Anthropic's needs cache breakpoints (OpenAI-"
                                             "compatible servers and Gemini reuse a repeated prefix by themselves)"}

    def check_config(self, config: GenerateConfig) -> None:
        """Refuse, before a run, ``-M`` settings this provider cannot send (PlaybenchError, one line)."""
        for key in config.extras():
            if key in self.reserved:
                raise PlaybenchError(f"-M {key} cannot be set: playbench writes {key!r} of the {self.name} request")
        for key, hint in self.unsupported.items():
            if getattr(config, key) is not None:
                raise PlaybenchError(f"-M {key} is not a setting of the {self.name} API; {hint}")

    def request(self, messages: list[Message], config: GenerateConfig) -> tuple[str, dict[str, str], dict[str, Any]]:
        """(URL, headers, JSON body) of one attempt."""
        raise NotImplementedError

    def parse(self, data: Any) -> ModelOutput:
        """The answer in a decoded JSON body; raises RetryableError("malformed") for any other shape."""
        raise NotImplementedError

    async def generate(self, client: Any, messages: list[Message],
                       config: GenerateConfig) -> ModelOutput:
        """One attempt. Raises RetryableError, ContextOverflowError, AuthError or FatalModelError."""
        assert client is not None
        url, headers, body = self.request(messages, config)
        if self.query:
            url = f"{url}{'&' if '?' in url else '?'}{self.query}"
        data = await post_json(client, url, headers, body, self.credentials())
        try:
            return self.parse(data)
        except RetryableError:
            raise
        except (TypeError, ValueError, KeyError, IndexError, AttributeError, OverflowError) as exc:
            # a shape the checks in parse() did not foresee is still the server's fault
            raise malformed(f"unexpected answer shape ({type(exc).__name__})") from None


def snippet(text: str, limit: int = 200) -> str:
    """One redacted line of at most ``limit`` characters of a server's text, control characters escaped."""
    text = " ".join(text[: limit * 2].split())
    text = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else "\ufffd", text)
    text = redact(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


async def post_json(client: Any, url: str, headers: dict[str, str], body: dict[str, Any],
                    credentials: str = "the API key") -> Any:
    """POST ``body`` and return the decoded JSON answer, classifying every failure.

    ``client`` is a :class:`playbench.models.http.HttpClient`; ``credentials`` says in words what was
    sent, for the message of an authentication error.
    """
    try:
        response = await client.post(url, headers=headers, json=body)
    except TimeoutError as exc:
        raise RetryableError("timeout", type(exc).__name__) from None
    except StaleConnection as exc:
        raise RetryableError(STALE, redact(str(exc))) from None
    except ConnectFailed as exc:
        raise RetryableError("connect", redact(str(exc))) from None
    except AnswerTooLarge as exc:
        raise malformed(str(exc)) from None
    except (OSError, ProtocolError) as exc:
        raise RetryableError("connection", redact(f"{type(exc).__name__}: {exc}")) from None
    status = response.status_code
    if status >= 400 and status not in (401, 403, 429) and is_context_overflow(response.content):
        # before the 5xx retries too: a server that says so will say it again, whatever the status
        raise ContextOverflowError(f"the prompt is longer than the server's context (HTTP {status}: "
                                   f"{snippet(response.text, 300)}): {CONTEXT_OVERFLOW_HINT}")
    if status == 429 or status == 408 or status == 409 or status >= 500:
        kind = "rate-limit" if status == 429 else f"http-{status}"
        raise RetryableError(kind, f"HTTP {status}", retry_after_seconds(response))
    if status in (401, 403):
        raise AuthError(f"HTTP {status} from {redact(url)}: the server refused {credentials}; "
                        f"no further requests are sent: {snippet(response.text)}")
    if status >= 400:
        raise FatalModelError(f"HTTP {status} from {redact(url)}: {snippet(response.text, 300)}")
    return decode_json(response.content, status)


def is_context_overflow(content: bytes) -> bool:
    """Whether an error answer says that the prompt is longer than the model's context."""
    text = content[:65536].decode("utf-8", "replace").lower()
    return any(sign in text for sign in CONTEXT_OVERFLOW_SIGNS)


def decode_json(content: bytes, status: int = 200) -> Any:
    """The JSON value of a body. Invalid UTF-8 inside it becomes U+FFFD rather than failing the answer."""
    if not content.strip():
        raise RetryableError("empty-body", f"HTTP {status} with an empty body")
    try:
        return orjson.loads(content)  # fast path; json.loads decides whatever orjson refuses
    except ValueError:
        pass
    text = content.decode("utf-8", "replace").removeprefix("\ufeff")
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nesting deeper than the decoder's stack
        raise RetryableError("malformed", f"HTTP {status} body is not JSON") from None


def malformed(detail: str) -> RetryableError:
    """A body that is JSON but not the provider's answer shape."""
    return RetryableError("malformed", detail)


# -- checked access to a decoded answer: the wrong type is a malformed answer ------------------------

def as_object(value: Any, what: str) -> dict[str, Any]:
    """``value`` if it is a JSON object."""
    if not isinstance(value, dict):
        raise malformed(f"{what} is not an object")
    return value


def optional_object(value: Any, what: str) -> dict[str, Any]:
    """A JSON object, or ``{}`` when absent (null)."""
    return {} if value is None else as_object(value, what)


def optional_list(value: Any, what: str) -> list[Any]:
    """A JSON array, or ``[]`` when absent (null)."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise malformed(f"{what} is not a list")
    return value


def optional_text(value: Any, what: str) -> str | None:
    """A string, or None when absent (null)."""
    if value is not None and not isinstance(value, str):
        raise malformed(f"{what} is not a string")
    return value


def label(value: Any) -> str | None:
    """An optional descriptive string (finish reason): another type is dropped, not an error."""
    return value if isinstance(value, str) else None


def reports_tokens(usage: dict[str, Any], *keys: str) -> bool:
    """Whether an answer's usage object carries any of the token counts ``keys`` (else they are unknown)."""
    return any(usage.get(key) is not None for key in keys)


def count(value: Any, what: str) -> int:
    """A token count: absent is 0; anything but a finite number in [0, MAX_COUNT] is malformed."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise malformed(f"{what} is not a number")
    if not (math.isfinite(value) and 0 <= value <= MAX_COUNT):
        raise malformed(f"{what} is out of range")
    return int(value)

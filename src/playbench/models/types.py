"""Provider-neutral message, request and answer types shared by every provider."""

import base64
import difflib
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from pydantic import ConfigDict, field_validator

from playbench.core.errors import PlaybenchError
from playbench.core.params import Params, build_params, valid_keys


@dataclass(frozen=True)
class Image:
    """A PNG image attached to a message (kept as bytes; providers encode it their own way)."""

    png: bytes
    width: int = 0
    height: int = 0

    @property
    def b64(self) -> str:
        """Base64 of the PNG bytes."""
        return base64.b64encode(self.png).decode()

    @property
    def digest(self) -> str:
        """A short content hash: used in records and cache keys instead of the bytes."""
        return hashlib.sha256(self.png).hexdigest()[:16]

    def placeholder(self) -> dict[str, Any]:
        """What a record stores instead of the image bytes."""
        return {"type": "image", "sha256": self.digest, "width": self.width, "height": self.height}


class _Fields:
    """An empty object whose ``__dict__`` is a text-only message's record (``Message.record``): still a ``dict``.

    CPython gives the attribute dicts of a class's objects one shared table of keys (PEP 412): such a record
    takes about 105 bytes, not the 190 of a dict literal, and so does each copy of it. Every live episode holds
    its history's records, and a ChatEnv's caller a copy of each (6 KB less per live episode, measured).
    """


#: a text-only record's keys in its order, copied for each detached record (``Message.detached_record``)
_TEXT_ONLY: dict[str, Any] = _Fields().__dict__
_TEXT_ONLY["role"] = _TEXT_ONLY["content"] = ""
# CPython first gives a class's shared keys room for 30, and so each such dict and copy room for 30 values (336
# bytes, not 105); every object of the class made takes one spare slot away, down to one. Made here, so a process
# that only ever detaches records (whose copies make no object) has them as small as one that keeps records.
for _ in range(32):
    _Fields()


@dataclass(slots=True)
class Message:
    """One chat message: ``role`` is ``system``, ``user`` or ``assistant``.

    Slotted, and its record kept as one dict: every live episode holds its history's messages.
    """

    role: str
    content: str
    images: tuple[Image, ...] = ()  # a tuple: a message without images shares the empty one (no list each)
    # Sent as a list of content parts even without an image (BALROG's client's form, ``-A compat=true``);
    # recorded as ``"parts": true`` only when set, so other records (and cache keys) stay the same.
    parts: bool = False
    # The record of a text-only message, reused while role, content and parts are the same (the dict holds
    # them: checked by identity): a history message is recorded (and sent) again at every later step of its
    # episode. Treat it as read-only.
    _record: dict[str, Any] | None = field(default=None, init=False, repr=False, compare=False)

    def record(self) -> dict[str, Any]:
        """The JSON form kept in trajectories (images as hashes, never bytes). Do not mutate it."""
        if not self.images:
            cached = self._record
            if cached is not None and cached["role"] is self.role and cached["content"] is self.content \
                    and ("parts" in cached) == self.parts:
                return cached
            text_only = _Fields().__dict__
            text_only["role"] = self.role
            text_only["content"] = self.content
            if self.parts:
                text_only["parts"] = True
            self._record = text_only
            return text_only
        out: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.parts:
            out["parts"] = True
        out["images"] = [img.placeholder() for img in self.images]
        return out

    def detached_record(self) -> dict[str, Any]:
        """A new dict equal to ``record()``, the caller's to change; the message then keeps no record cached.

        For a holder of many live messages whose records nobody keeps (a ChatEnv with ``keep_steps=False``):
        a cached record per history message would be a second dict beside the caller's (3 KB a live episode).
        """
        self._record = None  # dropped, never handed out: whoever holds it (a step record) keeps it unchanged
        return self.record_copy()

    def record_copy(self) -> dict[str, Any]:
        """A new dict equal to ``record()``, the caller's to change; a record cached on the message is kept.

        Made directly, not as a copy of ``record()``: a request's history is handed out at every step.
        """
        if self.images:
            return self.record()  # made afresh each time, never cached
        out = _TEXT_ONLY.copy()  # a copy of a shared-key dict shares its keys too (and is made faster than a literal)
        out["role"] = self.role
        out["content"] = self.content
        if self.parts:
            out["parts"] = True
        return out


#: Typed settings sent to providers (each provider maps them to its own names); listed in this order.
WIRE_KEYS = ("temperature", "max_tokens", "top_p", "seed", "stop", "top_k", "reasoning_effort",
             "max_completion_tokens")
#: Typed settings added after records began: left out of cache keys while unset, so keys stay the same.
_LATER_KEYS = ("top_k", "reasoning_effort", "max_completion_tokens")
#: Settings of the mock provider only.
MOCK_KEYS = ("script", "invalid_rate", "latency")
#: Settings that never change an answer (prices, cache breakpoints): left out of cache keys.
_NOT_IN_CACHE_KEY = ("price_input", "price_output", "price_cache_read", "price_cache_write", "cache_prompt")


def parse_value(text: Any) -> Any:
    """A ``-M`` value of a setting playbench does not know, parsed.

    JSON when it parses (numbers, booleans, lists, objects, null), else the text itself.
    """
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nested past Python's stack
        return text


class GenerateConfig(Params):
    """Generation settings given with ``-M key=value`` (all optional; ``None`` = provider default).

    Known keys are validated by type; any other key is a provider setting passed through as given
    (its value parsed by :func:`parse_value`) and kept in ``model_extra`` (see :meth:`extras`).
    """

    model_config = ConfigDict(extra="allow", frozen=True)

    temperature: float | None = None
    max_tokens: int | None = None
    top_p: float | None = None
    seed: int | None = None
    stop: list[str] | None = None
    top_k: int | None = None
    #: Reasoning models: ``minimal``, ``low``, ``medium``, ``high`` … (the provider decides what it accepts).
    reasoning_effort: str | None = None
    #: OpenAI's budget for reasoning plus answer tokens (reasoning models refuse ``max_tokens``).
    max_completion_tokens: int | None = None
    #: Context window in tokens: prompts are trimmed (oldest history first) to fit it.
    context_window: int | None = None
    #: Prices in USD per million tokens; with them usage also carries ``cost_micro_usd``.
    price_input: float | None = None
    price_output: float | None = None
    #: USD per million input tokens read from / written to the provider's prompt cache (default: ``price_input``).
    price_cache_read: float | None = None
    price_cache_write: float | None = None
    #: Anthropic only: mark the stable prefix with cache breakpoints (default on; ``false`` sends none).
    cache_prompt: bool | None = None
    #: Mock provider only: a JSON file of scripted answers.
    script: str | None = None
    #: Mock provider only: share of answers that deliberately name no action (0..1).
    invalid_rate: float = 0.0
    #: Mock provider only: simulated latency per call in seconds.
    latency: float = 0.0

    @field_validator("stop", mode="before")
    @classmethod
    def _split_stop(cls, value: Any) -> Any:
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                return json.loads(text)
            return [text]
        return value

    def extras(self) -> dict[str, Any]:
        """The provider settings playbench does not know, as given (values parsed), in key order."""
        return dict(sorted((self.model_extra or {}).items()))

    def cache_identity(self) -> dict[str, Any]:
        """Every setting that can change an answer (all but the prices and cache breakpoints), for cache keys.

        Settings added later appear only when set, and unknown ones under ``extra`` only when given, so a
        configuration that could be written before keeps its cache entries.
        """
        out = self.model_dump(mode="json", exclude={*_NOT_IN_CACHE_KEY, *_LATER_KEYS, *(self.model_extra or {})})
        out.update({k: getattr(self, k) for k in _LATER_KEYS if getattr(self, k) is not None})
        if self.model_extra:
            out["extra"] = self.extras()
        return out

    def wire(self) -> dict[str, Any]:
        """The typed settings that are set, under playbench's names (providers rename them)."""
        return {k: getattr(self, k) for k in WIRE_KEYS if getattr(self, k) is not None}

    def output_budget(self) -> int | None:
        """The answer's token budget: ``max_tokens``, else ``max_completion_tokens``."""
        return self.max_tokens if self.max_tokens is not None else self.max_completion_tokens


def _mapping_setting(key: str) -> bool:
    """Whether ``-M key`` holds headers or a body part (``extra_headers``, ``extra_body``): a mapping only."""
    return key.lower().replace("-", "_").rpartition("_")[2] in ("headers", "body")


def build_generate_config(values: dict[str, Any], owner: str) -> GenerateConfig:
    """Validate ``-M`` settings: known keys by type, unknown ones parsed and passed through.

    A key that looks like a misspelt known one (``temprature``) is refused rather than sent.
    """
    known = GenerateConfig.model_fields
    for key in values:
        if key in known:
            continue
        if not key or not key.replace("_", "").replace("-", "").isalnum():
            raise PlaybenchError(f"bad setting name {key!r} for {owner}: letters, digits, _ and - only")
        close = difflib.get_close_matches(key, list(known), n=1, cutoff=0.8)
        if close:
            raise PlaybenchError(f"unknown parameter {key!r} for {owner}: did you mean {close[0]!r}? "
                                 f"valid keys: {valid_keys(GenerateConfig)}; other keys go to the provider as given")
    typed = {k: v for k, v in values.items() if k in known}
    config = build_params(GenerateConfig, typed, owner)
    extra = {k: parse_value(v) for k, v in values.items() if k not in known}
    for key, value in extra.items():
        if _mapping_setting(key) and not isinstance(value, dict):  # never sent as a text the server would misread
            kind = {str: "text", list: "a list", bool: "a boolean", int: "a number", float: "a number"}
            raise PlaybenchError(f"-M {key} must be a JSON object, got {kind.get(type(value), 'null')}: quote the whole "
                                 f"""setting, e.g. -M '{key}={{"Name": "value"}}'""")
    if not extra:
        return config  # type: ignore[return-value]
    return GenerateConfig.model_validate({**typed, **extra})


@dataclass
class ModelOutput:
    """A well-formed answer: text plus usage and optional reasoning.

    ``input_tokens``/``output_tokens`` are the provider's counts for this answer, also when it was
    served from the cache (``cached``); :meth:`usage` reports what was spent. ``input_tokens`` is every
    prompt token, whichever way the provider counts them: the tokens its prompt cache served
    (``cache_read_tokens``) and wrote (``cache_write_tokens``) are parts of it. Those two are None when the
    provider did not say (a server without a prompt cache, or one that does not report it).
    ``tokens_reported`` is False when the answer carried no token counts at all (no ``usage``, or a null or
    empty one, as some servers send): its counts are then unknown, not zero.
    """

    text: str
    input_tokens: int = 0
    output_tokens: int = 0
    reasoning: str | None = None
    attempts: int = 1
    cached: bool = False
    stop_reason: str | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
    batch: bool = False  # answered through a provider batch (``--batch``): priced at the batch rate
    tokens_reported: bool = True

    def usage(self) -> dict[str, int]:
        """Token and call counts for ``Decision.usage``: what this answer cost.

        A cache hit cost nothing (no request, no tokens); the tokens the answer cost when it was first
        asked for are kept under ``cached_input_tokens`` and ``cached_output_tokens``. An answer without
        token counts is counted under ``tokens_unreported`` (its 0 tokens, and any cost, are lower bounds).
        """
        if self.cached:
            return {"input_tokens": 0, "output_tokens": 0, "calls": 1, "attempts": 0, "cache_hits": 1,
                    "cached_input_tokens": self.input_tokens, "cached_output_tokens": self.output_tokens}
        out = {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "calls": 1,
            "attempts": self.attempts,
            "cache_hits": 0,
        }
        # only where the provider said: a missing count is unknown, not zero
        if self.cache_read_tokens is not None:
            out["cache_read_tokens"] = self.cache_read_tokens
        if self.cache_write_tokens is not None:
            out["cache_write_tokens"] = self.cache_write_tokens
        if self.batch:
            out["batch"] = 1  # requests answered through a provider batch
        if not self.tokens_reported:
            out["tokens_unreported"] = 1  # answers whose server sent no token counts
        return out


def messages_record(messages: list[Message]) -> list[dict[str, Any]]:
    """The JSON form of a message list for trajectories."""
    return [m.record() for m in messages]

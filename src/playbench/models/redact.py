"""Keep API keys out of every string playbench writes: records, logs and error messages."""

import os
import re

#: Environment variables that may hold secrets; their values are redacted wherever they appear.
KEY_VARIABLES = (
    "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "VLLM_API_KEY", "OLLAMA_API_KEY",
)
_extra: set[str] = set()
# Read on every answer, so cheaply: the environment's own mapping (bytes on POSIX) when it has one, and the
# sorted list recomputed only when a value or the extra secrets change.
_ENV = getattr(os.environ, "_data", None)
_ENV_KEYS = tuple(os.environ.encodekey(name) for name in KEY_VARIABLES) if _ENV is not None else ()
_cached: tuple[object, list[str]] = (None, [])
# Header and query forms keys travel in, in case a server echoes a request back; each with a word it cannot
# match without (checked on the lowercased text first: most answers hold none of them)
_PATTERNS = (
    re.compile(r"(?i)(authorization['\"]?\s*[:=]\s*['\"]?(?:bearer|basic)\s+)[^\s'\"]+"),
    re.compile(r"(?i)((?:x-api-key|x-goog-api-key)['\"]?\s*[:=]\s*['\"]?)[^\s'\",}]+"),
    re.compile(r"(?i)([?&]key=)[^&\s'\"]+"),
    # credentials inside a URL (user:password@host); anchored and bounded so that long model answers stay
    # linear (an unanchored ``\w+://`` is quadratic on a long word)
    re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://)[^/@\s'\"]{1,1024}(?=@)"),
)
_NEEDLES = ("authorization", "api-key", "key=", "://")


def register_secret(value: str | None) -> None:
    """Remember a secret obtained elsewhere so ``redact`` hides it too."""
    global _cached
    if value and len(value) >= 4:
        _extra.add(value)
        _cached = (None, [])


def secrets() -> list[str]:
    """Every known secret value, longest first (so overlapping keys are hidden whole)."""
    global _cached
    if _ENV is not None:
        state: object = tuple(_ENV.get(key) for key in _ENV_KEYS)
    else:
        state = tuple(os.environ.get(name) for name in KEY_VARIABLES)
    if state != _cached[0]:
        found = {os.environ.get(name, "") for name in KEY_VARIABLES} | _extra
        _cached = (state, sorted((s for s in found if len(s) >= 4), key=len, reverse=True))
    return _cached[1]


def _lowered(text: str) -> str:
    """``text`` lowercased so that every word a pattern matches (IGNORECASE) appears in it.

    lower() keeps the dotless ``ı`` (which matches ``i``) and turns ``İ`` into ``i`` and a combining dot.
    """
    return text.lower().replace("\u0131", "i").replace("\u0307", "")


def redact(text: str) -> str:
    """``text`` with every known key value and key-carrying header replaced by ``***``."""
    for secret in secrets():
        text = text.replace(secret, "***")
    lowered = _lowered(text)
    for needle, pattern in zip(_NEEDLES, _PATTERNS, strict=True):
        if needle in lowered:
            text = pattern.sub(r"\1***", text)
    return text

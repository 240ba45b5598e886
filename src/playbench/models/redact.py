"""Keep API keys out of every string playbench writes: records, logs and error messages."""

import os
import re

#: Environment variables that may hold secrets; their values are redacted wherever they appear.
KEY_VARIABLES = (
    "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "VLLM_API_KEY", "OLLAMA_API_KEY",
)
_extra: set[str] = set()
# Header and query forms keys travel in, in case a server echoes a request back.
_PATTERNS = (
    re.compile(r"(?i)(authorization['\"]?\s*[:=]\s*['\"]?(?:bearer|basic)\s+)[^\s'\"]+"),
    re.compile(r"(?i)((?:x-api-key|x-goog-api-key)['\"]?\s*[:=]\s*['\"]?)[^\s'\",}]+"),
    re.compile(r"(?i)([?&]key=)[^&\s'\"]+"),
    # credentials inside a URL (user:password@host); anchored and bounded so that long model answers stay
    # linear (an unanchored ``\w+://`` is quadratic on a long word)
    re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://)[^/@\s'\"]{1,1024}(?=@)"),
)


def register_secret(value: str | None) -> None:
    """Remember a secret obtained elsewhere so ``redact`` hides it too."""
    if value and len(value) >= 4:
        _extra.add(value)


def secrets() -> list[str]:
    """Every known secret value, longest first (so overlapping keys are hidden whole)."""
    found = {os.environ.get(name, "") for name in KEY_VARIABLES} | _extra
    return sorted((s for s in found if len(s) >= 4), key=len, reverse=True)


def redact(text: str) -> str:
    """``text`` with every known key value and key-carrying header replaced by ``***``."""
    for secret in secrets():
        text = text.replace(secret, "***")
    for pattern in _PATTERNS:
        text = pattern.sub(r"\1***", text)
    return text

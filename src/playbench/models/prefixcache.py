"""A simulated provider prompt cache: which prompt tokens a prefix cache could serve, read from wire bodies.

Providers cache the beginning of a prompt that an earlier request sent, whole blocks at a time: OpenAI and
Gemini every prefix by themselves, Anthropic only the prefixes that end at a ``cache_control`` breakpoint
(written there, read back by a later request whose breakpoint lies at or after the same point). Used by the
loopback server (:mod:`playbench.models.fakeserver`, ``prompt_cache=True``) to answer with real-shaped
cached-token usage, and by ``benchmarks/prefix_stability.py`` to measure what Anthropic's breakpoints save.
Token counts are the fake server's (4 characters a token) unless the caller gives its own.
"""

import hashlib
from collections.abc import Callable
from typing import Any

from playbench.models.mockbrain import approx_tokens

#: a block of a prompt: (role, text, carries a cache breakpoint)
Block = tuple[str, str, bool]


def _text(part: Any) -> str:
    if isinstance(part, str):
        return part
    if isinstance(part, dict):
        if "text" in part:
            return str(part["text"])
        source = part.get("source") or part.get("inlineData") or part.get("image_url") or {}
        return str(source.get("data") or source.get("url") or "")  # an image: its bytes stand for it
    return ""


def _blocks(role: str, content: Any) -> list[Block]:
    if isinstance(content, str):
        return [(role, content, False)]
    return [(role, _text(part), isinstance(part, dict) and "cache_control" in part) for part in content or []]


def request_blocks(fmt: str, request: dict[str, Any]) -> list[Block]:
    """The blocks of a wire request of format ``openai``, ``anthropic`` or ``gemini``, in prompt order."""
    out: list[Block] = []
    if fmt == "openai":
        for m in request.get("messages") or []:
            out += _blocks(str(m.get("role")), m.get("content"))
    elif fmt == "anthropic":
        if request.get("system"):
            out += _blocks("system", request["system"])
        for m in request.get("messages") or []:
            out += _blocks(str(m.get("role")), m.get("content"))
    else:
        if request.get("systemInstruction"):
            out += _blocks("system", request["systemInstruction"].get("parts"))
        for c in request.get("contents") or []:
            out += _blocks(str(c.get("role")), c.get("parts"))
    return out


class PromptCache:
    """The prefixes a provider has cached so far (by hash), and what a new request reads and writes.

    ``explicit``: only prefixes ending at a breakpoint are cached (Anthropic); otherwise every prefix is.
    ``minimum``: prefixes shorter than this many tokens are never cached (the providers' floors: 1024
    tokens for OpenAI, Gemini and most Claude models).
    """

    def __init__(self, explicit: bool, minimum: int = 0, count: Callable[[str], int] = approx_tokens) -> None:
        self.explicit = explicit
        self.minimum = minimum
        self.count = count
        self._seen: set[bytes] = set()

    def use(self, blocks: list[Block]) -> tuple[int, int, int]:
        """(prompt tokens, tokens read from the cache, tokens written to it) for one request; remembers it."""
        digest = hashlib.sha256()
        prefixes: list[tuple[bytes, int, bool]] = []  # (hash, tokens so far, ends at a breakpoint) per block
        total = 0
        for role, text, mark in blocks:
            digest.update(f"{role}\0{text}\0".encode("utf-8", "surrogatepass"))
            total += self.count(text)
            prefixes.append((digest.copy().digest(), total, mark))
        last_mark = max((i for i, p in enumerate(prefixes) if p[2]), default=-1)
        reach = last_mark + 1 if self.explicit else len(prefixes)  # how far a read may extend
        read = 0
        for key, tokens, _ in prefixes[:reach]:
            if key in self._seen:
                read = tokens
        stored = [(key, tokens) for key, tokens, mark in prefixes if mark or not self.explicit]
        for key, tokens in stored:
            if tokens >= self.minimum:
                self._seen.add(key)
        written = 0
        if self.explicit and last_mark >= 0 and prefixes[last_mark][1] >= self.minimum:
            written = max(0, prefixes[last_mark][1] - read)
        return total, read, written


def with_cached_usage(fmt: str, reply: dict[str, Any], total: int, read: int, written: int) -> dict[str, Any]:
    """``reply`` (a well-formed answer body) with its usage in the provider's own cached-token fields."""
    if fmt == "openai":
        usage = reply["usage"]
        usage["prompt_tokens"] = total  # every prompt token, the cached ones included
        usage["total_tokens"] = total + usage["completion_tokens"]
        usage["prompt_tokens_details"] = {"cached_tokens": read, "audio_tokens": 0}
    elif fmt == "anthropic":
        usage = reply["usage"]
        usage["input_tokens"] = total - read - written  # only what came after the last breakpoint
        usage["cache_creation_input_tokens"] = written
        usage["cache_read_input_tokens"] = read
    else:
        usage = reply["usageMetadata"]
        usage["promptTokenCount"] = total
        usage["totalTokenCount"] = total + usage["candidatesTokenCount"]
        if read:  # left out when nothing was cached, as the API does
            usage["cachedContentTokenCount"] = read
    return reply

"""Token counting for context-window checks (a local BPE; exact for OpenAI models, close for others)."""

from functools import lru_cache
from typing import Any

from playbench.models.types import Message

_PER_MESSAGE = 4  # role and separators
_PER_IMAGE = 800  # a rough allowance; providers count images differently


@lru_cache(maxsize=1)
def _encoding() -> Any:
    import bpe_openai

    return bpe_openai.get_encoding("o200k_base")


def count_tokens(text: str) -> int:
    """Tokens in ``text``."""
    return len(_encoding().encode_ordinary(text))


def count_message_tokens(messages: list[Message]) -> int:
    """Estimated prompt tokens of a message list."""
    return sum(count_tokens(m.content) + _PER_MESSAGE + _PER_IMAGE * len(m.images) for m in messages)

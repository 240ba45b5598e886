r"""Make every answer safe to keep: text that encodes as UTF-8 and carries no API key.

Servers can send anything. ``json.loads`` turns an escaped lone surrogate (``\ud800`` in the body) into a
``str`` that cannot be encoded as UTF-8, which would only fail later, when a trajectory or the cache is written.
Everything else (NUL, ANSI escapes, markup, very long text) is kept as sent: escaping text for display is
the job of whoever displays it.
"""

import re

from playbench.models.redact import redact
from playbench.models.types import ModelOutput

_SURROGATE = re.compile("[\ud800-\udfff]")


def utf8_safe(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (pairs were already joined by the JSON decoder)."""
    if _SURROGATE.search(text) is None:
        return text
    return _SURROGATE.sub("\ufffd", text)


def clean_text(text: str) -> str:
    """UTF-8-safe ``text`` with known API keys and key-carrying headers replaced by ``***``."""
    return redact(utf8_safe(text))


def clean_output(output: ModelOutput) -> ModelOutput:
    """``output`` with its text, reasoning and stop reason cleaned, in place (and returned).

    Every caller hands over an answer made for it alone (a provider's, or one read afresh from the cache, a
    batch or the kept answers). In place, not copied: a copy made through ``__dict__`` gives the answer a dict
    of its own, and every later read of its fields is slower (8 us a BabyAI step of a ChatEnv, measured).
    """
    output.text = clean_text(output.text)
    if output.reasoning is not None:
        output.reasoning = clean_text(output.reasoning)
    if output.stop_reason is not None:
        output.stop_reason = clean_text(output.stop_reason)
    return output

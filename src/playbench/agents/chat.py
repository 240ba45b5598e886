"""What every model agent shares: asking with context trimming and summing usage."""

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from playbench.agents.prompts.images import to_png
from playbench.models.errors import ContextOverflowError
from playbench.models.types import Image, Message, ModelOutput

if TYPE_CHECKING:  # the model (and aiohttp under it) loads only for a model-backed run
    from playbench.models.model import Model


async def ask(model: "Model", build: Callable[[int], list[Message]], max_drop: int, step: int = 2
              ) -> tuple[ModelOutput, list[Message], int]:
    """Generate from ``build(dropped)``, dropping the oldest history (``step`` items at a time) to fit.

    Trims before sending when the model's ``context_window`` is known, and again whenever the
    server answers that the prompt is too long. Returns (answer, messages sent, items dropped).
    """
    dropped = 0
    while True:
        messages = build(dropped)
        if dropped < max_drop and not model.fits(messages):
            dropped = min(max_drop, dropped + step)
            continue
        try:
            return await model.generate(messages), messages, dropped
        except ContextOverflowError:
            if dropped >= max_drop:
                raise
            dropped = min(max_drop, dropped + step)


def add_usage(total: dict[str, int] | None, usage: dict[str, int]) -> dict[str, int]:
    """Sum two usage dicts."""
    out = dict(total or {})
    for key, value in usage.items():
        out[key] = out.get(key, 0) + value
    return out


def observation_image(info: dict[str, Any]) -> Image | None:
    """The ``info["image"]`` of a game in image mode as PNG, if any."""
    image = info.get("image")
    if image is None:
        return None
    return to_png(np.asarray(image))


def with_suffix(messages: list[Message], suffix: str, only_user: bool) -> list[Message]:
    """A copy of ``messages`` with ``⏎⏎suffix`` appended to the last one (if it is a user message, or always)."""
    if not messages or (only_user and messages[-1].role != "user"):
        return messages
    last = messages[-1]
    return [*messages[:-1], Message(last.role, f"{last.content}\n\n{suffix}", last.images)]

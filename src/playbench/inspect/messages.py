"""playbench's chat messages as Inspect's: the same roles and text, images as PNG data URIs."""

from collections.abc import Callable, Sequence
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    Content,
    ContentImage,
    ContentText,
)

from playbench.core.errors import PlaybenchError
from playbench.models.types import Message

_ROLES: dict[str, Callable[..., ChatMessage]] = {
    "system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant,
}


def data_uri(png: bytes) -> str:
    """A PNG image as the data URI Inspect sends to vision models."""
    import base64

    return "data:image/png;base64," + base64.b64encode(png).decode()


def chat_message(role: str, text: str, images: Sequence[str] = ()) -> ChatMessage:
    """One Inspect message: ``text`` as the plain content, or text then images (data URIs or placeholders)."""
    make = _ROLES.get(role)
    if make is None:
        raise PlaybenchError(f"a message with role {role!r}: playbench sends system, user and assistant only")
    if not images:
        return make(content=text)
    content: list[Content] = [ContentText(text=text)]
    content += [ContentImage(image=image) if image.startswith("data:") else ContentText(text=image)
                for image in images]
    return make(content=content)


def to_inspect(messages: Sequence[Message]) -> list[ChatMessage]:
    """A request as the agent built it (``ChatEnv.request``) in Inspect's types, images with their bytes."""
    return [chat_message(m.role, m.content, [data_uri(i.png) for i in m.images]) for m in messages]


def recorded_to_inspect(messages: Sequence[dict[str, Any]], frames: dict[str, bytes]) -> list[ChatMessage]:
    """A request as a trajectory records it; an image comes from ``frames`` (digest -> PNG) when known.

    A run keeps each image as a placeholder (its hash and size) and the frame the agent saw as a file; an
    image whose frame is not in the run is shown as a line of text naming it, never invented.
    """
    out = []
    for m in messages:
        images = []
        for image in m.get("images") or []:
            png = frames.get(str(image.get("sha256")))
            images.append(data_uri(png) if png is not None else
                          f"[image {image.get('sha256')} {image.get('width')}x{image.get('height')}: not in the run]")
        out.append(chat_message(str(m.get("role")), str(m.get("content")), images))
    return out


def message_dicts(messages: Sequence[ChatMessage]) -> list[dict[str, Any]]:
    """Inspect messages as playbench records them (role, content; images as data URIs): for comparisons."""
    out: list[dict[str, Any]] = []
    for m in messages:
        if isinstance(m.content, str):
            out.append({"role": m.role, "content": m.content})
            continue
        texts = [c.text for c in m.content if isinstance(c, ContentText)]
        images = [c.image for c in m.content if isinstance(c, ContentImage)]
        out.append({"role": m.role, "content": texts[0] if texts else "", "images": images})
    return out

"""BALROG's history prompt builder (specs/balrog.md §3.1), text and image windows included."""

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from playbench.models.types import Image, Message


def observation_text(long_term: str | None, short_term: str = "", current: bool = True, image: bool = False) -> str:
    """The text of one observation message of BALROG's history prompt (the model's view of a step).

    ``Current Observation:`` (or ``Observation:`` for past steps), the short-term context (current step
    only), the long-term context (None: left out, for image-only steps) and the image notice. The human
    agent shows a person exactly this text.
    """
    parts = ["Current Observation:" if current else "Observation:"]
    if current and short_term:
        parts.append(short_term)
    if long_term is not None:
        parts.append(long_term)
    if image:
        parts.append("Image observation provided.")
    return "\n".join(parts)


@dataclass
class _Event:
    kind: str  # "observation" or "action"
    text: str = ""
    image: Image | None = None
    reasoning: str | None = None
    # The message this event rendered to last time, and what it depended on: an event's message rarely
    # changes between steps, so the prompt is rebuilt from these instead of from scratch every step.
    cached_key: tuple[Any, ...] | None = field(default=None, repr=False, compare=False)
    cached_message: Message | None = field(default=None, repr=False, compare=False)


@dataclass
class HistoryBuilder:
    """Observations and actions of the current episode, turned into a message list."""

    system_prompt: str | None = None
    max_text_history: int = 16
    max_image_history: int = 1
    max_cot_history: int = 1
    events: deque[_Event] = field(init=False)
    previous_reasoning: str | None = None
    last_short_term: str = ""
    _system_message: Message | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.events = deque(maxlen=max(1, 2 * max(self.max_text_history, self.max_image_history)))

    def update_observation(self, long_term: str, short_term: str = "", image: Image | None = None) -> None:
        """Append the current observation."""
        self.events.append(_Event("observation", text=long_term, image=image))
        self.last_short_term = short_term

    def update_action(self, action: str) -> None:
        """Append the previous action, carrying the latest reasoning (CoT)."""
        self.events.append(_Event("action", text=action, reasoning=self.previous_reasoning))

    def update_reasoning(self, reasoning: str) -> None:
        """Remember the latest chain of thought (shown as ``Previous plan:``)."""
        self.previous_reasoning = reasoning

    def get_prompt(self, include_system: bool = True, skip: int = 0) -> list[Message]:
        """The messages: the instruction prompt (as a user message), then the events oldest first.

        ``skip`` leaves out that many of the oldest events (context trimming); the current
        observation is always kept.
        """
        events = list(self.events)
        events = events[min(skip, max(0, len(events) - 1)):]
        # One pass, newest first: the newest observations keep their text (and images), only the newest
        # reasoning is kept (older reasoning is dropped for good, as in the original).
        body: list[Message] = []
        texts = images = plans = 0
        current = True
        for ev in reversed(events):
            if ev.kind == "action":
                if ev.reasoning is not None:
                    if plans < self.max_cot_history:
                        plans += 1
                    else:
                        ev.reasoning = None
                key: tuple[Any, ...] = ("action", ev.reasoning)
            else:
                with_text = texts < self.max_text_history
                texts += 1
                with_image = ev.image is not None and images < self.max_image_history
                images += with_image
                key = ("observation", current, self.last_short_term if current else "", with_text, with_image)
            current = False
            if ev.cached_key != key or ev.cached_message is None:
                ev.cached_message = self._render(ev, key)
                ev.cached_key = key
            body.append(ev.cached_message)
        body.reverse()
        if include_system and self.system_prompt:
            if self._system_message is None:
                self._system_message = Message("user", self.system_prompt)
            return [self._system_message, *body]
        return body

    @staticmethod
    def _render(ev: _Event, key: tuple[Any, ...]) -> Message:
        """The message of one event, given what it depends on (``key`` from :meth:`get_prompt`)."""
        if ev.kind == "action":
            return Message("assistant", f"Previous plan:\n{ev.reasoning}" if ev.reasoning is not None else ev.text)
        _, current, short_term, with_text, with_image = key
        images = []
        if with_image:
            assert ev.image is not None  # with_image only when the event has one (get_prompt)
            images.append(ev.image)
        text = observation_text(ev.text if with_text else None, short_term if current else "", current, with_image)
        return Message("user", text, images)

    def __len__(self) -> int:
        return len(self.events)

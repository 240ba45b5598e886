"""BALROG's history prompt builder (specs/balrog.md §3.1), text and image windows included."""

from collections import deque
from dataclasses import dataclass, field

from playbench.models.types import Image, Message


@dataclass
class _Event:
    kind: str  # "observation" or "action"
    text: str = ""
    image: Image | None = None
    reasoning: str | None = None


@dataclass
class HistoryBuilder:
    """Observations and actions of the current episode, turned into a message list."""

    system_prompt: str | None = None
    max_text_history: int = 16
    max_image_history: int = 1
    max_cot_history: int = 1
    events: deque = field(init=False)
    previous_reasoning: str | None = None
    last_short_term: str = ""

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
        skip = min(skip, max(0, len(events) - 1))
        events = events[skip:]
        text_ids: set[int] = set()
        image_ids: set[int] = set()
        for ev in reversed(events):
            if ev.kind != "observation":
                continue
            if len(text_ids) < self.max_text_history:
                text_ids.add(id(ev))
            if ev.image is not None and len(image_ids) < self.max_image_history:
                image_ids.add(id(ev))
        kept = 0
        for ev in reversed(events):  # older reasoning is dropped for good, as in the original
            if ev.kind == "action" and ev.reasoning is not None:
                if kept < self.max_cot_history:
                    kept += 1
                else:
                    ev.reasoning = None
        messages: list[Message] = []
        if include_system and self.system_prompt:
            messages.append(Message("user", self.system_prompt))
        for pos, ev in enumerate(events):
            if ev.kind == "action":
                text = f"Previous plan:\n{ev.reasoning}" if ev.reasoning is not None else ev.text
                messages.append(Message("assistant", text))
                continue
            current = pos == len(events) - 1
            parts = ["Current Observation:" if current else "Observation:"]
            if current and self.last_short_term:
                parts.append(self.last_short_term)
            if id(ev) in text_ids:
                parts.append(ev.text)
            images = []
            if id(ev) in image_ids and ev.image is not None:
                parts.append("Image observation provided.")
                images.append(ev.image)
            messages.append(Message("user", "\n".join(parts), images))
        return messages

    def __len__(self) -> int:
        return len(self.events)

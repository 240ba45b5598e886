"""BALROG's history prompt builder (specs/balrog.md §3.1), text and image windows included."""

from dataclasses import dataclass, field

from playbench.models.types import Image, Message

_CURRENT = "Current Observation:"
_PAST = "Observation:"
_IMAGE_NOTICE = "Image observation provided."
# An observation's message depends on these (bits of ``_Event.key``); each only ever goes from set to unset.
_IS_CURRENT, _WITH_TEXT, _WITH_IMAGE = 1, 2, 4
_NOT_RENDERED = 8  # an observation's key before its first message (no computed key equals it)
_ACTION = -2  # ``_Event.key`` of an action (negative): one shown with its plan


def observation_text(long_term: str | None, short_term: str = "", current: bool = True, image: bool = False) -> str:
    """The text of one observation message of BALROG's history prompt (the model's view of a step).

    ``Current Observation:`` (or ``Observation:`` for past steps), the short-term context (current step
    only), the long-term context (None: left out, for image-only steps) and the image notice. The human
    agent shows a person exactly this text.
    """
    parts = [_CURRENT if current else _PAST]
    if current and short_term:
        parts.append(short_term)
    if long_term is not None:
        parts.append(long_term)
    if image:
        parts.append(_IMAGE_NOTICE)
    return "\n".join(parts)


class _Event:
    """An observation or action of the history that may still be shown otherwise, and its last message.

    Only while it may: the current observation, a past one shown with its image, an action shown with its plan.
    Any other event is held as its message alone (``HistoryBuilder.events``), 72 bytes less each. An observation's
    long-term text is kept once, in its message once that is a past observation's (``Observation:⏎text``), and
    taken back from there if it is rendered again (its image left out). The current observation's message is made
    afresh for each prompt and not kept: it changes at the next step anyway, and the request sent holds it (with
    the strategy's suffix, a copy of it).
    """

    __slots__ = ("text", "image", "reasoning", "key", "message")

    def __init__(self, text: str | None, image: Image | None = None, reasoning: str | None = None,
                 action: bool = False) -> None:
        self.text = text
        self.image = image
        self.reasoning = reasoning
        self.key = _ACTION if action else _NOT_RENDERED
        self.message: Message | None = None

    def long_term(self) -> str:
        """An observation's long-term text: kept, or taken back from its past message that shows it."""
        if self.text is not None:
            return self.text
        assert self.message is not None and self.key & _WITH_TEXT and not self.key & _IS_CURRENT
        content = self.message.content
        end = len(content) - (len(_IMAGE_NOTICE) + 1 if self.key & _WITH_IMAGE else 0)
        return content[len(_PAST) + 1:end]


@dataclass
class HistoryBuilder:
    """Observations and actions of the current episode, turned into a message list."""

    system_prompt: str | None = None
    max_text_history: int = 16
    max_image_history: int = 1
    max_cot_history: int = 1
    # The window, oldest first (a list: a deque of 32 takes 1.3 KB, it 0.4). A settled event is its message: a past
    # observation shown without an image (``user``; it may still lose its text, never anything else) or an action
    # shown without a plan (``assistant``; never shown otherwise again).
    events: list[_Event | Message] = field(init=False)
    window: int = field(init=False, repr=False)  # the events kept
    previous_reasoning: str | None = None
    last_short_term: str = ""
    _system_message: Message | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.events = []
        self.window = max(1, 2 * max(self.max_text_history, self.max_image_history))

    def _add(self, event: _Event | Message) -> None:
        """Append ``event``, the oldest one forgotten past the window."""
        self.events.append(event)
        if len(self.events) > self.window:
            del self.events[0]

    def update_observation(self, long_term: str, short_term: str = "", image: Image | None = None) -> None:
        """Append the current observation."""
        self._add(_Event(long_term, image))
        self.last_short_term = short_term

    def update_action(self, action: str) -> None:
        """Append the previous action, carrying the latest reasoning (CoT)."""
        reasoning = self.previous_reasoning
        self._add(Message("assistant", action) if reasoning is None else _Event(action, reasoning=reasoning, action=True))

    def update_reasoning(self, reasoning: str) -> None:
        """Remember the latest chain of thought (shown as ``Previous plan:``)."""
        self.previous_reasoning = reasoning

    def get_prompt(self, include_system: bool = True, skip: int = 0) -> list[Message]:
        """The messages: the instruction prompt (as a user message), then the events oldest first.

        ``skip`` leaves out that many of the oldest events (context trimming); the current
        observation is always kept.
        """
        events = self.events
        first = min(skip, max(0, len(events) - 1))
        # One pass, newest first: the newest observations keep their text (and images), only the newest
        # reasoning is kept (older reasoning is dropped for good, as in the original). An event's message
        # is made again only when what it shows changed (rarely: a message is the same object step after step),
        # and an event that has settled is held as its message alone.
        body: list[Message] = []
        texts = images = plans = 0
        current = True
        for i in range(len(events) - 1, first - 1, -1):
            ev = events[i]
            if isinstance(ev, Message):  # settled
                if ev.role == "user":  # a past observation: it may lose its text
                    if texts >= self.max_text_history and ev.content != _PAST:
                        ev = events[i] = Message("user", _PAST)
                    texts += 1
                body.append(ev)
                current = False
                continue
            if ev.key < 0:
                if plans < self.max_cot_history:  # an action's event carries its plan
                    plans += 1
                    if ev.message is None:
                        ev.message = Message("assistant", f"Previous plan:\n{ev.reasoning}")
                else:  # its plan is dropped for good: it settles
                    assert ev.text is not None  # an action always has its text
                    ev.message = events[i] = Message("assistant", ev.text)
            else:
                key = current * _IS_CURRENT
                if texts < self.max_text_history:
                    key |= _WITH_TEXT
                texts += 1
                if ev.image is not None and images < self.max_image_history:
                    key |= _WITH_IMAGE
                    images += 1
                if key & _IS_CURRENT:
                    body.append(self._render(ev, key))
                    current = False
                    continue
                if ev.key != key:
                    ev.message = self._render(ev, key)
                    ev.key = key
                    ev.text = None  # the message holds it (taken back by long_term()), or it is never shown again
                    if not key & _WITH_IMAGE:
                        ev.image = None  # an image left out is never shown again (the windows only shrink)
                        events[i] = ev.message  # it settles
            current = False
            assert ev.message is not None
            body.append(ev.message)
        body.reverse()
        if include_system and self.system_prompt:
            if self._system_message is None:
                self._system_message = Message("user", self.system_prompt)
            return [self._system_message, *body]
        return body

    def _render(self, ev: _Event, key: int) -> Message:
        """An observation's message, as ``key`` says."""
        with_image = bool(key & _WITH_IMAGE)
        current = bool(key & _IS_CURRENT)
        long_term = ev.long_term() if key & _WITH_TEXT else None
        text = observation_text(long_term, self.last_short_term if current else "", current, with_image)
        return Message("user", text, (ev.image,) if with_image and ev.image is not None else ())

    def __len__(self) -> int:
        return len(self.events)

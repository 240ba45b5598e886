"""One step as a line of a trajectory shard, storing only what is new since the episode's last step.

A model agent sends its whole prompt window at every step: the manual, the history, the new
observation. A step line keeps its ``StepRecord`` fields as they are, except that fields equal to their
defaults are left out and ``messages`` holds a *delta*: a list whose items are either a new message (a
JSON object, which takes the episode's next message number) or ``[a, b]``, the messages numbered ``a``
to ``b - 1`` that the previous step already sent, in order. So a step that re-sends its history and adds
three messages stores ``[[0, 40], {…}, {…}, {…}]``. Both sides only hold the previous step's window, so
memory stays flat in the episode's length. A message list with anything but objects in it is kept whole
under ``{"all": [...]}``.

``StepDecoder`` rebuilds each step exactly: the rebuilt ``StepRecord`` equals the one written and its
``json_line()`` is byte for byte the line the old one-file-per-episode layout held.
"""

from typing import Any

import orjson

from playbench.core.records import StepRecord

#: StepRecord fields left out of a line when they hold these values (they are the model's defaults)
_DEFAULTS: dict[str, Any] = {"raw_output": None, "action": None, "done": False, "messages": None, "frame": None,
                             "usage": None, "extra": {}, "timing": {}}


class StepEncoder:
    """Turns an episode's steps, in order, into compact JSON lines (one encoder per episode)."""

    def __init__(self) -> None:
        self._next = 0  # the number the next new message takes
        self._window: dict[bytes, int] = {}  # the previous step's messages (their JSON) and numbers

    def line(self, step: StepRecord) -> bytes:
        """The step as one line (ending in a newline)."""
        fields = {k: v for k, v in step.__dict__.items() if k not in _DEFAULTS or v != _DEFAULTS[k]}
        state = self._next, self._window
        try:
            if step.messages is not None:
                fields["messages"] = self._delta(step.messages)
            return orjson.dumps(fields) + b"\n"
        except TypeError:  # something orjson refuses: pydantic's serializer decides, as json_line does
            self._next, self._window = state[0], {}
            plain = orjson.loads(step.json_line())
            fields = {k: v for k, v in plain.items() if k in fields}
            if step.messages is not None:
                fields["messages"] = {"all": plain["messages"]}
            return orjson.dumps(fields) + b"\n"

    def _delta(self, messages: list[Any]) -> Any:
        if not all(isinstance(m, dict) for m in messages):
            self._window = {}
            return {"all": messages}
        items: list[Any] = []
        window: dict[bytes, int] = {}
        for message in messages:
            # by content, never by identity: a dict changed in place since the last step is a new message
            blob = orjson.dumps(message)
            number = self._window.get(blob)
            if number is None:
                number = window[blob] = self._next
                self._next += 1
                items.append(message)
                continue
            window[blob] = number
            last = items[-1] if items else None
            if isinstance(last, list) and last[1] == number:
                last[1] = number + 1
            else:
                items.append([number, number + 1])
        self._window = window
        return items


class StepDecoder:
    """Rebuilds an episode's steps from its lines, in order (one decoder per episode)."""

    def __init__(self) -> None:
        self._next = 0
        self._window: dict[int, Any] = {}

    def step(self, line: bytes) -> StepRecord:
        """The ``StepRecord`` a line holds (ValueError if the line is not one)."""
        fields = orjson.loads(line)
        if not isinstance(fields, dict):
            raise ValueError("a step line is not an object")
        delta = fields.get("messages")
        if delta is not None:
            fields["messages"] = self._messages(delta)
        return StepRecord.model_validate(fields)

    def _messages(self, delta: Any) -> list[Any]:
        if isinstance(delta, dict):
            self._window = {}
            return list(delta["all"])
        if not isinstance(delta, list):
            raise ValueError("a step's messages are neither a list nor {'all': ...}")
        out: list[Any] = []
        window: dict[int, Any] = {}
        for item in delta:
            if isinstance(item, dict):
                window[self._next] = item
                self._next += 1
                out.append(item)
            elif isinstance(item, list) and len(item) == 2:
                for number in range(item[0], item[1]):
                    try:
                        message = self._window[number]
                    except KeyError:
                        raise ValueError(f"a step refers to message {number}, which the previous step did not send") from None
                    window[number] = message
                    out.append(message)
            else:
                raise ValueError("a step's messages hold an item that is neither a message nor a range")
        self._window = window
        return out

"""One step as a line of a trajectory shard, storing only what is new since the episode's last step.

A model agent sends its whole prompt window at every step: the manual, the history, the new
observation. A step line keeps its ``StepRecord`` fields as they are, except that fields equal to their
defaults are left out and ``messages`` holds a *delta*: a list whose items are either a new message (a
JSON object, which takes the episode's next message number) or ``[a, b]``, the messages numbered ``a``
to ``b - 1`` that the previous step already sent, in order. So a step that re-sends its history and adds
three messages stores ``[[0, 40], {…}, {…}, {…}]``. Messages already sent are found by identity (agents
hand the same dicts over step after step and never change them: a ``StepRecord`` keeps references to
them), else by their JSON. Both sides only hold the previous step's window, so memory stays flat in the
episode's length. A message list with anything but objects in it is kept whole
under ``{"all": [...]}``.

``StepDecoder`` rebuilds each step exactly: the rebuilt ``StepRecord`` equals the one written and its
``json_line()`` is byte for byte the line the old one-file-per-episode layout held.
"""

from typing import Any

import orjson

from playbench.core.records import StepRecord

#: StepRecord fields left out of a line when they hold these values (they are the model's defaults)
_DEFAULTS: dict[str, Any] = {"raw_output": None, "action": None, "done": False, "next_observation": None,
                             "messages": None, "frame": None, "usage": None, "extra": {}, "timing": {}}


class StepEncoder:
    """Turns an episode's steps, in order, into compact JSON lines (one encoder per episode)."""

    def __init__(self) -> None:
        self._next = 0  # the number the next new message takes
        # the previous step's messages, their numbers and their JSON
        self._prev: list[Any] = []
        self._numbers: list[int] = []
        self._blobs: list[bytes] = []

    def line(self, step: StepRecord) -> bytes:
        """The step as one line (ending in a newline)."""
        fields = {k: v for k, v in step.__dict__.items() if k not in _DEFAULTS or v != _DEFAULTS[k]}
        state = self._next
        try:
            if step.messages is not None:
                fields["messages"] = self._delta(step.messages)
            return orjson.dumps(fields) + b"\n"
        except TypeError:  # something orjson refuses: pydantic's serializer decides, as json_line does
            self._next, self._prev, self._numbers, self._blobs = state, [], [], []
            plain = orjson.loads(step.json_line())
            fields = {k: v for k, v in plain.items() if k in fields}
            if step.messages is not None:
                fields["messages"] = {"all": plain["messages"]}
            return orjson.dumps(fields) + b"\n"

    def _delta(self, messages: list[Any]) -> Any:
        start = self._next
        try:
            return self._runs(messages)
        except _NotAnObject:
            self._next, self._prev, self._numbers, self._blobs = start, [], [], []
            return {"all": messages}

    def _runs(self, messages: list[Any]) -> list[Any]:
        prev, numbers, blobs = self._prev, self._numbers, self._blobs
        # Agents hand the same dicts over again step after step (and never change them: a StepRecord keeps
        # references to them), so the common prefix is found by identity; the rest by identity, then JSON.
        out_numbers: list[int] = []
        out_blobs: list[bytes] = []
        items: list[Any] = []
        by_blob: dict[bytes, int] | None = None
        count, known, i, at = len(messages), len(prev), 0, 0
        while i < count:
            message = messages[i]
            if not (at < known and prev[at] is message):  # not where the last run left off
                for skip in range(at + 1, min(at + 5, known)):  # a window that slid by a few messages
                    if prev[skip] is message:
                        at = skip
                        break
                else:
                    at = known
            if at < known:  # a run of messages the last step sent, in the same order
                end = at + 1
                while i + end - at < count and end < known and messages[i + end - at] is prev[end]:
                    end += 1
                _extend(items, numbers[at:end])
                out_numbers += numbers[at:end]
                out_blobs += blobs[at:end]
                i, at = i + end - at, end
                continue
            blob = orjson.dumps(message)  # elsewhere in the last window (by its JSON), or new
            if by_blob is None:
                by_blob = dict(zip(blobs, numbers, strict=True))
            number = by_blob.get(blob)
            if number is None:  # new: stored whole, and numbered in the order it appears
                if not isinstance(message, dict):
                    raise _NotAnObject
                number = self._next
                self._next += 1
                items.append(message)
            else:
                _extend(items, [number])
            out_numbers.append(number)
            out_blobs.append(blob)
            i += 1
        self._prev, self._numbers, self._blobs = list(messages), out_numbers, out_blobs
        return items


class _NotAnObject(Exception):
    """A message that is not a JSON object: the step keeps its messages whole."""


def _extend(items: list[Any], numbers: list[int]) -> None:
    """Add ``numbers`` to ``items`` as ``[a, b]`` runs, continuing the last run where it can."""
    if not numbers:
        return
    first, size = numbers[0], len(numbers)
    last = items[-1] if items else None
    if numbers[-1] - first == size - 1 and numbers == list(range(first, first + size)):
        if isinstance(last, list) and last[1] == first:
            last[1] = first + size
        else:
            items.append([first, first + size])
        return
    for number in numbers:
        last = items[-1] if items else None
        if isinstance(last, list) and last[1] == number:
            last[1] = number + 1
        else:
            items.append([number, number + 1])


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

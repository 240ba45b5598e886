"""The answer parser of spec §6: first ``[`` to the first ``]`` after it, read as a Python literal, never run."""

import ast
from dataclasses import dataclass

MAX_LITERAL_CHARS = 100_000  # a longer bracketed span is a parse error, not work for the parser
MAX_STEPS = 1_000


@dataclass(frozen=True)
class TrajectoryStep:
    """One (before, action, after) step of a model's trajectory."""

    before: str
    action: str
    after: str


@dataclass(frozen=True)
class Parsed:
    """The parsed trajectory, or the kind of parse error.

    Kinds: ``no-list``, ``syntax``, ``too-long``, ``not-a-list``, ``empty``, ``not-a-dict``, ``missing-key``,
    ``not-a-string``.
    """

    steps: tuple[TrajectoryStep, ...] = ()
    error: str | None = None

    @property
    def ok(self) -> bool:
        """True when the answer parsed."""
        return self.error is None


def literal_span(text: str) -> str | None:
    """The text from the first ``[`` to the first ``]`` after it (inclusive), or None."""
    start = text.find("[")
    if start < 0:
        return None
    end = text.find("]", start)
    if end < 0:
        return None
    return text[start : end + 1]


def parse_answer(text: str | None, keys: tuple[str, str, str] = ("location_before", "action", "location_after")) -> Parsed:
    """Parse a model answer into a trajectory; every failure is a ``Parsed`` with an error kind."""
    if not isinstance(text, str):
        return Parsed(error="no-list")
    span = literal_span(text)
    if span is None:
        return Parsed(error="no-list")
    if len(span) > MAX_LITERAL_CHARS:
        return Parsed(error="too-long")
    try:
        value = ast.literal_eval(span)  # literals only: names, calls and attributes are rejected
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return Parsed(error="syntax")
    except Exception:  # noqa: BLE001 - hostile text must never crash an evaluation run
        return Parsed(error="syntax")
    if not isinstance(value, list):
        return Parsed(error="not-a-list")
    if not value:
        return Parsed(error="empty")
    if len(value) > MAX_STEPS:
        return Parsed(error="too-long")
    steps = []
    for item in value:
        if not isinstance(item, dict):
            return Parsed(error="not-a-dict")
        if any(k not in item for k in keys):
            return Parsed(error="missing-key")
        vals = [item[k] for k in keys]
        if not all(isinstance(v, str) for v in vals):
            return Parsed(error="not-a-string")
        steps.append(TrajectoryStep(*vals))
    return Parsed(tuple(steps))

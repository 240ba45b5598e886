"""The deterministic "brain" behind the mock provider and the loopback test server.

It reads BALROG's described action list from the prompt (``name: description,`` lines ending with
``.``) or, failing that, the last numbered list (``1. …`` lines; a ``name: what it does`` entry counts
as ``name``), picks one by a hash of the
whole request, and formats it the way the prompt asks (``<|ACTION|>…<|END|>``, ``ACTION: …``,
``PLAN: …``). The same request always gets the same answer.
"""

import hashlib
import json
import re
from collections.abc import Sequence

import orjson

_NUMBERED = re.compile(r"^\s*(\d+)\.\s+(.*\S)\s*$")
NO_ACTION = "I am not sure what to do here."


def numbered_actions(text: str) -> list[str]:
    """The last numbered list (``1. a``, ``2. b`` …) in ``text``."""
    found: list[str] = []
    current: list[str] = []
    for line in text.splitlines():
        # only a line starting with a digit (after blanks) can match: the regex is skipped for the others
        match = _NUMBERED.match(line) if line.lstrip()[:1].isdigit() else None
        if match and int(match.group(1)) == len(current) + 1:
            current.append(match.group(2))
        elif match and int(match.group(1)) == 1:
            current = [match.group(2)]
        else:
            if current:
                found, current = current, []
    return current or found


_DESCRIBED = re.compile(r"^([^\s:][^:]{0,39}): .*[,.]$")


def described_actions(text: str) -> list[str]:
    """The last BALROG-style action description block in ``text``: names of ``a: what a does,`` lines.

    A block is two or more consecutive such lines, every one but the last ending with a comma (BALROG
    joins its action descriptions with ``,⏎`` and ends them with ``.``).
    """
    found: list[str] = []
    current: list[str] = []
    for line in [*text.splitlines(), ""]:
        # only ``…: ….`` or ``…: …,`` lines can match: the regex is skipped for the others
        match = _DESCRIBED.match(line) if line.endswith((",", ".")) and ": " in line else None
        if match:
            current.append(match.group(1))
            if line.endswith("."):
                if len(current) >= 2:
                    found = current
                current = []
        else:
            current = []
    return found


def _name(item: str) -> str:
    """A numbered entry's action: the part before ``: `` (SmartPlay's Crafter manual describes each one)."""
    return item.split(": ", 1)[0]


def request_digest(name: str, contents: Sequence[tuple[str, str]], salt: str = "") -> bytes:
    """A hash of the model name, salt and (role, content) pairs."""
    try:  # orjson writes the same compact UTF-8 JSON as the standard encoder below, several times faster
        blob = orjson.dumps([name, salt, list(contents)])
    except TypeError:  # a lone surrogate: the standard encoder escapes it
        blob = json.dumps([name, salt, list(contents)], separators=(",", ":")).encode()
    return hashlib.sha256(blob).digest()


def answer(name: str, contents: Sequence[tuple[str, str]], salt: str = "", invalid_rate: float = 0.0) -> str:
    """The mock answer to a request given as (role, content) pairs."""
    digest = request_digest(name, contents, salt)
    text = "\n".join(c for _, c in contents)
    last = next((c for r, c in reversed(contents) if r == "user"), text)
    # BALROG's described block names the actions even when a numbered list follows (Crafter's achievements)
    actions = described_actions(text) or [_name(a) for a in numbered_actions(text)]
    roll = int.from_bytes(digest[4:8], "big") / 2**32
    if not actions or roll < invalid_rate:
        choice = NO_ACTION if actions or invalid_rate else "wait"
    else:
        choice = actions[int.from_bytes(digest[:4], "big") % len(actions)]
    if "<|ACTION|>" in last:
        return f"<|ACTION|>{choice}<|END|>"
    if "PLAN:" in last:
        return f"PLAN: No changes to the plan.\nACTION: {choice}"
    if "ACTION:" in last:
        return f"Let me weigh the options.\nACTION: {choice}"
    if "think step by step" in last:
        return f"Weighing the options, I would choose: {choice}"
    return choice


def approx_tokens(text: str) -> int:
    """A cheap token estimate (4 characters per token) for mock usage figures."""
    return len(text) // 4 + 1


"""Walkthrough text: its steps, and the token-budget prefix a model reads (spec §2.1, §5.1)."""

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, Protocol

SEPARATOR = "=" * 11
TOKEN_BUDGET = 3600
MAX_STEPS = 70
_STEP = re.compile(r"==>STEP NUM: (\d+)\n==>ACT: (.*)\n==>OBSERVATION: ", re.MULTILINE)
_HEAD = re.compile(r"^==>STEP NUM:", re.MULTILINE)


@dataclass(frozen=True)
class Step:
    """One walkthrough block."""

    num: int
    action: str
    observation: str


def parse_walkthrough(text: str) -> list[Step]:
    """The steps of a walkthrough, in order."""
    matches = list(_STEP.finditer(text))
    steps = []
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        body = text[m.end() : end].rstrip("\n")
        if body.endswith(SEPARATOR):  # the next block's separator (or a trailing one)
            body = body[: -len(SEPARATOR)]
        steps.append(Step(int(m.group(1)), m.group(2).strip(), body.strip("\n")))
    return steps


def walkthrough_problem(text: str) -> tuple[int, str] | None:
    """The first fault of a walkthrough text as (line, what is wrong), or None when it is well formed.

    Every ``==>STEP NUM:`` line must open a whole block (number, ``==>ACT:``, ``==>OBSERVATION:``) and the step
    numbers must run 0, 1, 2 ... (spec §2.1): otherwise ``parse_walkthrough`` would skip blocks silently.
    """
    blocks = {m.start(): int(m.group(1)) for m in _STEP.finditer(text)}
    heads = [m.start() for m in _HEAD.finditer(text)]
    stray = sorted(set(blocks) - set(heads))  # a block header in the middle of a line
    if stray:
        return _line(text, stray[0]), "step header in the middle of a line"
    for expected, pos in enumerate(heads):
        if pos not in blocks:
            return _line(text, pos), "malformed step block (expected '==>STEP NUM: n', '==>ACT: ...', '==>OBSERVATION: ...')"
        if blocks[pos] != expected:
            return _line(text, pos), f"step {blocks[pos]} where step {expected} was expected (steps run 0, 1, 2 ...)"
    if not heads:
        return 1, "no step blocks ('==>STEP NUM: 0' ...)"
    return None


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def render_walkthrough(steps: list[Step]) -> str:
    """A walkthrough file's text from its steps (the official block layout)."""
    return "".join(f"{SEPARATOR}\n==>STEP NUM: {s.num}\n==>ACT: {s.action}\n==>OBSERVATION: {s.observation}\n\n" for s in steps)


class Encoding(Protocol):
    """What is used of a ``bpe_openai`` Encoding (the package ships no ``py.typed``, so mypy sees Any)."""

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text``."""
        ...

    def decode(self, tokens: list[int]) -> str:
        """The text of token ids."""
        ...


@lru_cache(maxsize=1)
def encoding() -> Encoding:
    """The cl100k_base tokenizer, offline (``bpe-openai`` ships its vocabulary; ids match tiktoken)."""
    import warnings

    import bpe_openai

    with warnings.catch_warnings():  # bpe_openai reads its vocabulary with a deprecated importlib call
        warnings.simplefilter("ignore", DeprecationWarning)
        enc: Encoding = bpe_openai.get_encoding("cl100k_base")
        return enc


def count_tokens(text: str) -> int:
    """cl100k_base token count."""
    return len(encoding().encode(text))


def _budget_cutoff(text: str, budget: int) -> int | None:
    """The step the released code stops at when ``text`` exceeds ``budget`` tokens, else None."""
    enc = encoding()
    tokens = enc.encode(text)
    if len(tokens) <= budget:
        return None
    head = enc.decode(tokens[:budget])
    last = head.rfind("NUM: ")
    second = head.rfind("NUM: ", 0, last)
    start = second + len("NUM: ")
    end = head.find("\n", start)
    return int(head[start : end if end >= 0 else None])


@dataclass(frozen=True)
class Prefix:
    """The walkthrough text a model reads and the largest step number in it."""

    text: str
    cutoff: int
    tokens: int  # token count of the separator-free walkthrough


def walkthrough_prefix(
    raw: str, mode: Literal["release", "paper"] = "release", budget: int = TOKEN_BUDGET, max_steps: int = MAX_STEPS
) -> Prefix:
    """The prefix of spec §5.1.

    ``release`` counts tokens on the separator-free text (the released code); ``paper`` counts them on
    the stripped text with separators kept, which reproduces the paper's Table 5 step counts. In both
    modes the prefix text itself is cut from the separator-free text.
    """
    stripped = raw.strip()
    text = stripped.replace(SEPARATOR, "")
    cut = _budget_cutoff(text if mode == "release" else stripped, budget)
    cutoff = max_steps if cut is None else min(cut, max_steps)
    idx = text.find(f"NUM: {cutoff + 1}")
    head = text[:idx] if idx >= 0 else text
    return Prefix("\n".join(head.split("\n")[:-1]), cutoff, count_tokens(text))

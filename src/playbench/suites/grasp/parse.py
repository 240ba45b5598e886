"""Turning a free-text answer into a plan (§10). Regexes only: the text is never executed.

Policy ``grasp-v1`` (first rule that yields at least one action wins): a bracketed list, an unclosed list,
a numbered list, else an empty plan. Variants used to measure parser sensitivity: ``list-only`` (rule 1
only), ``all-upper`` (every upper-case action word in the text), ``all-words`` (every action word, any case).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

ParserMode = Literal["grasp-v1", "list-only", "all-upper", "all-words"]
ListChoice = Literal["first", "last", "longest"]
CommentMode = Literal["strip", "keep"]

#: Longer names first so that UPLEFT is one action, never UP + LEFT.
_NAMES = "UPLEFT|UPRIGHT|DOWNLEFT|DOWNRIGHT|UP|DOWN|LEFT|RIGHT|TAKE|DROP"
_TOKEN = re.compile(rf"(?<![A-Za-z0-9_])(?:{_NAMES})(?![A-Za-z0-9_])", re.IGNORECASE)
_TOKEN_UPPER = re.compile(rf"(?<![A-Za-z0-9_])(?:{_NAMES})(?![A-Za-z0-9_])")
_LIST = re.compile(r"\[[^\[\]]*\]")
_COMMENT = re.compile(r"(?:#|//)[^\n]*")
_NUMBERED = re.compile(
    rf"^[ \t]*\d+[.)][ \t]*(?:\*\*[ \t]*)?(?:Move[ \t]+)?(?:\*\*[ \t]*)?((?:{_NAMES}))(?![A-Za-z0-9_])",
    re.IGNORECASE | re.MULTILINE,
)

RULES = ("list", "unclosed", "numbered", "none")


@dataclass(frozen=True)
class ParserOptions:
    """Which parser: the mode, which bracketed list wins, and whether ``#``/``//`` comments are removed."""

    mode: ParserMode = "grasp-v1"
    list: ListChoice = "first"
    comments: CommentMode = "strip"

    @property
    def name(self) -> str:
        """A short label such as ``grasp-v1`` or ``grasp-v1(list=last,comments=keep)``."""
        extras = [f"list={self.list}"] if self.list != "first" else []
        extras += [f"comments={self.comments}"] if self.comments != "strip" else []
        return self.mode + (f"({','.join(extras)})" if extras else "")


@dataclass(frozen=True)
class Parsed:
    """A parsed plan (upper-case action names) and the rule that produced it."""

    plan: list[str]
    rule: str

    @property
    def failed(self) -> bool:
        """Whether no rule found an action (the plan is empty)."""
        return self.rule == "none"


def tokens(text: str, upper_only: bool = False) -> list[str]:
    """The action names in ``text``, whole words, in order, upper-cased."""
    pattern = _TOKEN_UPPER if upper_only else _TOKEN
    return [m.group(0).upper() for m in pattern.finditer(text)]


def _clean(segment: str, comments: CommentMode) -> str:
    return segment if comments == "keep" else _COMMENT.sub("", segment)


def parse_plan(text: str, options: ParserOptions | None = None) -> Parsed:
    """Parse an answer into a plan with the chosen policy; never raises on any string."""
    opts = options or ParserOptions()
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    if opts.mode == "all-upper":
        found = tokens(text, upper_only=True)
        return Parsed(found, "words" if found else "none")
    if opts.mode == "all-words":
        found = tokens(text)
        return Parsed(found, "words" if found else "none")
    # Rule 1: bracketed lists without nested brackets.
    candidates = [tokens(_clean(m.group(0), opts.comments)) for m in _LIST.finditer(text)]
    candidates = [c for c in candidates if c]
    if candidates:
        if opts.list == "first":
            chosen = candidates[0]
        elif opts.list == "last":
            chosen = candidates[-1]
        else:
            chosen = max(candidates, key=len)  # the first of the longest
        return Parsed(chosen, "list")
    if opts.mode == "list-only":
        return Parsed([], "none")
    # Rule 2: an unclosed list at the end.
    last = text.rfind("[")
    if last >= 0 and "]" not in text[last:]:
        found = tokens(_clean(text[last:], opts.comments))
        if found:
            return Parsed(found, "unclosed")
    # Rule 3: a numbered list, one action per line.
    found = [m.group(1).upper() for m in _NUMBERED.finditer(text)]
    if found:
        return Parsed(found, "numbered")
    return Parsed([], "none")

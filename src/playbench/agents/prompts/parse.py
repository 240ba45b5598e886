"""Output parsing of BALROG's strategies, compat (exact regexes, B5) and fixed."""

import re

from playbench.agents.prompts.balrog import NO_PLAN_CHANGE, ROBUST_COT_FAILED

_NAIVE_FILTER = re.compile(r"[^a-zA-Z\s:]")
_ROBUST = re.compile(r"<\|ACTION\|>(.*?)<\|END\|>", re.DOTALL)
_PLAN = re.compile(r"PLAN:\s*(.*?)(?=\nACTION:|\Z)", re.IGNORECASE | re.DOTALL)
_CUSTOM_ACTION = re.compile(r"ACTION:\s*(.*)", re.IGNORECASE | re.DOTALL)
_LAST_ACTION = re.compile(r"ACTION:", re.IGNORECASE)
_EDGE = "\"'`*"


def normalise(text: str) -> str:
    """Strip whitespace, surrounding quotes/backticks/asterisks and a final period (fixed mode)."""
    text = text.strip()
    prev = None
    while prev != text:
        prev = text
        text = text.strip().strip(_EDGE).strip()
        if text.endswith("."):
            text = text[:-1]
    return text


def naive(text: str, compat: bool) -> str:
    """Naive/few-shot: compat deletes every char outside letters, whitespace and colons; fixed normalises."""
    return _NAIVE_FILTER.sub("", text) if compat else normalise(text)


def cot(text: str, compat: bool) -> str:
    """CoT: the text after the last ``ACTION:`` (compat: filtered first, case-sensitive split)."""
    if compat:
        return _NAIVE_FILTER.sub("", text).split("ACTION:")[-1].strip()
    pieces = _LAST_ACTION.split(text)
    tail = pieces[-1] if len(pieces) > 1 else text
    lines = [ln for ln in tail.strip().splitlines() if ln.strip()]
    return normalise(lines[0]) if lines and len(pieces) > 1 else normalise(tail)


def robust(text: str, compat: bool, with_cot: bool) -> str | None:
    """Robust: the first ``<|ACTION|>…<|END|>``; else the whole answer (naive) or the failure string (CoT)."""
    match = _ROBUST.search(text)
    if match:
        found = match.group(1).strip()
        return found if compat else normalise(found)
    if with_cot:
        return ROBUST_COT_FAILED if compat else None
    return text.strip() if compat else normalise(text)


def custom(text: str, compat: bool) -> tuple[str, str | None]:
    """Custom: (plan, action). The action is everything after ``ACTION:`` (compat) or its first line (fixed)."""
    plan_match = _PLAN.search(text)
    plan = plan_match.group(1).strip() if plan_match else NO_PLAN_CHANGE
    action_match = _CUSTOM_ACTION.search(text)
    if action_match is None:
        return plan, None
    action = action_match.group(1).strip()
    if not compat:
        lines = [ln for ln in action.splitlines() if ln.strip()]
        action = normalise(lines[0]) if lines else ""
    return plan, action

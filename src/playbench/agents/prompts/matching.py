"""Matching an answer to a legal action: BALROG validity (B5) and SmartPlay ``match_act`` (B8)."""

import re

from playbench.agents.prompts.parse import normalise


def balrog_valid(completion: str | None, legal: list[str] | None, compat: bool) -> str | None:
    """The legal action a parsed completion names, or ``None``.

    compat: exact, case-sensitive membership. fixed: exact first, then case-insensitive after
    normalising both sides. Free-text games (``legal is None``) accept any completion.
    """
    if completion is None:
        return None
    if legal is None:
        return completion
    if completion in legal:
        return completion
    if compat:
        return None
    key = normalise(completion).casefold()
    for action in legal:
        if normalise(action).casefold() == key:
            return action
    return None


def smartplay_compat(answer: str, legal: list[str]) -> str | None:
    """The original rule: lower-case substring, earliest first occurrence, ties to the lower index."""
    low = answer.lower()
    hits = [(low.find(a.lower()), i) for i, a in enumerate(legal) if a.lower() in low]
    if not hits:
        return None
    return legal[min(hits)[1]]


def _norm(text: str) -> str:
    return " ".join(normalise(text).rstrip(":").casefold().split())


_NUMBER = re.compile(r"^\s*(\d+)\s*\.?\s*$")


def _word_match(text: str, legal: list[str]) -> str | None:
    """The earliest action named at word boundaries in ``text`` (longest at the same start).

    An action's own final period is optional, and a plural ``s``/``es`` is accepted (``Scissors``
    names ``Scissor``, ``rocks`` names ``Rock``).
    """
    best: tuple[int, int, int] | None = None
    for i, action in enumerate(legal):
        core = " ".join(action.casefold().split()).rstrip(".")
        if not core:
            continue
        match = re.search(r"(?<!\w)" + re.escape(core) + r"(?:e?s)?\.?(?!\w)", text)
        if match:
            cand = (match.start(), -len(core), i)
            if best is None or cand < best:
                best = cand
    return legal[best[2]] if best else None


def smartplay_fixed(answer: str, legal: list[str]) -> str | None:
    """The fixed rule (B8), never behind the original on an answer the original understands.

    In order: the whole normalised answer is an action; it is only a number ``k`` (the manual numbers
    the actions from 1); an action named at word boundaries (earliest, longest at the same start,
    final period optional, plurals accepted); else the original's substring rule (so ``rocky`` is still
    Rock and ``Move Northwest`` still Move North, as in SmartPlay). ``None`` when nothing is named.
    """
    norm = _norm(answer)
    for action in legal:
        if _norm(action) == norm:
            return action
    number = _NUMBER.match(answer)
    if number and 1 <= int(number.group(1)) <= len(legal):
        return legal[int(number.group(1)) - 1]
    found = _word_match(" ".join(answer.casefold().split()), legal)
    return found if found is not None else smartplay_compat(answer, legal)

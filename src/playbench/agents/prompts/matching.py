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


def smartplay_fixed(answer: str, legal: list[str]) -> str | None:
    """The fixed rule: exact normalised match, else the earliest word-boundary match.

    An action's own final period is optional; at the same start the longest action wins.
    """
    norm = _norm(answer)
    for action in legal:
        if _norm(action) == norm:
            return action
    text = " ".join(answer.casefold().split())
    best: tuple[int, int, int] | None = None
    for i, action in enumerate(legal):
        core = " ".join(action.casefold().split()).rstrip(".")
        if not core:
            continue
        pattern = r"(?<!\w)" + re.escape(core) + r"(?:\.)?(?!\w)"
        match = re.search(pattern, text)
        if match:
            cand = (match.start(), -len(core), i)
            if best is None or cand < best:
                best = cand
    return legal[best[2]] if best else None

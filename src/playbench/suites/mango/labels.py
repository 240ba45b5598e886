"""Answerable / easy / hard labels of a skeleton for a walkthrough prefix of N steps (spec §3)."""

from typing import Literal

from playbench.suites.mango.formats import JsonObject

Difficulty = Literal["easy", "hard"]


def answerable(skeleton: JsonObject, cutoff: int) -> bool:
    """A question is asked only when every edge it needs is known within the prefix."""
    needed: int = skeleton["min_step_total_answerable"]  # a step number (formats.as_step checked it)
    return needed <= cutoff


def difficulty(skeleton: JsonObject, cutoff: int) -> Difficulty | None:
    """``easy`` when the question's route (DF) or some route (RF) was walked forward within the prefix.

    ``None`` for an unanswerable question.
    """
    if not answerable(skeleton, cutoff):
        return None
    return "easy" if skeleton["min_step_forward_answerable"] <= cutoff else "hard"


def count_labels(skeletons: list[JsonObject], cutoff: int) -> dict[str, int]:
    """How many skeletons are easy, hard and unanswerable at ``cutoff``."""
    out = {"easy": 0, "hard": 0, "unanswerable": 0}
    for s in skeletons:
        out[difficulty(s, cutoff) or "unanswerable"] += 1
    return out

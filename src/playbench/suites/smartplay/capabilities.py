"""SmartPlay's capability scores (§4.2-4.3, bug B5) from the degrees (Table 3) in each task's facts row.

``p_c = Σ_g w_c^g s_g / Σ_g w_c^g`` over the games supplied, with ``w = d - 1`` (the original code,
playbench's default ``weighting="code"``: a degree-1 game "does not test this") or ``w = d``
(``weighting="paper"``). Where the weights sum to zero the original returns NaN; playbench returns
``None`` with a reason.
"""

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from playbench.suites.smartplay.facts import CAPABILITIES
from playbench.suites.smartplay.scoring import facts_of

__all__ = ["CAPABILITIES", "Capability", "Weighting", "capability_scores", "capability_values", "degrees"]

Weighting = Literal["code", "paper"]



def degrees(task_id: str) -> dict[str, int] | None:
    """The capability degrees of a SmartPlay task, from its facts row (None for ids outside the table)."""
    row = facts_of(task_id)
    if row is None:
        return None
    return dict(zip(CAPABILITIES, row.degrees, strict=True))


@dataclass(frozen=True)
class Capability:
    """One capability score, or ``value=None`` with the reason."""

    value: float | None
    reason: str | None = None


def capability_scores(normalized: Mapping[str, float], weighting: Weighting = "code") -> dict[str, Capability]:
    """Capability scores from per-task normalized scores (ids without degrees are ignored)."""
    if weighting not in ("code", "paper"):
        raise ValueError(f"weighting must be 'code' or 'paper', not {weighting!r}")
    known = {tid: s for tid, s in normalized.items() if degrees(tid) is not None}
    out: dict[str, Capability] = {}
    for cap in CAPABILITIES:
        if not known:
            out[cap] = Capability(None, "no SmartPlay game with capability degrees was supplied")
            continue
        num = den = 0.0
        for tid, score in known.items():
            d = degrees(tid)[cap]  # type: ignore[index]
            w = d - 1 if weighting == "code" else d
            num += w * float(score)
            den += w
        if den == 0:
            out[cap] = Capability(None, "every supplied game has degree 1 (does not test this capability)")
        elif not math.isfinite(num):
            out[cap] = Capability(None, "a supplied normalized score is not finite")
        else:
            out[cap] = Capability(num / den)
    return out


def capability_values(normalized: Mapping[str, float], weighting: Weighting = "code") -> dict[str, float | None]:
    """``{capability: value or None}`` (the JSON shape of the report)."""
    return {k: c.value for k, c in capability_scores(normalized, weighting).items()}

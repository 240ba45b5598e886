"""SmartPlay's capability degrees (Table 3) and capability scores (§4.2-4.3, bug B5).

``p_c = Σ_g w_c^g s_g / Σ_g w_c^g`` over the games supplied, with ``w = d - 1`` (the original code,
playbench's default ``weighting="code"``: a degree-1 game "does not test this") or ``w = d``
(``weighting="paper"``). Where the weights sum to zero the original returns NaN; playbench returns
``None`` with a reason.
"""

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

Weighting = Literal["code", "paper"]

CAPABILITIES: tuple[str, ...] = (
    "Long Text Understanding",
    "Reasoning",
    "Instruction Following",
    "Planning",
    "Generalization",
    "Understanding the Odds",
    "Learning from Interactions",
    "Error/Mistake Handling",
    "Spatial Reasoning",
)

# Degrees per game family, in CAPABILITIES order (evaluation.yml = paper Table 3).
_FAMILY_DEGREES: dict[str, tuple[int, ...]] = {
    "bandit": (1, 1, 1, 1, 2, 3, 2, 1, 1),
    "rps": (2, 1, 3, 1, 2, 3, 3, 1, 1),
    "hanoi": (2, 3, 2, 3, 1, 1, 1, 2, 1),
    "messenger-1": (3, 1, 2, 1, 2, 2, 1, 1, 2),
    "messenger-2": (3, 2, 2, 2, 2, 2, 1, 1, 2),
    "crafter": (4, 3, 3, 3, 3, 2, 4, 3, 2),
    "minecraft": (1, 1, 2, 1, 3, 2, 1, 2, 3),
}
_FAMILY_OF: dict[str, str] = {
    **{f"smartplay/bandit-{v}": "bandit" for v in ("deterministic", "highhigh", "highlow", "lowlow")},
    "smartplay/rps-basic": "rps",
    "smartplay/rps-different-score": "rps",
    "smartplay/hanoi-3": "hanoi",
    "smartplay/hanoi-4": "hanoi",
    "smartplay/messenger-1": "messenger-1",
    "smartplay/messenger-2": "messenger-2",
    "smartplay/messenger-3": "messenger-2",  # L3 uses the L2 column
    "smartplay/crafter": "crafter",
    **{f"smartplay/minecraft-{b}": "minecraft"
       for b in ("plains", "forest", "ocean", "beach", "taiga", "ice-spikes", "jungle", "desert")},
}


def degrees(task_id: str) -> dict[str, int] | None:
    """The capability degrees of a SmartPlay task (None for ids outside the table)."""
    family = _FAMILY_OF.get(task_id)
    if family is None:
        return None
    return dict(zip(CAPABILITIES, _FAMILY_DEGREES[family], strict=True))


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

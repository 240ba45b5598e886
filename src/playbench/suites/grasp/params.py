"""Task parameters of the GRASP tasks (``-T key=value``)."""

from __future__ import annotations

from typing import Literal, Protocol

from playbench.core.params import ExistingPath, Field, Params, field_validator
from playbench.suites.grasp.grid import DISTRIBUTIONS, OBSTACLES, STARTS

_CHOICES = {
    "distribution": DISTRIBUTIONS,
    "obstacle": OBSTACLES,
    "start": STARTS,
    "movement": ("4", "8"),
    "carry": ("none", "2"),
    "cost": ("0", "0.3"),
}


class _FieldInfo(Protocol):
    """What a field validator reads of pydantic's ``ValidationInfo``: the name of the field it checks."""

    @property
    def field_name(self) -> str: ...


def split_choice(value: str, allowed: tuple[str, ...]) -> tuple[str, ...]:
    """``all`` or a comma list of allowed values (case-insensitive), in the canonical order."""
    if value.strip().lower() == "all":
        return allowed
    wanted = {v.strip().lower() for v in value.split(",") if v.strip()}
    lower = {a.lower(): a for a in allowed}
    bad = sorted(w for w in wanted if w not in lower)
    if bad or not wanted:
        raise ValueError(f"expected 'all' or a comma list of {', '.join(allowed)}")
    return tuple(a for a in allowed if a.lower() in wanted)


def parse_indices(value: str) -> tuple[int, ...] | None:
    """``all`` -> None, else ranges and numbers such as ``0-9`` or ``0,3,5-7``."""
    if value.strip().lower() == "all":
        return None
    out: set[int] = set()
    for part in value.split(","):
        part = part.strip()
        lo, sep, hi = part.partition("-")
        if not lo.isdigit() or (sep and not hi.isdigit()):
            raise ValueError("expected 'all' or numbers and ranges such as 0-9 or 0,3,5-7")
        out.update(range(int(lo), int(hi) + 1) if sep else [int(lo)])
    return tuple(sorted(out))


class GraspParams(Params):
    """Parameters of ``grasp/energy`` and ``grasp/energy-interactive``.

    ``compat=true`` sets the knobs to the original's behaviour unless they are given: the score rule that
    reproduces Table 1, the original greedy planner, and the skew axes of the official files. It is not
    recorded itself: the knobs say it all.
    """

    compat_values = {"scoring": "compat", "planner": "compat", "skew_axes": "official"}

    compat: bool = Field(False, exclude=True)
    data: ExistingPath | None = None
    distribution: str = "all"
    obstacle: str = "all"
    start: str = "all"
    movement: str = "all"
    carry: str = "all"
    cost: str = "all"
    indices: str = "all"
    scoring: Literal["fixed", "compat"] = "fixed"
    prompt: Literal["official", "paper"] = "official"
    parser: Literal["grasp-v1", "list-only", "all-upper", "all-words"] = "grasp-v1"
    parser_list: Literal["first", "last", "longest"] = "first"
    parser_comments: Literal["strip", "keep"] = "strip"
    planner: Literal["fixed", "compat"] = "fixed"
    skew_axes: Literal["paper", "official"] = "paper"
    cluster_centres: Literal["inner", "paper"] = "inner"

    @field_validator("distribution", "obstacle", "start", "movement", "carry", "cost")
    @classmethod
    def _check_choice(cls, value: str, info: _FieldInfo) -> str:
        split_choice(value, _CHOICES[info.field_name])
        return value

    @field_validator("indices")
    @classmethod
    def _check_indices(cls, value: str) -> str:
        parse_indices(value)
        return value

    def choices(self, name: str) -> tuple[str, ...]:
        """The selected values of a filter parameter."""
        return split_choice(getattr(self, name), _CHOICES[name])

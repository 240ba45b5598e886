"""Action semantics (§6) and the two scoring rules (§7).

``fixed`` (default) is the paper's stated objective: energy lying on the start cell minus the cost of the
executed actions. ``compat`` is the rule that reproduces the paper's Table 1: energy on the agent's final
cell minus the same cost. The original repository's rules (with its "k" bug) are computed too, for reference.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from playbench.suites.grasp.grid import BUDGET, MOVES, Constraints, Grid

Scoring = Literal["fixed", "compat"]


class State:
    """A running episode: position, load, per-cell energy (only changed cells are stored) and steps used."""

    __slots__ = ("grid", "constraints", "pos", "carried", "used", "_delta", "_limit", "_moves")

    def __init__(self, grid: Grid, constraints: Constraints) -> None:
        self.grid = grid
        self.constraints = constraints
        self.pos = grid.start
        self.carried = 0
        self.used = 0
        self._delta: dict[tuple[int, int], int] = {}
        self._limit = constraints.carry if constraints.carry is not None else 1 << 30
        self._moves = {m: MOVES[m] for m in constraints.moves}

    def energy_at(self, cell: tuple[int, int]) -> int:
        """Units lying on a cell now."""
        return self.grid.energy[cell[0]][cell[1]] + self._delta.get(cell, 0)

    def energy_matrix(self) -> list[list[int]]:
        """Units per cell now, as a matrix."""
        return [[self.energy_at((r, c)) for c in range(self.grid.cols)] for r in range(self.grid.rows)]

    def apply(self, action: str) -> bool:
        """Execute one action (one of the 20 steps, whatever it does); return whether it changed anything."""
        self.used += 1
        name = action.upper()
        if name == "TAKE":
            if self.carried < self._limit and self.energy_at(self.pos) > 0:
                self._delta[self.pos] = self._delta.get(self.pos, 0) - 1
                self.carried += 1
                return True
            return False
        if name == "DROP":
            if self.carried:
                self._delta[self.pos] = self._delta.get(self.pos, 0) + self.carried
                self.carried = 0
                return True
            return False
        step = self._moves.get(name)
        if step is None:  # unknown word, or a diagonal under the 4-move set
            return False
        r, c = self.pos[0] + step[0], self.pos[1] + step[1]
        if not self.grid.free(r, c):  # only the target is checked: diagonals may cut corners
            return False
        self.pos = (r, c)
        return True


@dataclass
class Outcome:
    """The result of executing a plan: executed length and the energy under every rule."""

    length: int
    final: tuple[int, int]
    at_start: int
    at_final: int
    carried: int
    effective: int
    fixed: float
    compat: float
    repo_head: float
    repo_first: float
    path: list[tuple[int, int]] = field(default_factory=list)

    def energy(self, scoring: Scoring) -> float:
        """The energy under ``fixed`` or ``compat`` scoring."""
        return self.fixed if scoring == "fixed" else self.compat


def execute(grid: Grid, constraints: Constraints, plan: Iterable[str], budget: int = BUDGET) -> Outcome:
    """Run the first ``budget`` actions of ``plan`` and score the result (§6, §7)."""
    state = State(grid, constraints)
    path = [state.pos]
    effective = 0
    nonempty = False
    for action in plan:
        nonempty = True
        if state.used >= budget:
            break
        effective += state.apply(action)
        path.append(state.pos)
    n = state.used
    c = constraints.cost
    k = constraints.movement if nonempty else 0  # the repository's bug: "length" is the size of the move set
    at_start, at_final = state.energy_at(grid.start), state.energy_at(state.pos)
    return Outcome(
        length=n,
        final=state.pos,
        at_start=at_start,
        at_final=at_final,
        carried=state.carried,
        effective=effective,
        fixed=round(at_start - c * n, 10),
        compat=round(at_final - c * n, 10),
        repo_head=round(at_start - c * k, 10),
        repo_first=round(at_final - c * k, 10),
        path=path,
    )

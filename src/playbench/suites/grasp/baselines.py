"""The paper's two baselines (§8): the random walk and greedy search (``fixed`` and ``compat`` planners).

Both know only the movement set; they ignore the carry limit and the cost, as the paper states.
"""

from __future__ import annotations

from collections import deque
from typing import Literal

import numpy as np

from playbench.suites.grasp.grid import BUDGET, COMPLEMENT, MOVES, Constraints, Grid

Planner = Literal["fixed", "compat"]


def random_walk(constraints: Constraints, rng: np.random.Generator) -> list[str]:
    """Six times a random move then TAKE; the complements of the moves in reverse order; DROP (19 actions)."""
    moves = constraints.moves
    chosen = [moves[int(rng.integers(len(moves)))] for _ in range(6)]
    plan: list[str] = []
    for move in chosen:
        plan += [move, "TAKE"]
    plan += [COMPLEMENT[m] for m in reversed(chosen)]
    plan.append("DROP")
    return plan


def _nearest_energy(
    grid: Grid, energy: dict[tuple[int, int], int], pos: tuple[int, int], moves: tuple[str, ...],
    rng: np.random.Generator,
) -> list[str] | None:
    """The moves to the nearest energy by BFS from ``pos`` (the current cell counts).

    The neighbour order is shuffled at every expansion; cells are marked visited when dequeued; the first
    dequeued cell holding energy ends the search.
    """
    queue: deque[tuple[tuple[int, int], list[str]]] = deque([(pos, [])])
    visited: set[tuple[int, int]] = set()
    while queue:
        cell, path = queue.popleft()
        if cell in visited:
            continue
        visited.add(cell)
        if energy.get(cell, 0) > 0:
            return path
        for i in rng.permutation(len(moves)):
            name = moves[int(i)]
            dr, dc = MOVES[name]
            nxt = (cell[0] + dr, cell[1] + dc)
            if grid.free(*nxt) and nxt not in visited:
                queue.append((nxt, path + [name]))
    return None


def greedy(grid: Grid, constraints: Constraints, rng: np.random.Generator, planner: Planner = "fixed") -> list[str]:
    """Greedy search (§8.2): take the nearest energy while the way back still fits, then retrace and DROP.

    The way back retraces every move made so far (complements in reverse order), not a shortest path.

    ``planner="compat"`` reproduces the published plans: the planner's own diagonal moves do not move it, so
    under the 8-move set it believes it moved while standing still. ``fixed`` moves diagonally, and when no
    energy is reachable it still goes home and drops what it carries.
    """
    energy = {cell: 1 for cell in grid.energy_cells()}
    pos = grid.start
    steps = BUDGET
    plan: list[str] = []
    past: list[str] = []
    carried = 0

    def go(name: str) -> None:
        nonlocal pos
        dr, dc = MOVES[name]
        if planner == "compat" and dr and dc:
            return  # the first version of the authors' agent: diagonals report success without moving
        if grid.free(pos[0] + dr, pos[1] + dc):
            pos = (pos[0] + dr, pos[1] + dc)

    while steps > 0:
        path = _nearest_energy(grid, energy, pos, constraints.moves, rng)
        if path is None and (planner == "compat" or (not past and not carried)):
            break  # nothing reachable: stop where we are (compat), or nothing to bring home (fixed)
        if path is None or 2 * len(path) + len(past) + 2 > steps:
            for move in reversed(past):
                if steps == 0:
                    break
                plan.append(COMPLEMENT[move])
                steps -= 1
            if steps > 0:
                plan.append("DROP")
            break
        for move in path:
            go(move)
            plan.append(move)
            past.append(move)
        steps -= len(path)
        plan.append("TAKE")
        steps -= 1
        if energy.get(pos, 0) > 0:
            energy[pos] -= 1
            carried += 1
    return plan

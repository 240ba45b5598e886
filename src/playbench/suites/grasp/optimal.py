"""A provably optimal plan under a scoring rule and constraints: exact branch and bound.

Search space. Useless actions only cost, so an optimal plan exists whose every action changes the state.
Such a plan is a walk whose events are TAKEs of original units and DROPs on the scoring cell T (the start
under ``fixed`` scoring, the final cell under ``compat``); between events the walk follows shortest paths.
The search therefore enumerates event sequences (take unit e, drop at T) with shortest-path distances.
Dropping on any other cell ("stashing") is left out: with no carry limit a stash can always be removed
without loss; with a limit of 2 this restriction is checked against an exhaustive search over the full
state space (every action sequence) on small grids in the tests.

Bound. From a node with R actions left, collecting j more units needs j TAKEs, one move per new cell,
and D = ceil((carried + j) / limit) DROPs each reached by a move onto T (one fewer if already there); the
first new cell is at least as far as the nearest available unit; the walk must still reach T, and on
4-move grids (bipartite) its length has the parity of the distance to T. Only units that can still be
taken and brought to T within R actions count. The best value over j is an
upper bound (admissible), so pruning never loses the optimum. Nodes repeating (cell, taken set, load, T)
with no fewer actions used are pruned too.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import shortest_path

from playbench.suites.grasp.grid import BUDGET, MOVES, Constraints, Grid
from playbench.suites.grasp.simulate import Scoring, execute

_INF = 10_000
_EPS = 1e-9


@dataclass(frozen=True)
class Solution:
    """An optimal plan, its energy under the chosen rule, and the number of search nodes expanded."""

    plan: list[str]
    energy: float
    nodes: int


class _Distances:
    """All-pairs shortest move counts over free cells (cell id = row * cols + col) with predecessors."""

    def __init__(self, grid: Grid, moves: tuple[str, ...]) -> None:
        rows, cols = grid.rows, grid.cols
        n = rows * cols
        src, dst = [], []
        for r in range(rows):
            for c in range(cols):
                if not grid.free(r, c):
                    continue
                for name in moves:
                    dr, dc = MOVES[name]
                    if grid.free(r + dr, c + dc):  # only the target is checked (corners may be cut)
                        src.append(r * cols + c)
                        dst.append((r + dr) * cols + c + dc)
        graph = csr_matrix((np.ones(len(src)), (src, dst)), shape=(n, n))
        dist, pred = shortest_path(graph, method="D", unweighted=True, return_predecessors=True)
        dist[~np.isfinite(dist)] = _INF
        self.dist: list[list[int]] = dist.astype(int).tolist()
        self.pred = pred
        self.cols = cols
        self.by_delta = {delta: name for name, delta in MOVES.items() if name in moves}

    def moves_between(self, a: int, b: int) -> list[str]:
        """The moves of one shortest path from cell a to cell b."""
        cells = [b]
        while cells[-1] != a:
            cells.append(int(self.pred[a, cells[-1]]))
        cells.reverse()
        out = []
        for x, y in zip(cells, cells[1:], strict=False):
            out.append(self.by_delta[(y // self.cols - x // self.cols, y % self.cols - x % self.cols)])
        return out


#: What ``solve`` may keep between calls: the distance tables of the last (grid, movement set).
DistanceCache = dict[tuple[Grid, int], "_Distances"]


def _distances(grid: Grid, constraints: Constraints, cache: DistanceCache | None) -> _Distances:
    if cache is None:
        return _Distances(grid, constraints.moves)
    key = (grid, constraints.movement)
    if key not in cache:
        cache.clear()  # keep one grid at a time: the 8 constraint combinations of a grid come together
        cache[key] = _Distances(grid, constraints.moves)
    return cache[key]


class _Search:
    def __init__(self, grid: Grid, constraints: Constraints, scoring: Scoring, budget: int, dist: _Distances) -> None:
        self.grid, self.budget, self.scoring = grid, budget, scoring
        self.cost = constraints.cost
        self.limit = constraints.carry if constraints.carry is not None else _INF
        self.bipartite = constraints.movement == 4
        self.D = dist
        cols = grid.cols
        self.start = grid.start[0] * cols + grid.start[1]
        ds = dist.dist[self.start]
        reach = budget if scoring == "compat" else (budget - 2) // 2  # compat: a unit can be ended on
        self.cells = [r * cols + c for r, c in grid.energy_cells() if ds[r * cols + c] <= reach]
        self.bit = {cell: 1 << i for i, cell in enumerate(self.cells)}
        # energy cells sorted by distance from every cell that can be a position
        self.order: dict[int, list[tuple[int, int, int]]] = {}
        self.nodes = 0
        self._table_cache: dict[tuple[int, int | None], tuple[list[int], list[int]]] = {}
        self.best = 0.0  # the empty plan
        self.best_events: list[tuple[str, int]] = []
        self.best_used = 0

    def _sorted_from(self, pos: int) -> list[tuple[int, int, int]]:
        got = self.order.get(pos)
        if got is None:
            row = self.D.dist[pos]
            got = sorted((row[e], e, self.bit[e]) for e in self.cells if row[e] < _INF)
            self.order[pos] = got
        return got

    # -- the bound ---------------------------------------------------------------------------------------

    def _tables(self, pos: int, T: int | None) -> tuple[list[int], list[int]]:
        """Bit tables for cell ``pos``, cached.

        By R: the energy cells that can be taken and still brought to T within R actions (T None: reached).
        By d: the energy cells exactly d moves away (rings).
        """
        key = (pos, T)
        got = self._table_cache.get(key)
        if got is None:
            budget = self.budget
            reach = [0] * (budget + 1)
            rings = [0] * (budget + 1)
            dT = self.D.dist[T] if T is not None else None
            for d, e, b in self._sorted_from(pos):
                if e == T or d > budget:
                    continue
                need = d + dT[e] + 2 if dT is not None else d
                if need <= budget:
                    reach[need] |= b
                    rings[d] |= b
            for r in range(1, budget + 1):
                reach[r] |= reach[r - 1]
            got = (reach, rings)
            self._table_cache[key] = got
        return got

    def _untaken_within(self, pos: int, mask: int, R: int, T: int | None) -> tuple[int, int]:
        """Untaken energy cells reachable in ``R`` moves, and the distance to the nearest of them."""
        reach, rings = self._tables(pos, T)
        avail = reach[R] & ~mask
        U = avail.bit_count()
        if U:
            for d in range(R + 1):
                if rings[d] & avail:
                    return U, d
        return U, 0

    def _bound(self, pos: int, mask: int, k: int, carried: int, T: int | None, bonus: int, used: int) -> float:
        R = self.budget - used
        U, d1 = self._untaken_within(pos, mask, R, T)
        delivered = k - carried
        at_T = T is None or pos == T
        d_home = self.D.dist[pos][T] if T is not None else 0
        parity = self.bipartite and T is not None
        c = self.cost
        best = bonus + delivered - c * used
        limit = self.limit
        for j in range(0, U + 1):
            total = carried + j
            if total == 0:
                continue
            drops = 1 if limit >= _INF else -(-total // limit)
            # one arrival per new cell and per DROP (none for a first DROP where we stand); also the
            # nearest new cell is d1 moves away and T must be reached after the last TAKE
            moves = j + drops - (1 if at_T else 0)
            if j and moves < d1 + j:
                moves = d1 + j
            if moves < d_home:
                moves = d_home
            if parity and (moves - d_home) % 2:
                moves += 1  # 4-move grids are bipartite: a walk to T has the parity of the distance
            acts = j + drops + moves
            if acts > R:
                break
            value = bonus + delivered + total - c * (used + acts)
            if value > best:
                best = value
        return best

    # -- the search --------------------------------------------------------------------------------------

    def _offer(self, value: float, used: int, events: list[tuple[str, int]], last: tuple[str, int] | None) -> None:
        if value > self.best + _EPS or (abs(value - self.best) <= _EPS and used < self.best_used):
            self.best, self.best_used = value, used
            self.best_events = events + [last] if last is not None else list(events)

    def run_fixed_T(self, T: int, bonus: int) -> None:
        """Search every plan that scores on cell T (the start under fixed scoring)."""
        self.memo: dict[tuple[int, ...], int] = {}
        self._dfs(self.start, 0, 0, 0, T, bonus, 0, [])

    def _dfs(self, pos: int, mask: int, k: int, carried: int, T: int, bonus: int, used: int, events: list[tuple[str, int]]) -> None:
        self.nodes += 1
        dist = self.D.dist
        c = self.cost
        dpt = dist[pos][T]
        delivered = k - carried
        # terminal options: go to T (and drop what is carried)
        if used + dpt <= self.budget and (bonus or delivered or carried):
            if carried and used + dpt + 1 <= self.budget:
                self._offer(bonus + k - c * (used + dpt + 1), used + dpt + 1, events, ("drop", T))
            elif self.scoring == "fixed":
                self._offer(delivered - c * used, used, events, None)
            else:
                self._offer(bonus + delivered - c * (used + dpt), used + dpt, events, ("go", T))
        key = (pos, mask, carried)
        seen = self.memo.get(key)
        if seen is not None and seen <= used:
            return
        self.memo[key] = used
        if self._bound(pos, mask, k, carried, T, bonus, used) <= self.best + _EPS:
            return
        R = self.budget - used
        dT = dist[T]
        if carried < self.limit:
            for d, e, b in self._sorted_from(pos):
                if d + 2 > R:
                    break
                if mask & b or e == T or d + 1 + dT[e] + 1 > R:
                    continue
                events.append(("take", e))
                self._dfs(e, mask | b, k + 1, carried + 1, T, bonus, used + d + 1, events)
                events.pop()
        if carried and self.limit < _INF and pos != T and dpt + 1 <= R:
            events.append(("drop", T))
            self._dfs(T, mask, k, 0, T, bonus, used + dpt + 1, events)
            events.pop()

    def run_open(self) -> None:
        """Compat scoring with no carry limit: one final DROP on the last cell or on an untaken energy cell."""
        self.memo = {}
        self._dfs_open(self.start, 0, 0, 0, [])

    def _nearest_untaken(self, pos: int, mask: int) -> tuple[int, int] | None:
        for d, e, b in self._sorted_from(pos):
            if not mask & b:
                return d, e
        return None

    def _dfs_open(self, pos: int, mask: int, k: int, used: int, events: list[tuple[str, int]]) -> None:
        self.nodes += 1
        c = self.cost
        R = self.budget - used
        if k and R >= 1:
            self._offer(k - c * (used + 1), used + 1, events, ("drop", pos))
        near = self._nearest_untaken(pos, mask)
        if near is not None:
            d, e = near
            extra = d + (1 if k else 0)
            if extra <= R:
                self._offer(1 + k - c * (used + extra), used + extra, events, ("drop" if k else "go", e))
        key = (pos, mask)
        seen = self.memo.get(key)
        if seen is not None and seen <= used:
            return
        self.memo[key] = used
        # bound: j more units (the first d1 moves away, the others at least one move each), a final DROP,
        # and possibly one more untaken unit under the final cell (reached by a move, not taken)
        best = 0.0
        U, d1 = self._untaken_within(pos, mask, R, None)
        for j in range(0, U + 1):
            moves = j - 1 + d1 if j else 0
            acts = moves + j + (1 if k + j else 0)
            if acts <= R:
                best = max(best, k + j - c * (used + acts))
            if j < U:
                moves_b = j + d1  # j taken cells plus the untaken one the plan ends on
                acts_b = moves_b + j + (1 if k + j else 0)
                if acts_b <= R:
                    best = max(best, 1 + k + j - c * (used + acts_b))
            if acts > R:
                break
        if best <= self.best + _EPS:
            return
        for d, e, b in self._sorted_from(pos):
            if d + 2 > R:
                break
            if mask & b:
                continue
            events.append(("take", e))
            self._dfs_open(e, mask | b, k + 1, used + d + 1, events)
            events.pop()

    def plan(self) -> list[str]:
        """Expand the best event sequence into actions."""
        out: list[str] = []
        pos = self.start
        for kind, cell in self.best_events:
            out += self.D.moves_between(pos, cell)
            pos = cell
            if kind == "take":
                out.append("TAKE")
            elif kind == "drop":
                out.append("DROP")
        return out


def solve(
    grid: Grid, constraints: Constraints, scoring: Scoring = "fixed", budget: int = BUDGET, cache: DistanceCache | None = None
) -> Solution:
    """The best plan under ``scoring`` (highest energy; ties met during the search go to the shorter plan).

    ``cache`` (a dict) keeps the distance tables of the last grid, which the 8 constraint combinations share.
    """
    search = _Search(grid, constraints, scoring, budget, _distances(grid, constraints, cache))
    if scoring == "fixed":
        search.run_fixed_T(search.start, 0)
    elif constraints.carry is None:
        search.run_open()
    else:
        # compat with a carry limit: the scoring cell T may be any cell; try the promising ones first
        dist = search.D.dist[search.start]
        cols = grid.cols
        candidates = []
        for r in range(grid.rows):
            for c in range(cols):
                cell = r * cols + c
                if grid.free(r, c) and dist[cell] <= budget:
                    bonus = int(grid.energy[r][c] > 0)
                    ub = search._bound(search.start, 0, 0, 0, cell, bonus, 0)
                    candidates.append((-ub, dist[cell], cell, bonus))
        candidates.sort()
        for neg_ub, _d, cell, bonus in candidates:
            if -neg_ub <= search.best + _EPS:
                break
            search.run_fixed_T(cell, bonus)
    plan = search.plan()
    outcome = execute(grid, constraints, plan, budget)
    energy = outcome.energy(scoring)
    if abs(energy - search.best) > 1e-6:  # the plan must realise the value the search found
        raise AssertionError(f"optimal plan scores {energy}, search said {search.best}")
    return Solution(plan, energy, search.nodes)

import numpy as np
import pytest

from playbench.suites.grasp.baselines import greedy, random_walk
from playbench.suites.grasp.generate import generate
from playbench.suites.grasp.grid import COMBINATIONS, MOVES, Constraints, Grid
from playbench.suites.grasp.official import FILE_NAMES, load_grids
from playbench.suites.grasp.optimal import solve
from playbench.suites.grasp.simulate import execute


def brute_force(grid: Grid, cons: Constraints, budget: int) -> dict[str, list[float]]:
    """Best score with at most t actions, t = 0..budget, under both rules: every action sequence with the full
    semantics (DROP anywhere, stacked units, useless actions), merged by state (position, load, units per cell).

    Written independently of simulate.State: plain tuples, the rules of spec §6 restated.
    """
    rows, cols = grid.rows, grid.cols
    limit = cons.carry if cons.carry is not None else 10**6
    deltas = [MOVES[m] for m in cons.moves]
    start_cell = grid.start[0] * cols + grid.start[1]
    energy0 = tuple(grid.energy[r][c] for r in range(rows) for c in range(cols))
    frontier = {(start_cell, 0, energy0)}
    best = {"fixed": [0.0], "compat": [0.0]}
    for t in range(1, budget + 1):
        nxt = set(frontier)  # a useless action leaves the state as it is
        for pos, carried, energy in frontier:
            r, c = divmod(pos, cols)
            for dr, dc in deltas:
                nr, nc = r + dr, c + dc
                if 0 <= nr < rows and 0 <= nc < cols and (nr, nc) not in grid.obstacles:
                    nxt.add((nr * cols + nc, carried, energy))
            if carried < limit and energy[pos] > 0:
                e = list(energy)
                e[pos] -= 1
                nxt.add((pos, carried + 1, tuple(e)))
            if carried:
                e = list(energy)
                e[pos] += carried
                nxt.add((pos, 0, tuple(e)))
        frontier = nxt
        fixed = max(e[start_cell] for _, _, e in frontier) - cons.cost * t
        compat = max(e[p] for p, _, e in frontier) - cons.cost * t
        best["fixed"].append(max(best["fixed"][-1], fixed))
        best["compat"].append(max(best["compat"][-1], compat))
    return best


HAND_MADE = [
    Grid.build({(0, 1), (0, 2), (1, 2), (2, 0)}, {(1, 1)}, (0, 0), rows=3, cols=3),
    Grid.build({(0, 0), (0, 2), (2, 0), (2, 2)}, set(), (1, 1), rows=3, cols=3),
    Grid.build({(0, 3), (1, 3), (1, 0), (0, 1)}, {(1, 1)}, (0, 0), rows=2, cols=4),
    Grid.build({(0, 2), (0, 3), (0, 4), (1, 4)}, {(1, 1), (1, 2)}, (1, 0), rows=2, cols=5),
    Grid.build({(2, 2), (0, 2), (2, 0), (1, 2)}, {(1, 1)}, (0, 0), rows=3, cols=3),
]


@pytest.mark.parametrize("grid_no", range(len(HAND_MADE)))
def test_equal_to_brute_force_on_small_grids(grid_no):
    grid = HAND_MADE[grid_no]
    for cons in COMBINATIONS:
        exhaustive = brute_force(grid, cons, 12)
        for scoring in ("fixed", "compat"):
            budgets = exhaustive[scoring]
            for budget in (3, 5, 8, 12):
                sol = solve(grid, cons, scoring, budget=budget)
                assert sol.energy == pytest.approx(budgets[budget]), (grid_no, cons, scoring, budget)
                assert len(sol.plan) <= budget
                assert execute(grid, cons, sol.plan, budget).energy(scoring) == pytest.approx(sol.energy)


def test_random_small_grids_against_brute_force():
    rng = np.random.default_rng(2024)
    for trial in range(32):
        rows, cols = ((3, 3), (2, 4), (1, 7), (2, 5))[trial % 4]
        cells = [(r, c) for r in range(rows) for c in range(cols)]
        start = cells[int(rng.integers(len(cells)))]
        energy = {x for x in cells if rng.random() < 0.5}
        obst = {x for x in cells if rng.random() < 0.15 and x not in energy}
        grid = Grid.build(energy, obst, start, rows, cols)
        cons = COMBINATIONS[trial % 8]
        exhaustive = brute_force(grid, cons, 12)
        for scoring in ("fixed", "compat"):
            for budget in (6, 9, 12):
                got = solve(grid, cons, scoring, budget=budget).energy
                assert got == pytest.approx(exhaustive[scoring][budget]), (trial, scoring, budget)


def test_optimal_at_least_greedy_and_random_on_a_sample(shared_data):
    grids = load_grids(shared_data / "grasp")
    rng = np.random.default_rng(0)
    for n, name in enumerate(FILE_NAMES):
        rec = grids[(name, n % 100)]
        cons = COMBINATIONS[n % 8]
        cache: dict = {}
        for scoring in ("fixed", "compat"):
            sol = solve(rec.grid, cons, scoring, cache=cache)
            assert len(sol.plan) <= 20
            for planner in ("fixed", "compat"):
                plan = greedy(rec.grid, cons, rng, planner)
                assert sol.energy >= execute(rec.grid, cons, plan).energy(scoring) - 1e-9
            assert sol.energy >= execute(rec.grid, cons, random_walk(cons, rng)).energy(scoring) - 1e-9
            assert sol.energy >= 0  # the empty plan scores 0


def test_known_optimum_on_a_line():
    g = Grid.build({(0, 1), (0, 2), (0, 3)}, set(), (0, 0), rows=1, cols=6)
    sol = solve(g, Constraints(4, None, 0.0), "fixed")
    assert sol.energy == 3 and sol.plan == ["RIGHT", "TAKE", "RIGHT", "TAKE", "RIGHT", "TAKE", "LEFT", "LEFT",
                                            "LEFT", "DROP"]
    compat = solve(g, Constraints(4, None, 0.3), "compat")
    # take two, then end on the third without taking it: 3 units - 0.3 * (3 moves + 2 takes + 1 drop)
    assert compat.energy == pytest.approx(3 - 0.3 * 6)
    assert solve(Grid.build(set(), set(), (0, 0), 2, 2), Constraints(), "fixed").plan == []


def test_generated_instances_are_solved_and_replayed():
    rng = np.random.default_rng(8)
    for i in range(8):
        g = generate(rng, ("random", "cluster")[i % 2], "block", "outer").grid
        sol = solve(g, COMBINATIONS[i], "fixed")
        assert execute(g, COMBINATIONS[i], sol.plan).fixed == pytest.approx(sol.energy)

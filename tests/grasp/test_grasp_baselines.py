import numpy as np
import pytest

from playbench.suites.grasp.baselines import greedy, random_walk
from playbench.suites.grasp.generate import generate
from playbench.suites.grasp.grid import COMBINATIONS, COMPLEMENT, MOVES8, Constraints, Grid
from playbench.suites.grasp.official import load_grids
from playbench.suites.grasp.simulate import execute


def test_random_walk_structure():
    rng = np.random.default_rng(0)
    for c in COMBINATIONS:
        for _ in range(50):
            plan = random_walk(c, rng)
            assert len(plan) == 19 and plan[-1] == "DROP"
            forward = plan[0:12:2]
            assert plan[1:12:2] == ["TAKE"] * 6 and all(m in c.moves for m in forward)
            assert plan[12:18] == [COMPLEMENT[m] for m in reversed(forward)]


def test_greedy_never_exceeds_budget_and_fixed_comes_home():
    rng = np.random.default_rng(1)
    for i in range(120):
        g = generate(rng, ("random", "cluster", "spiral")[i % 3], ("block", "free")[i % 2], ("inner", "outer")[i % 2])
        c = COMBINATIONS[i % 8]
        for planner in ("fixed", "compat"):
            plan = greedy(g.grid, c, rng, planner)
            assert len(plan) <= 20
        fixed = greedy(g.grid, c, rng, "fixed")
        out = execute(g.grid, c, fixed)
        if fixed:
            assert out.final == g.grid.start and fixed[-1] == "DROP" and out.fixed == out.compat


def test_planners_agree_without_diagonals():
    grid = generate(np.random.default_rng(9), "random", "block", "inner").grid
    for c in COMBINATIONS[:4]:
        a = greedy(grid, c, np.random.default_rng(5), "fixed")
        b = greedy(grid, c, np.random.default_rng(5), "compat")
        assert a == b


def test_compat_planner_repeats_diagonals_that_do_not_move_it():
    g = Grid.build({(0, 0)}, set(), (1, 1), rows=2, cols=2)
    plan = greedy(g, Constraints(8, None, 0.0), np.random.default_rng(0), "compat")
    assert plan[:2] == ["UPLEFT", "TAKE"] and plan.count("UPLEFT") > 1 and len(plan) <= 20
    fixed = greedy(g, Constraints(8, None, 0.0), np.random.default_rng(0), "fixed")
    assert fixed == ["UPLEFT", "TAKE", "DOWNRIGHT", "DROP"]


def test_no_reachable_energy():
    g = Grid.build(set(), set(), (0, 0), rows=3, cols=3)
    assert greedy(g, Constraints(), np.random.default_rng(0), "compat") == []
    assert greedy(g, Constraints(), np.random.default_rng(0), "fixed") == []


@pytest.mark.slow
def test_baseline_averages_on_all_official_instances(shared_data):
    grids = load_grids(shared_data / "grasp")
    rng = np.random.default_rng(0)
    scores = {"compat": {4: [], 8: []}, "fixed": {4: [], 8: []}, "random": {4: [], 8: []}}
    for rec in grids.values():
        for c in COMBINATIONS:
            for planner in ("compat", "fixed"):
                scores[planner][c.movement].append(execute(rec.grid, c, greedy(rec.grid, c, rng, planner)).compat)
            scores["random"][c.movement].append(execute(rec.grid, c, random_walk(c, rng)).compat)
    mean = {k: np.mean(v[4] + v[8]) for k, v in scores.items()}
    # §8.2 / §11.3: published greedy 0.343 (μ1 0.790, μ2 -0.105); fixed planner 0.889; random walk -1.170
    assert abs(mean["compat"] - 0.343) < 0.03 and abs(np.mean(scores["compat"][8]) + 0.105) < 0.05
    assert abs(np.mean(scores["compat"][4]) - 0.79) < 0.04
    assert abs(mean["fixed"] - 0.889) < 0.03
    assert abs(mean["random"] + 1.170) < 0.05
    assert MOVES8

import pytest

from playbench.suites.grasp.grid import Constraints, Grid
from playbench.suites.grasp.official import load_grids
from playbench.suites.grasp.simulate import State, execute

LONG = "up, take, right, take, up, take, up, take, up, take, right, take, left, down, down, down, left, down, drop"
SHORT = "up, take, up, take, drop"


@pytest.fixture(scope="module")
def grid(shared_data):
    g = load_grids(shared_data / "grasp")[("inner_random_block.jsonl", 0)].grid
    assert g.start == (7, 4)
    return g


@pytest.mark.parametrize(
    ("plan", "carry", "cost", "compat", "fixed", "head"),
    [
        (LONG, None, 0.0, 6.0, 6.0, 6.0),
        (LONG, 2, 0.0, 2.0, 2.0, 2.0),
        (LONG, None, 0.3, 0.3, 0.3, 4.8),
        (LONG, 2, 0.3, -3.7, -3.7, 0.8),
        (SHORT, None, 0.0, 1.0, 0.0, 0.0),
        (SHORT, None, 0.3, -0.5, -1.5, -1.2),
        (", ".join(["TAKE"] * 25), None, 0.3, -6.0, -6.0, -1.2),
    ],
)
def test_spec_vectors(grid, plan, carry, cost, compat, fixed, head):
    out = execute(grid, Constraints(4, carry, cost), plan.split(", "))
    assert out.compat == pytest.approx(compat)
    assert out.fixed == pytest.approx(fixed)
    assert out.repo_head == pytest.approx(head)
    assert out.length == min(20, len(plan.split(", ")))


def test_truncation_and_unknown_words_use_slots(grid):
    out = execute(grid, Constraints(4, None, 0.3), ["jump"] * 3 + ["UP"] * 30)
    assert out.length == 20 and out.fixed == pytest.approx(-6.0)
    assert 0 <= out.final[0] < 7 and out.final[1] == 4  # moves stop at walls and obstacles
    assert out.effective < 17


def test_moves_obstacles_diagonals_and_limits():
    g = Grid.build({(0, 0), (1, 1)}, {(0, 1), (1, 0)}, (0, 2), rows=3, cols=3)
    s = State(g, Constraints(8, 2, 0.0))
    assert not s.apply("LEFT")  # obstacle
    assert not s.apply("UP")  # boundary
    assert s.apply("downleft") and s.pos == (1, 1)  # diagonal cuts between obstacles, case-insensitive
    assert s.apply("TAKE") and not s.apply("TAKE")  # one unit only
    assert s.apply("UPLEFT") and s.pos == (0, 0)  # corner cut between two obstacles
    assert s.apply("TAKE") and s.carried == 2
    s4 = State(g, Constraints(4, None, 0.0))
    assert not s4.apply("DOWNLEFT") and s4.pos == (0, 2)  # diagonals do nothing under the 4-move set
    assert not s4.apply("DROP")


def test_carry_limit_and_drop_stacks():
    g = Grid.build({(0, 1), (0, 2), (0, 3)}, set(), (0, 0), rows=1, cols=4)
    plan = ["RIGHT", "TAKE", "RIGHT", "TAKE", "RIGHT", "TAKE", "LEFT", "LEFT", "LEFT", "DROP"]
    limited = execute(g, Constraints(4, 2, 0.0), plan)
    free = execute(g, Constraints(4, None, 0.0), plan)
    assert (limited.at_start, free.at_start) == (2, 3)
    assert execute(g, Constraints(4, None, 0.0), plan[:-1]).fixed == 0  # carried units count for nothing
    assert execute(g, Constraints(4, None, 0.0), []).compat == 0

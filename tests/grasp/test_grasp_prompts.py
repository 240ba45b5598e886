from playbench.suites.grasp.grid import COMBINATIONS, Constraints
from playbench.suites.grasp.prompts import messages, single_message, system_message, user_message

BASE_FREE_MU1 = (
    "You are an agent in a grid world. The grid world consists of cells. Each cell may have one unit of energy or "
    "no energy at all. The goal for you is to collect as much energy as possible and put the collected energy back "
    "in the cell where you started. You have 20 steps. For each step, you can choose UP, DOWN, LEFT, RIGHT, TAKE, "
    "and DROP. UP allows you to move one cell up in one step. The other movements are similar. You can collect "
    "energy from a cell by being in the cell and TAKE the energy from the cell. If there is no energy in the cell, "
    "you cannot take any energy from it. You can not move across the boundary of the grid world. You can drop all "
    "your energy by DROP. You can use less than 20 steps. Any invalid step will not cause any change in the grid "
    "world."
)
FULL_BLOCK_MU2 = (
    "You are an agent in a grid world. The grid world consists of cells. Each cell may have one unit of energy or "
    "no energy at all. Some cells are blocked by obstacles. You cannot move to or through these cells. The goal for "
    "you is to collect as much energy as possible and put the collected energy back in the cell where you started. "
    "You have 20 steps. For each step, you can choose UP, DOWN, LEFT, RIGHT, UPLEFT, UPRIGHT, DOWNLEFT, DOWNRIGHT, "
    "TAKE, and DROP. UPLEFT allows you to move diagonally one cell up and left in one step. The other movements are "
    "similar. You can collect energy from a cell by being in the cell and TAKE the energy from the cell. If there is "
    "no energy in the cell, you cannot take any energy from it. You can only carry two unit of energy at a time. You "
    "can not move across the boundary of the grid world. You can drop all your energy by DROP.Each step costs you "
    "0.3 unit of energy. You can use less than 20 steps. Any invalid step will not cause any change in the grid "
    "world."
)


def test_system_message_without_fragments():
    assert system_message(False, Constraints(4, None, 0.0)) == BASE_FREE_MU1


def test_system_message_with_every_fragment_official_has_no_space_before_cost():
    assert system_message(True, Constraints(8, 2, 0.3)) == FULL_BLOCK_MU2


def test_paper_variant_puts_a_space_before_cost():
    paper = system_message(True, Constraints(8, 2, 0.3), "paper")
    assert paper == FULL_BLOCK_MU2.replace("by DROP.Each", "by DROP. Each")
    assert system_message(True, Constraints(8, 2, 0.0), "paper") == system_message(True, Constraints(8, 2, 0.0))


def test_all_sixteen_variants_are_distinct_and_follow_the_slots():
    seen = set()
    for blocked in (False, True):
        for c in COMBINATIONS:
            text = system_message(blocked, c)
            seen.add(text)
            assert ("Some cells are blocked" in text) == blocked
            assert ("UPLEFT allows" in text) == (c.movement == 8)
            assert ("carry two unit" in text) == (c.carry is not None)
            assert ("DROP.Each step costs you 0.3" in text) == (c.cost > 0)
    assert len(seen) == 16


def test_user_message_wraps_grid(shared_data):
    from playbench.suites.grasp.official import load_grids

    grids = load_grids(shared_data / "grasp")
    rec = grids[("outer_cluster_block.jsonl", 4)]
    text = user_message(rec.text, rec.blocked)
    assert text == (
        "You are given the following as the representation of the grid world, where A is you, E is energy, "
        "O is an obstacle:\n" + rec.text + "Give your sequence of steps as a list. For example: [STEP, STEP, ...]"
    )
    free = grids[("outer_cluster_free.jsonl", 4)]
    assert ", O is an obstacle" not in user_message(free.text, free.blocked)
    assert user_message(free.text, free.blocked).endswith("---+\nGive your sequence of steps as a list. "
                                                          "For example: [STEP, STEP, ...]")
    msgs = messages(rec.text, True, Constraints(4, None, 0.3))
    assert [m["role"] for m in msgs] == ["system", "user"] and msgs[1]["content"] == text
    assert single_message(rec.text, True, Constraints(4, None, 0.3)) == msgs[0]["content"] + "\n\n" + text

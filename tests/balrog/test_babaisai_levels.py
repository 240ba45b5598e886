"""All 40 Baba Is AI level generators over seeds 0..99 (spec §6.4, acceptance check 8)."""

from collections import Counter, deque

import pytest

from playbench.suites.balrog.babaisai.data import LEVELS
from playbench.suites.balrog.babaisai.engine import NOUN, OBJ, PROP, World
from playbench.suites.balrog.babaisai.levels import generate, level_rng
from playbench.suites.balrog.babaisai.text import observation_text

SEEDS = range(100)


def expected_rules(level_id: str, n1: str, n3: str) -> list[str]:
    cfg = LEVELS[level_id]
    rules = ["baba is you"]
    if cfg["family"] == "single":
        rules += [] if cfg["break_win"] else [f"{n1} is win"]
    elif cfg["family"] == "two_room":
        rules += [] if cfg["break_stop"] else ["wall is stop"]
        rules += [] if cfg["break_win"] else [f"{n1} is win"]
        rules += [f"{n3} is win"] if cfg["distr_win_rule"] else []
    elif cfg["family"] == "make_you":
        rules += ["wall is stop"] + ([] if cfg["break_win"] else [f"{n1} is win"])
    else:
        rules += ["wall is stop"]
    return sorted(rules)


def blocks(world: World, kind: str) -> Counter:
    """Rule blocks of a kind anywhere in the stacks (a block may start under another one)."""
    return Counter(o[1] for c in world.cells for o in c if o[0] == kind)


def test_there_are_forty_levels():
    assert len(LEVELS) == 40
    assert len({cfg["family"] for cfg in LEVELS.values()}) == 4


@pytest.mark.parametrize("level_id", list(LEVELS))
def test_level_generates_validly_for_seeds_0_to_99(level_id):
    cfg = LEVELS[level_id]
    size = (8, 8) if cfg["family"] == "single" else (13, 9)
    layouts = set()
    for seed in SEEDS:
        level = generate(level_id, level_rng(seed))
        w = level.world
        (_c1, n1), (_c2, n2), (_c3, n3) = level.objects
        assert len({n1, n2, n3}) == 3
        assert (w.width, w.height) == size
        # the rules read from the grid are the ones the level was built to have
        assert sorted(w.rules.lines()) == expected_rules(level_id, n1, n3), (level_id, seed)
        assert "baba is you" in w.rules.lines()
        assert w.you_positions() == w.find_top("baba") and len(w.find_top("baba")) == 1
        # the win object exists, or the rule that makes it WIN can be formed from blocks on the grid
        target = "wall" if cfg["family"] == "make_wall_win" else n1
        assert w.find_top(target), (level_id, seed)
        assert blocks(w, PROP)["win"] >= 1 and blocks(w, NOUN)[target] >= 1
        if cfg.get("distr_obj") or cfg["family"] in ("make_you", "make_wall_win"):
            assert len(w.find_top(n2)) == 1
        else:
            assert not w.find_top(n2)
        # objects were placed on empty cells: nothing flexible is stacked at the start (bar the divider)
        for stack in w.cells:
            assert sum(o[0] == OBJ for o in stack) <= 1
        text = observation_text(w)
        assert text.startswith("Active rules:\n") and "\n\nObjects on the map:\n" in text
        assert text.split("\n\n")[0].split("\n")[1:] == w.rules.lines()
        layouts.add(tuple(w.render_rows()))
        # same seed, same level
        again = generate(level_id, level_rng(seed))
        assert again.world.render_rows() == w.render_rows() and again.target_plan == level.target_plan
    assert len(layouts) > 50, "levels should vary with the seed"


def shortest_walk(w: World, start, goal) -> list[str]:
    moves = {"up": (0, -1), "right": (1, 0), "down": (0, 1), "left": (-1, 0)}
    prev = {start: None}
    q = deque([start])
    while q:
        p = q.popleft()
        if p == goal:
            break
        for name, (dx, dy) in moves.items():
            n = (p[0] + dx, p[1] + dy)
            top = w.top(*n)
            if n not in prev and (top is None or top[0] == OBJ):
                prev[n] = (p, name)
                q.append(n)
    path = []
    while prev[goal] is not None:
        goal, name = prev[goal]
        path.append(name)
    return path[::-1]


@pytest.mark.parametrize("seed", range(20))
def test_goto_win_scripted_shortest_path_wins_with_the_time_discounted_reward(seed):
    level = generate("goto_win", level_rng(seed))
    w = level.world
    n1 = level.objects[0][1]
    path = shortest_walk(w, w.find_top("baba")[0], w.find_top(n1)[0])
    assert path
    for i, move in enumerate(path, 1):
        reward, done, won, _ = w.step(move)
        assert done == (i == len(path))
    assert won and reward == pytest.approx(1 - 0.9 * len(path) / 100)
    assert level.target_plan == f"goto[{n1}]"


def test_target_plans_follow_the_level_kind():
    rng = level_rng(3)
    plan = generate("two_room-break_stop-make_win", rng).target_plan
    assert plan.startswith("break[wall is stop], make[") and plan.endswith("]")
    assert generate("two_room-make_wall_win", rng).target_plan == "break[wall is stop], make[wall is win], goto[wall]"
    assert generate("two_room-make_you", rng).target_plan.startswith("make[")
    assert generate("make_win", rng).target_plan.startswith("make[")

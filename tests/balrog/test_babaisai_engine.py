"""Baba Is AI rules engine (spec §6.4, acceptance check 9)."""

from playbench.suites.balrog.babaisai.engine import BORDER_OBJ, OBJ, World, make_block, make_obj

_OBJS = {"@": "baba", "W": "wall", "o": "ball", "k": "key", "d": "door"}


def world_from(rows: list[str]) -> World:
    """Tokens separated by spaces: '#' border, '.' empty, '@' baba, 'W' wall, 'o' ball, 'k' key,
    'd' door; an upper-case word is a rule block (BABA, IS, YOU, KEY, WIN ...)."""
    grid = [r.split() for r in rows]
    assert len({len(r) for r in grid}) == 1, "ragged map"
    w = World(len(grid[0]), len(grid))
    for y, row in enumerate(grid):
        for x, tok in enumerate(row):
            if tok == "#":
                w.put(x, y, BORDER_OBJ)
            elif tok in _OBJS:
                w.put(x, y, make_obj(_OBJS[tok]))
            elif tok != ".":
                w.put(x, y, make_block(tok.lower()))
    w.refresh_rules()
    return w


def words(w: World, y: int, xs: range) -> list[str]:
    return [w.top(x, y)[1] if w.top(x, y) else "." for x in xs]


def test_rules_read_horizontally_and_vertically_in_order():
    w = world_from([
        "# #   #    #  #   #",
        "# .   BABA IS YOU #",
        "# KEY .    .  .   #",
        "# IS  .    @  .   #",
        "# WIN .    .  .   #",
        "# #   #    #  #   #",
    ])
    assert w.rules.lines() == ["baba is you", "key is win"]
    assert w.rules.has("key", "win") and w.rules.has("baba", "you")
    assert not w.rules.has("baba", "win")


def test_noun_is_noun_is_a_replace_rule_not_listed():
    w = world_from([
        "# #    #  #    # #",
        "# KEY  IS BALL . #",
        "# BABA IS YOU  . #",
        "# .    k  @    . #",
        "# #    #  #    # #",
    ])
    assert w.rules.replace == [("key", "ball")]
    assert w.rules.lines() == ["baba is you"]
    w.step("right")  # any move re-reads the rules and applies the replacement
    stack = w.cells[3 * w.width + 2]
    assert [o[1] for o in stack] == ["key", "ball"]  # stacked on top, as the original's replace does


def test_pushing_a_chain_of_three_blocks_into_a_wall_does_not_move():
    w = world_from([
        "# # #    #  #   #",
        "# @ BABA IS YOU #",
        "# . .    .  .   #",
        "# # #    #  #   #",
    ])
    before = [c[:] for c in w.cells]
    assert w.step("right") == (0.0, False, False, False)
    assert w.cells == before
    assert w.rules.lines() == ["baba is you"]


def test_pushing_blocks_moves_the_chain_and_the_mover():
    w = world_from([
        "# #    #   #  #   . #",
        "# @    KEY IS WIN . #",
        "# BABA IS  YOU .  . #",
        "# #    #   #  #   # #",
    ])
    assert w.rules.lines() == ["key is win", "baba is you"]
    w.step("right")
    assert words(w, 1, range(1, 6)) == [".", "baba", "key", "is", "win"]
    assert w.rules.lines() == ["key is win", "baba is you"]


def test_breaking_wall_is_stop_makes_walls_passable():
    w = world_from([
        "# #    #  #    # . #",
        "# .    .  .    W . #",
        "# WALL IS STOP W . #",
        "# .    @  .    W . #",
        "# BABA IS YOU  W . #",
        "# #    #  #    # # #",
    ])
    assert w.rules.has("wall", "stop")
    w.step("right")  # to (3, 3)
    w.step("right")
    assert w.top(3, 3)[1] == "baba", "wall is stop: the divider blocks"
    w.step("left")
    w.step("up")  # push 'is' from (2, 2) to (2, 1): the rule is broken
    assert w.top(2, 1)[1] == "is" and w.top(2, 2)[1] == "baba"
    assert not w.rules.has("wall", "stop")
    w.step("down")
    w.step("right")
    w.step("right")  # onto the divider: walls are no longer STOP
    assert w.top(4, 3)[1] == "baba"
    assert [o[1] for o in w.cells[3 * w.width + 4]] == ["wall", "baba"]
    w.step("right")
    assert w.top(5, 3)[1] == "baba"


def test_forming_key_is_win_makes_keys_winning_on_the_next_move():
    w = world_from([
        "# #    #  #   # #",
        "# .    IS WIN . #",
        "# KEY  .  .   . #",
        "# @    .  k   . #",
        "# BABA IS YOU . #",
        "# #    #  #   # #",
    ])
    assert not w.rules.has("key", "win")
    w.step("up")  # push KEY from (1, 2) into the gap at (1, 1): "key is win"
    assert w.rules.lines() == ["key is win", "baba is you"]
    w.step("right")  # baba (1, 2) -> (2, 2)
    w.step("down")  # -> (2, 3)
    reward, done, won, lost = w.step("right")  # onto the key at (3, 3)
    assert won and done and not lost
    assert reward == 1 - 0.9 * 4 / 100


def test_only_moving_onto_a_win_object_wins():
    w = world_from([
        "# #    #  #   # #",
        "# KEY  IS WIN . #",
        "# .    @  .   . #",
        "# BABA IS YOU . #",
        "# #    #  #   # #",
    ])
    w.cells[2 * w.width + 2].insert(0, make_obj("key"))  # baba starts on a key
    assert w.rules.has("key", "win")
    assert w.step("idle")[2] is False  # standing on the win object does not win
    assert w.step("right")[2] is False
    assert w.step("left")[2] is True  # moving back onto it does


def test_idle_changes_only_the_step_counter():
    w = world_from([
        "# #    #  #   # #",
        "# KEY  IS WIN . #",
        "# .    @  k   . #",
        "# BABA IS YOU . #",
        "# #    #  #   # #",
    ])
    before = [c[:] for c in w.cells]
    for i in range(1, 4):
        assert w.step("idle") == (0.0, False, False, False)
        assert w.step_count == i
    assert w.cells == before
    assert w.rules.lines() == ["key is win", "baba is you"]


def test_episode_ends_at_the_step_limit():
    w = world_from(["# #    #  #   #", "# .    @  .   #", "# BABA IS YOU #", "# #    #  #   #"])
    for _ in range(99):
        assert w.step("idle")[1] is False
    assert w.step("idle")[1] is True
    assert w.step_count == 100


def test_objects_are_overlappable_unless_stop():
    w = world_from([
        "# #    #  #    . #",
        "# @    k  .    . #",
        "# BABA IS YOU  . #",
        "# KEY  IS STOP . #",
        "# #    #  #    # #",
    ])
    assert w.rules.has("key", "stop")
    w.step("right")
    assert w.top(1, 1)[1] == "baba", "keys are STOP"
    w2 = world_from(["# #    #  #   #", "# @    k  .   #", "# BABA IS YOU #", "# #    #  #   #"])
    w2.step("right")
    assert [o[1] for o in w2.cells[1 * w2.width + 2]] == ["key", "baba"]
    w2.step("right")
    assert w2.top(2, 1)[1] == "key" and w2.top(3, 1)[1] == "baba"
    assert all(o[0] == OBJ for o in w2.cells[1 * w2.width + 3])


def test_no_you_means_nothing_moves():
    w = world_from(["# #    #  #   . #", "# @    .  .   . #", "# BABA IS .   . #", "# #    #  #   # #"])
    assert w.you_positions() == []
    before = [c[:] for c in w.cells]
    assert w.step("right") == (0.0, False, False, False)
    assert w.cells == before

"""The rules of Baba Is AI as data: object kinds, rule words, colours, actions and the 40 BALROG levels.

Everything the engine, the text view, the renderer and the level generators need to know about the
game's vocabulary lives here, so a reader can see the whole game without reading code.
"""

from typing import Required, TypedDict

#: Flexible objects (subject to rules): noun word -> default colour (used when a ``N IS N2`` rule
#: creates one) and drawing shape. The outer border is not one of them: it is a fixed, unnamed wall.
NOUNS: dict[str, dict[str, str]] = {
    "baba": {"color": "white", "shape": "triangle"},
    "wall": {"color": "grey", "shape": "square"},
    "ball": {"color": "green", "shape": "circle"},
    "key": {"color": "blue", "shape": "key"},
    "door": {"color": "red", "shape": "door"},
}

#: Property words -> the original engine's internal property name (kept for reference and docs).
PROPERTIES: dict[str, str] = {
    "you": "is_agent",
    "win": "is_goal",
    "stop": "is_stop",
    "push": "is_push",
    "pull": "is_pull",
    "move": "is_move",
    "open": "is_open",
    "shut": "is_shut",
    "lose": "is_defeat",
}

#: The connective word of every rule.
IS = "is"

#: Object names and colours the levels sample from (three distinct names, independent colours).
NAMES: tuple[str, ...] = ("ball", "key", "door")
COLORS: tuple[str, ...] = ("red", "blue", "green")

#: RGB of each colour used by the renderer.
RGB: dict[str, tuple[int, int, int]] = {
    "red": (255, 0, 0),
    "green": (0, 255, 0),
    "blue": (0, 0, 255),
    "purple": (112, 39, 195),
    "yellow": (255, 255, 0),
    "grey": (100, 100, 100),
    "white": (255, 255, 255),
}

#: Actions in engine order (index = the original integer action) and their movement vectors.
ACTIONS: tuple[str, ...] = ("idle", "up", "right", "down", "left")
MOVES: dict[str, tuple[int, int]] = {"up": (0, -1), "right": (1, 0), "down": (0, 1), "left": (-1, 0)}
#: Facing direction index of each move (0 right, 1 down, 2 left, 3 up), as the original engine.
FACING: dict[str, int] = {"right": 0, "down": 1, "left": 2, "up": 3}
DIR_VECTORS: tuple[tuple[int, int], ...] = ((1, 0), (0, 1), (-1, 0), (0, -1))

#: The engine's default ``max_steps`` for a World built outside a task (tasks pass their facts row's limit).
MAX_STEPS = 100

# -- levels ---------------------------------------------------------------------------------------
# Each level is a family (the generator) and its switches. Families:
#   single     MakeWinEnv, 8x8: "baba is you" bottom-left, "{obj1} is win" top-left.
#   two_room   TwoRoomEnv, 13x9: a flexible wall divides two rooms, "wall is stop" on the left.
#   make_you   TwoRoomMakeYouEnv, 13x9: "baba is you" can be rewritten into "{obj2} is you".
#   make_wall_win  TwoRoomMakeWallWinEnv, 13x9: the only way to win is "wall is win".
# Switches: break_win (the win rule's noun is displaced), distr_obj (a second object),
# distr_rule (a distractor noun block), irrelevant (that block names a third object),
# break_stop (two_room: "wall is stop" is already broken at the start), area (where the objects
# are placed in two_room), distr_win_rule (an extra "{obj3} is win").


class LevelConfig(TypedDict, total=False):
    """A level's family and switches (described above); each family reads only its own switches."""

    family: Required[str]
    area: str
    break_stop: bool
    break_win: bool
    distr_obj: bool
    distr_rule: bool
    irrelevant: bool
    distr_win_rule: bool


def _single(break_win: bool, distr_obj: bool, distr_rule: bool, irrelevant: bool = False) -> LevelConfig:
    return {"family": "single", "break_win": break_win, "distr_obj": distr_obj, "distr_rule": distr_rule,
            "irrelevant": irrelevant}


def _two(area: str, break_stop: bool, break_win: bool, distr_obj: bool, distr_rule: bool,
         irrelevant: bool = False, distr_win_rule: bool = False) -> LevelConfig:
    return {"family": "two_room", "area": area, "break_stop": break_stop, "break_win": break_win,
            "distr_obj": distr_obj, "distr_rule": distr_rule, "irrelevant": irrelevant,
            "distr_win_rule": distr_win_rule}


def _two_room_variants(prefix: str, area: str, break_stop: bool, break_win: bool, win_rule_variant: bool) -> dict[str, LevelConfig]:
    out = {
        prefix: _two(area, break_stop, break_win, False, False),
        f"{prefix}-distr_obj": _two(area, break_stop, break_win, True, False),
        f"{prefix}-distr_rule": _two(area, break_stop, break_win, False, True),
        f"{prefix}-distr_obj_rule": _two(area, break_stop, break_win, True, True),
        f"{prefix}-distr_obj-irrelevant_rule": _two(area, break_stop, break_win, True, True, irrelevant=True),
    }
    if win_rule_variant:
        out[f"{prefix}-distr_win_rule"] = _two(area, break_stop, break_win, True, True, distr_win_rule=True)
    return out


#: The 40 BALROG levels (ids without the ``env/`` prefix), in the order of BALROG's config.
LEVELS: dict[str, LevelConfig] = {
    "goto_win": _single(False, False, False),
    "goto_win-distr_obj": _single(False, True, False),
    "goto_win-distr_rule": _single(False, False, True),
    "goto_win-distr_obj_rule": _single(False, True, True),
    "goto_win-distr_obj-irrelevant_rule": _single(False, True, True, irrelevant=True),
    "make_win": _single(True, False, False),
    "make_win-distr_obj": _single(True, True, False),
    "make_win-distr_rule": _single(True, False, True),
    "make_win-distr_obj_rule": _single(True, True, True),
    "make_win-distr_obj-irrelevant_rule": _single(True, True, True, irrelevant=True),
    **_two_room_variants("two_room-goto_win", "left_anywhere", True, False, True),
    **_two_room_variants("two_room-break_stop-goto_win", "right_anywhere", False, False, False),
    **_two_room_variants("two_room-maybe_break_stop-goto_win", "anywhere", False, False, False),
    **_two_room_variants("two_room-make_win", "left_anywhere", True, True, True),
    **_two_room_variants("two_room-break_stop-make_win", "right_anywhere", False, True, False),
    "two_room-make_you": {"family": "make_you", "break_win": False},
    "two_room-make_you-make_win": {"family": "make_you", "break_win": True},
    "two_room-make_wall_win": {"family": "make_wall_win"},
}

assert len(LEVELS) == 40

"""The level generators of the 40 BALROG Baba Is AI levels (spec §6.4), driven by one seeded RNG.

Placement follows the original: ``put`` stacks an object on a fixed cell; ``place`` draws a uniform
random cell of a rectangle (clipped to the grid) until it finds an empty one; breaking a rule moves
one of its blocks to a new cell.

The original draws from NumPy's global legacy RNG, which BALROG seeds with ``np.random.seed(seed)``
just before ``reset``. Here the same draws (``choice``, ``randint``) are made in the same order from a
``np.random.RandomState(seed)`` (the same Mersenne Twister stream), so the level for seed ``s`` is the
original's level for seed ``s`` (tested against recorded facts of the original).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np

from playbench.suites.balrog.babaisai.data import COLORS, LEVELS, NAMES, LevelConfig
from playbench.suites.balrog.babaisai.engine import Obj, World, make_block, make_obj

Pos = tuple[int, int]
Sampled = list[tuple[str, str]]  # (colour, name) of obj1, obj2, obj3
_T = TypeVar("_T")


@dataclass
class Level:
    """A generated level: the world, BALROG's ``target_plan`` and what was sampled."""

    id: str
    world: World
    target_plan: str
    objects: Sampled
    rules_at: dict[str, list[Pos]] = field(default_factory=dict)  # initial rule positions


class _Builder:
    """Level-building helpers over a World and the level's RNG."""

    def __init__(self, width: int, height: int, rng: np.random.RandomState) -> None:
        self.w = World(width, height)
        self.rng = rng
        self.rules_at: dict[str, list[Pos]] = {}
        self.w.border_rect()

    def put(self, pos: Pos, obj: Obj) -> None:
        self.w.put(pos[0], pos[1], obj)

    def empty_cell(self, top: Pos = (0, 0), size: Pos | None = None) -> Pos:
        """A uniform random empty cell of the rectangle ``top``/``size`` (rejection sampling)."""
        w = self.w
        size = size or (w.width, w.height)
        x_hi, y_hi = min(top[0] + size[0], w.width), min(top[1] + size[1], w.height)
        for _ in range(100_000):
            x = int(self.rng.randint(top[0], x_hi))
            y = int(self.rng.randint(top[1], y_hi))
            if w.top(x, y) is None:
                return (x, y)
        raise RuntimeError("rejection sampling failed: no empty cell in the area")

    def place(self, obj: Obj, top: Pos = (0, 0), size: Pos | None = None) -> Pos:
        pos = self.empty_cell(top, size)
        self.put(pos, obj)
        return pos

    def rule(self, noun: str, word: str, at: Pos) -> None:
        """Put the three blocks of ``noun is word`` from ``at`` rightwards."""
        cells = [(at[0] + i, at[1]) for i in range(3)]
        for pos, block in zip(cells, (noun, "is", word), strict=True):
            self.put(pos, make_block(block))
        self.rules_at[f"{noun} is {word}"] = cells

    def break_rule(self, rule: str, new_pos: Pos, block_idx: int) -> None:
        """Move block ``block_idx`` of a rule to ``new_pos``."""
        self.w.move_top(self.rules_at[rule][block_idx], new_pos)

    def sample_objects(self) -> Sampled:
        """Three distinct names with independent colours: obj1, obj2, obj3 as (colour, name)."""
        names = self.rng.choice(len(NAMES), size=3, replace=False)
        colors = self.rng.choice(len(COLORS), size=3, replace=True)
        return [(COLORS[int(c)], NAMES[int(n)]) for n, c in zip(names, colors, strict=True)]

    def choice(self, items: list[_T]) -> _T:
        return items[int(self.rng.choice(len(items)))]


# Distractor noun cells of the single room (duplicates as in the original list).
_SINGLE_DISTRACTOR_CELLS: list[Pos] = [(4, 6), (5, 6), (6, 6), (4, 1), (5, 1), (6, 1),
                                       (6, 1), (6, 2), (6, 3), (6, 4), (6, 5), (6, 6)]


def _single(b: _Builder, cfg: LevelConfig) -> tuple[str, Sampled]:
    objs = b.sample_objects()
    (c1, n1), (c2, n2), (_c3, n3) = objs
    b.rule("baba", "you", (1, 6))
    b.rule(n1, "win", (1, 1))
    if cfg["break_win"]:
        b.break_rule(f"{n1} is win", b.empty_cell((2, 2), (4, 4)), 0)
    if cfg["distr_rule"]:
        pos = b.choice(_SINGLE_DISTRACTOR_CELLS)
        b.put(pos, make_block(n3 if cfg["irrelevant"] else n2))
    b.place(make_obj("baba"), (1, 2))
    b.place(make_obj(n1, c1), (1, 2))
    if cfg["distr_obj"]:
        b.place(make_obj(n2, c2), (1, 2))
    if cfg.get("distr_win_rule"):
        b.rule(n3, "win", (4, 4))
    plan = f"make[{n1} is win], goto[{n1}]" if cfg["break_win"] else f"goto[{n1}]"
    return plan, objs


def _areas(width: int, height: int, pushable_w: int, right_x: int) -> dict[str, tuple[Pos, Pos]]:
    """The named placement rectangles of the two-room levels, as (top, size)."""
    size = (pushable_w, height - 6)
    return {
        "left_pushable": ((2, 3), size),
        "right_pushable": ((right_x, 3), size),
        "left_anywhere": ((1, 1), (width // 2 - 2, height - 2)),
        "right_anywhere": ((width // 2 + 1, 2), (width // 2 - 2, height - 2)),
        "anywhere": ((1, 2), (width - 2, height - 2)),
    }


def _right_unpushable(width: int, height: int) -> list[Pos]:
    """The cells along the right room's outer walls, where a block can never be pushed from."""
    return [(width - 2, 2 + i) for i in range(height - 4)] + [(width - 2 - i, height - 2) for i in range(width // 2 - 2)]


def _divider(b: _Builder) -> None:
    x = b.w.width // 2
    for y in range(1, b.w.height - 1):
        b.put((x, y), make_obj("wall"))


def _two_room(b: _Builder, cfg: LevelConfig) -> tuple[str, Sampled]:
    w, h = b.w.width, b.w.height
    areas = _areas(w, h, w // 2 - 2, w // 2 + 1)
    _divider(b)
    objs = b.sample_objects()
    (c1, n1), (c2, n2), (_c3, n3) = objs
    b.rule("baba", "you", (1, h - 2))
    b.rule("wall", "stop", (1, 2))
    b.rule(n1, "win", (w - 4, 1))
    if cfg["distr_rule"]:
        if cfg["irrelevant"]:
            b.place(make_block(n3), *areas["right_pushable"])
        elif cfg["distr_obj"]:
            # obj2's noun goes where it cannot be pushed, so obj2 can never be made WIN
            b.put(b.choice(_right_unpushable(w, h)), make_block(n2))
        else:
            b.place(make_block(n2), *areas["right_pushable"])
    if cfg["break_stop"]:
        new_pos = b.empty_cell(*areas["left_pushable"])
        b.break_rule("wall is stop", new_pos, int(b.choice([1, 2])))
    if cfg["break_win"]:
        b.break_rule(f"{n1} is win", b.empty_cell(*areas["right_pushable"]), 0)
    b.place(make_obj("baba"), *areas["left_pushable"])
    obj1_pos = b.place(make_obj(n1, c1), *areas[cfg["area"]])
    if cfg["distr_obj"]:
        b.place(make_obj(n2, c2), *areas[cfg["area"]])
    if cfg["distr_win_rule"]:
        b.rule(n3, "win", (w - 4, 4))
    mid = w // 2
    if not cfg["break_win"] and obj1_pos[0] < mid:
        plan = f"goto[{n1}]"
    elif not cfg["break_win"] and cfg["break_stop"]:
        plan = f"goto[{n1}]"
    elif not cfg["break_win"]:
        plan = f"break[wall is stop], goto[{n1}]"
    elif cfg["break_stop"]:
        plan = f"make[{n1} is win], goto[{n1}]"
    else:
        plan = f"break[wall is stop], make[{n1} is win], goto[{n1}]"
    return plan, objs


def _make_you(b: _Builder, cfg: LevelConfig) -> tuple[str, Sampled]:
    w, h = b.w.width, b.w.height
    areas = _areas(w, h, w // 2 - 3, w // 2 + 2)
    _divider(b)
    objs = b.sample_objects()
    (c1, n1), (c2, n2), _ = objs
    b.rule("baba", "you", (1, h - 3))  # breakable: the agent can stand below it
    b.rule("wall", "stop", (1, 1))
    b.rule(n1, "win", (w - 4, 1))
    b.place(make_block(n2), *areas["left_pushable"])
    if cfg["break_win"]:
        b.break_rule(f"{n1} is win", b.empty_cell(*areas["right_pushable"]), 0)
    b.place(make_obj("baba"), *areas["left_pushable"])
    b.place(make_obj(n1, c1), *areas["right_anywhere"])
    b.place(make_obj(n2, c2), *areas["right_anywhere"])
    if cfg["break_win"]:
        plan = f"make[{n2} is you], make[{n1} is win], goto[{n1}]"
    else:
        plan = f"make[{n2} is you], goto[{n1}]"
    return plan, objs


def _make_wall_win(b: _Builder, cfg: LevelConfig) -> tuple[str, Sampled]:
    w, h = b.w.width, b.w.height
    areas = _areas(w, h, w // 2 - 3, w // 2 + 2)
    _divider(b)
    objs = b.sample_objects()
    (c1, n1), (c2, n2), (_c3, n3) = objs
    b.rule("baba", "you", (1, h - 2))
    b.rule("wall", "stop", (2, 2))
    b.rule(n1, "win", (w - 4, 1))
    b.place(make_block(n3), *areas["right_pushable"])
    b.break_rule(f"{n1} is win", b.choice(_right_unpushable(w, h)), 0)
    b.place(make_obj("baba"), *areas["left_pushable"])
    b.place(make_obj(n1, c1), *areas["right_anywhere"])
    b.place(make_obj(n2, c2), *areas["right_anywhere"])
    return "break[wall is stop], make[wall is win], goto[wall]", objs


_FAMILIES = {
    "single": ((8, 8), _single),
    "two_room": ((13, 9), _two_room),
    "make_you": ((13, 9), _make_you),
    "make_wall_win": ((13, 9), _make_wall_win),
}


def level_rng(seed: int) -> np.random.RandomState:
    """The RNG a level of seed ``seed`` is drawn from: the legacy Mersenne Twister BALROG seeds."""
    return np.random.RandomState(seed)


def generate(level_id: str, rng: np.random.RandomState, max_steps: int = 100) -> Level:
    """Build level ``level_id`` (no ``env/`` prefix) with all randomness drawn from ``rng``."""
    if level_id not in LEVELS:
        raise KeyError(f"unknown Baba Is AI level {level_id!r}")
    cfg = LEVELS[level_id]
    (width, height), build = _FAMILIES[cfg["family"]]
    b = _Builder(width, height, rng)
    b.w.max_steps = max_steps
    plan, objs = build(b, cfg)
    b.w.refresh_rules()
    return Level(id=level_id, world=b.w, target_plan=plan, objects=objs, rules_at=b.rules_at)

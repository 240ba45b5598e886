"""A Boxoban solver: A* over push states (push-optimal), player walks filled in by BFS.

States are (boxes, the player's reachable area). Each transition pushes one box one cell. Boxes are never pushed onto dead cells (cells from which no goal can be reached by
pushing). The heuristic (sum over boxes of the push distance to the nearest goal) never overestimates.
"""

import heapq
from collections import deque
from dataclasses import dataclass

from playbench.suites.balrog.nle.boxoban.level import MOVES, Level

Cell = tuple[int, int]
_DIRS = tuple(MOVES.items())


@dataclass(frozen=True)
class Solution:
    """A solved level: the move names (``north``/``south``/``east``/``west``), pushes and search effort."""

    moves: tuple[str, ...]
    pushes: int
    expanded: int


def _floor(level: Level) -> set[Cell]:
    return {(r, c) for r in range(level.height) for c in range(level.width) if (r, c) not in level.walls}


def push_distances(level: Level) -> dict[Cell, int]:
    """For every floor cell, the fewest pushes that bring a box there to some goal (absent = dead cell)."""
    floor = _floor(level)
    dist = {g: 0 for g in level.goals}
    todo = deque(level.goals)
    while todo:  # reverse pushes: a box at b came from b-d with the player at b-2d
        b = todo.popleft()
        for _, (dr, dc) in _DIRS:
            prev, player = (b[0] - dr, b[1] - dc), (b[0] - 2 * dr, b[1] - 2 * dc)
            if prev in floor and player in floor and prev not in dist:
                dist[prev] = dist[b] + 1
                todo.append(prev)
    return dist


def _walk(level: Level, boxes: frozenset[Cell], start: Cell) -> dict[Cell, tuple[Cell, str] | None]:
    """BFS tree of the player's walk: cell -> (previous cell, move) (start -> None)."""
    parent: dict[Cell, tuple[Cell, str] | None] = {start: None}
    todo = deque([start])
    while todo:
        cell = todo.popleft()
        for name, (dr, dc) in _DIRS:
            nxt = (cell[0] + dr, cell[1] + dc)
            if nxt not in parent and nxt not in level.walls and nxt not in boxes:
                if 0 <= nxt[0] < level.height and 0 <= nxt[1] < level.width:
                    parent[nxt] = (cell, name)
                    todo.append(nxt)
    return parent


def _path(parent: dict[Cell, tuple[Cell, str] | None], goal: Cell) -> list[str]:
    out = []
    step = parent[goal]
    while step is not None:
        prev, name = step
        out.append(name)
        step = parent[prev]
    return out[::-1]


def solve(level: Level, max_expanded: int = 200_000) -> Solution | None:
    """A push-optimal solution (moves = walks between pushes), or None if unsolvable within the budget.

    States are deduplicated on (boxes, the player's reachable area); boxes and areas are bitboards (one
    bit per cell, row-major), so the flood fill is a few integer shifts. Needs closed outer walls.
    """
    dead = push_distances(level)
    if any(b not in dead for b in level.boxes):
        return None
    width = level.width
    free = 0
    for r in range(level.height):
        for c in range(width):
            if (r, c) not in level.walls:
                free |= 1 << (r * width + c)
    live = {r * width + c: d for (r, c), d in dead.items()}
    live_mask = sum(1 << cell for cell in live)
    offsets = (-width, width, -1, 1)
    goals = sum(1 << (r * width + c) for r, c in level.goals)

    def area(boxes: int, start: int) -> tuple[int, int]:
        allowed = free & ~boxes
        reach = 1 << start
        while True:
            grow = (reach | reach << 1 | reach >> 1 | reach << width | reach >> width) & allowed
            if grow == reach:
                return (reach & -reach).bit_length() - 1, reach
            reach = grow

    def cells(mask: int) -> list[int]:
        out = []
        while mask:
            low = mask & -mask
            out.append(low.bit_length() - 1)
            mask ^= low
        return out

    def h(mask: int) -> int:
        return sum(live[b] for b in cells(mask))

    start_boxes = sum(1 << (r * width + c) for r, c in level.boxes)
    start_player = level.player[0] * width + level.player[1]
    canon, _ = area(start_boxes, start_player)
    start_key = (start_boxes, canon)
    # key -> (parent key, box cell before the push, direction offset); the player position is replayed later
    came: dict[tuple[int, int], tuple | None] = {start_key: None}
    counter = 0
    heap = [(h(start_boxes), 0, counter, start_boxes, start_player)]
    expanded = 0
    while heap:
        _, pushes, _, boxes, player = heapq.heappop(heap)
        canon, reach = area(boxes, player)
        key = (boxes, canon)
        if boxes == goals:
            return _rebuild(level, came, key, expanded, start_player)
        expanded += 1
        if expanded > max_expanded:
            return None
        for box in cells(boxes):
            for off in offsets:
                target = box + off
                tbit = 1 << target
                if not (reach >> (box - off)) & 1 or boxes & tbit or not live_mask & tbit:
                    continue
                new_boxes = boxes ^ (1 << box) ^ tbit
                new_canon, _ = area(new_boxes, box)
                new_key = (new_boxes, new_canon)
                if new_key in came:
                    continue
                came[new_key] = (key, box, off)
                counter += 1
                heapq.heappush(heap, (pushes + 1 + h(new_boxes), pushes + 1, counter, new_boxes, box))
    return None


def _rebuild(level: Level, came: dict, key: tuple, expanded: int, start_player: int) -> Solution:
    width = level.width
    names = {-width: "north", width: "south", -1: "west", 1: "east"}
    chain = []
    while came[key] is not None:
        parent, box, off = came[key]
        chain.append((parent[0], box, off))
        key = parent
    moves: list[str] = []
    player = divmod(start_player, width)
    for boxes_mask, box, off in reversed(chain):
        boxes = frozenset(divmod(b, width) for b in range(boxes_mask.bit_length()) if boxes_mask >> b & 1)
        stand = divmod(box - off, width)
        moves += _path(_walk(level, boxes, player), stand)
        moves.append(names[off])
        player = divmod(box, width)
    return Solution(tuple(moves), len(chain), expanded)


def replay(level: Level, moves: list[str] | tuple[str, ...]) -> bool:
    """Whether playing these moves (Sokoban rules) from the level's start puts every box on a goal."""
    boxes, player = set(level.boxes), level.player
    for name in moves:
        dr, dc = MOVES[name]
        nxt = (player[0] + dr, player[1] + dc)
        if nxt in level.walls:
            continue
        if nxt in boxes:
            beyond = (nxt[0] + dr, nxt[1] + dc)
            if beyond in level.walls or beyond in boxes:
                continue
            boxes.remove(nxt)
            boxes.add(beyond)
        player = nxt
    return boxes == set(level.goals)

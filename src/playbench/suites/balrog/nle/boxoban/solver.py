"""A Boxoban solver: A* over push states, cost = player moves, so solutions are move-optimal.

States are (boxes, player cell after the last push). Each transition walks the player to a box (BFS) and
pushes it one cell. Boxes are never pushed onto dead cells (cells from which no goal can be reached by
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
    """A move-optimal solution, or None if the level is unsolvable (or the search budget is exhausted)."""
    dead = push_distances(level)
    if any(b not in dead for b in level.boxes):
        return None
    goals = level.goals

    def h(boxes: frozenset[Cell]) -> int:
        return sum(dead[b] for b in boxes)

    start = (level.boxes, level.player)
    best = {start: 0}
    came: dict[tuple[frozenset[Cell], Cell], tuple[tuple[frozenset[Cell], Cell], Cell, str] | None] = {start: None}
    counter = 0
    heap = [(h(level.boxes), 0, counter, start)]
    expanded = 0
    while heap:
        _, cost, _, state = heapq.heappop(heap)
        if cost > best.get(state, 1 << 30):
            continue
        boxes, player = state
        if boxes == goals:
            return _rebuild(level, came, state, expanded)
        expanded += 1
        if expanded > max_expanded:
            return None
        walk = _walk(level, boxes, player)
        dist = {}
        for box in boxes:
            for name, (dr, dc) in _DIRS:
                stand, target = (box[0] - dr, box[1] - dc), (box[0] + dr, box[1] + dc)
                if stand not in walk or target in boxes or target not in dead:
                    continue
                if stand not in dist:
                    dist[stand] = len(_path(walk, stand))
                new_boxes = (boxes - {box}) | {target}
                new_state = (new_boxes, box)
                new_cost = cost + dist[stand] + 1
                if new_cost < best.get(new_state, 1 << 30):
                    best[new_state] = new_cost
                    came[new_state] = (state, stand, name)
                    counter += 1
                    heapq.heappush(heap, (new_cost + h(new_boxes), new_cost, counter, new_state))
    return None


def _rebuild(level: Level, came: dict, state: tuple, expanded: int) -> Solution:
    chain = []
    while came[state] is not None:
        prev, stand, name = came[state]
        chain.append((prev, stand, name))
        state = prev
    moves: list[str] = []
    for (boxes, player), stand, name in reversed(chain):
        moves += _path(_walk(level, boxes, player), stand)
        moves.append(name)
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

"""The ``oracle`` policy: a best-first search over exact game states for a winning action sequence.

Every node is a full copy of the World stepped by the real engine, so a plan found here wins when
replayed. States are deduplicated by layout; states where nothing is YOU are dead ends. The
heuristic estimates the remaining moves towards a win: walk to a WIN object, or first complete a
``N is win`` / ``N is you`` rule, or break a STOP rule that walls the player in. It guides the
search (weighted A*), so plans are short but not guaranteed shortest.
"""

from __future__ import annotations

import heapq
import itertools
from collections import deque

from playbench.suites.balrog.babaisai.engine import ISB, NOUN, OBJ, PROP, World

MOVES = ("up", "right", "down", "left")
INF = 10**6


def _distances(world: World, sources: list[tuple[int, int]]) -> list[int]:
    """Walking distance from the sources to every cell; rule blocks count as passable, STOP cells not."""
    w, cells = world.width, world.cells
    dist = [INF] * len(cells)
    q: deque[int] = deque()
    for x, y in sources:
        dist[y * w + x] = 0
        q.append(y * w + x)
    stop = world.rules.props.get("stop", ())
    while q:
        i = q.popleft()
        d = dist[i] + 1
        for j in (i - 1, i + 1, i - w, i + w):
            if dist[j] <= d:
                continue
            c = cells[j]
            if c:
                o = c[-1]
                if o[0] == "border" or (o[0] == OBJ and o[1] in stop):
                    continue
            dist[j] = d
            q.append(j)
    return dist


def _blocks(world: World) -> dict[str, list[tuple[int, int, str]]]:
    """Top rule blocks by kind: (x, y, word)."""
    out: dict[str, list[tuple[int, int, str]]] = {NOUN: [], ISB: [], PROP: []}
    w = world.width
    for i, c in enumerate(world.cells):
        if c and c[-1][0] in out:
            out[c[-1][0]].append((i % w, i // w, c[-1][1]))
    return out


def _push_cost(world: World, dist: list[int], block: tuple[int, int], slot: tuple[int, int]) -> int:
    """Moves to push a block to ``slot`` in at most two straight legs (either order).

    Each leg needs the player on the cell behind the block; a behind cell that is the border, a STOP
    cell or another rule block makes that order impossible (or, for the first leg, costlier).
    """
    w = world.width
    dx, dy = slot[0] - block[0], slot[1] - block[1]
    if dx == 0 and dy == 0:
        return 0
    sx, sy = (dx > 0) - (dx < 0), (dy > 0) - (dy < 0)

    def free(x: int, y: int) -> bool:
        if not world.inside(x, y) or dist[y * w + x] >= INF:
            return False
        o = world.top(x, y)
        return o is None or o[0] == OBJ

    best = INF
    legs = [((sx, 0), (0, sy))] if not dy else [((0, sy), (sx, 0))] if not dx else [((sx, 0), (0, sy)), ((0, sy), (sx, 0))]
    for (ax, ay), (bx, by) in legs:
        first = (block[0] - ax, block[1] - ay)
        if not world.inside(*first) or dist[first[1] * w + first[0]] >= INF:
            continue
        cost = dist[first[1] * w + first[0]] + (0 if free(*first) else 4) + abs(dx) + abs(dy)
        if bx or by:
            mid = (slot[0], block[1]) if ax else (block[0], slot[1])
            if not free(mid[0] - bx, mid[1] - by):
                continue
            cost += 2
        best = min(best, cost)
    return best


def _make_rule_cost(
    world: World, blocks: dict[str, list[tuple[int, int, str]]], dist: list[int], noun: str, prop: str, targets: list[tuple[int, int]]
) -> int:
    """Estimated moves to complete ``noun is prop`` (two of its blocks already aligned), then reach a target.

    Completing the rule costs the walk behind the missing block plus the pushes to its slot; the
    player is then near the slot, from where the nearest target is measured.
    """
    best = INF

    def then(slot: tuple[int, int]) -> int:
        return min((abs(tx - slot[0]) + abs(ty - slot[1]) for tx, ty in targets), default=0)

    for ix, iy, _ in blocks[ISB]:
        for (ax, ay), (bx, by) in (((ix - 1, iy), (ix + 1, iy)), ((ix, iy - 1), (ix, iy + 1))):
            if not (world.inside(ax, ay) and world.inside(bx, by)):
                continue
            first, last = world.top(ax, ay), world.top(bx, by)
            if last is not None and last[0] == PROP and last[1] == prop:
                for nx, ny, word in blocks[NOUN]:
                    if word == noun:
                        cost = _push_cost(world, dist, (nx, ny), (ax, ay)) + then((ax, ay))
                        best = min(best, cost)
            if first is not None and first[0] == NOUN and first[1] == noun:
                for px, py, word in blocks[PROP]:
                    if word == prop:
                        cost = _push_cost(world, dist, (px, py), (bx, by)) + then((bx, by))
                        best = min(best, cost)
    return best


def heuristic(world: World) -> int:
    """Estimated moves to win from this state (INF when nothing is YOU)."""
    yous = world.you_positions()
    if not yous:
        return INF
    w = world.width
    dist = _distances(world, yous)
    win_cells = [i for i, c in enumerate(world.cells) if c and world.is_win(c[-1])]
    best = min((dist[i] for i in win_cells), default=INF)
    if best < INF:
        return best
    blocks = _blocks(world)
    present = {c[-1][1] for c in world.cells if c and c[-1][0] == OBJ}
    you_nouns = {top[1] for x, y in yous if (top := world.top(x, y)) is not None}  # a YOU cell is never empty
    # Walk to a WIN object hidden behind STOP cells: break a STOP rule first.
    if win_cells:
        far = min(abs(i % w - x) + abs(i // w - y) for i in win_cells for x, y in yous)
        for (noun, word), cells in zip(world.rules.order, world.rules.cells, strict=True):
            if word == "stop" and noun not in you_nouns:
                reach = min(dist[y * w + x] for x, y in cells)
                best = min(best, reach + 2 + far)
    # Make an object WIN, then walk to it.
    for noun in present:
        best = min(best, _make_rule_cost(world, blocks, dist, noun, "win", world.find_top(noun)))
    # Make another object YOU, which then walks to a WIN object.
    if win_cells:
        wins = [(i % w, i // w) for i in win_cells]
        for noun in present - you_nouns:
            cost = _make_rule_cost(world, blocks, dist, noun, "you", [])
            if cost < INF:
                far = min(abs(tx - x) + abs(ty - y) for tx, ty in wins for x, y in world.find_top(noun))
                best = min(best, cost + far)
    if best >= INF:  # nothing aligned: at least go and touch a rule block
        near = min((dist[y * w + x] for kind in blocks.values() for x, y, _ in kind), default=INF)
        best = min(INF - 1, 20 + near)
    return best


def solve(world: World, max_len: int | None = None, budget: int = 300_000, weight: float = 2.0) -> list[str] | None:
    """A winning action list from ``world`` (at most ``max_len`` moves), or None if none was found."""
    limit = max_len if max_len is not None else world.max_steps - world.step_count
    start = world.copy()
    tie = itertools.count()
    h0 = heuristic(start)
    if h0 >= INF:
        return None
    frontier: list[tuple[float, int, int, World, tuple[str, ...]]] = [(weight * h0, next(tie), 0, start, ())]
    seen = {start.key(): 0}
    expanded = 0
    while frontier and expanded < budget:
        _, _, g, node, path = heapq.heappop(frontier)
        expanded += 1
        if g >= limit:
            continue
        for move in MOVES:
            child = node.copy()
            _, done, won, _ = child.step(move)
            if won:
                return [*path, move]
            if done:
                continue
            key = child.key()
            if seen.get(key, INF) <= g + 1:
                continue
            seen[key] = g + 1
            h = heuristic(child)
            if h >= INF:
                continue
            heapq.heappush(frontier, (g + 1 + weight * h, next(tie), g + 1, child, (*path, move)))
    return None

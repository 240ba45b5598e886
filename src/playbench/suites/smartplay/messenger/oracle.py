"""The Messenger oracle: a scripted planner with full state (fetch the message, avoid danger, deliver).

Each step it predicts every place a sprite can be after its next move (NPC moves are random among the
options the engine would offer), rejects actions that could end in contact with a lethal sprite, and
among the rest takes the one with the shortest breadth-first path (over cells kept clear of danger) to
the target, penalising squares a danger could reach one tick later.
"""

from collections import deque

import numpy as np

from playbench.suites.smartplay.messenger.data import CHASER, FLEEING, MOVES
from playbench.suites.smartplay.messenger.engine import H_MAX, NPC_MOVES, Engine, Sprite, npc_options, touching


def _next_positions(s: Sprite, ar: int, ac: int) -> set[tuple[int, int]]:
    if s.mtype not in (CHASER, FLEEING):
        return {(s.r, s.c)}
    out = set()
    for dr, dc in npc_options(s, ar, ac):
        r, c = s.r + dr, s.c + dc
        out.add((r, c) if 0 <= r <= H_MAX and 0 <= c <= H_MAX else (s.r, s.c))
    return out


def _grow(cells: set[tuple[int, int]]) -> set[tuple[int, int]]:
    return cells | {(r + dr, c + dc) for r, c in cells for dr, dc in NPC_MOVES}


def _after_move(engine: Engine, action: int) -> tuple[int, int]:
    dr, dc = MOVES[action]
    r, c = engine.avatar.r + 2 * dr, engine.avatar.c + 2 * dc
    return (r, c) if 0 <= r <= H_MAX and 0 <= c <= H_MAX else (engine.avatar.r, engine.avatar.c)


def _bfs(start: tuple[int, int], goals: set[tuple[int, int]], blocked: set[tuple[int, int]]) -> int | None:
    """Steps (of 2 half-cells) from ``start`` to an avatar position touching a goal position."""
    def hits(p: tuple[int, int]) -> bool:
        return any(touching(p[0], p[1], g[0], g[1]) for g in goals)

    if hits(start):
        return 0
    seen = {start}
    queue = deque([(start, 0)])
    while queue:
        (r, c), d = queue.popleft()
        for dr, dc in MOVES[:4]:
            p = (r + 2 * dr, c + 2 * dc)
            if not (0 <= p[0] <= H_MAX and 0 <= p[1] <= H_MAX) or p in seen or p in blocked:
                continue
            if hits(p):
                return d + 1
            seen.add(p)
            queue.append((p, d + 1))
    return None


def plan(engine: Engine, rng: np.random.Generator) -> int:
    """The oracle's action index for the current state."""
    a = engine.avatar
    holding = a.has_message
    dangers, target = [], None
    for s in engine.sprites:
        if not s.alive:
            continue
        if s.role in ("enemy", "decoy_message", "decoy_goal") or (s.role == "goal" and not holding):
            dangers.append(s)
        if s.role == ("goal" if holding else "message"):
            target = s
    if engine.level == 1 and holding and target is None:
        target = engine.sprite("goal")
    if engine.level == 1 and holding:  # in stage one touching the message again loses
        msg = engine.sprite("message")
        if msg is not None:
            dangers.append(msg)
    danger_now = set().union(*(_next_positions(s, a.r, a.c) for s in dangers)) if dangers else set()
    danger_soon = _grow(danger_now) if engine.level > 1 else set(danger_now)
    goal_cells = _next_positions(target, a.r, a.c) if target is not None else set()
    # Positions from which the avatar could touch a danger next tick are blocked for path finding.
    blocked = {(r, c) for r in range(0, H_MAX + 1, 2) for c in range(0, H_MAX + 1, 2)
               if any(touching(r, c, d[0], d[1]) for d in danger_soon)}
    best, best_cost = None, None
    for action in range(5):
        p = _after_move(engine, action)
        if any(touching(p[0], p[1], d[0], d[1]) for d in danger_now):
            continue  # could die this tick
        risk = sum(touching(p[0], p[1], d[0], d[1]) for d in danger_soon)
        dist = _bfs(p, goal_cells, blocked - {p}) if goal_cells else 0
        if dist is None:
            t = next(iter(goal_cells))
            dist = 20 + (abs(p[0] - t[0]) + abs(p[1] - t[1])) // 2
        cost = (dist + 3 * risk, float(rng.random()))
        if best_cost is None or cost < best_cost:
            best, best_cost = action, cost
    if best is None:  # every action may be fatal: pick one at random
        best = int(rng.integers(5))
    return best

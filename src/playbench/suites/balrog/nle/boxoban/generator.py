"""playbench's offline generator of Boxoban-style levels (10x10, 4 boxes, 4 goals).

Like DeepMind's Boxoban generator: carve a room by random walks, put the boxes on their goals, then play
backwards (the player walks and *pulls* boxes) so every level is reachable in reverse, hence solvable; the
solver then proves it and measures it. Presets pick levels by optimal solution length (moves) and by
search effort (A* expansions). Everything comes from one ``random.Random(seed)``.
"""

import random
from dataclasses import dataclass

from playbench.suites.balrog.nle.boxoban.level import MOVES, SIZE, Level, problems, reachable
from playbench.suites.balrog.nle.boxoban.solver import Solution, push_distances, solve

_STEPS = tuple(MOVES.values())


@dataclass(frozen=True)
class Preset:
    """Acceptance window of a difficulty preset (solutions must fit MiniHack's 100-step budget)."""

    name: str
    min_moves: int
    max_moves: int
    min_pushes: int
    min_expanded: int
    reverse_steps: int
    playouts: int
    budget: int


PRESETS = {
    "medium": Preset("medium", min_moves=20, max_moves=60, min_pushes=8, min_expanded=20, reverse_steps=150, playouts=6, budget=3000),
    "hard": Preset("hard", min_moves=40, max_moves=90, min_pushes=14, min_expanded=300, reverse_steps=300, playouts=12, budget=8000),
}


@dataclass(frozen=True)
class Generated:
    """A generated level with its proof of solvability."""

    level: Level
    solution: Solution
    attempts: int


def _room(rng: random.Random) -> set[tuple[int, int]]:
    """Floor cells carved inside the 8x8 interior by a few random walks from one start."""
    floor: set[tuple[int, int]] = set()
    target = rng.randint(28, 44)
    pos = (rng.randint(1, SIZE - 2), rng.randint(1, SIZE - 2))
    floor.add(pos)
    step = rng.choice(_STEPS)
    while len(floor) < target:
        if rng.random() < 0.35:
            step = rng.choice(_STEPS)
        nxt = (pos[0] + step[0], pos[1] + step[1])
        if 1 <= nxt[0] <= SIZE - 2 and 1 <= nxt[1] <= SIZE - 2:
            pos = nxt
            floor.add(pos)
        else:
            step = rng.choice(_STEPS)
    return floor


def _reverse_play(
    rng: random.Random, floor: set[tuple[int, int]], goals: list[tuple[int, int]], steps: int
) -> tuple[set[tuple[int, int]], tuple[int, int]] | None:
    """Random backwards play from the solved position: walk, and pull a box behind you when possible."""
    # cells as integers r*SIZE+c; for each floor cell the (next cell, cell behind) pairs of its moves
    moves = {
        r * SIZE + c: [((r + dr) * SIZE + c + dc, (r - dr) * SIZE + c - dc) for dr, dc in _STEPS if (r + dr, c + dc) in floor]
        for r, c in floor
    }
    boxes = {r * SIZE + c for r, c in goals}
    free = sorted(cell for cell in moves if cell not in boxes)
    if not free:
        return None
    player = free[int(rng.random() * len(free))]
    rand = rng.random
    for _ in range(steps):
        options = [(nxt, behind) for nxt, behind in moves[player] if nxt not in boxes]
        if not options:
            return None
        pulls = [o for o in options if o[1] in boxes]
        pick = pulls if pulls and rand() < 0.6 else options
        nxt, behind = pick[int(rand() * len(pick))]
        if behind in boxes:
            boxes.remove(behind)
            boxes.add(player)
        player = nxt
    return {divmod(b, SIZE) for b in boxes}, divmod(player, SIZE)


def generate(seed: int, preset: str = "medium", n_boxes: int = 4, max_attempts: int = 2000) -> Generated:
    """The level of this seed and preset: valid, solver-proven solvable, inside the preset's window."""
    spec = PRESETS[preset]
    rng = random.Random(f"boxoban-{preset}-{seed}")
    walls_all = {(r, c) for r in range(SIZE) for c in range(SIZE)}
    for attempt in range(1, max_attempts + 1):
        floor = _room(rng)
        goals = rng.sample(sorted(floor), n_boxes)
        # a few backwards playouts per room; keep the one that took the boxes furthest from the goals
        room = Level(frozenset(walls_all - floor), frozenset(goals), frozenset(), goals[0])
        far = push_distances(room)
        best, best_score = None, -1
        for _ in range(spec.playouts):
            played = _reverse_play(rng, floor, goals, spec.reverse_steps)
            if played is None:
                continue
            boxes, player = played
            if boxes & set(goals) or player in goals or any(b not in far for b in boxes):
                continue
            score = sum(far[b] for b in boxes)
            if score > best_score:
                best, best_score = played, score
        if best is None or best_score < spec.min_pushes:
            continue
        boxes, player = best
        level = Level(
            frozenset(walls_all - floor),
            frozenset(goals),
            frozenset(boxes),
            player,
            source="generated",
            level_id=f"{preset}-{seed}",
        )
        if problems(level, n_boxes) or not set(goals) | boxes <= reachable(level, player, frozenset()):
            continue
        solution = solve(level, max_expanded=spec.budget)
        if solution is None:
            continue
        n = len(solution.moves)
        if spec.min_moves <= n <= spec.max_moves and solution.pushes >= spec.min_pushes:
            if solution.expanded >= spec.min_expanded:
                return Generated(level, solution, attempt)
    raise RuntimeError(f"no {preset} Boxoban level found for seed {seed} in {max_attempts} attempts")

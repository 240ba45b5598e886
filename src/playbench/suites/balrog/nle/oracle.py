"""The navigation oracle for Corridor and MazeWalk: shortest paths on the known map to the down staircase.

NetHack does not expose the level map, so the oracle first *surveys* it: a shadow copy of the episode's
engine (same NetHack seed, hence the same level) is explored with a generous step budget until the
stairs come into view (without stepping on them, which would end it). The real episode then walks BFS
shortest paths on the union of the surveyed map and what the player currently sees (searching where the
survey walked through a passage still hidden here). Moves that turn out blocked are remembered and avoided;
locked doors cost extra in the path search and are kicked open when on the chosen path. Without a survey
the same navigator explores: nearest unvisited walkable cell next to unexplored stone.
"""

import heapq
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

# NetHack 3.6 cmap indices
_OPEN_DOORS, _CLOSED_DOORS = (13, 14), (15, 16)
_STONE, _DNSTAIR = 0, 24
_LOCKED_COST = 8  # extra steps a locked door is worth (kick + direction, often repeated)
_WALLS = np.arange(1, 12)  # vertical, horizontal, corner and T walls
_ROOM_FLOOR = (19, 20)  # lit and dark room floor
# searches that cover a wall cell: each finds an adjacent hidden door with chance 1/7 at Luck 0
_WALL_SEARCHES = 10
# doorways, open/closed doors, floor (lit/dark), corridors, stairs, ladders, altar, grave, throne, sink, fountain
_WALKABLE_CMAP = np.array([12, 13, 14, 15, 16, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31])
_MOVES = {
    "north": (0, -1),
    "east": (1, 0),
    "south": (0, 1),
    "west": (-1, 0),
    "northeast": (1, -1),
    "southeast": (1, 1),
    "southwest": (-1, 1),
    "northwest": (-1, -1),
}
Cell = tuple[int, int]


@dataclass
class Survey:
    """What a shadow exploration learnt: the last seen cmap and walkability of every cell, locked doors."""

    cmap: np.ndarray
    walk: np.ndarray
    locked: set[Cell]


def _grid(glyphs: np.ndarray, cmap_off: int) -> tuple[np.ndarray, np.ndarray]:
    """(walkable mask, cmap index; -1 for monsters/objects) for every map cell."""
    is_cmap = (glyphs >= cmap_off) & (glyphs < cmap_off + 100)
    cmap = np.where(is_cmap, glyphs - cmap_off, -1)
    # monsters and objects stand on walkable ground (moving into a monster attacks it)
    walk = np.isin(cmap, _WALKABLE_CMAP) | ~is_cmap
    return walk, cmap


def _frontier(walk: np.ndarray, cmap: np.ndarray, visited: set[Cell]) -> np.ndarray:
    """Walkable, unvisited cells with unexplored stone among their eight neighbours."""
    stone = np.pad(cmap == _STONE, 1)
    near = np.zeros_like(walk)
    h, w = walk.shape
    for dy in (0, 1, 2):
        for dx in (0, 1, 2):
            near |= stone[dy : dy + h, dx : dx + w]
    mask = walk & near
    for x, y in visited:
        mask[y, x] = False
    return mask


class Navigator:
    """Stateful over one episode: call ``act(raw_obs)`` every step.

    ``survey`` (optional) supplies the map; ``exploring`` makes it a surveyor: it visits every frontier,
    treats the stairs as a wall, and ``act`` returns None when nothing is left to explore.
    """

    def __init__(self, actions: set[str], survey: Survey | None = None, exploring: bool = False) -> None:
        from playbench.suites.balrog.nle.engine import modules

        self.cmap_off = int(modules()["nethack"].GLYPH_CMAP_OFF)
        self.moves = {name: d for name, d in _MOVES.items() if name in actions}
        self.can_search = "search" in actions
        self.can_kick = "kick" in actions
        self.survey = survey
        self.exploring = exploring
        self.visited: set[Cell] = set()
        self.blocked: set[tuple[Cell, Cell]] = set()
        self.locked: set[Cell] = set(survey.locked) if survey else set()
        self.last: tuple[Cell, Cell] | None = None
        self.last_name = ""
        self.pending: list[str] = []
        self.seen_cmap: np.ndarray | None = None
        self.seen_walk: np.ndarray | None = None
        self.searched: set[Cell] = set()
        self.wall_searches: dict[Cell, int] = {}  # searches made next to each wall cell
        self.tries: dict[Cell, int] = {}
        self.hidden_searches: dict[tuple[Cell, Cell], int] = {}
        self.saw_stairs = False
        self.prev_here: Cell | None = None
        self.recent: list[Cell] = []

    def _unsearched_dead_end(self, walk: np.ndarray, cmap: np.ndarray) -> Callable[[Cell], bool]:
        """Whether a cell is a corridor dead end not searched yet."""
        return lambda cell: cell not in self.searched and self._dead_end(cell, walk, cmap)

    def _unsearched_wall(self, cmap: np.ndarray) -> Callable[[Cell], bool]:
        """Whether a cell is room floor next to a wall cell searched fewer than ``_WALL_SEARCHES`` times.

        Once every wall has been covered, the counts start again: a hidden door can take many searches.
        """
        height, width = cmap.shape
        walls = np.isin(cmap, _WALLS)
        if all(self.wall_searches.get((int(x), int(y)), 0) >= _WALL_SEARCHES for y, x in np.argwhere(walls)):
            self.wall_searches.clear()

        def beside_wall(cell: Cell) -> bool:
            x, y = cell
            if int(cmap[y, x]) not in _ROOM_FLOOR:
                return False
            return any(walls[y + dy, x + dx] and self.wall_searches.get((x + dx, y + dy), 0) < _WALL_SEARCHES
                       for dx, dy in _MOVES.values() if 0 <= x + dx < width and 0 <= y + dy < height)
        return beside_wall

    def _schedule_searches(self, here: Cell, cmap: np.ndarray) -> None:
        """Search here several times (this call's action and the pending ones), counting the walls covered."""
        self.searched.add(here)
        self.pending = ["search"] * (_WALL_SEARCHES - 1)
        height, width = cmap.shape
        for dx, dy in _MOVES.values():
            x, y = here[0] + dx, here[1] + dy
            if 0 <= x < width and 0 <= y < height and int(cmap[y, x]) in _WALLS:
                self.wall_searches[(x, y)] = self.wall_searches.get((x, y), 0) + _WALL_SEARCHES

    @staticmethod
    def _dead_end(cell: Cell, walk: np.ndarray, cmap: np.ndarray) -> bool:
        """A corridor cell with at most one walkable neighbour."""
        cx, cy = cell
        if int(cmap[cy, cx]) not in (21, 22):
            return False
        y0, x0 = max(cy - 1, 0), max(cx - 1, 0)
        return int(walk[y0 : cy + 2, x0 : cx + 2].sum()) - 1 <= 1

    def _known(self, glyphs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        walk, cmap = _grid(glyphs, self.cmap_off)
        if self.survey is not None:
            # unexplored stone, and walls the survey found a hidden door in (a secret door shows as wall)
            unknown = (cmap == _STONE) | (np.isin(cmap, _WALLS) & self.survey.walk)
            cmap = np.where(unknown, self.survey.cmap, cmap)
            walk = np.where(unknown, self.survey.walk, walk)
        if self.seen_cmap is not None:
            # under the player, a monster or an object: the terrain last seen there
            cmap = np.where(cmap == -1, self.seen_cmap, cmap)
        # remember (for a survey) the last non-stone view of every cell
        if self.seen_cmap is None or self.seen_walk is None:  # both are set together
            self.seen_cmap, self.seen_walk = cmap.copy(), walk.copy()
        else:
            known = cmap != _STONE
            self.seen_cmap = np.where(known, cmap, self.seen_cmap)
            self.seen_walk = np.where(known, walk, self.seen_walk)
        return walk, cmap

    def act(self, obs: dict[str, Any]) -> str | None:
        """The next action towards the stairs (or the nearest frontier)."""
        glyphs = obs["glyphs"]
        here = (int(obs["blstats"][0]), int(obs["blstats"][1]))
        if self.pending:
            return self.pending.pop(0)
        real_cmap = _grid(glyphs, self.cmap_off)[1]
        walk, cmap = self._known(glyphs)
        if self.last is not None and self.last[0] == here:
            tx, ty = self.last[1]
            hidden = self.survey is not None and (int(real_cmap[ty, tx]) == _STONE or int(real_cmap[ty, tx]) in _WALLS)
            if hidden and self.can_search:
                # the survey walked there: a hidden passage or door not found yet in this game
                self.hidden_searches[self.last] = self.hidden_searches.get(self.last, 0) + 1
                self.pending = ["search"] * 4 + [self.last_name]
                return self.pending.pop(0)
            if int(cmap[ty, tx]) in _CLOSED_DOORS:
                self.locked.add((tx, ty))  # avoid it while another way exists; kick it otherwise
            elif int(cmap[ty, tx]) in _OPEN_DOORS:
                self.locked.discard((tx, ty))  # the move opened (or the kick broke) the door
            else:
                self.blocked.add(self.last)  # the previous move did not move us
        self.visited.add(here)
        self.locked = {c for c in self.locked if int(cmap[c[1], c[0]]) in _CLOSED_DOORS}  # kicked open
        height, width = glyphs.shape
        self.saw_stairs = bool((cmap == _DNSTAIR).any())
        stairs_known = not self.exploring and self.saw_stairs
        if self.exploring:
            walk = walk & (cmap != _DNSTAIR)

        goal_mask = (cmap == _DNSTAIR) if stairs_known else _frontier(walk, cmap, self.visited)
        door_mask = np.isin(cmap, (*_OPEN_DOORS, *_CLOSED_DOORS))
        goal_list, door_list, walk_list = goal_mask.tolist(), door_mask.tolist(), walk.tolist()

        def door(cell: Cell) -> bool:
            return door_list[cell[1]][cell[0]]

        def search(is_goal: Callable[[Cell], bool]) -> tuple[dict[Cell, tuple[Cell, str] | None], Cell | None]:
            # Dijkstra: a step costs 1, entering a locked door costs extra (kicks take several tries)
            parent: dict[Cell, tuple[Cell, str] | None] = {here: None}
            dist = {here: 0}
            heap = [(0, 0, here)]
            order = 0
            while heap:
                d, _, cell = heapq.heappop(heap)
                if d > dist[cell]:
                    continue
                if cell != here and is_goal(cell):
                    return parent, cell
                for name, (dx, dy) in self.moves.items():
                    nxt = (cell[0] + dx, cell[1] + dy)
                    if not (0 <= nxt[0] < width and 0 <= nxt[1] < height):
                        continue
                    if not walk_list[nxt[1]][nxt[0]] or (cell, nxt) in self.blocked:
                        continue
                    if dx and dy and (door(cell) or door(nxt)):
                        continue  # no diagonal moves through doors
                    step = 1 + (_LOCKED_COST if nxt in self.locked else 0)
                    if d + step < dist.get(nxt, 1 << 30):
                        dist[nxt] = d + step
                        parent[nxt] = (cell, name)
                        order += 1
                        heapq.heappush(heap, (d + step, order, nxt))
            return parent, None

        parent, found = search(lambda cell: goal_list[cell[1]][cell[0]])
        if found is None and self.exploring and self.can_search:
            # nothing left to explore: hidden passages at corridor dead ends, then (while the stairs are still
            # unseen, e.g. a start room whose doors are all hidden) hidden doors in room walls
            places = [self._unsearched_dead_end(walk, cmap)]
            if not self.saw_stairs:
                places.append(self._unsearched_wall(cmap))
            for hiding_place in places:
                if hiding_place(here):
                    self.last = None
                    self._schedule_searches(here, cmap)
                    return "search"
                parent, found = search(hiding_place)
                if found is not None:
                    break
        if found is None:
            self.last = None
            if self.exploring:
                return None
            return "search" if self.can_search else next(iter(self.moves))
        if not stairs_known:
            # give up on a frontier target we keep failing to approach (monsters in the way, traps)
            stuck = self.prev_here == here or here in self.recent
            self.tries[found] = self.tries.get(found, 0) + (1 if stuck else 0)
            if self.tries[found] > 6:
                self.visited.add(found)
        self.prev_here = here
        self.recent = (self.recent + [here])[-4:]
        step = found
        while (link := parent[step]) is not None and link[0] != here:
            step = link[0]
        assert link is not None  # found is not here: its route starts with a step from here
        name = link[1]
        self.last, self.last_name = (here, step), name
        if step in self.locked and self.can_kick:
            self.last = None
            self.pending = [name]  # kick, then the direction
            return "kick"
        return name


_SHADOWS: dict[tuple[str, int], Any] = {}


def survey(
    env_id: str, nethack_seed: int, actions: set[str], budget: int = 800, stop_at_stairs: bool = False
) -> Survey | None:
    """Explore a shadow copy of the episode's level (same NetHack seed) and return its map.

    The shadow engine is kept per (env id, budget) in this process: building a NetHack instance costs far
    more than a survey.
    """
    from playbench.suites.balrog.nle.worker import ClockedEngine

    key = (env_id, budget)
    if key not in _SHADOWS:
        _SHADOWS[key] = ClockedEngine(env_id, max_episode_steps=budget)
    engine = _SHADOWS[key]
    engine.seed(nethack_seed)
    obs = engine.reset()
    nav = Navigator(actions, exploring=True)
    for _ in range(budget):
        action = nav.act(obs)
        if action is None:
            break
        obs, _, done, _ = engine.step(action)
        if done or (stop_at_stairs and nav.saw_stairs):
            break
    nav._known(obs["glyphs"])
    if nav.seen_cmap is None or nav.seen_walk is None:
        return None
    return Survey(nav.seen_cmap, nav.seen_walk, set(nav.locked))

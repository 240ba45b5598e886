"""The navigation oracle for Corridor and MazeWalk: shortest paths on the known map to the down staircase.

It reads NetHack's remembered map (glyphs), walks a BFS shortest path to ``>`` when it has been seen,
otherwise to the nearest unvisited walkable cell next to unexplored stone (frontier exploration). Moves
that turn out blocked (the player did not move) are remembered and avoided.
"""

from collections import deque
from typing import Any

import numpy as np

# NetHack 3.6 cmap indices
_DOORWAY, _OPEN_DOORS, _CLOSED_DOORS = 12, (13, 14), (15, 16)
_STONE, _DNSTAIR = 0, 24
# doorways, open/closed doors, floor (lit/dark), corridors, stairs, ladders, altar, grave, throne, sink, fountain
_WALKABLE_CMAP = {12, 13, 14, 15, 16, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31}
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


class Navigator:
    """Stateful over one episode: call ``act(raw_obs)`` every step."""

    def __init__(self, actions: set[str]) -> None:
        from playbench.suites.balrog.nle.engine import modules

        self.nethack = modules()["nethack"]
        self.moves = {name: d for name, d in _MOVES.items() if name in actions}
        self.can_search = "search" in actions
        self.visited: set[tuple[int, int]] = set()
        self.blocked: set[tuple[tuple[int, int], tuple[int, int]]] = set()
        self.last: tuple[tuple[int, int], tuple[int, int]] | None = None
        self.last_name = ""
        self.can_kick = "kick" in actions
        self.pending: list[str] = []
        self.locked: set[tuple[int, int]] = set()

    def _grid(self, glyphs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(walkable mask, cmap index or -1) for every map cell."""
        nh = self.nethack
        off = nh.GLYPH_CMAP_OFF
        is_cmap = (glyphs >= off) & (glyphs < off + 100)
        cmap = np.where(is_cmap, glyphs - off, -1)
        walk = np.isin(cmap, list(_WALKABLE_CMAP))
        # monsters and objects stand on walkable ground (moving into a monster attacks it)
        walk |= ~is_cmap & (glyphs != nh.GLYPH_CMAP_OFF + _STONE)
        return walk, cmap

    def act(self, obs: dict[str, Any]) -> str:
        """The next move towards the stairs (or the exploration frontier)."""
        glyphs = obs["glyphs"]
        x, y = int(obs["blstats"][0]), int(obs["blstats"][1])
        here = (x, y)
        if self.pending:
            return self.pending.pop(0)
        walk, cmap = self._grid(glyphs)
        if self.last is not None and self.last[0] == here:
            tx, ty = self.last[1]
            if int(cmap[ty, tx]) in _CLOSED_DOORS:
                self.locked.add((tx, ty))  # avoid it while another way exists; kick it otherwise
            else:
                self.blocked.add(self.last)  # the previous move did not move us
        self.visited.add(here)
        height, width = glyphs.shape

        def door(cell: tuple[int, int]) -> bool:
            return int(cmap[cell[1], cell[0]]) in (*_OPEN_DOORS, *_CLOSED_DOORS)

        def is_goal(cell: tuple[int, int]) -> bool:
            cx, cy = cell
            if int(cmap[cy, cx]) == _DNSTAIR:
                return True
            return False

        stairs = np.argwhere(cmap == _DNSTAIR)
        if len(stairs) == 0:  # explore: nearest unvisited walkable cell next to unexplored stone

            def is_goal(cell: tuple[int, int]) -> bool:  # noqa: F811
                if cell in self.visited:
                    return False
                cx, cy = cell
                for dx in (-1, 0, 1):
                    for dy in (-1, 0, 1):
                        nx, ny = cx + dx, cy + dy
                        if 0 <= nx < width and 0 <= ny < height and int(cmap[ny, nx]) == _STONE:
                            return True
                return False

        def search(allow_locked: bool) -> tuple[dict, tuple[int, int] | None]:
            parent: dict[tuple[int, int], tuple[tuple[int, int], str] | None] = {here: None}
            todo = deque([here])
            while todo:
                cell = todo.popleft()
                if cell != here and is_goal(cell):
                    return parent, cell
                for name, (dx, dy) in self.moves.items():
                    nxt = (cell[0] + dx, cell[1] + dy)
                    if not (0 <= nxt[0] < width and 0 <= nxt[1] < height) or nxt in parent:
                        continue
                    if not walk[nxt[1], nxt[0]] or (cell, nxt) in self.blocked:
                        continue
                    if nxt in self.locked and not allow_locked:
                        continue
                    if dx and dy and (door(cell) or door(nxt)):
                        continue  # no diagonal moves through doors
                    parent[nxt] = (cell, name)
                    todo.append(nxt)
            return parent, None

        parent, found = search(False)
        if found is None and self.locked:
            parent, found = search(True)
        if found is None:
            self.last = None
            return "search" if self.can_search else next(iter(self.moves))
        step = found
        while parent[step] is not None and parent[step][0] != here:
            step = parent[step][0]
        name = parent[step][1]
        self.last, self.last_name = (here, step), name
        if step in self.locked and self.can_kick:
            self.last = None
            self.pending = [name]  # kick, then the direction
            return "kick"
        return name

"""A scripted achievement-seeking Crafter policy with full state (the ``oracle`` reference agent).

Each step it keeps the player alive (fight adjacent monsters, drink, eat, sleep in a sealed pocket dug
into stone when tired), then works down the tech tree: wood, table, wood tools, sapling and plant,
stone, stone tools, furnace, coal, iron, iron tools, diamond, with the remaining achievements (drink,
cow, zombie, ripe plant) on the way. Targets are reached by breadth-first search over the walkable
map; recipes come from crafter's own rules data. It is not optimal: it shows the world is playable and
gives an upper reference.
"""

from collections import deque

import numpy as np
from crafter import constants

from playbench.suites.crafter.engine import CrafterEngine

NOOP, DO, SLEEP = 0, 5, 6
MOVES: dict[tuple[int, int], int] = {(-1, 0): 1, (1, 0): 2, (0, -1): 3, (0, 1): 4}
PLACE = {"stone": 7, "table": 8, "furnace": 9, "plant": 10}
MAKE = {"wood_pickaxe": 11, "stone_pickaxe": 12, "iron_pickaxe": 13, "wood_sword": 14, "stone_sword": 15,
        "iron_sword": 16}
TOOLS = ("wood_pickaxe", "wood_sword", "stone_pickaxe", "stone_sword", "iron_pickaxe", "iron_sword")
ZOMBIE_WALKABLE = ("grass", "sand", "path")
POCKET = 6  # a region of at most this many cells without grass is a safe place to sleep


class OraclePolicy:
    """Chooses crafter action indices from the engine's full state; deterministic given its ``rng``."""

    def __init__(self) -> None:
        self.plants: list[tuple[int, int]] = []
        self._wander: tuple[int, int] | None = None
        self._shelter: list[int] = []  # queued actions of the dig-in-and-seal manoeuvre
        self._tired = 0  # steps spent looking for a safe place to sleep

    # -- reading the state -------------------------------------------------------------------

    def _setup(self, engine: CrafterEngine) -> None:
        self.player = engine.player
        self.world = engine.world
        self.inv = self.player.inventory
        self.pos = (int(self.player.pos[0]), int(self.player.pos[1]))
        self.facing = (int(self.player.facing[0]), int(self.player.facing[1]))
        self.front = (self.pos[0] + self.facing[0], self.pos[1] + self.facing[1])
        self.unlocked = {a for a, n in self.player.achievements.items() if n > 0}
        ids = self.world._mat_ids
        self.mat = self.world._mat_map
        self.empty = self.world._obj_map == 0
        self._ids = ids
        self.free = np.isin(self.mat, [ids[m] for m in constants.walkable]) & self.empty
        self.kinds: dict[str, list[tuple[int, int]]] = {}
        for obj in self.world.objects:
            self.kinds.setdefault(type(obj).__name__.lower(), []).append((int(obj.pos[0]), int(obj.pos[1])))

    def _is(self, *materials: str) -> np.ndarray:
        return np.isin(self.mat, [self._ids[m] for m in materials if m in self._ids])

    def _objects(self, kind: str) -> np.ndarray:
        grid = np.zeros(self.mat.shape, bool)
        for x, y in self.kinds.get(kind, []):
            grid[x, y] = True
        return grid

    def _inside(self, p: tuple[int, int]) -> bool:
        return bool(0 <= p[0] < self.mat.shape[0] and 0 <= p[1] < self.mat.shape[1])

    def _near(self, name: str) -> bool:
        materials, _ = self.world.nearby(self.player.pos, 1)
        return name in materials

    def _has(self, uses: dict[str, int]) -> bool:
        return all(self.inv[k] >= v for k, v in uses.items())

    # -- moving ------------------------------------------------------------------------------

    def _goto(self, target: np.ndarray) -> int | None:
        """First action of a shortest walk to face a ``target`` cell; None if facing one or none reachable."""
        if self._inside(self.front) and target[self.front]:
            return None
        width, height = self.mat.shape
        free = self.free
        first: dict[tuple[int, int], int] = {}
        queue = deque([(self.pos, -1)])
        seen = {self.pos}
        while queue:
            cell, how = queue.popleft()
            for (dx, dy), action in MOVES.items():
                x, y = cell[0] + dx, cell[1] + dy
                if not (0 <= x < width and 0 <= y < height):
                    continue
                step = action if how < 0 else how
                if target[x, y]:
                    return step  # from ``cell`` this move faces (or walks onto) the target
                if (x, y) in seen or not free[x, y]:
                    continue
                seen.add((x, y))
                first[(x, y)] = step
                queue.append(((x, y), step))
        return None

    def _safe_move(self, rng: np.random.Generator) -> int:
        options = [a for (dx, dy), a in MOVES.items()
                   if self._inside((self.pos[0] + dx, self.pos[1] + dy)) and self.free[self.pos[0] + dx, self.pos[1] + dy]]
        return int(rng.choice(options)) if options else NOOP

    def _explore(self, rng: np.random.Generator) -> int:
        width, height = self.mat.shape
        if self._wander is None or self._wander == self.pos or rng.random() < 0.02:
            self._wander = (int(rng.integers(4, width - 4)), int(rng.integers(4, height - 4)))
        goal = np.zeros(self.mat.shape, bool)
        goal[self._wander] = True
        action = self._goto(goal)
        if action is None:
            self._wander = None
            return self._safe_move(rng)
        return action

    def _seek(self, target: np.ndarray, rng: np.random.Generator, act: int = DO) -> int:
        """Walk to face a target cell and then ``act``; explore if none is reachable."""
        action = self._goto(target)
        if action is not None:
            return action
        if self._inside(self.front) and target[self.front]:
            return act
        return self._explore(rng)

    def _placeable(self, name: str) -> np.ndarray:
        grid: np.ndarray = self._is(*constants.place[name]["where"]) & self.empty
        grid[self.pos] = False
        return grid

    # -- sleeping safely -----------------------------------------------------------------------

    def _pocket(self, blocked: tuple[int, int] | None = None) -> tuple[int, bool]:
        """Size of the zombie-walkable region around the player and whether it holds grass."""
        walk = self._is(*ZOMBIE_WALKABLE)
        grass = self._is("grass")
        seen, queue = {self.pos}, deque([self.pos])
        while queue and len(seen) <= POCKET:
            x, y = queue.popleft()
            for dx, dy in MOVES:
                nxt = (x + dx, y + dy)
                if nxt not in seen and nxt != blocked and self._inside(nxt) and walk[nxt]:
                    seen.add(nxt)
                    queue.append(nxt)
        return len(seen), any(grass[c] for c in seen)

    def _sleep(self, rng: np.random.Generator) -> int:
        self._tired += 1
        size, grassy = self._pocket()
        if (size <= POCKET and not grassy) or self._tired > 40:
            # sealed in (or tired of trying): sleep, or wait for the morning when fully rested
            return SLEEP if self.inv["energy"] < constants.items["energy"]["max"] else NOOP
        front_free = self._inside(self.front) and self.free[self.front]
        if front_free and self.inv["stone"] > 0:
            size, grassy = self._pocket(blocked=self.front)
            if size <= POCKET and not grassy:
                return PLACE["stone"]
        if self._shelter:
            return self._shelter.pop(0)
        if self.inv["wood_pickaxe"] and self.inv["stone"] > 0:
            stone = self._is("stone")
            if self._inside(self.front) and stone[self.front]:
                back = MOVES[(-self.facing[0], -self.facing[1])]
                ahead = MOVES[self.facing]
                self._shelter = [ahead, back]  # step into the hole, step back out facing the entrance
                return DO
            return self._seek(stone, rng)
        return SLEEP

    # -- the plan ----------------------------------------------------------------------------

    def act(self, engine: CrafterEngine, rng: np.random.Generator) -> int:
        """The next crafter action index."""
        self._setup(engine)
        if self.player.sleeping:
            self._shelter = []
            return NOOP
        for (dx, dy), move in MOVES.items():  # fight what is next to us
            cell = (self.pos[0] + dx, self.pos[1] + dy)
            if cell in self.kinds.get("zombie", []) or cell in self.kinds.get("skeleton", []):
                self._shelter = []
                return DO if cell == self.front else move
        if self.inv["energy"] >= 3 and not self._shelter:
            self._tired = 0
        if self.inv["energy"] < 3 or self._shelter:
            return self._sleep(rng)
        if self.inv["drink"] < 4 or "collect_drink" not in self.unlocked:
            return self._seek(self._is("water"), rng)
        if self.inv["food"] < 4 or "eat_cow" not in self.unlocked:
            return self._seek(self._objects("cow"), rng)
        ripe = [p for p in self.plants if getattr(self.world[p][1], "ripe", False)]
        if ripe and "eat_plant" not in self.unlocked:
            grid = np.zeros(self.mat.shape, bool)
            for p in ripe:
                grid[p] = True
            return self._seek(grid, rng)
        return self._progress(rng)

    def _craft(self, item: str, rng: np.random.Generator) -> int | None:
        """Make ``item`` now, or the next step towards it, or None (missing resources, no station)."""
        info = constants.make[item]
        if not self._has(info["uses"]):
            return None
        missing = [n for n in info["nearby"] if not self._near(n)]
        if not missing:
            return MAKE[item]
        name = missing[0]
        place = constants.place[name]
        if self._has({k: v + info["uses"].get(k, 0) for k, v in place["uses"].items()}):
            return self._seek(self._placeable(name), rng, PLACE[name])
        station = self._is(name)
        reach = np.zeros_like(station)  # cells within crafting reach (3 x 3) of a station
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                reach |= np.roll(np.roll(station, dx, 0), dy, 1)
        return self._goto(reach & self.free)

    def _progress(self, rng: np.random.Generator) -> int:
        inv, done = self.inv, self.unlocked
        if inv["sapling"] > 0 and "place_plant" not in done:
            action = self._seek(self._placeable("plant"), rng, PLACE["plant"])
            if action == PLACE["plant"]:
                self.plants.append(self.front)
            return action
        for tool in TOOLS:
            if inv[tool] == 0:
                crafted = self._craft(tool, rng)
                if crafted is not None:
                    return crafted
        if inv["stone"] > 1 and "place_stone" not in done:
            return self._seek(self._placeable("stone"), rng, PLACE["stone"])
        if "collect_sapling" not in done and inv["wood"] >= 1:
            return self._seek(self._is("grass") & self.empty, rng)
        wants = []
        if inv["iron_pickaxe"] and inv["diamond"] == 0:
            wants.append("diamond")
        if inv["stone_pickaxe"] and inv["iron"] < 2:
            wants.append("iron")
        if inv["wood_pickaxe"] and inv["coal"] < 2:
            wants.append("coal")
        if inv["wood_pickaxe"] and inv["stone"] < 6:
            wants.append("stone")
        if inv["wood"] < constants.place["table"]["uses"]["wood"] + 3:
            wants.append("tree")
        if wants:
            return self._seek(self._is(*wants), rng)
        if "defeat_zombie" not in done:
            return self._seek(self._objects("zombie"), rng)
        return self._explore(rng)

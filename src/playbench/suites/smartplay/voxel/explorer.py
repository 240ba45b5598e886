"""The reference explorer: it reads the world's biome map (full state) and walks to the nearest goal biome."""

import math

import numpy as np
from scipy import ndimage

from playbench.suites.smartplay.voxel.climate import columns_grid
from playbench.suites.smartplay.voxel.physics import Player
from playbench.suites.smartplay.voxel.world import World

SEARCH_RADIUS = 2560  # about what 200 steps of 11-14 blocks can reach
SEARCH_STEP = 16
# action indices: North 0, East 1, South 2, West 3
_AXIS_ACTIONS = {("x", 1): 1, ("x", -1): 3, ("z", 1): 2, ("z", -1): 0}


class Explorer:
    """Heads for the nearest goal-biome column on a 16-block survey grid; side-steps when stuck."""

    def __init__(self, world: World, goals: frozenset[int]) -> None:
        self.world = world
        self.goals = goals
        self.target: tuple[float, float] | None = None
        self.last: tuple[float, float] | None = None
        self.detour = 0
        self.detour_action = 0
        self.failed: set[tuple[float, float]] = set()
        self.last_action = 0

    def _survey(self, x: float, z: float) -> tuple[float, float] | None:
        if not self.goals:
            return None
        n = 2 * SEARCH_RADIUS // SEARCH_STEP + 1
        x0 = (math.floor(x) // SEARCH_STEP) * SEARCH_STEP - SEARCH_RADIUS
        z0 = (math.floor(z) // SEARCH_STEP) * SEARCH_STEP - SEARCH_RADIUS
        biome = columns_grid(self.world.seed, x0, z0, n, n, SEARCH_STEP).biome
        hit = np.isin(biome, list(self.goals))
        if not hit.any():
            return None
        core = ndimage.binary_erosion(hit, structure=np.ones((3, 3), dtype=bool))
        if core.any():  # aim for the inside of a patch, not a sliver the walk could pass beside
            hit = core
        ix, iz = np.nonzero(hit)
        px, pz = x0 + SEARCH_STEP * ix + 0.5, z0 + SEARCH_STEP * iz + 0.5
        cost = np.abs(px - x) + np.abs(pz - z)  # moves are along the axes
        for k in np.argsort(cost, kind="stable"):
            cand = (float(px[k]), float(pz[k]))
            if cand not in self.failed:
                return cand
        return None

    def act(self, p: Player, rng: np.random.Generator) -> int:
        """The next action index."""
        if self.target is None:
            self.target = self._survey(p.x, p.z)
        if self.target is None:
            return int(rng.integers(4))
        stuck = self.last is not None and math.hypot(p.x - self.last[0], p.z - self.last[1]) < 2.0
        self.last = (p.x, p.z)
        if stuck and self.detour == 0:  # blocked: side-step for a few steps
            self.detour = 3
            self.detour_action = int((self.last_action + (1 if rng.random() < 0.5 else 3)) % 4)
        if self.detour > 0:
            self.detour -= 1
            self.last_action = self.detour_action
            return self.detour_action
        self.last_action = self._head(p)
        return self.last_action

    def _head(self, p: Player) -> int:
        assert self.target is not None
        dx, dz = self.target[0] - p.x, self.target[1] - p.z
        if abs(dx) < 10 and abs(dz) < 10:  # arrived but not inside a goal biome: try the next candidate
            self.failed.add(self.target)
            self.target = self._survey(p.x, p.z)
            if self.target is None:
                return 0
            dx, dz = self.target[0] - p.x, self.target[1] - p.z
        if abs(dx) >= abs(dz):
            return _AXIS_ACTIONS[("x", 1 if dx > 0 else -1)]
        return _AXIS_ACTIONS[("z", 1 if dz > 0 else -1)]

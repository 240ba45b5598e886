"""The world: lazily generated regions, block and biome look-ups, and the passive mobs."""

import math

import numpy as np

from playbench.suites.smartplay.voxel import blocks as bk
from playbench.suites.smartplay.voxel.climate import SEA, SPAWN_BIOMES, SPAWN_FALLBACK, WATER_BIOMES, biome_at
from playbench.suites.smartplay.voxel.worldgen import (
    BIOME_FIELD,
    PACKED,
    REGION,
    Mob,
    Region,
    block_in,
    blocks_from,
    generate_region,
)

#: Mob bounding boxes (width, height) in blocks.
MOB_SIZE: dict[str, tuple[float, float]] = {
    "EntityCow": (0.9, 1.4), "EntityPig": (0.9, 0.9), "EntitySheep": (0.9, 1.3),
    "EntityChicken": (0.4, 0.7), "EntitySquid": (0.8, 0.8),
}


class World:
    """A seeded world. Regions are built on first use; everything is a function of the seed."""

    def __init__(self, seed: int) -> None:
        self.seed = int(seed)
        self.regions: dict[tuple[int, int], Region] = {}
        self._view_key: tuple[int, int] | None = None
        self._view = np.zeros((0, 0, 0), dtype=np.int16)
        self._view_base = self._view_ceil = np.zeros(0, dtype=np.int16)
        self._view_flat: dict[str, np.ndarray] = {}
        self._view_origin = (0, 0)
        self._columns: dict[tuple[int, int], tuple[int, ...]] = {}

    # -- regions -----------------------------------------------------------------------------------

    def region(self, rx: int, rz: int) -> Region:
        """The region at region coordinates (rx, rz), generated on first use."""
        key = (rx, rz)
        reg = self.regions.get(key)
        if reg is None:
            reg = generate_region(self.seed, rx, rz)
            self.regions[key] = reg
        return reg

    def column(self, x: int, z: int) -> tuple[int, ...]:
        """Column (x, z) as a tuple of ints (cached: the player and mobs read the same columns often)."""
        col = self._columns.get((x, z))
        if col is None:
            reg = self.region(x // REGION, z // REGION)
            col = self._columns[(x, z)] = reg.column(x % REGION, z % REGION)
        return col

    def block(self, x: int, y: int, z: int) -> int:
        """The block id at integer coordinates."""
        return block_in(self.column(x, z), y)

    def solid(self, x: int, y: int, z: int) -> bool:
        """Whether the block at (x, y, z) blocks movement."""
        return bk.SOLID_TABLE[block_in(self.column(x, z), y)]

    def biome(self, x: float, z: float) -> int:
        """The biome id of the column under (x, z)."""
        return self.column(math.floor(x), math.floor(z))[BIOME_FIELD]

    def surface(self, x: int, z: int) -> int:
        """The height of the top terrain block of column (x, z)."""
        return self.column(x, z)[0]

    # -- the 3×3-region view used by the vectorized look-ups ------------------------------------------

    def view(self, x: float, z: float) -> tuple[np.ndarray, tuple[int, int]]:
        """Packed columns ([x, z, field]) of the 3×3 regions around (x, z), 192×192 columns, and their origin."""
        key = (math.floor(x) // REGION, math.floor(z) // REGION)
        if key != self._view_key:
            rx, rz = key
            rows = [np.concatenate([self.region(rx + i, rz + j).packed for j in (-1, 0, 1)], axis=1)
                    for i in (-1, 0, 1)]
            self._view = np.concatenate(rows, axis=0)
            self._view_base = np.ascontiguousarray(self._view[:, :, -2]).ravel()
            self._view_ceil = np.ascontiguousarray(self._view[:, :, -1]).ravel()
            self._view_flat = {f: np.ascontiguousarray(self._view[:, :, PACKED.index(f)]).ravel()
                               for f in ("feat_lo", "feat_hi", "leaf_lo", "leaf_hi", "vine_lo", "vine_hi")}
            self._view_origin = ((rx - 1) * REGION, (rz - 1) * REGION)
            self._view_key = key
        return self._view, self._view_origin

    def blocks(self, x: np.ndarray, y: np.ndarray, z: np.ndarray, cx: float, cz: float) -> np.ndarray:
        """Block ids at integer points near (cx, cz) (points beyond the 3×3-region view are clamped to it)."""
        view, (ox, oz) = self.view(cx, cz)
        n = 3 * REGION
        i = np.clip(np.asarray(x) - ox, 0, n - 1)
        j = np.clip(np.asarray(z) - oz, 0, n - 1)
        shape = i.shape
        return blocks_from(view[i.ravel(), j.ravel()], np.asarray(y).ravel()).reshape(shape)

    def first_hits(self, pts: np.ndarray, cx: float, cz: float) -> tuple[np.ndarray, np.ndarray]:
        """For rays sampled at ``pts`` [ray, sample, xyz]: index of the first non-air sample and its block.

        Rays that meet nothing get index -1. A point is non-air when it is at or below its column's ground or
        water level, or inside the column's feature, leaf or vine span. (cx, cz) picks the 3×3-region view.
        """
        view, (ox, oz) = self.view(cx, cz)
        fl = np.floor(pts).astype(np.int64)
        n = 3 * REGION
        i = np.clip(fl[..., 0] - ox, 0, n - 1)
        j = np.clip(fl[..., 2] - oz, 0, n - 1)
        y = fl[..., 1]
        flat = i * n + j
        hit = y <= self._view_base[flat]
        maybe = y <= self._view_ceil[flat]
        maybe &= ~hit
        if maybe.any():
            f = self._view_flat
            k = flat[maybe]
            yy = y[maybe]
            hit[maybe] = (((yy >= f["feat_lo"][k]) & (yy <= f["feat_hi"][k]))
                          | ((yy >= f["leaf_lo"][k]) & (yy <= f["leaf_hi"][k]))
                          | ((yy >= f["vine_lo"][k]) & (yy <= f["vine_hi"][k])))
        found = hit.any(axis=1)
        first = hit.argmax(axis=1)
        rows = np.arange(pts.shape[0])
        ids = blocks_from(view[i[rows, first], j[rows, first]], y[rows, first])
        return np.where(found, first, -1), np.where(found, ids, bk.AIR).astype(np.uint8)

    # -- spawn and mobs --------------------------------------------------------------------------------

    def spawn_point(self) -> tuple[float, float, float]:
        """A land spawn near the origin, preferring plains, forest and taiga, then jungle, savanna, swamp."""
        rng = np.random.default_rng([self.seed & 0xFFFFFFFF, 77])
        # Vanilla searches 256 blocks around the origin; look further if that is all sea.
        pts = np.concatenate([rng.integers(-256, 257, size=(256, 2)), rng.integers(-1024, 1025, size=(512, 2))])
        found = biome_at(self.seed, pts[:, 0], pts[:, 1])
        choice = None
        for preferred in (SPAWN_BIOMES, SPAWN_FALLBACK):
            for (px, pz), b in zip(pts.tolist(), found.tolist(), strict=True):
                if b in preferred and self.surface(px, pz) >= SEA:
                    choice = (px, pz)
                    break
            if choice is not None:
                break
        if choice is None:
            for (px, pz), b in zip(pts.tolist(), found.tolist(), strict=True):
                if b not in WATER_BIOMES and self.surface(px, pz) >= SEA:
                    choice = (px, pz)
                    break
        px, pz = choice if choice is not None else (0, 0)
        y = self.surface(px, pz) + 1
        while self.solid(px, y, pz) or self.solid(px, y + 1, pz):
            y += 1
        return px + 0.5, float(y), pz + 0.5

    def _nearby_mobs(self, x: float, z: float, radius: float) -> list[Mob]:
        """Mobs ([name, x, y, z], kept by the region that spawned them) of generated regions near (x, z)."""
        r0x, r1x = math.floor(x - radius - 16) // REGION, math.floor(x + radius + 16) // REGION
        r0z, r1z = math.floor(z - radius - 16) // REGION, math.floor(z + radius + 16) // REGION
        out: list[Mob] = []
        for rx in range(r0x, r1x + 1):
            for rz in range(r0z, r1z + 1):
                reg = self.regions.get((rx, rz))
                if reg is not None:
                    out.extend(m for m in reg.mobs if abs(m[1] - x) <= radius and abs(m[3] - z) <= radius)
        return out

    def step_mobs(self, x: float, z: float, rng: np.random.Generator, radius: float = 72.0) -> None:
        """Random-walk the mobs near (x, z) by up to two blocks (land mobs stay on land, squid in water)."""
        for mob in self._nearby_mobs(x, z, radius):
            r = rng.random()
            if r < 0.4:
                continue
            dx, dz = ((1, 0), (-1, 0), (0, 1), (0, -1))[int(rng.integers(4))]
            steps = 1 + int(r > 0.8)
            nx, nz = mob[1] + dx * steps, mob[3] + dz * steps
            h = self.surface(math.floor(nx), math.floor(nz))
            if mob[0] == "EntitySquid":
                if h < SEA - 2:
                    mob[1], mob[3] = nx, nz
                continue
            ny = h + 1
            if h >= SEA and abs(ny - mob[2]) <= 1 and not self.solid(math.floor(nx), ny, math.floor(nz)):
                mob[1], mob[2], mob[3] = nx, float(ny), nz

    def mobs_near(self, x: float, z: float, radius: float) -> list[Mob]:
        """Mobs within ``radius`` blocks (horizontally) of (x, z)."""
        return self._nearby_mobs(x, z, radius)

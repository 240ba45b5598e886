"""Regions of the substitute world: surfaces, features (trees, plants, ice spikes), mobs, block look-ups.

A region is 64×64 columns described per column (ground, one feature span, a leaf span, a vine span,
water) rather than as voxels; ``blocks_from`` and ``block_in`` turn that description into block ids.
Trees near a region's edge are decided on padded columns, so neighbouring regions agree.
"""

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import ndimage

from playbench.suites.smartplay.voxel import blocks as bk
from playbench.suites.smartplay.voxel.climate import (
    BEACH,
    BIRCH_FOREST,
    COLD,
    COLD_BEACH,
    COLD_TAIGA,
    DEEP_OCEAN,
    DESERT,
    EXTREME_HILLS,
    FLOWER_FOREST,
    FOREST,
    FROZEN_RIVER,
    ICE_SPIKES,
    JUNGLE,
    MEGA_TAIGA,
    MESA,
    MUSHROOM_ISLAND,
    PLAINS,
    RIVER,
    ROOFED_FOREST,
    SAVANNA,
    SEA,
    STONE_BEACH,
    SUNFLOWER_PLAINS,
    SWAMP,
    TAIGA,
    WATER_BIOMES,
    columns_grid,
)
from playbench.suites.smartplay.voxel.noise import hash3

REGION = 64
#: A passive mob: [entity name, x, y, z], a list so that step_mobs moves it in place (mixed str/float items).
Mob = list[Any]
PAD = 4  # trees near a region's edge are decided on padded columns so neighbours agree

# biome -> (tree density, trunk height range, tall grass, flower, double plant, dead bush, cactus, mushroom)
_FEATURES: dict[int, tuple[float, tuple[int, int], float, float, float, float, float, float]] = {
    PLAINS: (0.002, (5, 6), 0.25, 0.02, 0.0, 0, 0, 0),
    SUNFLOWER_PLAINS: (0.001, (5, 6), 0.2, 0.02, 0.08, 0, 0, 0),
    FOREST: (0.05, (5, 7), 0.08, 0.01, 0.0, 0, 0, 0.002),
    BIRCH_FOREST: (0.05, (5, 7), 0.08, 0.01, 0.0, 0, 0, 0),
    FLOWER_FOREST: (0.03, (5, 7), 0.05, 0.15, 0.0, 0, 0, 0),
    ROOFED_FOREST: (0.12, (5, 6), 0.03, 0.0, 0.0, 0, 0, 0.02),
    TAIGA: (0.05, (6, 8), 0.05, 0.0, 0.0, 0, 0, 0.005),
    MEGA_TAIGA: (0.06, (8, 10), 0.05, 0.0, 0.0, 0, 0, 0.01),
    COLD_TAIGA: (0.04, (6, 8), 0.0, 0.0, 0.0, 0, 0, 0),
    JUNGLE: (0.09, (8, 11), 0.2, 0.0, 0.05, 0, 0, 0),
    SWAMP: (0.02, (5, 7), 0.05, 0.0, 0.0, 0, 0, 0.01),
    SAVANNA: (0.006, (5, 6), 0.3, 0.0, 0.0, 0, 0, 0),
    EXTREME_HILLS: (0.01, (5, 7), 0.05, 0.0, 0.0, 0, 0, 0),
    DESERT: (0.0, (5, 5), 0.0, 0.0, 0.0, 0.01, 0.008, 0),
    MESA: (0.0, (5, 5), 0.0, 0.0, 0.0, 0.02, 0.0, 0),
    MUSHROOM_ISLAND: (0.0, (5, 5), 0.0, 0.0, 0.0, 0, 0, 0.04),
}
VINE_TREES = frozenset({JUNGLE, SWAMP})

# A crown: (dx, dz, top above the trunk's top) for the 5×5 square without corners. Every column's leaves
# start two below the trunk top; the inner 3×3 reaches the trunk top, the centre plus one above it.
_CROWN = np.array([(dx, dz, (1 if abs(dx) + abs(dz) <= 1 else 0) if max(abs(dx), abs(dz)) <= 1 else -1)
                   for dx in range(-2, 3) for dz in range(-2, 3) if not (abs(dx) == 2 and abs(dz) == 2)])


#: Fields of a region's packed array: the column description plus ``base`` (below it every block is ground
#: or water) and ``ceil`` (above it every block is air).
PACKED = ("height", "top", "fill", "frozen", "feat", "feat_lo", "feat_hi", "leaf_lo", "leaf_hi", "vine_lo",
          "vine_hi", "biome", "base", "ceil")
BIOME_FIELD = PACKED.index("biome")

#: The per-column arrays a region stores (see ``block_in``).
COLUMN_FIELDS = ("height", "top", "fill", "frozen", "feat", "feat_lo", "feat_hi", "leaf_lo", "leaf_hi",
                 "vine_lo", "vine_hi", "biome")


@dataclass
class Region:
    """A 64×64 column region. Blocks are described per column, not stored as voxels.

    Column (x, z) holds: stone up to ``height - 4``, ``fill`` above, ``top`` at ``height``; then
    ``feat`` on ``feat_lo..feat_hi`` (trunk, cactus, ice spike, plant, snow, lily pad), ``leaves`` on
    ``leaf_lo..leaf_hi``, ``vines`` on ``vine_lo..vine_hi``, water up to sea level (ice on top when
    ``frozen``) and air above.
    """

    rx: int
    rz: int
    cols: dict[str, np.ndarray]
    mobs: list[Mob]
    packed: np.ndarray  # [x, z, field] int16 in PACKED order, for the vectorized look-ups

    def column(self, i: int, j: int) -> tuple[int, ...]:
        """Column (i, j) as a tuple of ints in ``PACKED`` order, for fast scalar look-ups."""
        return tuple(self.packed[i, j].tolist())


_MOBS_LAND = ("EntityCow", "EntityPig", "EntitySheep", "EntityChicken")
_EMPTY = -999


def generate_region(seed: int, rx: int, rz: int) -> Region:
    """Build one region's columns, features and passive mobs."""
    n = REGION + 2 * PAD
    x0, z0 = rx * REGION - PAD, rz * REGION - PAD
    X, Z = np.meshgrid(x0 + np.arange(n), z0 + np.arange(n), indexing="ij")
    col = columns_grid(seed, x0, z0, n, n)
    biome, height = col.biome, col.height.astype(np.int32)
    u1, u2, u3 = hash3(X, Z, seed + 11)

    top = np.full(biome.shape, bk.GRASS_BLOCK, dtype=np.uint8)
    fill = np.full(biome.shape, bk.DIRT, dtype=np.uint8)
    sandy = np.isin(biome, [DESERT, BEACH, COLD_BEACH])
    top[sandy], fill[sandy] = bk.SAND, bk.SANDSTONE
    stony = (biome == STONE_BEACH) | ((biome == EXTREME_HILLS) & (height > 84))
    top[stony], fill[stony] = bk.STONE, bk.STONE
    ores = stony & (u3 < 0.06)
    top[ores] = np.where(u3[ores] < 0.04, bk.COAL_ORE, bk.IRON_ORE)
    top[(biome == EXTREME_HILLS) & (height <= 84) & (u3 > 0.97)] = bk.GRAVEL
    mesa = biome == MESA
    top[mesa], fill[mesa] = bk.HARDENED_CLAY, bk.HARDENED_CLAY
    top[biome == MUSHROOM_ISLAND] = bk.MYCELIUM
    under = height < SEA
    floor_block = np.where(biome == DEEP_OCEAN, bk.GRAVEL,
                           np.where(u3 < 0.1, bk.CLAY, np.where(u3 < 0.25, bk.GRAVEL, bk.SAND)))
    floor_block = np.where(np.isin(biome, [RIVER, FROZEN_RIVER]) & (u3 > 0.6), bk.DIRT, floor_block)
    top = np.where(under, floor_block, top).astype(np.uint8)
    fill = np.where(under & (top == bk.SAND), bk.SAND, fill).astype(np.uint8)
    cold = np.isin(biome, list(COLD))
    frozen = cold & under

    land = ~under
    feat = np.zeros(biome.shape, dtype=np.uint8)
    tree = np.zeros(biome.shape, dtype=bool)
    trunk = np.zeros(biome.shape, dtype=np.int32)
    for b, (dens, (t0, t1), g, f, p, dbush, cac, mush) in _FEATURES.items():
        m = (biome == b) & land
        if not m.any():
            continue
        tree |= m & (u1 < dens) & (top == bk.GRASS_BLOCK)
        trunk = np.where(m, t0 + (u2 * (t1 - t0 + 1)).astype(np.int32), trunk)
        v = u2.copy()
        for prob, block in ((cac, bk.CACTUS), (dbush, bk.DEAD_BUSH), (mush, bk.MUSHROOM), (p, bk.PLANT),
                            (f, bk.FLOWER), (g, bk.TALL_GRASS)):
            if prob:
                feat = np.where(m & (feat == 0) & (v < prob), block, feat)
                v = v - prob
    cand = np.where(tree, u1, 2.0)
    tree &= cand <= ndimage.minimum_filter(cand, size=5, mode="nearest")
    feat[tree] = 0
    feat_lo = np.where(feat > 0, height + 1, _EMPTY)
    feat_hi = np.where(feat == bk.CACTUS, height + 1 + (u3 < 0.5), feat_lo)
    ice_col = (biome == ICE_SPIKES) & (u1 < 0.012) & land & ~tree
    feat[ice_col] = bk.PACKED_ICE
    feat_lo = np.where(ice_col, height + 1, feat_lo)
    feat_hi = np.where(ice_col, height + 4 + (u2 * 10).astype(np.int32), feat_hi)
    lily = (biome == SWAMP) & under & (u3 < 0.12)
    feat[lily] = bk.LILY_PAD
    feat_lo = np.where(lily, SEA + 1, feat_lo)
    feat_hi = np.where(lily, SEA + 1, feat_hi)
    snow = cold & land & (feat == 0) & ~tree
    feat[snow] = bk.SNOW
    feat_lo = np.where(snow, height + 1, feat_lo)
    feat_hi = np.where(snow, height + 1, feat_hi)
    feat[tree] = bk.WOOD
    feat_lo = np.where(tree, height + 1, feat_lo)
    feat_hi = np.where(tree, height + trunk, feat_hi)

    # Canopies: each tree's 5×5 crown (corners cut) as a leaf span per column; overlaps take the union.
    leaf_lo = np.full(biome.shape, 10_000, dtype=np.int32)
    leaf_hi = np.full(biome.shape, _EMPTY, dtype=np.int32)
    vine_lo = np.full(biome.shape, _EMPTY, dtype=np.int32)
    vine_hi = np.full(biome.shape, _EMPTY, dtype=np.int32)
    txs, tzs = np.nonzero(tree)
    if len(txs):
        crown = height[txs, tzs] + trunk[txs, tzs]
        cx = txs[:, None] + _CROWN[:, 0]
        cz = tzs[:, None] + _CROWN[:, 1]
        lo = np.broadcast_to((crown - 2)[:, None], cx.shape)
        hi = crown[:, None] + _CROWN[:, 2]
        ok = (cx >= 0) & (cx < n) & (cz >= 0) & (cz < n)
        np.minimum.at(leaf_lo, (cx[ok], cz[ok]), lo[ok])
        np.maximum.at(leaf_hi, (cx[ok], cz[ok]), hi[ok])
        vined = np.isin(biome[txs, tzs], list(VINE_TREES)) & (u3[txs, tzs] < 0.7) & (txs + 1 < n)
        vx, vz = txs[vined] + 1, tzs[vined]
        vine_lo[vx, vz] = height[vx, vz] + 2
        vine_hi[vx, vz] = crown[vined] - 3
    leaf_lo = np.where(leaf_hi == _EMPTY, _EMPTY, leaf_lo)

    inner = (slice(PAD, PAD + REGION), slice(PAD, PAD + REGION))
    cols: dict[str, np.ndarray] = {
        "height": height[inner], "top": top[inner], "fill": fill[inner], "frozen": frozen[inner],
        "feat": feat[inner], "feat_lo": feat_lo[inner], "feat_hi": feat_hi[inner],
        "leaf_lo": leaf_lo[inner], "leaf_hi": leaf_hi[inner], "vine_lo": vine_lo[inner],
        "vine_hi": vine_hi[inner], "biome": biome[inner],
    }
    cols = {k: np.ascontiguousarray(v, dtype=np.int32 if k not in ("top", "fill", "feat", "frozen") else v.dtype)
            for k, v in cols.items()}

    mobs: list[Mob] = []
    rng = np.random.default_rng([seed & 0xFFFFFFFF, rx & 0xFFFFFFFF, rz & 0xFFFFFFFF])
    b_in, h_in, t_in = cols["biome"], cols["height"], cols["top"]
    for _ in range(int(rng.integers(0, 3))):
        x, z = int(rng.integers(REGION)), int(rng.integers(REGION))
        if b_in[x, z] in WATER_BIOMES:
            if h_in[x, z] < SEA - 2:
                mobs.append(["EntitySquid", rx * REGION + x + 0.5, SEA - 2.0, rz * REGION + z + 0.5])
            continue
        if t_in[x, z] != bk.GRASS_BLOCK:
            continue
        kind = _MOBS_LAND[int(rng.integers(4))]
        for _k in range(int(rng.integers(2, 5))):
            mx = min(max(x + int(rng.integers(-3, 4)), 0), REGION - 1)
            mz = min(max(z + int(rng.integers(-3, 4)), 0), REGION - 1)
            if h_in[mx, mz] >= SEA:
                mobs.append([kind, rx * REGION + mx + 0.5, float(h_in[mx, mz] + 1), rz * REGION + mz + 0.5])
    return make_region(rx, rz, cols, mobs)


def make_region(rx: int, rz: int, cols: dict[str, np.ndarray], mobs: list[Mob]) -> Region:
    """A region from its column arrays (``COLUMN_FIELDS``, each 64×64) and mobs."""
    base = np.maximum(cols["height"], SEA)
    ceil = np.maximum.reduce([base, cols["feat_hi"], cols["leaf_hi"], cols["vine_hi"]])
    packed = np.stack([cols[f] for f in PACKED[:-2]] + [base, ceil], axis=-1).astype(np.int16)
    return Region(rx, rz, cols, mobs, packed)


def blocks_from(rows: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Block ids at integer heights ``y`` of packed column rows ``rows`` ([point, field], PACKED order)."""
    h, top, fill, frozen, feat, flo, fhi, llo, lhi, vlo, vhi = (rows[:, k] for k in range(11))
    depth = h - y
    out = np.where(y <= SEA, np.where((y == SEA) & (frozen != 0), bk.ICE, bk.WATER), bk.AIR)
    out = np.where((y >= vlo) & (y <= vhi), bk.VINES, out)
    out = np.where((y >= llo) & (y <= lhi), bk.LEAVES, out)
    out = np.where((y >= flo) & (y <= fhi), feat, out)
    ground = np.where(depth == 0, top, np.where(depth < 4, fill, bk.STONE))
    return np.where(depth >= 0, ground, out).astype(np.uint8)


def block_in(col: tuple[int, ...], y: int) -> int:
    """The block id at height ``y`` of a column tuple (``PACKED`` order)."""
    h, top, fill, frozen, feat, flo, fhi, llo, lhi, vlo, vhi = col[:11]
    if y <= h:
        d = h - y
        return top if d == 0 else fill if d < 4 else bk.STONE
    if flo <= y <= fhi:
        return feat
    if llo <= y <= lhi:
        return bk.LEAVES
    if vlo <= y <= vhi:
        return bk.VINES
    if y <= SEA:
        return bk.ICE if (y == SEA and frozen) else bk.WATER
    return bk.AIR

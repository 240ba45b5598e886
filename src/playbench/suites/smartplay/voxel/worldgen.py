"""Terrain generation: biomes from smooth noise, heights, surfaces and features, per 64×64 region.

Every value is a pure function of (world seed, x, z), so a region is the same whatever order the
world is explored in. Climate: temperature × humidity (patches of a few hundred blocks), a larger
continent field for oceans, narrow river ribbons, a hill field for extreme hills, rare mushroom islands.
"""

from dataclasses import dataclass

import numpy as np
from scipy import ndimage

from playbench.suites.smartplay.voxel import blocks as bk
from playbench.suites.smartplay.voxel.noise import fbm, fbm_stack, hash01

SEA = 62
Y0, NY = 32, 96  # terrain heights are kept within [Y0 + 2, Y0 + NY - 16]
REGION = 64
PAD = 4  # trees near a region's edge are decided on padded columns so neighbours agree

OCEAN, PLAINS, DESERT, EXTREME_HILLS, FOREST, TAIGA, SWAMP, RIVER = 0, 1, 2, 3, 4, 5, 6, 7
FROZEN_OCEAN, FROZEN_RIVER, ICE_PLAINS, MUSHROOM_ISLAND, BEACH, JUNGLE, DEEP_OCEAN = 10, 11, 12, 14, 16, 21, 24
STONE_BEACH, COLD_BEACH, BIRCH_FOREST, ROOFED_FOREST, COLD_TAIGA, MEGA_TAIGA = 25, 26, 27, 29, 30, 32
SAVANNA, MESA, SUNFLOWER_PLAINS, FLOWER_FOREST, ICE_SPIKES = 35, 37, 129, 132, 140

WATER_BIOMES = frozenset({OCEAN, DEEP_OCEAN, FROZEN_OCEAN, RIVER, FROZEN_RIVER})
SPAWN_BIOMES = frozenset({FOREST, PLAINS, TAIGA, BIRCH_FOREST, FLOWER_FOREST, MEGA_TAIGA, SUNFLOWER_PLAINS})
SPAWN_FALLBACK = frozenset({JUNGLE, SAVANNA, SWAMP})
COLD = frozenset({ICE_PLAINS, ICE_SPIKES, COLD_TAIGA, COLD_BEACH, FROZEN_OCEAN, FROZEN_RIVER})

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


def _cdf(octaves: int, scale: float) -> np.ndarray:
    g = np.arange(0, 400) * 37.0
    x, z = np.meshgrid(g, g, indexing="ij")
    return np.quantile(fbm(x, z, scale, octaves, 12345), np.linspace(0, 1, 201))


_Q2 = _cdf(2, 420.0)
_Q3 = _cdf(3, 900.0)
_U = np.linspace(0, 1, 201)


def _uniform(v: np.ndarray, table: np.ndarray) -> np.ndarray:
    return np.interp(v, table, _U)


@dataclass
class Columns:
    """Per-column fields for a block of (x, z) columns."""

    biome: np.ndarray
    height: np.ndarray  # y of the top solid block
    temp: np.ndarray


LATTICE = 4  # noise fields are evaluated every 4 blocks and interpolated bilinearly in between

_FIELDS = ("cont", "temp", "humid", "weird", "river", "hills", "mush", "detail")


def _raw_fields(seed: int, x: np.ndarray, z: np.ndarray) -> np.ndarray:
    """The noise fields at points (stacked on a new first axis, in ``_FIELDS`` order)."""
    raw = fbm_stack(x, z, [(900.0, 3, seed + 1), (420.0, 2, seed + 2), (420.0, 2, seed + 3), (300.0, 2, seed + 4),
                           (350.0, 2, seed + 5), (260.0, 2, seed + 6), (140.0, 2, seed + 7), (48.0, 3, seed + 8)])
    out = raw.copy()
    out[0] = _uniform(raw[0], _Q3)
    for k in (1, 2, 3, 5, 6):
        out[k] = _uniform(raw[k], _Q2)
    return out


def _grid_fields(seed: int, x0: int, z0: int, nx: int, nz: int, step: int = 1) -> np.ndarray:
    """Fields on the grid ``x0 + step*i``, ``z0 + step*j``: a pure function of the world coordinates."""
    if step % LATTICE == 0 and x0 % LATTICE == 0 and z0 % LATTICE == 0:
        X, Z = np.meshgrid(x0 + step * np.arange(nx), z0 + step * np.arange(nz), indexing="ij")
        return _raw_fields(seed, X.astype(np.float64), Z.astype(np.float64))
    xs, zs = x0 + step * np.arange(nx), z0 + step * np.arange(nz)
    lx0, lz0 = (xs[0] // LATTICE) * LATTICE, (zs[0] // LATTICE) * LATTICE
    mx = int((xs[-1] - lx0) // LATTICE) + 2
    mz = int((zs[-1] - lz0) // LATTICE) + 2
    LX, LZ = np.meshgrid(lx0 + LATTICE * np.arange(mx), lz0 + LATTICE * np.arange(mz), indexing="ij")
    lat = _raw_fields(seed, LX.astype(np.float64), LZ.astype(np.float64))
    return (_weights(xs, lx0, mx) @ lat) @ _weights(zs, lz0, mz).T


def _weights(xs: np.ndarray, l0: int, m: int) -> np.ndarray:
    """The bilinear interpolation matrix from lattice points ``l0 + 4k`` to the coordinates ``xs``."""
    f = (xs - l0) / LATTICE
    i = np.floor(f).astype(np.int64)
    t = f - i
    w = np.zeros((len(xs), m))
    w[np.arange(len(xs)), i] = 1 - t
    w[np.arange(len(xs)), i + 1] += t
    return w


def columns_grid(seed: int, x0: int, z0: int, nx: int, nz: int, step: int = 1) -> "Columns":
    """Biome id and terrain height on a regular grid of columns."""
    return _classify(_grid_fields(seed, x0, z0, nx, nz, step))


def columns(seed: int, x: np.ndarray, z: np.ndarray) -> "Columns":
    """Biome id and terrain height for arbitrary integer columns (same values as ``columns_grid``)."""
    x = np.asarray(x, dtype=np.int64)
    z = np.asarray(z, dtype=np.int64)
    lx, lz = (x // LATTICE) * LATTICE, (z // LATTICE) * LATTICE
    tx, tz = (x - lx) / LATTICE, (z - lz) / LATTICE
    f = lambda dx, dz: _raw_fields(seed, (lx + dx).astype(np.float64), (lz + dz).astype(np.float64))  # noqa: E731
    a, b, c, d = f(0, 0), f(LATTICE, 0), f(0, LATTICE), f(LATTICE, LATTICE)
    top = a + (b - a) * tx
    return _classify(top + (c + (d - c) * tx - top) * tz)


def _classify(fields: np.ndarray) -> "Columns":
    cont, temp, humid, weird, river, hills, mush, detail = fields
    x = cont
    biome = np.full(x.shape, PLAINS, dtype=np.int16)
    cold, cool = temp < 0.15, (temp >= 0.15) & (temp < 0.35)
    temperate, warm, hot = (temp >= 0.35) & (temp < 0.65), (temp >= 0.65) & (temp < 0.82), temp >= 0.82
    biome[cold] = np.where(humid[cold] < 0.5, np.where(weird[cold] > 0.72, ICE_SPIKES, ICE_PLAINS), COLD_TAIGA)
    biome[cool] = np.where(weird[cool] > 0.8, MEGA_TAIGA, TAIGA)
    t_h, t_w = humid[temperate], weird[temperate]
    biome[temperate] = np.select(
        [t_h < 0.35, t_h < 0.7, t_h < 0.85],
        [np.where(t_w > 0.85, SUNFLOWER_PLAINS, PLAINS),
         np.where(t_w > 0.8, BIRCH_FOREST, np.where(t_w < 0.15, FLOWER_FOREST, FOREST)),
         ROOFED_FOREST],
        SWAMP,
    )
    biome[warm] = np.select([humid[warm] < 0.4, humid[warm] < 0.6], [SAVANNA, PLAINS], JUNGLE)
    biome[hot] = np.select([humid[hot] < 0.55, humid[hot] < 0.75], [DESERT, MESA], JUNGLE)
    hill = (hills > 0.86) & (temp >= 0.15) & (temp < 0.65)
    biome[hill] = EXTREME_HILLS

    # Heights: land rises from the coast; hills add a smooth bump; rivers carve narrow ribbons.
    coast = 0.32
    land_e = np.clip((cont - coast) / 0.3, 0, 1)
    hill_f = np.clip((hills - 0.78) / 0.16, 0, 1)
    amp = 3 + 34 * hill_f**2
    height = SEA + np.sqrt(land_e) * 5 + amp * (detail + 1) / 2
    # Swamps sink to sea level, blended over a dozen blocks at their edges (no cliffs).
    swamp_w = (np.clip((humid - 0.85) / 0.03, 0, 1) * np.clip((temp - 0.35) / 0.03, 0, 1)
               * np.clip((0.65 - temp) / 0.03, 0, 1) * (1 - hill_f))
    height = height + (SEA - 0.6 + detail - height) * swamp_w

    ocean = cont < coast
    depth = np.clip((coast - cont) / 0.25, 0, 1)
    height = np.where(ocean, SEA - 3 - 16 * depth + 2 * detail, height)
    biome[ocean] = np.where(depth[ocean] > 0.6, DEEP_OCEAN, np.where(cold[ocean], FROZEN_OCEAN, OCEAN))
    island = ocean & (mush > 0.975)
    biome[island] = MUSHROOM_ISLAND
    height = np.where(island, SEA + 1 + 3 * (mush - 0.975) / 0.025 + detail, height)

    beach = ~ocean & (cont < coast + 0.012) & (hill_f < 0.5)
    biome[beach] = np.where(cold[beach], COLD_BEACH, BEACH)
    stone_beach = ~ocean & (cont < coast + 0.012) & (hill_f >= 0.5)
    biome[stone_beach] = STONE_BEACH
    height = np.where(beach, np.minimum(height, SEA), height)  # level with the sea: one can walk out of it

    rv = np.abs(river)
    riv = ~ocean & ~island & (rv < 0.012)
    # River valleys: land sinks towards sea level over a wide band on each side of the ribbon.
    w = np.clip((rv - 0.012) / 0.07, 0, 1)
    w = w * w * (3 - 2 * w)
    valley = ~ocean & ~island & (rv < 0.082) & (height > SEA)
    height = np.where(valley, SEA + (height - SEA) * w, height)
    height = np.where(riv, SEA - 3, height)
    biome[riv] = np.where(cold[riv], FROZEN_RIVER, RIVER)
    return Columns(biome=biome, height=np.clip(np.floor(height), Y0 + 2, Y0 + NY - 16).astype(np.int16), temp=temp)


def biome_at(seed: int, x: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Biome ids of arbitrary columns (used by the spawn search)."""
    return columns(seed, x, z).biome


_SCALAR = ("height", "top", "fill", "frozen", "feat", "feat_lo", "feat_hi", "leaf_lo", "leaf_hi", "vine_lo",
           "vine_hi", "biome")

#: Fields of a region's packed array: the column description plus ``base`` (below it every block is ground
#: or water) and ``ceil`` (above it every block is air).
PACKED = ("height", "top", "fill", "frozen", "feat", "feat_lo", "feat_hi", "leaf_lo", "leaf_hi", "vine_lo",
          "vine_hi", "base", "ceil")

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
    mobs: list[list]
    packed: np.ndarray  # [x, z, field] int16 in PACKED order, for the vectorized look-ups
    _tuples: list[tuple[int, ...]] | None = None

    def column(self, i: int, j: int) -> tuple[int, ...]:
        """Column (i, j) as a tuple of ints in ``_SCALAR`` order (built for the whole region on first use)."""
        if self._tuples is None:
            self._tuples = list(zip(*(self.cols[f].ravel().tolist() for f in _SCALAR), strict=True))
        return self._tuples[i * REGION + j]


_MOBS_LAND = ("EntityCow", "EntityPig", "EntitySheep", "EntityChicken")
_EMPTY = -999


def generate_region(seed: int, rx: int, rz: int) -> Region:
    """Build one region's columns, features and passive mobs."""
    n = REGION + 2 * PAD
    x0, z0 = rx * REGION - PAD, rz * REGION - PAD
    X, Z = np.meshgrid(x0 + np.arange(n), z0 + np.arange(n), indexing="ij")
    col = columns_grid(seed, x0, z0, n, n)
    biome, height = col.biome, col.height.astype(np.int32)
    u1, u2, u3 = hash01(X, Z, seed + 11), hash01(X, Z, seed + 12), hash01(X, Z, seed + 13)

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
        for dx in range(-2, 3):
            for dz in range(-2, 3):
                if abs(dx) == 2 and abs(dz) == 2:
                    continue
                core = abs(dx) <= 1 and abs(dz) <= 1
                hi = crown + (1 if abs(dx) + abs(dz) <= 1 else 0) if core else crown - 1
                cx, cz = txs + dx, tzs + dz
                ok = (cx >= 0) & (cx < n) & (cz >= 0) & (cz < n)
                np.minimum.at(leaf_lo, (cx[ok], cz[ok]), (crown - 2)[ok])
                np.maximum.at(leaf_hi, (cx[ok], cz[ok]), np.broadcast_to(hi, crown.shape)[ok])
        vined = np.isin(biome[txs, tzs], list(VINE_TREES)) & (u3[txs, tzs] < 0.7) & (txs + 1 < n)
        vx, vz = txs[vined] + 1, tzs[vined]
        vine_lo[vx, vz] = height[vx, vz] + 2
        vine_hi[vx, vz] = crown[vined] - 3
    leaf_lo = np.where(leaf_hi == _EMPTY, _EMPTY, leaf_lo)

    inner = (slice(PAD, PAD + REGION), slice(PAD, PAD + REGION))
    cols = {
        "height": height[inner], "top": top[inner], "fill": fill[inner], "frozen": frozen[inner],
        "feat": feat[inner], "feat_lo": feat_lo[inner], "feat_hi": feat_hi[inner],
        "leaf_lo": leaf_lo[inner], "leaf_hi": leaf_hi[inner], "vine_lo": vine_lo[inner],
        "vine_hi": vine_hi[inner], "biome": biome[inner],
    }
    cols = {k: np.ascontiguousarray(v, dtype=np.int32 if k not in ("top", "fill", "feat", "frozen") else v.dtype)
            for k, v in cols.items()}

    mobs: list[list] = []
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


def column_of(c: dict[str, np.ndarray], i: int, j: int) -> tuple[int, ...]:
    """Column (i, j) of the column arrays as a tuple of ints (``_SCALAR`` order), for fast scalar look-ups."""
    return tuple(int(c[f][i, j]) for f in _SCALAR)


def block_in(col: tuple[int, ...], y: int) -> int:
    """The block id at height ``y`` of a column tuple from ``column_of``."""
    h, top, fill, frozen, feat, flo, fhi, llo, lhi, vlo, vhi, _ = col
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

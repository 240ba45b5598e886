"""Terrain generation: biomes from smooth noise, heights, surfaces and features, per 64×64 region.

Every value is a pure function of (world seed, x, z), so a region is the same whatever order the
world is explored in. Climate: temperature × humidity (patches of a few hundred blocks), a larger
continent field for oceans, narrow river ribbons, a hill field for extreme hills, rare mushroom islands.
"""

from dataclasses import dataclass

import numpy as np
from scipy import ndimage

from playbench.suites.smartplay.voxel import blocks as bk
from playbench.suites.smartplay.voxel.noise import fbm, hash01

SEA = 62
Y0, NY = 32, 96  # stored heights: y in [32, 128); below is stone, above is air
REGION = 64
PAD = 6  # trees near a region's edge are decided on padded columns so neighbours agree

OCEAN, PLAINS, DESERT, EXTREME_HILLS, FOREST, TAIGA, SWAMP, RIVER = 0, 1, 2, 3, 4, 5, 6, 7
FROZEN_OCEAN, FROZEN_RIVER, ICE_PLAINS, MUSHROOM_ISLAND, BEACH, JUNGLE, DEEP_OCEAN = 10, 11, 12, 14, 16, 21, 24
STONE_BEACH, COLD_BEACH, BIRCH_FOREST, ROOFED_FOREST, COLD_TAIGA, MEGA_TAIGA = 25, 26, 27, 29, 30, 32
SAVANNA, MESA, SUNFLOWER_PLAINS, FLOWER_FOREST, ICE_SPIKES = 35, 37, 129, 132, 140

WATER_BIOMES = frozenset({OCEAN, DEEP_OCEAN, FROZEN_OCEAN, RIVER, FROZEN_RIVER})
SPAWN_BIOMES = frozenset({FOREST, PLAINS, TAIGA, JUNGLE, BIRCH_FOREST, FLOWER_FOREST, MEGA_TAIGA, SUNFLOWER_PLAINS})
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
    return np.stack([
        _uniform(fbm(x, z, 900.0, 3, seed + 1), _Q3),
        _uniform(fbm(x, z, 420.0, 2, seed + 2), _Q2),
        _uniform(fbm(x, z, 420.0, 2, seed + 3), _Q2),
        _uniform(fbm(x, z, 300.0, 2, seed + 4), _Q2),
        fbm(x, z, 350.0, 2, seed + 5),
        _uniform(fbm(x, z, 260.0, 2, seed + 6), _Q2),
        _uniform(fbm(x, z, 140.0, 2, seed + 7), _Q2),
        fbm(x, z, 48.0, 3, seed + 8),
    ])


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
    fx, fz = (xs - lx0) / LATTICE, (zs - lz0) / LATTICE
    ix, iz = np.floor(fx).astype(np.int64), np.floor(fz).astype(np.int64)
    tx, tz = (fx - ix)[None, :, None], (fz - iz)[None, None, :]
    a = lat[:, ix][:, :, iz]
    b = lat[:, ix + 1][:, :, iz]
    c = lat[:, ix][:, :, iz + 1]
    d = lat[:, ix + 1][:, :, iz + 1]
    top = a + (b - a) * tx
    return top + (c + (d - c) * tx - top) * tz


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
    amp = 3 + 34 * hill_f**2 + 6 * (biome == MESA)
    height = SEA + np.sqrt(land_e) * 5 + amp * (detail + 1) / 2
    height = np.where(biome == SWAMP, SEA - 1 + (detail > -0.1), height)

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
    height = np.where(beach, np.minimum(height, SEA + 1), height)

    rv = np.abs(river)
    riv = ~ocean & ~island & (rv < 0.012)
    bank = ~ocean & ~island & (rv >= 0.012) & (rv < 0.03)
    height = np.where(bank, np.minimum(height, SEA + 1 + (rv - 0.012) / 0.018 * 3), height)
    height = np.where(riv, SEA - 3, height)
    biome[riv] = np.where(cold[riv], FROZEN_RIVER, RIVER)
    return Columns(biome=biome, height=np.clip(np.floor(height), Y0 + 2, Y0 + NY - 16).astype(np.int16), temp=temp)


def biome_at(seed: int, x: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Biome ids of arbitrary columns (used by the spawn search)."""
    return columns(seed, x, z).biome


@dataclass
class Region:
    """A 64×64 column region: voxels ``[x, z, y - Y0]``, biome and height maps, and its mobs."""

    rx: int
    rz: int
    voxels: np.ndarray
    biome: np.ndarray
    height: np.ndarray
    mobs: list[list]


_MOBS_LAND = ("EntityCow", "EntityPig", "EntitySheep", "EntityChicken")


def generate_region(seed: int, rx: int, rz: int) -> Region:
    """Build one region's voxels, features and passive mobs."""
    n = REGION + 2 * PAD
    gx = rx * REGION - PAD + np.arange(n)
    gz = rz * REGION - PAD + np.arange(n)
    X, Z = np.meshgrid(gx, gz, indexing="ij")
    col = columns_grid(seed, rx * REGION - PAD, rz * REGION - PAD, n, n)
    biome, height = col.biome, col.height.astype(np.int32)
    u1, u2, u3 = hash01(X, Z, seed + 11), hash01(X, Z, seed + 12), hash01(X, Z, seed + 13)

    # Surface and filler blocks by biome.
    top = np.full(biome.shape, bk.GRASS_BLOCK, dtype=np.uint8)
    fill = np.full(biome.shape, bk.DIRT, dtype=np.uint8)
    sandy = np.isin(biome, [DESERT, BEACH, COLD_BEACH])
    top[sandy], fill[sandy] = bk.SAND, bk.SANDSTONE
    stony = (biome == STONE_BEACH) | ((biome == EXTREME_HILLS) & (height > 84))
    top[stony], fill[stony] = bk.STONE, bk.STONE
    ores = stony & (u3 < 0.06)
    top[ores] = np.where(u3[ores] < 0.04, bk.COAL_ORE, bk.IRON_ORE)
    gravelly = (biome == EXTREME_HILLS) & (height <= 84) & (u3 > 0.97)
    top[gravelly] = bk.GRAVEL
    mesa = biome == MESA
    top[mesa], fill[mesa] = bk.HARDENED_CLAY, bk.HARDENED_CLAY
    top[biome == MUSHROOM_ISLAND] = bk.MYCELIUM
    under = height < SEA
    deep = np.isin(biome, [DEEP_OCEAN])
    floor_block = np.where(deep, bk.GRAVEL, np.where(u3 < 0.1, bk.CLAY, np.where(u3 < 0.25, bk.GRAVEL, bk.SAND)))
    floor_block = np.where(np.isin(biome, [RIVER, FROZEN_RIVER]) & (u3 > 0.6), bk.DIRT, floor_block)
    top = np.where(under & ~(biome == MUSHROOM_ISLAND), floor_block, top).astype(np.uint8)
    fill = np.where(under, np.where(top == bk.SAND, bk.SAND, fill), fill).astype(np.uint8)

    s = slice(PAD, PAD + REGION)
    H = height[s, s]
    ys = np.arange(Y0, Y0 + NY, dtype=np.int32)[None, None, :]
    # Each column's profile by depth below its surface: -1 air/water, 0 top, 1-3 filler, 4+ stone.
    cold = np.isin(biome[s, s], list(COLD))
    palette = np.empty((REGION, REGION, 6), dtype=np.uint8)
    palette[:, :, 0] = bk.AIR
    palette[:, :, 1] = top[s, s]
    palette[:, :, 2:5] = fill[s, s][:, :, None]
    palette[:, :, 5] = bk.STONE
    depth = np.clip(H[:, :, None].astype(np.int16) - ys.astype(np.int16), -1, 4) + 1
    vox = np.take_along_axis(palette, depth.astype(np.intp), axis=2)
    water = (depth == 0) & (ys <= SEA)
    vox[water] = bk.WATER
    frozen = cold & (H < SEA)
    vox[:, :, SEA - Y0][frozen] = bk.ICE

    # One-block features above the surface (land only).
    land = height >= SEA
    feat = np.zeros(biome.shape, dtype=np.uint8)
    tree = np.zeros(biome.shape, dtype=bool)
    trunk = np.zeros(biome.shape, dtype=np.int32)
    for b, (dens, (t0, t1), g, f, p, dbush, cac, mush) in _FEATURES.items():
        m = (biome == b) & land
        if not m.any():
            continue
        tree |= m & (u1 < dens) & (top == bk.GRASS_BLOCK)
        trunk = np.where(m, t0 + (u2 * (t1 - t0 + 1)).astype(np.int32), trunk)
        for prob, block in ((cac, bk.CACTUS), (dbush, bk.DEAD_BUSH), (mush, bk.MUSHROOM), (p, bk.PLANT),
                            (f, bk.FLOWER), (g, bk.TALL_GRASS)):
            if prob:
                feat = np.where(m & (feat == 0) & (u2 < prob), block, feat)
                u2 = np.where(m & (u2 < prob), 1.0, u2 - prob * m)
    # Trees keep 2 blocks apart: a candidate survives only if it holds the smallest hash nearby.
    cand = np.where(tree, u1, 2.0)
    tree &= cand <= ndimage.minimum_filter(cand, size=5, mode="nearest")
    feat[tree] = 0
    ice_col = (biome == ICE_SPIKES) & (u1 < 0.012) & land
    lily = (biome == SWAMP) & (height < SEA) & (u3 < 0.12)

    inner = (slice(PAD, PAD + REGION), slice(PAD, PAD + REGION))
    fi = feat[inner]
    xs, zs = np.nonzero(fi)
    yf = H[xs, zs] + 1 - Y0
    ok = yf < NY
    vox[xs[ok], zs[ok], yf[ok]] = fi[xs[ok], zs[ok]]
    cactus2 = (fi == bk.CACTUS) & (u3[inner] < 0.5)
    xs, zs = np.nonzero(cactus2)
    vox[xs, zs, H[xs, zs] + 2 - Y0] = bk.CACTUS
    xs, zs = np.nonzero(lily[inner])
    vox[xs, zs, SEA + 1 - Y0] = bk.LILY_PAD
    # Snow layers on cold land without another feature.
    snow = cold & (H >= SEA) & (fi == 0) & ~tree[inner] & ~ice_col[inner]
    xs, zs = np.nonzero(snow)
    vox[xs, zs, H[xs, zs] + 1 - Y0] = bk.SNOW
    # Packed-ice spikes.
    xs, zs = np.nonzero(ice_col[inner])
    for x, z in zip(xs.tolist(), zs.tolist(), strict=True):
        top_y = min(H[x, z] + 4 + int(u2[x + PAD, z + PAD] * 10), Y0 + NY - 1)
        vox[x, z, H[x, z] + 1 - Y0: top_y - Y0 + 1] = bk.PACKED_ICE
    _place_trees(vox, rx, rz, tree, trunk, height, biome, u3)

    mobs: list[list] = []
    rng = np.random.default_rng([seed & 0xFFFFFFFF, rx & 0xFFFFFFFF, rz & 0xFFFFFFFF])
    b_in = biome[inner]
    for _ in range(int(rng.integers(0, 4))):
        x, z = int(rng.integers(REGION)), int(rng.integers(REGION))
        if b_in[x, z] in WATER_BIOMES:
            if H[x, z] < SEA - 2:
                mobs.extend([["EntitySquid", rx * REGION + x + 0.5, SEA - 2.0, rz * REGION + z + 0.5]] * 1)
            continue
        if top[x + PAD, z + PAD] not in (bk.GRASS_BLOCK,) or b_in[x, z] in (DESERT, MESA):
            continue
        kind = _MOBS_LAND[int(rng.integers(4))]
        for _k in range(int(rng.integers(2, 5))):
            mx = min(max(x + int(rng.integers(-3, 4)), 0), REGION - 1)
            mz = min(max(z + int(rng.integers(-3, 4)), 0), REGION - 1)
            mobs.append([kind, rx * REGION + mx + 0.5, float(H[mx, mz] + 1), rz * REGION + mz + 0.5])
    return Region(rx, rz, vox, biome[inner].copy(), H.astype(np.int16), mobs)


def _place_trees(vox: np.ndarray, rx: int, rz: int, tree: np.ndarray, trunk: np.ndarray, height: np.ndarray,
                 biome: np.ndarray, u3: np.ndarray) -> None:
    """Write trunks, leaves and vines of every tree whose canopy reaches into the region."""
    txs, tzs = np.nonzero(tree)
    if len(txs) == 0:
        return
    th = trunk[txs, tzs]
    base = height[txs, tzs] + 1
    lx, lz = txs - PAD, tzs - PAD  # local coordinates (may lie in the padding)
    # Leaves: two wide layers below the trunk top, a 3×3 layer at the top, a plus on top.
    offs = [(dx, dy, dz) for dy in (-2, -1) for dx in range(-2, 3) for dz in range(-2, 3)
            if not (abs(dx) == 2 and abs(dz) == 2)]
    offs += [(dx, 0, dz) for dx in (-1, 0, 1) for dz in (-1, 0, 1)]
    offs += [(0, 1, 0), (1, 1, 0), (-1, 1, 0), (0, 1, 1), (0, 1, -1)]
    o = np.array(offs)
    topy = base + th - 1
    X = lx[:, None] + o[None, :, 0]
    Y = topy[:, None] + o[None, :, 1] - Y0
    Z = lz[:, None] + o[None, :, 2]
    m = (X >= 0) & (X < REGION) & (Z >= 0) & (Z < REGION) & (Y >= 0) & (Y < NY)
    X, Y, Z = X[m], Y[m], Z[m]
    cur = vox[X, Z, Y]
    put = (cur == bk.AIR) | (cur == bk.SNOW) | (cur == bk.TALL_GRASS)
    vox[X[put], Z[put], Y[put]] = bk.LEAVES
    # Trunks (inside the region only).
    inside = (lx >= 0) & (lx < REGION) & (lz >= 0) & (lz < REGION)
    maxh = int(th.max())
    for k in range(maxh):
        sel = inside & (k < th) & (base + k - Y0 < NY)
        vox[lx[sel], lz[sel], base[sel] + k - Y0] = bk.WOOD
    # Vines hang on the east side of jungle and swamp trunks.
    vine = inside & np.isin(biome[txs, tzs], list(VINE_TREES)) & (lx + 1 < REGION)
    for k in range(1, maxh - 1):
        sel = vine & (k < th - 2) & (u3[txs, tzs] < 0.7)
        yy = base[sel] + k - Y0
        cur = vox[lx[sel] + 1, lz[sel], yy]
        ok = cur == bk.AIR
        vox[(lx[sel] + 1)[ok], lz[sel][ok], yy[ok]] = bk.VINES

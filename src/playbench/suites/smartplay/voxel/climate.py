"""The climate of the substitute world: noise fields, biome ids and terrain height per column.

Every value is a pure function of (world seed, x, z). Temperature × humidity make patches a few hundred
blocks wide, a larger continent field makes oceans, rivers are narrow ribbons in wide valleys, a hill field
makes extreme hills, and rare bumps in the sea are mushroom islands. Fields are evaluated on a 4-block
lattice and interpolated bilinearly, so a region costs a few hundred noise evaluations, not thousands.
"""

from dataclasses import dataclass

import numpy as np

from playbench.suites.smartplay.voxel.noise import fbm, fbm_stack

SEA = 62
Y0, NY = 32, 96  # terrain heights are kept within [Y0 + 2, Y0 + NY - 16]

OCEAN, PLAINS, DESERT, EXTREME_HILLS, FOREST, TAIGA, SWAMP, RIVER = 0, 1, 2, 3, 4, 5, 6, 7
FROZEN_OCEAN, FROZEN_RIVER, ICE_PLAINS, MUSHROOM_ISLAND, BEACH, JUNGLE, DEEP_OCEAN = 10, 11, 12, 14, 16, 21, 24
STONE_BEACH, COLD_BEACH, BIRCH_FOREST, ROOFED_FOREST, COLD_TAIGA, MEGA_TAIGA = 25, 26, 27, 29, 30, 32
SAVANNA, MESA, SUNFLOWER_PLAINS, FLOWER_FOREST, ICE_SPIKES = 35, 37, 129, 132, 140

WATER_BIOMES = frozenset({OCEAN, DEEP_OCEAN, FROZEN_OCEAN, RIVER, FROZEN_RIVER})
SPAWN_BIOMES = frozenset({FOREST, PLAINS, TAIGA, BIRCH_FOREST, FLOWER_FOREST, MEGA_TAIGA, SUNFLOWER_PLAINS})
SPAWN_FALLBACK = frozenset({JUNGLE, SAVANNA, SWAMP})
COLD = frozenset({ICE_PLAINS, ICE_SPIKES, COLD_TAIGA, COLD_BEACH, FROZEN_OCEAN, FROZEN_RIVER})

def _cdf(octaves: int, scale: float) -> np.ndarray:
    g = np.arange(0, 400) * 37.0
    x, z = np.meshgrid(g, g, indexing="ij")
    quantiles: np.ndarray = np.quantile(fbm(x, z, scale, octaves, 12345), np.linspace(0, 1, 201))
    return quantiles


_Q2 = _cdf(2, 420.0)
_Q3 = _cdf(3, 900.0)
_U = np.linspace(0, 1, 201)


def _uniform(v: np.ndarray, table: np.ndarray) -> np.ndarray:
    uniform: np.ndarray = np.interp(v, table, _U)
    return uniform


@dataclass
class Columns:
    """Per-column fields for a block of (x, z) columns."""

    biome: np.ndarray
    height: np.ndarray  # y of the top solid block
    temp: np.ndarray


BEACH_BAND = 0.0045  # continent-field width of beaches: a few blocks
RIVER_BAND = 0.0065  # river-field half-width of rivers: narrow ribbons
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
    fields: np.ndarray = (_weights(xs, lx0, mx) @ lat) @ _weights(zs, lz0, mz).T
    return fields


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

    def f(dx: int, dz: int) -> np.ndarray:
        return _raw_fields(seed, (lx + dx).astype(np.float64), (lz + dz).astype(np.float64))

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

    beach = ~ocean & (cont < coast + BEACH_BAND) & (hill_f < 0.5)
    biome[beach] = np.where(cold[beach], COLD_BEACH, BEACH)
    stone_beach = ~ocean & (cont < coast + BEACH_BAND) & (hill_f >= 0.5)
    biome[stone_beach] = STONE_BEACH
    height = np.where(beach, np.minimum(height, SEA), height)  # level with the sea: one can walk out of it

    rv = np.abs(river)
    riv = ~ocean & ~island & (rv < RIVER_BAND)
    # River valleys: land sinks towards sea level over a wide band on each side of the ribbon.
    w = np.clip((rv - RIVER_BAND) / 0.07, 0, 1)
    w = w * w * (3 - 2 * w)
    valley = ~ocean & ~island & (rv < 0.082) & (height > SEA)
    height = np.where(valley, SEA + (height - SEA) * w, height)
    height = np.where(riv, SEA - 3, height)
    biome[riv] = np.where(cold[riv], FROZEN_RIVER, RIVER)
    return Columns(biome=biome, height=np.clip(np.floor(height), Y0 + 2, Y0 + NY - 16).astype(np.int16), temp=temp)


def biome_at(seed: int, x: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Biome ids of arbitrary columns (used by the spawn search)."""
    return columns(seed, x, z).biome

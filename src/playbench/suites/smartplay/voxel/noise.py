"""Hashed value noise (vectorized, deterministic, no global state)."""

import numpy as np

_M1 = np.uint64(0x9E3779B97F4A7C15)
_M2 = np.uint64(0xC2B2AE3D27D4EB4F)
_M3 = np.uint64(0xBF58476D1CE4E5B9)
_M4 = np.uint64(0x94D049BB133111EB)


def hash01(ix: np.ndarray, iz: np.ndarray, seed: int | np.ndarray) -> np.ndarray:
    """A uniform [0, 1) value per integer lattice point (splitmix-style mixing)."""
    with np.errstate(over="ignore"):
        h = ix.astype(np.int64).astype(np.uint64) * _M1
        h ^= iz.astype(np.int64).astype(np.uint64) * _M2
        h ^= (np.asarray(seed, dtype=np.int64) & 0xFFFFFFFFFFFF).astype(np.uint64) * _M4
        h ^= h >> np.uint64(31)
        h *= _M3
        h ^= h >> np.uint64(29)
        h *= _M4
        h ^= h >> np.uint64(32)
    return (h >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))


def hash3(ix: np.ndarray, iz: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Three independent uniform [0, 1) values per lattice point (21 bits each, from one 64-bit hash)."""
    with np.errstate(over="ignore"):
        h = ix.astype(np.int64).astype(np.uint64) * _M1
        h ^= iz.astype(np.int64).astype(np.uint64) * _M2
        h ^= np.uint64(seed & 0xFFFFFFFFFFFF) * _M4
        h ^= h >> np.uint64(31)
        h *= _M3
        h ^= h >> np.uint64(29)
        h *= _M4
        h ^= h >> np.uint64(32)
    mask = np.uint64((1 << 21) - 1)
    scale = 1.0 / (1 << 21)
    return ((h & mask).astype(np.float64) * scale, ((h >> np.uint64(21)) & mask).astype(np.float64) * scale,
            ((h >> np.uint64(42)) & mask).astype(np.float64) * scale)


def value_noise(x: np.ndarray, z: np.ndarray, scale: float, seed: int) -> np.ndarray:
    """Smooth noise in [-1, 1] with features about ``scale`` blocks wide."""
    fx, fz = x / scale, z / scale
    ix, iz = np.floor(fx), np.floor(fz)
    tx, tz = fx - ix, fz - iz
    tx, tz = tx * tx * (3 - 2 * tx), tz * tz * (3 - 2 * tz)
    ix, iz = ix.astype(np.int64), iz.astype(np.int64)
    x0, z0 = int(ix.min()), int(iz.min())
    nx, nz = int(ix.max()) - x0 + 2, int(iz.max()) - z0 + 2
    if nx * nz <= 4 * ix.size + 64:
        # Hash the few lattice points once and look them up (inputs are usually dense grids).
        lx, lz = np.meshgrid(np.arange(x0, x0 + nx), np.arange(z0, z0 + nz), indexing="ij")
        table = hash01(lx, lz, seed)
        jx, jz = ix - x0, iz - z0
        a, b = table[jx, jz], table[jx + 1, jz]
        c, d = table[jx, jz + 1], table[jx + 1, jz + 1]
    else:
        a, b = hash01(ix, iz, seed), hash01(ix + 1, iz, seed)
        c, d = hash01(ix, iz + 1, seed), hash01(ix + 1, iz + 1, seed)
    top = a + (b - a) * tx
    bottom = c + (d - c) * tx
    noise: np.ndarray = 2.0 * (top + (bottom - top) * tz) - 1.0
    return noise


def fbm(x: np.ndarray, z: np.ndarray, scale: float, octaves: int, seed: int) -> np.ndarray:
    """Fractal sum of ``octaves`` value-noise layers, normalized to about [-1, 1]."""
    total = np.zeros(np.broadcast(x, z).shape)
    amp, norm = 1.0, 0.0
    for o in range(octaves):
        total += amp * value_noise(x, z, scale / (2**o), seed * 7919 + o * 104729)
        norm += amp
        amp *= 0.5
    return total / norm


_CHUNK = 8192


def fbm_stack(x: np.ndarray, z: np.ndarray, fields: list[tuple[float, int, int]]) -> np.ndarray:
    """Several ``fbm`` fields at once: ``fields`` holds (scale, octaves, seed); returns [field, point].

    Equal to calling ``fbm`` per field, but every octave of every field is evaluated in one vectorized pass
    (in chunks, so large surveys stay in cache).
    """
    x, z = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(z, dtype=np.float64))
    if x.size > _CHUNK:
        flat_x, flat_z = x.ravel(), z.ravel()
        parts = [fbm_stack(flat_x[k:k + _CHUNK], flat_z[k:k + _CHUNK], fields) for k in range(0, x.size, _CHUNK)]
        return np.concatenate(parts, axis=1).reshape((len(fields),) + x.shape)
    scales, seeds, weights = [], [], []
    for f, (scale, octaves, seed) in enumerate(fields):
        norm = sum(0.5**o for o in range(octaves))
        for o in range(octaves):
            scales.append(scale / (2**o))
            seeds.append(seed * 7919 + o * 104729)
            weights.append((f, 0.5**o / norm))
    sc = np.array(scales)[:, None]
    sd = np.array(seeds, dtype=np.int64)[:, None]
    fx, fz = x.ravel()[None, :] / sc, z.ravel()[None, :] / sc
    ix, iz = np.floor(fx), np.floor(fz)
    tx, tz = fx - ix, fz - iz
    tx, tz = tx * tx * (3 - 2 * tx), tz * tz * (3 - 2 * tz)
    ix, iz = ix.astype(np.int64), iz.astype(np.int64)
    a, b = hash01(ix, iz, sd), hash01(ix + 1, iz, sd)
    c, d = hash01(ix, iz + 1, sd), hash01(ix + 1, iz + 1, sd)
    top = a + (b - a) * tx
    layers = 2.0 * (top + (c + (d - c) * tx - top) * tz) - 1.0
    mix = np.zeros((len(fields), len(scales)))
    for k, (f, w) in enumerate(weights):
        mix[f, k] = w
    stacked: np.ndarray = (mix @ layers).reshape((len(fields),) + np.shape(x))
    return stacked

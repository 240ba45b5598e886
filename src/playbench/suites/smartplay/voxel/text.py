"""The observation text of the Minecraft find tasks: location, cursor, voxels around, lidar view (§5.6.3)."""

import math

import numpy as np
from scipy import ndimage

from playbench.suites.smartplay.voxel import blocks as bk
from playbench.suites.smartplay.voxel.physics import Player
from playbench.suites.smartplay.voxel.world import MOB_SIZE, World
from playbench.suites.smartplay.voxel.worldgen import Mob

EYE = 1.62
RAY_LEN = 65.0
# Samples every half block up close, then every block, then every two blocks far out.
_T = np.concatenate([np.arange(0.25, 8.0, 0.5), np.arange(8.0, 32.0, 1.0), np.arange(32.0, RAY_LEN + 1e-9, 2.0)])
_GRID = np.arange(17)
_CUBE_COORDS = np.indices((9, 6, 9)).reshape(3, -1).astype(np.float64)
_CUBE_OFFSETS = np.meshgrid(np.arange(-4, 5), np.arange(-1, 5), np.arange(-4, 5), indexing="ij")


def facing(yaw: float) -> str:
    """The eight-way compass word for a yaw in degrees."""
    y = (yaw + 180) % 360 - 180
    names = ["north", "north-east", "east", "south-east", "south", "south-west", "west", "north-west", "north"]
    return names[int(math.floor((y + 180 + 22.5) / 45))]


_DIR_CACHE: dict[tuple[float, float], tuple[np.ndarray, np.ndarray]] = {}


def _rays(yaw: float, pitch: float) -> tuple[np.ndarray, np.ndarray]:
    """Ray directions [ray, xyz] and sample offsets [ray, sample, xyz] for a view (cached: yaw is quantized)."""
    key = (yaw, pitch)
    hit = _DIR_CACHE.get(key)
    if hit is None:
        elev = np.radians(np.clip(-pitch + (-48 + 6 * _GRID), -89, 89))[:, None]
        yaws = np.radians(yaw - (-48 + 6 * _GRID))[None, :]
        ce = np.cos(elev)
        dirs = np.stack(np.broadcast_arrays(-np.sin(yaws) * ce, np.sin(elev), np.cos(yaws) * ce), axis=-1)
        dirs = dirs.reshape(-1, 3)
        hit = _DIR_CACHE[key] = (dirs, dirs[:, None, :] * _T[None, :, None])
        if len(_DIR_CACHE) > 256:
            _DIR_CACHE.pop(next(iter(_DIR_CACHE)))
    return hit


def _cast(world: World, origin: np.ndarray, dirs: np.ndarray, ts: np.ndarray,
          offsets: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """First non-air block along each ray: (block ids, distances); misses give air at the ray's end."""
    pts = origin + (dirs[:, None, :] * ts[None, :, None] if offsets is None else offsets)
    first, names = world.first_hits(pts, origin[0], origin[2])
    found = first >= 0
    # The exact distance at which the ray enters the voxel of the hit sample (slab method).
    k = np.maximum(first, 0)
    cell = np.floor(pts[np.arange(len(dirs)), k])
    inv = 1.0 / _nonzero(dirs)
    t1 = (cell - origin) * inv
    t2 = (cell + 1 - origin) * inv
    enter = np.minimum(t1, t2).max(axis=1)
    dist = np.clip(enter, 0.0, ts[k])
    return names, np.where(found, dist, RAY_LEN)


def _maybe_visible(mob: Mob, eye: np.ndarray, yaw: float) -> bool:
    """Whether a mob is within ray range and roughly inside the 96-degree field of view."""
    dx, dy, dz = mob[1] - eye[0], mob[2] - eye[1], mob[3] - eye[2]
    d2 = dx * dx + dz * dz
    if d2 + dy * dy > (RAY_LEN + 2) ** 2:
        return False
    if d2 < 4.0:
        return True
    # Angle between the look direction (-sin yaw, cos yaw) and the mob, horizontally.
    cosang = (-math.sin(math.radians(yaw)) * dx + math.cos(math.radians(yaw)) * dz) / math.sqrt(d2)
    return bool(cosang > math.cos(math.radians(60)))


def _entity_hits(world: World, eye: np.ndarray, dirs: np.ndarray, limit: np.ndarray, x: float, z: float,
                 yaw: float) -> tuple[list[str | None], np.ndarray]:
    """The nearest mob each ray meets before its block: (names or None, distances)."""
    mobs = [m for m in world.mobs_near(x, z, RAY_LEN + 2) if _maybe_visible(m, eye, yaw)]
    names: list[str | None] = [None] * len(dirs)
    dist = np.full(len(dirs), np.inf)
    if not mobs:
        return names, dist
    lo = np.array([[m[1] - MOB_SIZE[m[0]][0] / 2, m[2], m[3] - MOB_SIZE[m[0]][0] / 2] for m in mobs])
    hi = np.array([[m[1] + MOB_SIZE[m[0]][0] / 2, m[2] + MOB_SIZE[m[0]][1], m[3] + MOB_SIZE[m[0]][0] / 2]
                   for m in mobs])
    inv = 1.0 / _nonzero(dirs)  # rays × 3
    t1 = (lo[None, :, :] - eye) * inv[:, None, :]
    t2 = (hi[None, :, :] - eye) * inv[:, None, :]
    tmin = np.minimum(t1, t2).max(axis=2)
    tmax = np.maximum(t1, t2).min(axis=2)
    ok = (tmax >= np.maximum(tmin, 0)) & (tmin <= limit[:, None])
    tmin = np.where(ok, np.maximum(tmin, 0), np.inf)
    best = tmin.argmin(axis=1)
    bt = tmin[np.arange(len(dirs)), best]
    for r in np.nonzero(np.isfinite(bt))[0]:
        names[r] = mobs[best[r]][0]
        dist[r] = bt[r]
    return names, dist


_SIX = ndimage.generate_binary_structure(3, 1)
_EIGHT = np.ones((3, 3), dtype=bool)


def _groups(labels: np.ndarray, n: int) -> list[np.ndarray]:
    """Flat cell indices of labels 1..n (in label order)."""
    flat = labels.ravel()
    order = np.argsort(flat, kind="stable")
    starts = np.searchsorted(flat[order], np.arange(1, n + 2))
    return [order[starts[k]:starts[k + 1]] for k in range(n)]


def _nonzero(v: np.ndarray) -> np.ndarray:
    """``v`` with exact zeros nudged to a tiny value of the same sign (slab tests without inf/NaN)."""
    return np.where(np.abs(v) < 1e-12, np.copysign(1e-12, v), v)


def _compass(vx: float, vy: float, vz: float) -> str:
    vertical = "above you" if vy > 0.2 else "below you" if vy < -0.2 else "at your level"
    ns = "north" if vz < -0.2 else "south" if vz > 0.2 else ""
    ew = "east" if vx > 0.2 else "west" if vx < -0.2 else ""
    return f"{vertical} to {'-'.join(p for p in (ns, ew) if p) or 'front'}"


def _compat_direction(r: int, c: int, yaw: float, pitch: float) -> str:
    """SmartPlay's lidar direction formula, mirrored front↔back and scaled over 180 degrees (B10)."""
    yaw_d = math.radians(((c / 16) * 96 - 48 + yaw + 540) % 360 - 180)
    pitch_d = math.radians((r / 16) * 180 - 90 + pitch)
    vx = math.sin(yaw_d) * math.cos(pitch_d)
    vy = math.sin(pitch_d)
    vz = math.cos(yaw_d) * math.cos(pitch_d)
    vertical = "above you" if vy > 0.2 else "below you" if vy < -0.2 else "at your level"
    ns = "north" if vz > 0.2 else "south" if vz < -0.2 else ""
    ew = "east" if vx > 0.2 else "west" if vx < -0.2 else ""
    return f"{vertical} to {'-'.join(p for p in (ns, ew) if p) or 'front'}"


def _components(grid: list[str], skip: set[str], compat: bool) -> list[tuple[str, np.ndarray]]:
    """8-connected components of equal names on the 17×17 grid, as (name, flat indices of cells).

    In the original's order: cc3d numbers components by their first cell in a row-major scan, whatever
    their name. Under compat, cc3d's background (the first name in sort order, never split) comes first.
    """
    names = sorted(set(grid))
    code = {name: k for k, name in enumerate(names)}
    arr = np.array([code[g] for g in grid]).reshape(17, 17)
    found: list[tuple[int, str, np.ndarray]] = []  # (sort key, name, cells)
    for k, name in enumerate(names):
        mask = arr == k
        if compat and k == 0:  # cc3d's background label 0: one pseudo-component, listed first
            found.append((-1, name, np.flatnonzero(mask)))
            continue
        labels, n = ndimage.label(mask, structure=_EIGHT)
        found.extend((int(cells[0]), name, cells) for cells in _groups(labels, n))
    found.sort(key=lambda item: item[0])
    return [(name, cells) for _, name, cells in found if name not in skip]


def view_lines(player: Player, grid: list[str], dist: np.ndarray, dirs: np.ndarray, skip: set[str],
               compat: bool) -> list[str]:
    """One line per component of the 17×17 lidar grid of names (``dist``: each ray's distance)."""
    lines = []
    for name, cells in _components(grid, skip, compat):
        k = cells[np.argmin(dist[cells])]
        r, c = divmod(int(k), 17)
        if compat:
            where = _compat_direction(r, c, player.yaw, player.pitch)
        else:
            where = _compass(*dirs[k])
        pct = format(len(cells) / 289 * 100, ".0f")
        lines.append(f" - {name}, {dist[k]:.2f} blocks away, {where}, taking {pct}% of screen")
    return lines


def _around(world: World, player: Player, compat: bool) -> list[str]:
    """The Around-you lines of the 9×6×9 cube around the player's feet."""
    fx, fy, fz = math.floor(player.x), math.floor(player.y + 1e-9), math.floor(player.z)
    ox, oy, oz = _CUBE_OFFSETS
    return around_lines(world.blocks(fx + ox, fy + oy, fz + oz, player.x, player.z), compat)


def around_lines(cube: np.ndarray, compat: bool) -> list[str]:
    """Nearest 6-connected component of each block name in a 9×6×9 cube of block ids (x, height, z).

    Names come in the original's order: by the first cell (row-major) of their first component that is
    not exactly centred. Under compat, when the cube holds no air, cc3d's background quirk applies: the
    name first in sort order is one pseudo-component of all its cells, and it comes first.
    """
    present = [int(b) for b in np.unique(cube)]
    background = min(present, key=lambda b: bk.BLOCK_NAMES[b]) if compat else None
    best: dict[int, tuple[float, float, float, float]] = {}
    order: dict[int, int] = {}  # block id -> key of the component that first listed it
    for bid in present:
        if bk.BLOCK_NAMES[bid] == "air":
            continue
        mask = cube == bid
        if bid == background:  # all its cells, one component, labelled before every other
            labels, n, firsts = mask.astype(np.int64), 1, [-1]
        else:
            labels, n = ndimage.label(mask, structure=_SIX)
            firsts = [int(g[0]) for g in _groups(labels, n)]
        lab = labels.ravel()
        counts = np.bincount(lab, minlength=n + 1)[1:]
        cent = np.stack([np.bincount(lab, weights=_CUBE_COORDS[a], minlength=n + 1)[1:] for a in range(3)]) / counts
        d = np.sqrt((cent[0] - 4) ** 2 + (cent[1] - 1) ** 2 + (cent[2] - 4) ** 2)
        d = np.where((cent[0] == 4) & (cent[1] == 1) & (cent[2] == 4), np.inf, d)
        k = int(np.argmin(d))  # the first of equally near components, as the original's strict "<"
        if np.isfinite(d[k]):
            best[bid] = (float(d[k]), float(cent[0, k]), float(cent[1, k]), float(cent[2, k]))
            order[bid] = next(first for first, dist in zip(firsts, d, strict=True) if np.isfinite(dist))
    lines = []
    for bid in sorted(best, key=lambda b: order[b]):
        d, cx, ch, cz = best[bid]
        vertical = "above you" if ch > 1 else "below you" if ch < 1 else ""
        ns = "north" if cz < 4 else "south" if cz > 4 else ""
        ew = "west" if cx < 4 else "east" if cx > 4 else ""
        where = f"{vertical} to {'-'.join(p for p in (ns, ew) if p) or 'front'}".strip()
        lines.append(f"\n - {bk.BLOCK_NAMES[bid]}, {d:.2f} blocks away, {where}")
    return lines


def _cursor(world: World, player: Player) -> str:
    """What the centre ray meets within 3 blocks of the eye."""
    yaw, elev = math.radians(player.yaw), math.radians(-player.pitch)
    dx, dy, dz = -math.sin(yaw) * math.cos(elev), math.sin(elev), math.cos(yaw) * math.cos(elev)
    ey = player.y + EYE
    for k in range(60):
        t = 0.05 * (k + 1)
        bid = world.block(math.floor(player.x + dx * t), math.floor(ey + dy * t), math.floor(player.z + dz * t))
        if bid != bk.AIR:
            return f"You're aiming at {bk.BLOCK_NAMES[bid]}."
    return "You're not aiming at any block."


def observe(world: World, player: Player, compat: bool) -> str:
    """The frame without the action line."""
    location = f"Coordinate ({player.x:.2f},{player.y:.2f},{player.z:.2f}). Facing {facing(player.yaw)}."
    if player.pitch < 0:
        location += " Looking up."
    elif player.pitch > 0:
        location += " Looking down."
    eye = np.array([player.x, player.y + EYE, player.z])
    cursor = _cursor(world, player)
    surround = "Around you:" + "".join(_around(world, player, compat))
    dirs, offsets = _rays(player.yaw, player.pitch)
    ids, dist = _cast(world, eye, dirs, _T, offsets)
    ent_names, ent_dist = _entity_hits(world, eye, dirs, dist, player.x, player.z, player.yaw)
    block_grid = [bk.BLOCK_NAMES[int(i)] for i in ids]
    ent_grid = [n if n is not None else "null" for n in ent_names]
    ent_lines = view_lines(player, ent_grid, ent_dist, dirs, {"null"}, compat)
    block_lines = view_lines(player, block_grid, dist, dirs, {"air", "null"}, compat)
    entities = "".join(line + "\n" for line in ent_lines)
    seen = "You see:" + "".join("\n" + line for line in block_lines) if block_lines else ""
    return f"{location}\n\n{cursor}\n{surround}\n{entities}\n{seen}"

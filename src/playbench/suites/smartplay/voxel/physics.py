"""Player movement in the substitute world: walking, sprinting, strafing, jumping, swimming (§5.6.2)."""

import math
from dataclasses import dataclass

from playbench.suites.smartplay.voxel import blocks as bk
from playbench.suites.smartplay.voxel.world import World

WALK, SPRINT = 0.216, 0.281
STEP_UP, JUMP_UP = 0.6, 1.25
SWIM_OUT = 1.6  # a swimmer can climb onto a block one above the water's surface
SWIM_FLOAT = 0.4  # feet this far above the bottom of the top water block


@dataclass
class Player:
    """Feet position, yaw (degrees; 0 faces south, 90 west, ±180 north, -90 east) and pitch."""

    x: float
    y: float
    z: float
    yaw: float = 0.0
    pitch: float = 0.0
    swimming: bool = False


def turn(player: Player, action: int) -> None:
    """The turn tick: aim at ``90a - 180`` degrees, quantized to MineDojo's 15-degree camera bins."""
    target = 90 * action - 180
    b = math.floor(((target - player.yaw + 180) % 360) / 15)
    player.yaw += 15 * (b - 12)
    player.yaw = (player.yaw + 180) % 360 - 180


def _free(world: World, x: float, y: float, z: float) -> bool:
    xi, zi, yi = math.floor(x), math.floor(z), math.floor(y + 1e-9)
    return not world.solid(xi, yi, zi) and not world.solid(xi, yi + 1, zi)


def _try_move(world: World, p: Player, nx: float, nz: float, jump: bool) -> None:
    if _free(world, nx, p.y, nz):
        p.x, p.z = nx, nz
        return
    # Blocked at feet or head: climb if the obstacle's top is low enough and there is head room.
    xi, zi = math.floor(nx), math.floor(nz)
    top = math.floor(p.y + 1e-9) + 1
    rise = top - p.y
    limit = (SWIM_OUT if p.swimming else JUMP_UP) if jump else STEP_UP
    if rise <= limit and _free(world, nx, top, nz) and not world.solid(
            math.floor(p.x), top + 1, math.floor(p.z)) and world.solid(xi, top - 1, zi):
        p.x, p.z, p.y = nx, nz, float(top)


def _settle(world: World, p: Player) -> None:
    """Fall onto the ground below, or float at the surface of water."""
    xi, zi = math.floor(p.x), math.floor(p.z)
    y = math.floor(p.y + 1e-9)
    if p.y - y > 1e-9 and world.solid(xi, y, zi):
        y += 1
    while y > 0:
        below = world.block(xi, y - 1, zi)
        if below == bk.WATER:
            # Find the top of this water column and float there.
            wy = y - 1
            while world.block(xi, wy + 1, zi) == bk.WATER:
                wy += 1
            p.y, p.swimming = wy + SWIM_FLOAT, True
            return
        if world.block(xi, y, zi) == bk.WATER:
            wy = y
            while world.block(xi, wy + 1, zi) == bk.WATER:
                wy += 1
            p.y, p.swimming = wy + SWIM_FLOAT, True
            return
        if bk.SOLID_TABLE[below]:
            p.y, p.swimming = float(y), False
            return
        y -= 1
    p.y, p.swimming = float(y), False


def move_tick(world: World, p: Player, strafe: int, sprint: bool, jump: bool) -> None:
    """One move tick forward; ``strafe`` is 0, +1 (left) or -1 (right)."""
    speed = (SPRINT if sprint else WALK) * (0.5 if p.swimming else 1.0)
    yaw = math.radians(p.yaw)
    fx, fz = -math.sin(yaw), math.cos(yaw)
    lx, lz = math.cos(yaw), math.sin(yaw)  # the player's left
    vx, vz = fx + strafe * lx, fz + strafe * lz
    norm = math.hypot(vx, vz)
    vx, vz = vx / norm * speed, vz / norm * speed
    _try_move(world, p, p.x + vx, p.z, jump)
    _try_move(world, p, p.x, p.z + vz, jump)
    _settle(world, p)

"""Crafter's language descriptors: SmartPlay's frame (compat and fixed) and BALROG's variant.

Both look at the same 9x7 window around the player (x-4..x+4 west to east, y-3..y+3 north to south:
crafter's local view without the inventory rows) of the world's semantic map.

* SmartPlay (smartplay.md §5.5.4): one line per visible id, ordered by id, nearest instance (ties: smaller
  x, then smaller y), always ``steps``; an action echo line; vitals and inventory in the same frame.
* BALROG (balrog.md §6.2): one line per name in the order names are first met scanning x-major, nearest
  instance (first seen wins ties), ``step`` when the distance is 1; no action echo; vitals and inventory
  form a separate short-term text.

Near the low world edges the originals slice the map with a negative start. SmartPlay then fails and shows
``Error, you are out of the map.`` (B14); SmartPlay fixed treats cells outside the world as invisible
instead. BALROG's slice comes out empty without failing (a negative start wraps past the window's end), so
it sees nothing and faces nothing there, in both modes; at the high edges both cut the window at the world.
"""

from dataclasses import dataclass

from playbench.suites.crafter.engine import ITEMS, CrafterEngine

OUT_OF_MAP = "Error, you are out of the map."
SLEEPING = "You are sleeping, and will not be able take actions until energy is full."
DIED = "You died."
HALF_W, HALF_H = 4, 3  # the window is 9 x 7 cells
_MOVE_NAMES = {"move_up": "move_north", "move_down": "move_south", "move_left": "move_west", "move_right": "move_east"}


@dataclass(frozen=True)
class Window:
    """What the descriptors need from the engine at one moment."""

    cells: tuple[tuple[int, int, int], ...]  # (dx, dy, semantic id) of in-world cells, x-major, no player
    names: tuple[str, ...]  # semantic id -> name
    target: str | None  # name at the facing cell, None if that cell is outside the world
    low_edge: bool  # the original's window slice would start before x=0 or y=0
    sleeping: bool
    dead: bool
    vitals: tuple[int, int, int, int]  # health, food, drink, energy
    inventory: tuple[tuple[str, int], ...]  # non-zero non-vital items in crafter's order


def window(engine: CrafterEngine) -> Window:
    """Read the window, the facing cell, vitals and inventory from the engine."""
    player = engine.player
    semantic = engine.semantic()
    names = engine.id_names()
    width, height = semantic.shape
    px, py = int(player.pos[0]), int(player.pos[1])
    x0, y0 = max(px - HALF_W, 0), max(py - HALF_H, 0)
    block = semantic[x0:px + HALF_W + 1, y0:py + HALF_H + 1].tolist()
    cells = [
        (x0 + i - px, y0 + j - py, sem)
        for i, column in enumerate(block)
        for j, sem in enumerate(column)
        if x0 + i != px or y0 + j != py
    ]
    tx, ty = px + int(player.facing[0]), py + int(player.facing[1])
    target = names[int(semantic[tx, ty])] if 0 <= tx < width and 0 <= ty < height else None
    inv = player.inventory
    return Window(
        cells=tuple(cells),
        names=tuple(names),
        target=target,
        low_edge=px - HALF_W < 0 or py - HALF_H < 0,
        sleeping=bool(player.sleeping),
        dead=player.health <= 0,
        vitals=(int(inv["health"]), int(inv["food"]), int(inv["drink"]), int(inv["energy"])),
        inventory=tuple((k, int(inv[k])) for k in ITEMS if inv[k] > 0),
    )


def direction(dx: int, dy: int) -> str:
    """``north``/``south`` then ``west``/``east``, joined by ``-``."""
    parts = []
    if dy < 0:
        parts.append("north")
    elif dy > 0:
        parts.append("south")
    if dx < 0:
        parts.append("west")
    elif dx > 0:
        parts.append("east")
    return "-".join(parts)


def action_echo(action: str) -> str:
    """SmartPlay's ``You took action {name}.`` line for a crafter action name."""
    name = _MOVE_NAMES.get(action, action)
    if name.startswith("do_"):
        name = "interact_" + name[3:]
    return f"You took action {name}."


def vitals_and_inventory(win: Window) -> str:
    """``Your status:`` block and the inventory (shared by both variants)."""
    health, food, drink, energy = win.vitals
    status = f"Your status:\n- health: {health}/9\n- food: {food}/9\n- drink: {drink}/9\n- energy: {energy}/9"
    if win.inventory:
        inventory = "Your inventory:\n" + "\n".join(f"- {k}: {n}" for k, n in win.inventory)
    else:
        inventory = "You have nothing in your inventory."
    return f"{status}\n\n{inventory}"


def _status_line(win: Window) -> str:
    if win.sleeping:
        return SLEEPING
    if win.dead:
        return DIED
    return ""


# -- SmartPlay --------------------------------------------------------------------------------


def _nearest(win: Window) -> dict[int, tuple[int, int, int]]:
    """Semantic id -> (distance, dx, dy) of its nearest cell; the first cell met (x-major) wins ties."""
    best: dict[int, tuple[int, int, int]] = {}  # insertion order = order of first encounter
    for dx, dy, sem in win.cells:
        dist = abs(dx) + abs(dy)
        if sem not in best or dist < best[sem][0]:
            best[sem] = (dist, dx, dy)
    return best


def _smartplay_seen(win: Window) -> str:
    best = _nearest(win)
    if not best:
        return "You see nothing away from you."
    lines = [f"- {win.names[s]} {d} steps to your {direction(dx, dy)}" for s, (d, dx, dy) in sorted(best.items())]
    return "You see:\n" + "\n".join(lines)


def smartplay_frame(win: Window, action: str | None, compat: bool) -> str:
    """SmartPlay's observation text (smartplay.md §5.5.4); ``action`` is crafter's name or None at reset."""
    if compat and (win.low_edge or win.target is None):
        return OUT_OF_MAP
    seen = _smartplay_seen(win)
    facing = f"You face {win.target if win.target is not None else 'nothing'} at your front."
    body = f"{seen}\n\n{facing}\n\n{vitals_and_inventory(win)}"
    echo = action_echo(action) if action is not None else ""
    status = _status_line(win)
    if compat:  # the status is glued to the echo and followed by its own blank line (B13)
        head = echo + (status + "\n\n" if status else "")
        return (head + "\n\n" + body).strip()
    return "\n\n".join(part for part in (echo, status, body) if part).strip()


# -- BALROG ---------------------------------------------------------------------------------


def balrog_long_term(win: Window) -> str:
    """BALROG's long-term context: status line and the map description (balrog.md §6.2)."""
    best = {} if win.low_edge else _nearest(win)  # BALROG's window is empty there
    if best:
        lines = [
            f"- {win.names[s]} {d} step{'s' if d > 1 else ''} to your {direction(dx, dy)}"
            for s, (d, dx, dy) in best.items()
        ]
        seen = "You see:\n" + "\n".join(lines)
    else:
        seen = "You see nothing away from you."
    target = win.target if win.target is not None and not win.low_edge else "nothing"
    facing = f"You face {target} at your front."
    status = _status_line(win)
    prefix = status + "\n\n" if status else ""
    return (prefix + "\n\n" + seen + "\n\n" + facing).strip()


def balrog_short_term(win: Window) -> str:
    """BALROG's short-term context: vitals and inventory."""
    return vitals_and_inventory(win).strip()

"""Messenger's observation text (§5.4.3, B3, B4)."""

from playbench.suites.smartplay.messenger.data import ENTITY_NAMES
from playbench.suites.smartplay.messenger.engine import Engine, Sprite

HAVE_NOT = "You (agent) don't have the message."
HAVE = "You (agent) already have the message."
DIED = "You (agent) died."
ENV_ERROR = "Environment Error."


def _direction(dr: int, dc: int) -> str:
    ns = "north" if dr < 0 else "south" if dr > 0 else ""
    ew = "west" if dc < 0 else "east" if dc > 0 else ""
    return "-".join(p for p in (ns, ew) if p)


def _line(name: str, dr: int, dc: int) -> str:
    d = abs(dr) + abs(dc)
    return f"- {name} 0 steps with you" if d == 0 else f"- {name} {d} steps to your {_direction(dr, dc)}"


def entity_lines(engine: Engine, every_sprite: bool) -> list[str]:
    """One line per entity id (nearest instance; ties to smaller row, then column) or per sprite (B4 fixed)."""
    ar, ac = engine.avatar.r // 2, engine.avatar.c // 2
    alive: list[tuple[int, int, int, int, Sprite]] = []
    for s in engine.sprites:
        if s.alive:
            r, c = s.r // 2, s.c // 2
            alive.append((s.eid, abs(r - ar) + abs(c - ac), r, c, s))
    alive.sort(key=lambda t: t[:4])
    lines, seen = [], set()
    for eid, _, r, c, _s in alive:
        if not every_sprite and eid in seen:
            continue
        seen.add(eid)
        lines.append(_line(ENTITY_NAMES[eid], r - ar, c - ac))
    return lines


def observation(engine: Engine, *, compat: bool, status_has_message: bool | None = None) -> str:
    """The frame without the action line; ``Environment Error.`` for a dead avatar in compat (B3)."""
    if not engine.avatar.alive and compat:
        return ENV_ERROR
    has = engine.avatar.has_message if status_has_message is None else status_has_message
    status = DIED if not engine.avatar.alive else HAVE if has else HAVE_NOT
    lines = entity_lines(engine, every_sprite=not compat)
    seen = "You see:\n" + "\n".join(lines) if lines else "You see nothing away from you."
    return f"{status}\n\n{seen}"

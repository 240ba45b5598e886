"""BabyAI-Text: the text description of the agent's 7x7 egocentric view (``specs/balrog.md`` §6.1).

The view is Minigrid's encoded partial observation ``image[x][y] = (type, colour, state)``, with the
agent at the bottom-middle cell looking up the view. Lines come in this order: what the agent carries,
walls straight ahead / left / right (only when the first non-empty visible cell that way is a wall),
then every other visible object, column by column (left to right), top to bottom within a column.
"""

from collections.abc import Sequence

import numpy as np
from minigrid.core.constants import IDX_TO_COLOR, IDX_TO_OBJECT, OBJECT_TO_IDX

_UNSEEN, _EMPTY, _WALL, _DOOR = (OBJECT_TO_IDX[k] for k in ("unseen", "empty", "wall", "door"))
_DOOR_STATES = {0: "open", 1: "closed", 2: "locked"}


def _steps(d: int) -> str:
    return f"{d} step{'s' if d > 1 else ''}"


def _wall_line(image: np.ndarray, cells: Sequence[tuple[int, int]], label: str, agent: tuple[int, int]) -> str | None:
    """Scan cells outward from the agent; a wall is described only if nothing non-empty comes first."""
    for x, y in cells:
        kind = int(image[x][y][0])
        if kind in (_UNSEEN, _EMPTY):
            continue
        if kind == _WALL:
            d = abs(agent[1] - y) if label == "forward" else abs(agent[0] - x)
            return f"You see a wall {_steps(d)} {label}"
        return None
    return None


def describe_view(image: np.ndarray, carrying: tuple[str, str] | None = None) -> list[str]:
    """The BabyAI-Text description lines of an encoded egocentric view (before BALROG's clean-up).

    ``carrying`` is ``(colour, type)`` of the carried object, if any.
    """
    width, height = image.shape[0], image.shape[1]
    ax, ay = width // 2, height - 1
    lines: list[str] = []
    if carrying is not None:
        lines.append(f"You carry a {carrying[0]} {carrying[1]}")
    scans = (
        ([(ax, y) for y in range(ay - 1, -1, -1)], "forward"),
        ([(x, ay) for x in range(ax - 1, -1, -1)], "left"),
        ([(x, ay) for x in range(ax + 1, width)], "right"),
    )
    for cells, label in scans:
        line = _wall_line(image, cells, label, (ax, ay))
        if line is not None:
            lines.append(line)
    for x in range(width):
        for y in range(height):
            kind = int(image[x][y][0])
            if kind in (_UNSEEN, _EMPTY, _WALL) or (x, y) == (ax, ay):
                continue
            colour = IDX_TO_COLOR[int(image[x][y][1])]
            name = IDX_TO_OBJECT[kind]
            if kind == _DOOR:
                # The original compares the state *string* with 0, so the article is always "a".
                head = f"You see a {_DOOR_STATES[int(image[x][y][2])]} {colour} {name} "
            else:
                head = f"You see a {colour} {name} "
            dx, dy = x - ax, ay - y
            side = "right" if dx > 0 else "left"
            if dx == 0:
                dist = f"{_steps(dy)} forward"
            elif dy == 0:
                dist = f"{_steps(abs(dx))} {side}"
            else:
                dist = f"{_steps(abs(dx))} {side} and {_steps(dy)} forward"
            lines.append(head + dist)
    return lines


def balrog_text(lines: list[str]) -> str:
    """BALROG's long-term context: every ``You see `` removed, lines joined by newlines."""
    return "\n".join(line.replace("You see ", "") for line in lines)

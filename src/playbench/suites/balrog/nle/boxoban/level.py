"""Boxoban levels: the official text format, reading level folders, and validity checks.

Format (DeepMind boxoban-levels, read by MiniHack): ``; N`` then ten lines of ``#`` wall, `` `` floor,
``$`` box, ``.`` goal, ``@`` player; levels separated by blank lines.
"""

from collections import deque
from dataclasses import dataclass
from pathlib import Path

from playbench.core.errors import PlaybenchError

SIZE = 10
WALL, FLOOR, BOX, GOAL, PLAYER = "#", " ", "$", ".", "@"
MOVES = {"north": (-1, 0), "south": (1, 0), "west": (0, -1), "east": (0, 1)}


@dataclass(frozen=True)
class Level:
    """One Boxoban level: walls, goals, boxes and the player as (row, col) cells, plus where it came from."""

    walls: frozenset[tuple[int, int]]
    goals: frozenset[tuple[int, int]]
    boxes: frozenset[tuple[int, int]]
    player: tuple[int, int]
    height: int = SIZE
    width: int = SIZE
    source: str = "generated"
    level_id: str = ""

    def rows(self) -> list[str]:
        """The level as ten text rows in the official format."""
        out = []
        for r in range(self.height):
            row = ""
            for c in range(self.width):
                cell = (r, c)
                if cell in self.walls:
                    row += WALL
                elif cell == self.player:
                    row += PLAYER
                elif cell in self.boxes:
                    row += BOX
                elif cell in self.goals:
                    row += GOAL
                else:
                    row += FLOOR
            out.append(row)
        return out

    def text(self) -> str:
        """The rows joined by newlines, with a final newline (what MiniHack's Boxoban loader yields)."""
        return "\n".join(self.rows()) + "\n"


def parse_level(rows: list[str], source: str = "official", level_id: str = "") -> Level:
    """A Level from its text rows (short rows are padded with floor)."""
    walls, goals, boxes, player = set(), set(), set(), None
    width = max(len(r) for r in rows)
    for r, row in enumerate(rows):
        for c, ch in enumerate(row.ljust(width)):
            if ch == WALL:
                walls.add((r, c))
            elif ch == BOX:
                boxes.add((r, c))
            elif ch == GOAL:
                goals.add((r, c))
            elif ch == PLAYER:
                player = (r, c)
            elif ch != FLOOR:
                raise PlaybenchError(f"Boxoban level {level_id or '?'}: unexpected character {ch!r}")
    if player is None:
        raise PlaybenchError(f"Boxoban level {level_id or '?'}: no player '@'")
    return Level(frozenset(walls), frozenset(goals), frozenset(boxes), player, len(rows), width, source, level_id)


def parse_file(text: str, name: str) -> list[Level]:
    """Every level of one official file (``; N`` header, rows, blank line)."""
    levels: list[Level] = []
    header, rows = None, []

    def flush() -> None:
        if header is not None and rows:
            levels.append(parse_level(rows, "official", f"{name};{header}"))

    for line in text.splitlines():
        if line.startswith(";"):
            flush()
            header, rows = line[1:].strip(), []
        elif line.strip():
            rows.append(line)
        else:
            flush()
            header, rows = None, []
    flush()
    return levels


def read_levels(path: str | Path) -> list[Level]:
    """All levels of a level file or of every ``*.txt`` file under a folder (sorted by relative path)."""
    root = Path(path).expanduser()
    if root.is_file():
        files = [root]
        base = root.parent
    elif root.is_dir():
        files = sorted(p for p in root.rglob("*.txt") if p.name.upper() != "LICENSE.TXT")
        base = root
    else:
        raise PlaybenchError(f"Boxoban levels path not found: {root}")
    levels: list[Level] = []
    for file in files:
        levels.extend(parse_file(file.read_text(encoding="utf-8"), file.relative_to(base).as_posix()))
    if not levels:
        raise PlaybenchError(f"no Boxoban levels found under {root}")
    return levels


def reachable(level: Level, start: tuple[int, int], blocked: frozenset[tuple[int, int]]) -> set[tuple[int, int]]:
    """Cells reachable from ``start`` by orthogonal moves avoiding walls and ``blocked`` cells."""
    seen, todo = {start}, deque([start])
    while todo:
        r, c = todo.popleft()
        for dr, dc in MOVES.values():
            nxt = (r + dr, c + dc)
            if 0 <= nxt[0] < level.height and 0 <= nxt[1] < level.width and nxt not in seen:
                if nxt not in level.walls and nxt not in blocked:
                    seen.add(nxt)
                    todo.append(nxt)
    return seen


def problems(level: Level, n_boxes: int = 4) -> list[str]:
    """What makes a level invalid (empty list = valid): size, closed walls, counts, boxes on floor, reachability."""
    out = []
    if (level.height, level.width) != (SIZE, SIZE):
        out.append(f"size {level.height}x{level.width}, expected {SIZE}x{SIZE}")
    border = {(r, c) for r in range(level.height) for c in range(level.width)}
    border = {(r, c) for r, c in border if r in (0, level.height - 1) or c in (0, level.width - 1)}
    if not border <= level.walls:
        out.append("outer wall not closed")
    if len(level.boxes) != n_boxes:
        out.append(f"{len(level.boxes)} boxes")
    if len(level.goals) != n_boxes:
        out.append(f"{len(level.goals)} goals")
    if level.boxes & level.walls or level.goals & level.walls or level.player in level.walls:
        out.append("box, goal or player inside a wall")
    if level.boxes & level.goals:
        out.append("a box starts on a goal")
    if level.player in level.goals or level.player in level.boxes:
        out.append("player starts on a goal or box")
    area = reachable(level, level.player, frozenset())
    if not (level.boxes | level.goals) <= area:
        out.append("a box or goal is not connected to the player's area")
    return out

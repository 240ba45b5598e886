"""Boxoban levels: the official text format, reading level folders, and validity checks.

Format (DeepMind boxoban-levels, read by MiniHack): ``; N`` then ten lines of ``#`` wall, `` `` floor,
``$`` box, ``.`` goal, ``@`` player; levels separated by blank lines.
"""

from collections import deque
from dataclasses import dataclass
from pathlib import Path

from playbench.core.datafiles import read_data_text
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
    """A Level from its text rows, leniently (short rows are padded with floor, the last '@' wins).

    Official files are read by ``parse_file``, which checks every row and the level first.
    """
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


class _LineError(ValueError):
    """What is wrong, and on which line of the file."""

    def __init__(self, line: int, what: str) -> None:
        super().__init__(what)
        self.line = line


@dataclass
class _Block:
    """The lines of one level in a file: its ``; N`` header and its rows, with their line numbers."""

    line: int
    header: str
    rows: list[tuple[int, str]]


def _blocks(text: str) -> list[_Block]:
    """Split a level file into levels: a ``;`` line opens one, a blank line closes it (``_LineError`` otherwise)."""
    blocks: list[_Block] = []
    current: _Block | None = None
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith(";"):
            current = _Block(number, line[1:].strip(), [])
            blocks.append(current)
        elif not line.strip():
            current = None
        elif current is None:
            raise _LineError(number, "a level row without a '; N' header before it")
        else:
            current.rows.append((number, line))
    return blocks


def _official_level(block: _Block, name: str) -> Level:
    """One level of an official file, checked: ``; N`` header, ten rows of ten known characters, a valid level."""
    if not (block.header.isascii() and block.header.isdigit()):
        raise _LineError(block.line, f"level header {block.header!r} is not '; N' with a level number")
    what = f"level {block.header}"
    if len(block.rows) != SIZE:
        raise _LineError(block.line, f"{what} has {len(block.rows)} rows, expected {SIZE}")
    for number, row in block.rows:
        if len(row) != SIZE:
            raise _LineError(number, f"{what}: row of {len(row)} characters, expected {SIZE}")
        bad = next((ch for ch in row if ch not in (WALL, FLOOR, BOX, GOAL, PLAYER)), None)
        if bad is not None:
            raise _LineError(number, f"{what}: unexpected character {bad!r} (expected '#', ' ', '$', '.' or '@')")
    players = sum(row.count(PLAYER) for _, row in block.rows)
    if players != 1:
        raise _LineError(block.line, f"{what} has {players} players '@', expected 1")
    level = parse_level([row for _, row in block.rows], "official", f"{name};{block.header}")
    faults = problems(level)
    if faults:
        raise _LineError(block.line, f"{what}: {'; '.join(faults)}")
    return level


def parse_file(text: str, name: str, where: str | None = None) -> list[Level]:
    """Every level of one official file (``; N`` header, ten rows, blank line), strictly.

    Any fault (a row outside a level, a bad header or row, a repeated number, an invalid level, no level at all)
    is a PlaybenchError ``where:line: what``; ``where`` defaults to ``name``, the file's name in level ids.
    """
    where = where or name
    levels: list[Level] = []
    seen: dict[str, int] = {}  # level number -> header line
    try:
        for block in _blocks(text):
            if block.header in seen:
                raise _LineError(block.line, f"level {block.header} already on line {seen[block.header]}")
            seen[block.header] = block.line
            levels.append(_official_level(block, name))
    except _LineError as exc:
        raise PlaybenchError(f"{where}:{exc.line}: {exc}") from None
    if not levels:
        raise PlaybenchError(f"{where}: no Boxoban levels ('; N' then {SIZE} rows)")
    return levels


def minihack_texts(text: str) -> list[str]:
    """The levels MiniHack's loader makes of a file's text (``minihack/envs/boxohack.py``, ``load_boxoban_levels``).

    It gathers lines until a line that is exactly empty, then keeps them without the first (the ``; N``
    header); lines after the last empty line make no level. Python's text mode, which it reads in, first turns
    CRLF and CR line ends into LF.
    """
    levels: list[str] = []
    current: list[str] = []
    for line in text.replace("\r\n", "\n").replace("\r", "\n").splitlines(keepends=True):
        if line == "\n":
            levels.append("".join(current[1:]))
            current = []
        else:
            current.append(line)
    return levels


def _as_minihack_reads(files: list[Path]) -> None:
    """Refuse level files that are not what MiniHack lists: every ``*.txt`` entry of one folder."""
    folders = sorted({file.parent for file in files})
    if len(folders) > 1:
        raise PlaybenchError(f"{folders[1]}: level files in more than one folder; MiniHack reads one "
                             "(compat draws over what it reads)")
    listed = sorted(p for p in folders[0].iterdir() if p.name.endswith(".txt"))
    extra = sorted(set(listed) - set(files))
    if extra:
        raise PlaybenchError(f"{extra[0]}: MiniHack would read it as a level file (every *.txt of the folder); "
                             "compat draws over what it reads")


def _check_minihack_reading(text: str, levels: list[Level], where: str) -> None:
    """Refuse a file that MiniHack's loader splits into other levels than the strict reading (compat's draw)."""
    read = minihack_texts(text)
    if read != [level.text() for level in levels]:
        raise PlaybenchError(f"{where}: MiniHack's loader reads {len(read)} levels here, not "
                             f"{len(levels)} (a level ends only at an empty line: exactly one after each level, "
                             "the last one too); compat cannot draw as BALROG does")


#: The part of the official set each task plays, as MiniHack reads it.
PRESET_FOLDERS = {"hard": "hard", "medium": "medium/train"}


def _preset_root(root: Path, preset: str | None) -> Path:
    """The task's own part of a checkout of the whole official set (``hard/``, ``medium/train/``)."""
    if preset is None or not root.is_dir():
        return root
    own = root / PRESET_FOLDERS[preset]
    return own if own.is_dir() else root


def official_set(file: Path) -> str | None:
    """Which part of the official set a file's folders name (``hard``, ``medium/valid`` …), if any."""
    parent, grand = file.parent.name, file.parent.parent.name
    if parent == "hard":
        return "hard"
    if grand in ("medium", "unfiltered") and parent in ("train", "valid", "test"):
        return f"{grand}/{parent}"
    return parent if parent in ("medium", "unfiltered") else None  # None: the user's own file


def level_files(path: str | Path, preset: str | None = None) -> tuple[Path, list[Path]]:
    """``(base, files)``: the files ``read_levels`` reads, and the folder level ids name them from.

    The level file ``path``, or every ``*.txt`` file under the folder, sorted by relative path (with ``preset``,
    the task's part of the whole official set).
    """
    return _files_of(_preset_root(Path(path).expanduser(), preset))


def _files_of(root: Path) -> tuple[Path, list[Path]]:
    if root.is_file():
        return root.parent, [root]
    if root.is_dir():
        files = sorted(p for p in root.rglob("*.txt") if p.name.upper() != "LICENSE.TXT")
        if not files:
            raise PlaybenchError(f"{root}: no Boxoban level files (*.txt)")
        return root, files
    raise PlaybenchError(f"{root}: Boxoban levels path not found")


def read_levels(path: str | Path, preset: str | None = None, as_minihack: bool = False) -> list[Level]:
    """All levels of a level file or of every ``*.txt`` file under a folder (sorted by relative path), strictly.

    Every file must hold only valid levels (``parse_file``); a folder without level files is an error too.
    With ``preset`` (``hard``/``medium``), a folder holding the whole official set is narrowed to the task's
    part (``hard``, ``medium/train``), and a file from another difficulty or split is refused.
    ``as_minihack`` (compat's draw) also refuses what MiniHack would read otherwise: a folder whose own
    ``*.txt`` entries are not exactly the level files, a file its loader splits into other levels.
    """
    root = _preset_root(Path(path).expanduser(), preset)
    base, files = _files_of(root)
    if as_minihack and root.is_dir():
        _as_minihack_reads(files)
    levels: list[Level] = []
    for file in files:
        part = official_set(file) if preset is not None else None
        if preset is not None and part is not None and part not in (PRESET_FOLDERS[preset], preset):
            raise PlaybenchError(f"{file}: a level file of the official {part} levels; boxoban-{preset} plays "
                                 f"{PRESET_FOLDERS[preset]} (give that folder, or the set's root)")
        text = read_data_text(file, empty=None)
        own = parse_file(text, file.relative_to(base).as_posix(), str(file))
        if as_minihack:
            _check_minihack_reading(text, own, str(file))
        levels.extend(own)
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

"""The §3 text rendering of a grid (byte-identical to the official files) and the interactive view."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from playbench.suites.grasp.grid import Grid


def render_cells(chars: Sequence[Sequence[str]]) -> str:
    """Render a matrix of one-character cells in the official layout (every line ends with a newline)."""
    cols = len(chars[0])
    sep = "  +" + "---+" * cols + "\n"
    out = ["    " + "   ".join(str(c) for c in range(cols)) + " \n", sep]
    for r, row in enumerate(chars):
        out.append(f"{r:>2}|" + "".join(f" {ch} |" for ch in row) + "\n")
        out.append(sep)
    return "".join(out)


def render_grid(grid: Grid) -> str:
    """The official text of a grid: ``A`` at the start, ``E`` energy, ``O`` obstacle, space otherwise."""
    chars = [
        [
            "A" if (r, c) == grid.start else "O" if (r, c) in grid.obstacles else "E" if grid.energy[r][c] else " "
            for c in range(grid.cols)
        ]
        for r in range(grid.rows)
    ]
    return render_cells(chars)


def render_state(
    grid: Grid, energy: Sequence[Sequence[int]], pos: tuple[int, int], carried: int, used: int, budget: int
) -> str:
    """The interactive view: the grid as it is now, then the agent's position, load and the steps used.

    ``A`` is the agent, ``E`` one unit, a digit 2-9 units, ``*`` ten or more.
    """

    def cell(r: int, c: int) -> str:
        if (r, c) == pos:
            return "A"
        if (r, c) in grid.obstacles:
            return "O"
        n = energy[r][c]
        return " " if n == 0 else "E" if n == 1 else str(n) if n < 10 else "*"

    text = render_cells([[cell(r, c) for c in range(grid.cols)] for r in range(grid.rows)])
    here = energy[pos[0]][pos[1]]
    home = energy[grid.start[0]][grid.start[1]]
    return (
        text
        + f"You are at row {pos[0]}, column {pos[1]}; this cell holds {here} unit(s) of energy. "
        + f"You carry {carried} unit(s). Your starting cell (row {grid.start[0]}, column {grid.start[1]}) "
        + f"holds {home} unit(s). Steps used: {used} of {budget}.\n"
    )


@dataclass(frozen=True)
class StateView:
    """What :func:`render_state` shows, read back: cell characters, units per cell, position, load, steps used.

    ``energy`` counts ``E`` as 1, a digit as that many units and ``*`` as 10 (ten or more); the agent's own
    cell comes from the sentence below the grid (its character is ``A``).
    """

    chars: tuple[tuple[str, ...], ...]
    energy: tuple[tuple[int, ...], ...]
    obstacles: frozenset[tuple[int, int]]
    pos: tuple[int, int]
    start: tuple[int, int]
    carried: int
    used: int
    budget: int


_STATE_LINE = re.compile(
    r"You are at row (\d+), column (\d+); this cell holds (\d+) unit\(s\) of energy\. You carry (\d+) unit\(s\)\. "
    r"Your starting cell \(row (\d+), column (\d+)\) holds (\d+) unit\(s\)\. Steps used: (\d+) of (\d+)\."
)


def parse_cells(text: str) -> list[list[str]]:
    """The cell characters of a grid rendered by :func:`render_cells` (the inverse of its layout).

    Row lines are those starting with a right-aligned row number and ``|``; the character of column ``c`` sits
    at offset ``4 + 4*c``. Raises ``ValueError`` when no grid is found.
    """
    rows = [line for line in text.split("\n") if line[:2].strip().isdigit() and line[2:3] == "|"]
    if not rows:
        raise ValueError("no grid rows found")
    cols = (len(rows[0]) - 3) // 4
    return [[line[4 + 4 * c] if 4 + 4 * c < len(line) else " " for c in range(cols)] for line in rows]


def parse_state(text: str) -> StateView:
    """Read back an interactive view written by :func:`render_state`; raises ``ValueError`` if it is not one."""
    chars = parse_cells(text)
    m = _STATE_LINE.search(text)
    if m is None:
        raise ValueError("no position line found")
    r, c, here, carried, sr, sc, home, used, budget = (int(g) for g in m.groups())
    if not (0 <= r < len(chars) and 0 <= c < len(chars[0]) and 0 <= sr < len(chars) and 0 <= sc < len(chars[0])):
        raise ValueError("position outside the grid")

    def units(ch: str) -> int:
        return 1 if ch == "E" else int(ch) if ch.isdigit() else 10 if ch == "*" else 0

    energy = [[units(ch) for ch in row] for row in chars]
    energy[r][c] = here
    energy[sr][sc] = home
    obstacles = frozenset((i, j) for i, row in enumerate(chars) for j, ch in enumerate(row) if ch == "O")
    return StateView(tuple(map(tuple, chars)), tuple(map(tuple, energy)), obstacles, (r, c), (sr, sc),
                     carried, used, budget)

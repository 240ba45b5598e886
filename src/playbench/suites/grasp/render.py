"""The §3 text rendering of a grid (byte-identical to the official files) and the interactive view."""

from __future__ import annotations

from collections.abc import Sequence

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

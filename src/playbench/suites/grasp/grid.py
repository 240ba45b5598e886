"""The grid model: cells, energy, obstacles, the start, the action names and the agent constraints."""

from __future__ import annotations

from dataclasses import dataclass

SIZE = 11
BUDGET = 20  # actions executed per plan

MOVES: dict[str, tuple[int, int]] = {
    "UP": (-1, 0),
    "DOWN": (1, 0),
    "LEFT": (0, -1),
    "RIGHT": (0, 1),
    "UPLEFT": (-1, -1),
    "UPRIGHT": (-1, 1),
    "DOWNLEFT": (1, -1),
    "DOWNRIGHT": (1, 1),
}
MOVES4 = ("UP", "DOWN", "LEFT", "RIGHT")
MOVES8 = MOVES4 + ("UPLEFT", "UPRIGHT", "DOWNLEFT", "DOWNRIGHT")
ACTIONS = MOVES8 + ("TAKE", "DROP")
COMPLEMENT = {
    "UP": "DOWN", "DOWN": "UP", "LEFT": "RIGHT", "RIGHT": "LEFT",
    "UPLEFT": "DOWNRIGHT", "DOWNRIGHT": "UPLEFT", "UPRIGHT": "DOWNLEFT", "DOWNLEFT": "UPRIGHT",
}

DISTRIBUTIONS = ("random", "upDown", "leftRight", "cluster", "spiral")
OBSTACLES = ("block", "free")
STARTS = ("inner", "outer")


@dataclass(frozen=True)
class Constraints:
    """One of the 8 agent-constraint combinations: movement set (4|8), carry limit (None|2), cost (0|0.3)."""

    movement: int = 4
    carry: int | None = None
    cost: float = 0.0

    @property
    def moves(self) -> tuple[str, ...]:
        """The move names allowed by the movement set."""
        return MOVES8 if self.movement == 8 else MOVES4

    @property
    def code(self) -> tuple[int, int, int]:
        """The ``custom_id`` codes (move, carry, cost), each 0 or 1."""
        return (int(self.movement == 8), int(self.carry is not None), int(self.cost > 0))

    @classmethod
    def from_code(cls, move: int, carry: int, cost: int) -> Constraints:
        """Constraints from the ``custom_id`` codes."""
        return cls(8 if move else 4, 2 if carry else None, 0.3 if cost else 0.0)

    @classmethod
    def from_baseline(cls, movement: int, limit: int, cost: float) -> Constraints:
        """Constraints from the baseline result encoding (4|8, 100|2, 0|0.3)."""
        return cls(8 if int(movement) == 8 else 4, None if int(limit) >= 100 else int(limit), float(cost))

    def as_dict(self) -> dict[str, int | float | None]:
        """Plain JSON form used in records."""
        return {"movement": self.movement, "carry": self.carry, "cost": self.cost}


#: The 8 combinations in the official order (movement, carry, cost; cost fastest).
COMBINATIONS: tuple[Constraints, ...] = tuple(
    Constraints.from_code(m, c, k) for m in (0, 1) for c in (0, 1) for k in (0, 1)
)


@dataclass(frozen=True)
class Grid:
    """A grid: ``energy[r][c]`` units per cell, ``obstacles`` as (row, col) pairs, and the start cell.

    Rows and columns default to 11; smaller grids exist for tests of the exact solver.
    """

    energy: tuple[tuple[int, ...], ...]
    obstacles: frozenset[tuple[int, int]]
    start: tuple[int, int]
    rows: int = SIZE
    cols: int = SIZE

    def in_grid(self, r: int, c: int) -> bool:
        """Whether (r, c) lies inside the grid."""
        return 0 <= r < self.rows and 0 <= c < self.cols

    def free(self, r: int, c: int) -> bool:
        """Whether (r, c) is inside the grid and not an obstacle."""
        return 0 <= r < self.rows and 0 <= c < self.cols and (r, c) not in self.obstacles

    def energy_cells(self) -> list[tuple[int, int]]:
        """Cells holding energy, row by row."""
        return [(r, c) for r in range(self.rows) for c in range(self.cols) if self.energy[r][c] > 0]

    @property
    def energy_total(self) -> int:
        """Units of energy on the grid."""
        return sum(map(sum, self.energy))

    @classmethod
    def build(
        cls, energy_cells: set[tuple[int, int]], obstacles: set[tuple[int, int]], start: tuple[int, int],
        rows: int = SIZE, cols: int = SIZE,
    ) -> Grid:
        """A grid from sets; the start cell holds neither energy nor an obstacle (§1)."""
        obst = frozenset(o for o in obstacles if o != start)
        energy = tuple(
            tuple(int((r, c) in energy_cells and (r, c) not in obst and (r, c) != start) for c in range(cols))
            for r in range(rows)
        )
        return cls(energy, obst, start, rows, cols)

    @classmethod
    def from_text(cls, text: str) -> Grid:
        """Parse the official §3 rendering (``E``, ``O``, ``A`` or space at offset 4 + 4*col of a row line)."""
        rows = [line for line in text.split("\n") if line[:2].strip().isdigit() and "|" in line[:3]]
        if not rows:
            raise ValueError("no grid rows found")
        n_cols = (len(rows[0]) - 3) // 4
        energy: set[tuple[int, int]] = set()
        obstacles: set[tuple[int, int]] = set()
        start = None
        for r, line in enumerate(rows):
            for c in range(n_cols):
                ch = line[4 + 4 * c] if 4 + 4 * c < len(line) else " "
                if ch == "E":
                    energy.add((r, c))
                elif ch == "O":
                    obstacles.add((r, c))
                elif ch == "A":
                    start = (r, c)
        if start is None:
            raise ValueError("grid has no start cell 'A'")
        return cls.build(energy, obstacles, start, len(rows), n_cols)

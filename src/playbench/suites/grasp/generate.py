"""playbench's seeded grid generator (§2): five energy distributions, obstacles and start regions.

The original generator was never published; these rules follow the paper, with two options that
reproduce what the official files show: ``skew_axes="official"`` (the ``upDown`` files skew columns and the
``leftRight`` files rows) and ``cluster_centres`` (``inner``: centres in 1-9 as in the data, ``paper``: 0-10).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from playbench.suites.grasp.grid import SIZE, Grid

SkewAxes = Literal["paper", "official"]
ClusterCentres = Literal["inner", "paper"]
INNER = range(3, 8)  # rows and columns 3-7


@dataclass(frozen=True)
class Generated:
    """A generated grid with its settings and the ``energy_probability`` the official files would store."""

    grid: Grid
    distribution: str
    obstacle: str
    start_region: str
    energy_probability: float


def _skewed(rng: np.random.Generator, by_rows: bool) -> tuple[set[tuple[int, int]], float]:
    low = rng.random() < 0.5
    p_first = float(rng.uniform(0.3, 0.4) if low else rng.uniform(0.6, 0.7))
    draws = rng.random((SIZE, SIZE))
    cells = set()
    for r in range(SIZE):
        for c in range(SIZE):
            first_half = (r if by_rows else c) <= 5
            if draws[r, c] < (p_first if first_half else 1 - p_first):
                cells.add((r, c))
    return cells, p_first


def energy_cells(
    rng: np.random.Generator, distribution: str, skew_axes: SkewAxes = "paper", cluster_centres: ClusterCentres = "inner"
) -> tuple[set[tuple[int, int]], float]:
    """The energy cells of one distribution and the stored probability (p, p_top/p_left, k or -1)."""
    if distribution == "random":
        p = float(rng.uniform(0.3, 0.7))
        draws = rng.random((SIZE, SIZE))
        return {(r, c) for r in range(SIZE) for c in range(SIZE) if draws[r, c] < p}, p
    if distribution == "upDown":  # paper: rows 0-5 vs 6-10; the official files skew columns
        return _skewed(rng, by_rows=skew_axes == "paper")
    if distribution == "leftRight":
        return _skewed(rng, by_rows=skew_axes == "official")
    if distribution == "cluster":
        k = int(rng.integers(3, 6))
        lo, hi = (1, 9) if cluster_centres == "inner" else (0, 10)
        cells = set()
        for _ in range(k):
            a, b = (int(x) for x in rng.integers(lo, hi + 1, size=2))
            cells |= {(a + i, b + j) for i in (-1, 0, 1) for j in (-1, 0, 1) if 0 <= a + i < SIZE and 0 <= b + j < SIZE}
        return cells, float(k)
    if distribution == "spiral":
        cells = set()
        for i in range(SIZE * SIZE):
            theta = i / 10 + float(rng.uniform(-0.2, 0.2))
            radius = i / (SIZE * 10 / (2 * math.pi)) + float(rng.uniform(-0.2, 0.2))
            r, c = int(5 + radius * math.cos(theta)), int(5 + radius * math.sin(theta))  # int() truncates to zero
            if 0 <= r < SIZE and 0 <= c < SIZE:
                cells.add((r, c))
        return cells, -1.0
    raise ValueError(f"unknown distribution {distribution!r}")


def generate(
    rng: np.random.Generator,
    distribution: str,
    obstacle: str,
    start_region: str,
    skew_axes: SkewAxes = "paper",
    cluster_centres: ClusterCentres = "inner",
) -> Generated:
    """Generate one grid: energy, then obstacles (p = 0.1 per cell for ``block``), then the start cell."""
    cells, prob = energy_cells(rng, distribution, skew_axes, cluster_centres)
    obstacles: set[tuple[int, int]] = set()
    if obstacle == "block":
        draws = rng.random((SIZE, SIZE))
        obstacles = {(r, c) for r in range(SIZE) for c in range(SIZE) if draws[r, c] < 0.1}
    elif obstacle != "free":
        raise ValueError(f"unknown obstacle setting {obstacle!r}")
    if start_region == "inner":
        region = [(r, c) for r in INNER for c in INNER]
    elif start_region == "outer":
        region = [(r, c) for r in range(SIZE) for c in range(SIZE) if not (r in INNER and c in INNER)]
    else:
        raise ValueError(f"unknown start region {start_region!r}")
    start = region[int(rng.integers(len(region)))]
    return Generated(Grid.build(cells, obstacles, start), distribution, obstacle, start_region, prob)

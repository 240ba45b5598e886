import numpy as np
import pytest

from playbench.suites.grasp.generate import energy_cells, generate
from playbench.suites.grasp.grid import DISTRIBUTIONS
from playbench.suites.grasp.render import render_grid

OBSERVED = {  # §2.1: mean energy count (obstacle-free, with obstacles)
    "random": (60, 55), "upDown": (60, 54), "leftRight": (60, 54), "cluster": (30, 28), "spiral": (41, 36),
}


def test_seeded_determinism():
    for d in DISTRIBUTIONS:
        a = generate(np.random.default_rng(42), d, "block", "outer")
        b = generate(np.random.default_rng(42), d, "block", "outer")
        c = generate(np.random.default_rng(43), d, "block", "outer")
        assert render_grid(a.grid) == render_grid(b.grid) and a.energy_probability == b.energy_probability
        assert render_grid(a.grid) != render_grid(c.grid)


@pytest.mark.parametrize("distribution", DISTRIBUTIONS)
def test_energy_counts_match_observed_means(distribution):
    rng = np.random.default_rng(7)
    for obstacle, target in zip(("free", "block"), OBSERVED[distribution], strict=True):
        counts = [generate(rng, distribution, obstacle, s).grid.energy_total for s in ("inner", "outer")
                  for _ in range(150)]
        assert abs(np.mean(counts) - target) <= max(2.0, 0.05 * target), (obstacle, np.mean(counts))


def test_obstacles_start_regions_and_probabilities():
    rng = np.random.default_rng(3)
    obstacles, inner, outer = [], set(), set()
    for _ in range(300):
        g = generate(rng, "random", "block", "inner")
        obstacles.append(len(g.grid.obstacles))
        inner.add(g.grid.start)
        assert 0.3 <= g.energy_probability <= 0.7
        o = generate(rng, "random", "free", "outer").grid
        assert not o.obstacles and o.energy[o.start[0]][o.start[1]] == 0
        outer.add(o.start)
    assert abs(np.mean(obstacles) - 12.1) < 1.0
    assert inner <= {(r, c) for r in range(3, 8) for c in range(3, 8)} and len(inner) == 25
    assert not outer & inner and any(r in (0, 10) and 3 <= c <= 7 for r, c in outer)  # edge starts exist


def _half_density(cells, by_rows):
    first = sum(1 for r, c in cells if (r if by_rows else c) <= 5) / 66
    return first


def test_skew_axes_paper_and_official():
    rng = np.random.default_rng(11)
    for name, by_rows_paper in (("upDown", True), ("leftRight", False)):
        for axes in ("paper", "official"):
            by_rows = by_rows_paper if axes == "paper" else not by_rows_paper
            ps, dens = [], []
            for _ in range(200):
                cells, p = energy_cells(rng, name, skew_axes=axes)
                assert 0.3 <= p <= 0.4 or 0.6 <= p <= 0.7
                ps.append(p)
                dens.append(_half_density(cells, by_rows))
            assert np.corrcoef(ps, dens)[0, 1] > 0.85, (name, axes)


def test_cluster_centres_options():
    rng = np.random.default_rng(5)
    inner_edge = [sum(1 for r, _ in energy_cells(rng, "cluster")[0] if r == 0) for _ in range(400)]
    paper_edge = [sum(1 for r, _ in energy_cells(rng, "cluster", cluster_centres="paper")[0] if r == 0)
                  for _ in range(400)]
    assert np.mean(inner_edge) < np.mean(paper_edge)
    for _ in range(50):
        cells, k = energy_cells(rng, "cluster")
        assert k in (3.0, 4.0, 5.0) and 9 <= len(cells) <= 45


def test_spiral_shape():
    cells, p = energy_cells(np.random.default_rng(0), "spiral")
    assert p == -1 and (5, 5) in cells and 35 <= len(cells) <= 48

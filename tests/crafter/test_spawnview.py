"""The materials around Crafter's spawn worked out over whole columns (``spawnview``) are the generated world's.

The vectorised noise is OpenSimplex's to about 1e-15 over points of all its regions; the materials of the
first 38 columns equal those ``fastgen`` generates cell by cell, for worlds whose cells include noise values
too near a threshold to be called in the vectorised sum (crafter's own rule decides those).
"""

import numpy as np
import pytest

from playbench.suites.crafter import spawnview
from playbench.suites.crafter.engine import CrafterEngine
from playbench.suites.crafter.fastgen import FastSimplex
from playbench.suites.crafter.games import world_seed


def test_noise_is_opensimplex_to_rounding() -> None:
    rng = np.random.default_rng(0)
    x, y = rng.uniform(-40, 40, 4000), rng.uniform(-40, 40, 4000)
    x[:100], y[:100] = np.round(x[:100]), np.round(y[:100])  # lattice-aligned points too
    for seed in (0, 12345, 2**31 - 2):
        for z in (0.0, 3.0, 7.0):
            fast = FastSimplex(seed)
            exact = np.array([fast.noise3(a, b, z) for a, b in zip(x.tolist(), y.tolist(), strict=True)])
            assert np.abs(spawnview.noise3(x, y, np.full(x.shape, z), seed) - exact).max() < 1e-13


def test_materials_are_the_generated_worlds() -> None:
    engine = CrafterEngine(render_images=False, world_cache=False)
    codes = {index: name for name, index in engine._world._mat_ids.items()}
    for seed in (0, 3, 11):
        engine.reset_seed(seed)
        generated = [[codes[int(c)] for c in column] for column in engine._world._mat_map[:38].tolist()]
        quick = [[spawnview.NAMES[c] for c in column] for column in spawnview.materials(world_seed(seed), 38).tolist()]
        assert quick == generated


def test_values_too_near_a_threshold_are_decided_by_crafters_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """Some cells on the noise lattice (in the column x = 0, ...) have noise of about 1e-65, whose sign is rounding's:
    crafter's own rule decides them, its draws taken from the same stream, and the materials stay the world's."""
    decided: list[tuple[int, int]] = []
    rule = spawnview._Exact.__call__

    def counted(self: spawnview._Exact, place: tuple[int, int]) -> int:
        decided.append(place)
        return rule(self, place)

    monkeypatch.setattr(spawnview._Exact, "__call__", counted)
    engine = CrafterEngine(render_images=False, world_cache=False)
    codes = {index: name for name, index in engine._world._mat_ids.items()}
    engine.reset_seed(5)
    quick = spawnview.materials(world_seed(5), 38).tolist()
    assert any(x == 0 for x, _ in decided)  # cells of the first column among them
    assert [[spawnview.NAMES[c] for c in column] for column in quick] == [
        [codes[int(c)] for c in column] for column in engine._world._mat_map[:38].tolist()]

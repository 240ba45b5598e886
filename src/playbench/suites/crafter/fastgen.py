"""Faster Crafter world generation that builds exactly the same worlds as ``crafter.worldgen``.

Stock world generation spends almost all of its time in ``opensimplex``'s pure-Python 3D noise, and
within it in the gradient lookup, which indexes NumPy arrays with Python integers and computes with
NumPy scalars. Here the same noise function runs with the permutation tables as Python lists and a
gradient lookup on plain integers. Every floating-point operation is the same IEEE double operation in
the same order, so the noise values, and hence the worlds, are bit-identical (checked against the stock
generator in the tests). The per-cell terrain and object rules are crafter's own functions.
"""

import types
from collections.abc import Callable
from typing import Any

import numpy as np
from crafter import worldgen
from opensimplex import constants as _os_constants
from opensimplex import internals as _os_internals

_GRADIENTS3: tuple[int, ...] = tuple(int(g) for g in _os_constants.GRADIENTS3)


def _extrapolate3(perm: list[int], perm_grad_index3: list[int], xsb: int, ysb: int, zsb: int,
                  dx: float, dy: float, dz: float) -> float:
    """The gradient contribution of one lattice vertex (same arithmetic as opensimplex, on Python numbers)."""
    index = perm_grad_index3[(perm[(perm[xsb & 0xFF] + ysb) & 0xFF] + zsb) & 0xFF]
    return _GRADIENTS3[index] * dx + _GRADIENTS3[index + 1] * dy + _GRADIENTS3[index + 2] * dz


def _build_noise3() -> Callable[[float, float, float, list[int], list[int]], float]:
    """Opensimplex's own ``_noise3`` code object, bound to globals with the fast gradient lookup."""
    original = getattr(_os_internals._noise3, "py_func", _os_internals._noise3)  # plain function even with numba
    namespace = dict(vars(_os_internals))
    namespace["_extrapolate3"] = _extrapolate3
    return types.FunctionType(original.__code__, namespace, "_noise3", original.__defaults__, original.__closure__)


_noise3 = _build_noise3()


class FastSimplex:
    """Drop-in for ``opensimplex.OpenSimplex`` as crafter uses it (``noise3`` only)."""

    def __init__(self, seed: int) -> None:
        perm, grad = _os_internals._init(seed)
        self._perm = [int(v) for v in perm]
        self._grad = [int(v) for v in grad]

    def noise3(self, x: float, y: float, z: float) -> float:
        """3D OpenSimplex noise, bit-identical to ``opensimplex.OpenSimplex(seed).noise3``."""
        return _noise3(x, y, z, self._perm, self._grad)


def generate_world(world: Any, player: Any) -> None:
    """Fill ``world`` like ``crafter.worldgen.generate_world`` does, drawing the same random numbers."""
    simplex = FastSimplex(seed=world.random.randint(0, 2**31 - 1))
    tunnels = np.zeros(world.area, bool)
    width, height = world.area
    for x in range(width):
        for y in range(height):
            worldgen._set_material(world, (x, y), player, tunnels, simplex)
    for x in range(width):
        for y in range(height):
            worldgen._set_object(world, (x, y), player, tunnels)

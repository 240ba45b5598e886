"""The RGB image of a Baba Is AI level for VLM mode: the whole grid at 32 pixels per tile.

8x8 levels give 256x256 images, 13x9 levels 416x288 (spec §6.4). Each tile is drawn at 3x and
averaged down (anti-aliasing), on black with grey grid lines; rule blocks are light grey squares
with their word. The original draws words with OpenCV's Hershey font; here PIL's built-in font is
used instead (a visual substitute: same layout, different glyphs).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from playbench.suites.balrog.babaisai.data import NOUNS, RGB
from playbench.suites.balrog.babaisai.engine import BORDER, OBJ, World

TILE = 32
SUB = 3


def _grid(n: int) -> tuple[np.ndarray, np.ndarray]:
    c = (np.arange(n) + 0.5) / n
    return np.meshgrid(c, c)  # xs, ys in [0, 1]


def _rect(img: np.ndarray, x0: float, x1: float, y0: float, y1: float, color) -> None:
    xs, ys = _grid(img.shape[0])
    img[(xs >= x0) & (xs <= x1) & (ys >= y0) & (ys <= y1)] = color


def _circle(img: np.ndarray, cx: float, cy: float, r: float, color) -> None:
    xs, ys = _grid(img.shape[0])
    img[(xs - cx) ** 2 + (ys - cy) ** 2 <= r * r] = color


def _triangle(img: np.ndarray, facing: int, color) -> None:
    xs, ys = _grid(img.shape[0])
    theta = -0.5 * math.pi * facing  # rotate the sample points back to the right-facing frame
    cx, cy = xs - 0.5, ys - 0.5
    rx = cx * math.cos(theta) - cy * math.sin(theta) + 0.5
    ry = cx * math.sin(theta) + cy * math.cos(theta) + 0.5
    a, b, c = (0.12, 0.19), (0.87, 0.50), (0.12, 0.81)

    def side(p, q):
        return (rx - q[0]) * (p[1] - q[1]) - (p[0] - q[0]) * (ry - q[1])

    d1, d2, d3 = side(a, b), side(b, c), side(c, a)
    neg = (d1 < 0) | (d2 < 0) | (d3 < 0)
    pos = (d1 > 0) | (d2 > 0) | (d3 > 0)
    img[~(neg & pos)] = color


def _word(img: np.ndarray, word: str) -> None:
    from PIL import Image, ImageDraw

    n = img.shape[0]
    canvas = Image.new("L", (n, n), 0)
    draw = ImageDraw.Draw(canvas)
    box = draw.textbbox((0, 0), word)
    tw, th = box[2] - box[0], box[3] - box[1]
    small = Image.new("L", (int(tw) + 2, int(th) + 2), 0)
    ImageDraw.Draw(small).text((1 - box[0], 1 - box[1]), word, fill=255)
    scale = min((n * 0.8) / small.width, (n * 0.5) / small.height)
    small = small.resize((max(1, int(small.width * scale)), max(1, int(small.height * scale))))
    canvas.paste(small, ((n - small.width) // 2, (n - small.height) // 2))
    mask = np.asarray(canvas) > 96
    img[mask] = (0, 0, 0)


@lru_cache(maxsize=512)
def tile(kind: str | None, word: str | None, color: str | None, facing: int) -> np.ndarray:
    """One 32x32 RGB tile for a top object (None for an empty cell)."""
    n = TILE * SUB
    img = np.zeros((n, n, 3), dtype=np.uint8)
    _rect(img, 0, 0.031, 0, 1, (100, 100, 100))
    _rect(img, 0, 1, 0, 0.031, (100, 100, 100))
    if kind == BORDER:
        _rect(img, 0, 1, 0, 1, RGB["grey"])
    elif kind == OBJ:
        assert word is not None  # an object tile always names its noun
        rgb = RGB[color or NOUNS[word]["color"]]
        shape = NOUNS[word]["shape"]
        if shape == "square":
            _rect(img, 0.2, 0.8, 0.2, 0.8, rgb)
        elif shape == "circle":
            _circle(img, 0.5, 0.5, 0.31, rgb)
        elif shape == "triangle":
            _triangle(img, facing, rgb)
        elif shape == "key":
            _rect(img, 0.50, 0.63, 0.31, 0.88, rgb)
            _rect(img, 0.38, 0.50, 0.59, 0.66, rgb)
            _rect(img, 0.38, 0.50, 0.81, 0.88, rgb)
            _circle(img, 0.56, 0.28, 0.190, rgb)
            _circle(img, 0.56, 0.28, 0.064, (0, 0, 0))
        elif shape == "door":
            _rect(img, 0.00, 1.00, 0.00, 1.00, rgb)
            _rect(img, 0.04, 0.96, 0.04, 0.96, (0, 0, 0))
            _rect(img, 0.08, 0.92, 0.08, 0.92, rgb)
            _rect(img, 0.12, 0.88, 0.12, 0.88, (0, 0, 0))
            _circle(img, 0.75, 0.50, 0.08, rgb)
    elif kind is not None:  # a rule block
        _rect(img, 0.06, 0.94, 0.06, 0.94, (235, 235, 235))
        _word(img, word or "")
    small = img.reshape(TILE, SUB, TILE, SUB, 3).mean(axis=(1, 3))
    return small.astype(np.uint8)


def render(world: World) -> np.ndarray:
    """The full-grid RGB image (height x width x 3, uint8)."""
    out = np.zeros((world.height * TILE, world.width * TILE, 3), dtype=np.uint8)
    for y in range(world.height):
        for x in range(world.width):
            o = world.top(x, y)
            t = tile(None, None, None, 0) if o is None else tile(o[0], o[1], o[2], o[3] if o[0] == OBJ else 0)
            out[y * TILE:(y + 1) * TILE, x * TILE:(x + 1) * TILE] = t
    return out

"""The RGB image of a Baba Is AI level for VLM mode, drawn as the original draws it.

The whole grid at 32 pixels per tile: 8x8 levels give 256x256 images, 13x9 levels 416x288 (spec
§6.4). Every tile is drawn at 96x96 (3x) by testing each pixel centre against the shape, then
averaged down 3x3 and truncated to integers, with the original's arithmetic step for step so the
pixels are identical to BALROG's (tested against recorded image hashes of the original):

* every tile: black, with grey (100) grid lines along its top and left edges;
* the border: a full grey tile; the flexible wall: a grey square; ball: a circle; key and door: the
  Minigrid shapes; baba: a white triangle pointing where it last moved;
* a rule block: a light grey (235) frame around a black square carrying its word in light grey,
  written with OpenCV's Hershey simplex font (scale 1, thickness 3), as the original does. OpenCV 4 is
  needed: OpenCV 5 draws Hershey text differently (about 6 in 10 word pixels change).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from playbench.core.errors import PlaybenchError
from playbench.suites.balrog.babaisai.data import NOUNS, RGB
from playbench.suites.balrog.babaisai.engine import BORDER, OBJ, World

TILE = 32
SUB = 3
_N = TILE * SUB  # side of a tile as drawn before averaging
_WORD_MARGIN = 10  # the word square is the drawn tile minus 10 pixels on each side
GRID_LINE = (100, 100, 100)
BLOCK = (235, 235, 235)  # rule blocks' frame and word colour

_INSTALL = "pip install 'opencv-python-headless>=4.8,<5' (or the 'babaisai' extra)"


def check_opencv() -> None:
    """Refuse image mode clearly when OpenCV 4 (which draws the rule words) is missing."""
    try:
        import cv2
    except ImportError:
        raise PlaybenchError(f"Baba Is AI images need OpenCV 4 to draw the rule words as BALROG does: {_INSTALL}") from None
    major = int(str(cv2.__version__).split(".")[0])
    if major != 4:
        raise PlaybenchError(f"Baba Is AI images need OpenCV 4 (found {cv2.__version__}, whose Hershey text "
                             f"differs from the original's): {_INSTALL}")


def _centres() -> tuple[np.ndarray, np.ndarray]:
    """The x and y of each pixel centre of a drawn tile, in [0, 1] (``(i + 0.5) / 96``)."""
    c = (np.arange(_N) + 0.5) / _N
    xs, ys = np.meshgrid(c, c)
    return xs, ys


def _rect(img: np.ndarray, x0: float, x1: float, y0: float, y1: float, color: tuple[int, int, int]) -> None:
    xs, ys = _centres()
    img[(xs >= x0) & (xs <= x1) & (ys >= y0) & (ys <= y1)] = color


def _circle(img: np.ndarray, cx: float, cy: float, r: float, color: tuple[int, int, int]) -> None:
    xs, ys = _centres()
    img[(xs - cx) * (xs - cx) + (ys - cy) * (ys - cy) <= r * r] = color


def _triangle(img: np.ndarray, facing: int, color: tuple[int, int, int]) -> None:
    """The agent's triangle (0.12,0.19)-(0.87,0.50)-(0.12,0.81), turned by ``facing`` quarter turns.

    Each pixel centre is rotated back about the tile centre and tested with barycentric
    coordinates (u >= 0, v >= 0, u + v < 1), in the same operation order as the original.
    """
    xs, ys = _centres()
    theta = 0.5 * math.pi * facing
    cos, sin = math.cos(-theta), math.sin(-theta)
    x, y = xs - 0.5, ys - 0.5
    px = 0.5 + x * cos - y * sin
    py = 0.5 + y * cos + x * sin
    ax, ay = 0.12, 0.19
    v0 = (0.12 - ax, 0.81 - ay)  # c - a
    v1 = (0.87 - ax, 0.50 - ay)  # b - a
    v2x, v2y = px - ax, py - ay
    dot00 = v0[0] * v0[0] + v0[1] * v0[1]
    dot01 = v0[0] * v1[0] + v0[1] * v1[1]
    dot11 = v1[0] * v1[0] + v1[1] * v1[1]
    dot02 = v0[0] * v2x + v0[1] * v2y
    dot12 = v1[0] * v2x + v1[1] * v2y
    inv = 1 / (dot00 * dot11 - dot01 * dot01)
    u = (dot11 * dot02 - dot01 * dot12) * inv
    v = (dot00 * dot12 - dot01 * dot02) * inv
    img[(u >= 0) & (v >= 0) & ((u + v) < 1)] = color


@lru_cache(maxsize=64)
def word_image(word: str) -> np.ndarray:
    """The black square of a rule block with its word centred in light grey (OpenCV Hershey simplex)."""
    import cv2

    side = _N - 2 * _WORD_MARGIN
    img = np.zeros((side, side, 3), np.uint8)
    font = cv2.FONT_HERSHEY_SIMPLEX
    (tw, th), _ = cv2.getTextSize(word, font, 1, 3)
    origin = (int((side - tw) / 2), int((side + th) / 2))
    cv2.putText(img, word, origin, fontFace=font, fontScale=1, color=BLOCK, thickness=3)
    img.setflags(write=False)
    return img


def _object(img: np.ndarray, word: str, color: str | None, facing: int) -> None:
    shape = NOUNS[word]["shape"]
    if shape == "triangle":
        _triangle(img, facing, (255, 255, 255))
        return
    rgb = RGB[color or NOUNS[word]["color"]]
    if shape == "square":
        _rect(img, 0.2, 0.8, 0.2, 0.8, rgb)
    elif shape == "circle":
        _circle(img, 0.5, 0.5, 0.31, rgb)
    elif shape == "key":
        _rect(img, 0.50, 0.63, 0.31, 0.88, rgb)  # shaft
        _rect(img, 0.38, 0.50, 0.59, 0.66, rgb)  # teeth
        _rect(img, 0.38, 0.50, 0.81, 0.88, rgb)
        _circle(img, 0.56, 0.28, 0.190, rgb)  # ring
        _circle(img, 0.56, 0.28, 0.064, (0, 0, 0))
    elif shape == "door":
        _rect(img, 0.00, 1.00, 0.00, 1.00, rgb)
        _rect(img, 0.04, 0.96, 0.04, 0.96, (0, 0, 0))
        _rect(img, 0.08, 0.92, 0.08, 0.92, rgb)
        _rect(img, 0.12, 0.88, 0.12, 0.88, (0, 0, 0))
        _circle(img, 0.75, 0.50, 0.08, rgb)  # handle


@lru_cache(maxsize=512)
def tile(kind: str | None, word: str | None, color: str | None, facing: int) -> np.ndarray:
    """One 32x32 RGB tile for a cell's top object (``kind`` None for an empty cell)."""
    img = np.zeros((_N, _N, 3), dtype=np.uint8)
    _rect(img, 0, 0.031, 0, 1, GRID_LINE)
    _rect(img, 0, 1, 0, 0.031, GRID_LINE)
    if kind == BORDER:
        _rect(img, 0, 1, 0, 1, RGB["grey"])
    elif kind == OBJ:
        assert word is not None  # an object tile always names its noun
        _object(img, word, color, facing)
    elif kind is not None:  # a rule block
        _rect(img, 0.06, 0.94, 0.06, 0.94, BLOCK)
        m = _WORD_MARGIN
        img[m:-m, m:-m] = word_image(word or "")
    # average 3x3 sub-pixels (columns first, then rows, as the original) and truncate to uint8
    small: np.ndarray = img.reshape(TILE, SUB, TILE, SUB, 3).mean(axis=3).mean(axis=1).astype(np.uint8)
    small.setflags(write=False)
    return small


def render(world: World) -> np.ndarray:
    """The full-grid RGB image (height x width x 3, uint8) of the cells' top objects."""
    out = np.zeros((world.height * TILE, world.width * TILE, 3), dtype=np.uint8)
    for y in range(world.height):
        for x in range(world.width):
            o = world.top(x, y)
            t = tile(None, None, None, 0) if o is None else tile(o[0], o[1], o[2], o[3] if o[0] == OBJ else 0)
            out[y * TILE:(y + 1) * TILE, x * TILE:(x + 1) * TILE] = t
    return out

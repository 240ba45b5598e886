"""RGB arrays to the PNG images a model is sent."""

from typing import Any

import numpy as np

from playbench.core.png import png_bytes
from playbench.models.types import Image


def to_png(array: Any) -> Image:
    """An ``H×W×3`` uint8 frame as a PNG :class:`Image`: the bytes a run records as the step's frame file."""
    height, width = np.shape(array)[:2]
    return Image(png=png_bytes(array), width=width, height=height)

"""RGB arrays to PNG bytes, without an imaging library."""

import struct
import zlib

import numpy as np

from playbench.models.types import Image


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def to_png(array: np.ndarray) -> Image:
    """An ``H×W×3`` (or ``H×W×4``) uint8 array as a PNG :class:`Image`."""
    arr = np.asarray(array)
    if arr.ndim == 2:
        arr = np.stack([arr] * 3, axis=-1)
    arr = arr.astype(np.uint8, copy=False)
    height, width, channels = arr.shape
    color = {3: 2, 4: 6}[channels]
    raw = b"".join(b"\x00" + arr[y].tobytes() for y in range(height))
    png = (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, color, 0, 0, 0))
           + _chunk(b"IDAT", zlib.compress(raw, 6)) + _chunk(b"IEND", b""))
    return Image(png=png, width=width, height=height)

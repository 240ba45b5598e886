"""The one PNG encoding of a game's frame.

A run sends these bytes to the model and records the same bytes as the step's frame file, so the digest in a
recorded request is the frame file's. The encoding is BALROG's client's (``balrog/client.py``,
``process_image_openai``): Pillow's ``save(format="PNG")`` of the frame as an RGB image, byte for byte.
"""

import io
from typing import Any

import numpy as np


def png_bytes(array: Any) -> bytes:
    """An ``H×W×3`` uint8 frame as PNG bytes (grey ``H×W`` and ``H×W×4`` frames are converted to RGB first).

    BALROG's environments hand its client ``Image.fromarray(render).convert("RGB")`` and the client saves that
    with Pillow's default PNG settings; so does this, so the bytes are BALROG's for the same pixels.
    """
    from PIL import Image  # loads only when a frame is encoded

    image = Image.fromarray(np.asarray(array, dtype=np.uint8))
    if image.mode != "RGB":
        image = image.convert("RGB")
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()

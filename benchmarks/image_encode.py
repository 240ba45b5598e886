"""PNG encoding of a frame: Pillow (what playbench sends and records, BALROG's client's bytes) vs the
numpy + zlib encoder playbench used before (filter 0 on every row, zlib level 6).

    .venv/bin/python benchmarks/image_encode.py [--repeat 50]

Frames: BALROG's Crafter (256×256) and NetHack (1264×336 tiles) VLM images at reset, seed 0. Prints
milliseconds per encoding (min / median / max) and the PNG size of each. A run encodes each step's frame
twice (the request's image, then the recorded frame file): goal, each encoding well under a model's answer
time (< 20 ms for the NetHack frame).
"""

import argparse
import struct
import zlib

import numpy as np
from common import interleaved, machine_note, spread

from playbench.core.png import png_bytes
from playbench.core.registry import get_task

FRAMES = {"crafter": "balrog/crafter/default", "nethack": "balrog/nle/nethackchallenge"}


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def old_png(array: np.ndarray) -> bytes:
    """The encoder playbench sent with before (rows unfiltered, one IDAT chunk)."""
    height, width, _ = array.shape
    raw = b"".join(b"\x00" + array[y].tobytes() for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(raw, 6))
            + _chunk(b"IEND", b""))


def frame(task_id: str) -> np.ndarray:
    task = get_task(task_id)
    game = task.make_game(task.params({"images": "true"}), 0)
    _, info = game.reset(seed=0)
    return np.asarray(info["image"], dtype=np.uint8)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()
    print(machine_note())
    for name, task_id in FRAMES.items():
        image = frame(task_id)
        samples = interleaved({"pillow": lambda image=image: png_bytes(image),
                               "old": lambda image=image: old_png(image)}, args.repeat)
        for variant, s in samples.items():
            print(f"{name} {image.shape[1]}x{image.shape[0]} {variant:6s}: {spread(s.wall, 1000, 2)} ms per frame, "
                  f"{len(s.results[0]):,} bytes (goal < 20 ms)")


if __name__ == "__main__":
    main()

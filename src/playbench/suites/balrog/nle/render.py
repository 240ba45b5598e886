"""BALROG's NetHack/MiniHack observation views: hybrid text (text mode), language text + tile image (VLM mode).

The texts are the NLE language wrapper's own (``Engine.language_obs``); this module only lays them out
(§6.5) and paints the 16x16 NetHack tiles for the 21x79 glyph map (1264x336 RGB).
"""

from functools import cache
from importlib import resources
from typing import Any

import numpy as np

TILE = 16


def _part(name: str, value: str) -> str:
    return f"{name}:\n{value}\n"


def tty_map(tty_chars: np.ndarray) -> str:
    """Rows 1..23 of the 24x80 tty screen (the map and the two status lines), each followed by a newline."""
    return "".join(bytes(row).decode("latin-1") + "\n" for row in tty_chars[1:])


def contexts(lang: dict[str, str], message: str, obs: dict[str, Any], mode: str) -> tuple[str, str]:
    """(long-term, short-term) context texts of one observation in ``text`` (hybrid) or ``vlm`` (language) mode."""
    if mode == "vlm":
        long_term = "\n".join(
            [
                _part("message", message),
                _part("language observation", lang["text_glyphs"]),
                _part("cursor", lang["text_cursor"]),
            ]
        )
        short_term = "\n".join([_part("statistics", lang["text_blstats"]), _part("inventory", lang["text_inventory"])])
        return long_term, short_term
    row, col = (int(v) for v in obs["tty_cursor"])
    long_term = "\n".join(
        [
            _part("message", message),
            _part("language observation", lang["text_glyphs"]),
            _part("cursor", f"{lang['text_cursor']}\n(x={col}, y={row})"),
            _part("map", tty_map(obs["tty_chars"])),
        ]
    )
    return long_term, _part("inventory", lang["text_inventory"])


@cache
def _tile_atlas() -> tuple[np.ndarray, np.ndarray]:
    """(glyph -> tile index, tile index -> 16x16x3 RGB): NetHack 3.6's tileset as packaged by MiniHack."""
    import pickle

    from playbench.suites.balrog.nle.engine import modules

    glyph2tile = np.asarray(modules()["nethack"].glyph2tile, dtype=np.int64)
    raw = resources.files("minihack.tiles").joinpath("tiles.pkl").read_bytes()
    tiles = pickle.loads(raw)  # a trusted package data file shipped with minihack, not model output
    atlas = np.zeros((max(tiles) + 1, TILE, TILE, 3), dtype=np.uint8)
    for index, tile in tiles.items():
        atlas[index] = np.asarray(tile, dtype=np.uint8)
    return glyph2tile, atlas


def tile_image(glyphs: np.ndarray) -> np.ndarray:
    """The RGB tile image of a glyph map: (rows*16, cols*16, 3) uint8, i.e. 336x1264 for NetHack's 21x79."""
    glyph2tile, atlas = _tile_atlas()
    tiles = atlas[glyph2tile[glyphs]]  # (rows, cols, 16, 16, 3)
    rows, cols = glyphs.shape
    return tiles.transpose(0, 2, 1, 3, 4).reshape(rows * TILE, cols * TILE, 3)

"""A cache of generated Crafter worlds: a world depends only on its world seed, so it is built once.

After generation a world is fully described by its material map, its creatures (kind and position, in
insertion order; their constructors draw no random numbers) and the state of the world's random
generator. Restoring those gives the same world state as generating it, including the chunk order and
the random stream that the episode continues from (tested against fresh generation).

Worlds are kept in memory (the most recent 64) and on disk under the user's cache directory
(``platformdirs``: ``playbench/crafter-worlds``, or ``$PLAYBENCH_CRAFTER_WORLDS``; ``off`` disables the
disk cache), keyed by world seed, area and the crafter and opensimplex versions. Evaluating several models
on the same episode seeds therefore generates each world once.
"""

import contextlib
import os
import tempfile
from collections import OrderedDict
from importlib.metadata import version
from pathlib import Path
from typing import Any

import numpy as np
import platformdirs
from crafter import objects

FORMAT = 1
_MEMORY: OrderedDict[tuple[int, int, int], dict[str, Any]] = OrderedDict()
_MEMORY_SIZE = 64
_KINDS = {"Cow": objects.Cow, "Zombie": objects.Zombie, "Skeleton": objects.Skeleton}


def cache_dir() -> Path | None:
    """The on-disk cache directory, or None when disabled."""
    env = os.environ.get("PLAYBENCH_CRAFTER_WORLDS")
    if env and env.lower() in ("off", "0", "false", "none"):
        return None
    root = Path(env) if env else Path(platformdirs.user_cache_dir("playbench")) / "crafter-worlds"
    return root / f"v{FORMAT}-crafter{version('crafter')}-opensimplex{version('opensimplex')}"


def snapshot(world: Any) -> dict[str, Any]:
    """The generated world: materials, creatures after the player, random generator state."""
    creatures = [obj for obj in world._objects[2:] if obj is not None]
    _, keys, pos, has_gauss, gauss = world.random.get_state()
    return {
        "mat_map": world._mat_map.copy(),
        "kinds": np.array([type(o).__name__ for o in creatures], dtype="U8"),
        "positions": np.array([o.pos for o in creatures], dtype=np.int64).reshape(-1, 2),
        "keys": np.asarray(keys, dtype=np.uint32).copy(),
        "rng": np.array([pos, has_gauss], dtype=np.int64),
        "gauss": np.array([gauss], dtype=np.float64),
    }


def restore(world: Any, player: Any, snap: dict[str, Any]) -> None:
    """Rebuild a generated world into ``world`` (reset, with the player already added)."""
    world._mat_map[...] = snap["mat_map"]
    for kind, (x, y) in zip(snap["kinds"].tolist(), snap["positions"].tolist(), strict=True):
        cls = _KINDS[kind]
        world.add(cls(world, (x, y)) if cls is objects.Cow else cls(world, (x, y), player))
    pos, has_gauss = (int(v) for v in snap["rng"])
    world.random.set_state(("MT19937", snap["keys"], pos, has_gauss, float(snap["gauss"][0])))


def _path(world_seed: int, area: tuple[int, int]) -> Path | None:
    root = cache_dir()
    return None if root is None else root / f"{area[0]}x{area[1]}-{world_seed}.npz"


def load(world_seed: int, area: tuple[int, int]) -> dict[str, Any] | None:
    """A cached world, from memory or disk; None if absent or unreadable."""
    key = (world_seed, int(area[0]), int(area[1]))
    if key in _MEMORY:
        _MEMORY.move_to_end(key)
        return _MEMORY[key]
    path = _path(world_seed, area)
    if path is None or not path.exists():
        return None
    try:
        with np.load(path, allow_pickle=False) as data:
            snap = {name: data[name] for name in data.files}
    except (OSError, ValueError, KeyError):
        return None
    _remember(key, snap)
    return snap


def store(world_seed: int, area: tuple[int, int], snap: dict[str, Any], disk: bool = True) -> None:
    """Keep a generated world in memory and, when enabled and ``disk``, on disk (atomically)."""
    _remember((world_seed, int(area[0]), int(area[1])), snap)
    path = _path(world_seed, area)
    if path is None or not disk:
        return
    with contextlib.suppress(OSError):  # a read-only or full cache directory only costs speed
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".npz.tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                np.savez(handle, **snap)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)


def _remember(key: tuple[int, int, int], snap: dict[str, Any]) -> None:
    _MEMORY[key] = snap
    _MEMORY.move_to_end(key)
    while len(_MEMORY) > _MEMORY_SIZE:
        _MEMORY.popitem(last=False)


def clear_memory() -> None:
    """Forget the in-memory worlds (tests)."""
    _MEMORY.clear()

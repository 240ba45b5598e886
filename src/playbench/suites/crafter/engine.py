"""A reproducible, optionally render-free wrapper over the real ``crafter`` package (PyPI 1.8.3).

Three changes to the stock ``crafter.Env``, none of which alters a world:

* **Stable creature order.** Every 10th step crafter balances each chunk's creatures, iterating a
  Python ``set`` whose order follows memory addresses, and picks the creature to despawn by index into
  that order. Here each chunk's objects are sorted by their insertion index in the world's object list
  first, so the same seed and actions give the same trajectory in any process (SmartPlay B12).
* **Text-only mode.** Rendering at night draws a noise image from the world's generator. Without
  rendering, the same draw is made and discarded, so the world's random stream, and everything after,
  is identical to the rendering mode, while skipping all image work.
* **Fast world generation** (``fastgen``): the same worlds, generated several times faster, and
  cached by world seed (``worldcache``) so that a world is generated once.

The world seed is crafter's own: ``hash((seed, episode)) % (2**31 - 1)`` with episode 1 for a fresh
episode seed (the hash of a tuple of ints is the same in every process).
"""

import contextlib
import io
from typing import Any

import numpy as np

with contextlib.redirect_stderr(io.StringIO()):  # crafter imports legacy gym, which prints a banner
    import crafter
from crafter import constants, objects

from playbench.suites.crafter import fastgen, worldcache

#: Crafter's internal action names in index order.
ACTION_NAMES: tuple[str, ...] = tuple(constants.actions)
#: The 22 achievements in crafter's order.
ACHIEVEMENTS: tuple[str, ...] = tuple(constants.achievements)
#: Inventory items that are not vitals, in crafter's order.
VITALS: tuple[str, ...] = ("health", "food", "drink", "energy")
ITEMS: tuple[str, ...] = tuple(k for k in constants.items if k not in VITALS)


class CrafterEngine(crafter.Env):  # type: ignore[misc]  # crafter ships no types: Env is Any to mypy
    """``crafter.Env`` made reproducible, with an optional text-only (render-free) mode.

    Worlds and trajectories equal those of stock crafter with a stable creature order (see
    :class:`StableOrderEnv`), with or without rendering.

    ``render_images=False`` skips all rendering but burns the night-noise draw exactly as the
    renderer would, so trajectories are identical to ``render_images=True``. ``fast_worldgen``
    selects the faster (identical) world generator and ``world_cache`` the cache of generated worlds
    (``disk_cache = False`` keeps the worlds it generates in memory only);
    ``stable_order=False`` restores the stock, non-reproducible chunk balancing (only to show the bug).
    """

    def __init__(self, *, area: tuple[int, int] = (64, 64), view: tuple[int, int] = (9, 9),
                 size: tuple[int, int] = (64, 64), reward: bool = True, length: int | None = 10000,
                 seed: int = 0, render_images: bool = True, fast_worldgen: bool = True,
                 stable_order: bool = True, world_cache: bool = True) -> None:
        super().__init__(area=area, view=view, size=size, reward=reward, length=length, seed=int(seed))
        self.render_images = render_images
        self.fast_worldgen = fast_worldgen
        self.world_cache = world_cache and fast_worldgen
        self.disk_cache = True  # False: worlds it generates are kept in memory only
        self.stable_order = stable_order
        grid = np.array(self._local_view._grid)
        unit = np.array(self._size) // np.array(self._view)
        self._noise_shape = tuple(int(v) for v in grid * unit)
        self.last_image: np.ndarray | None = None
        self._sem_view: _CachedSemantic = _CachedSemantic(self._sem_view, self)
        self._names: list[str] | None = None
        self.generation = 0  # counts resets, for the semantic-map cache

    # -- episodes ------------------------------------------------------------------------------

    def reset_seed(self, seed: int) -> np.ndarray | None:
        """Start a fresh episode whose world is the first world of ``crafter.Env(seed=seed)``."""
        self._seed = int(seed)
        self._episode = 0
        return self.reset()

    def reset(self) -> np.ndarray | None:
        """Crafter's reset, with the faster (identical) world generator when enabled."""
        self.generation += 1
        if not self.fast_worldgen:
            stock: np.ndarray | None = super().reset()
            return stock
        center = (self._world.area[0] // 2, self._world.area[1] // 2)
        self._episode += 1
        self._step = 0
        world_seed = hash((self._seed, self._episode)) % (2**31 - 1)
        self._world.reset(seed=world_seed)
        self._update_time()
        self._player = objects.Player(self._world, center)
        self._last_health = self._player.health
        self._world.add(self._player)
        self._unlocked: set[str] = set()
        cached = worldcache.load(world_seed, self._area) if self.world_cache else None
        if cached is not None:
            worldcache.restore(self._world, self._player, cached)
        else:
            fastgen.generate_world(self._world, self._player)
            if self.world_cache:
                worldcache.store(world_seed, self._area, worldcache.snapshot(self._world), disk=self.disk_cache)
        return self._obs()

    # -- stepping --------------------------------------------------------------------------------

    def step(self, action: int) -> tuple[np.ndarray | None, float, bool, dict[str, Any]]:
        """One crafter step: the same updates, balancing, reward and info as ``crafter.Env.step``.

        Only the update-range test is computed on Python integers instead of NumPy arrays (the same
        Manhattan distance), which makes the text-only mode several times faster than stock stepping.
        """
        self._step += 1
        self._update_time()
        player = self._player
        player.action = constants.actions[action]
        reach = 2 * int(max(self._view))
        for obj in self._world.objects:  # a copy: creatures may be added or removed while updating
            ppos, opos = player.pos, obj.pos
            if abs(int(opos[0]) - int(ppos[0])) + abs(int(opos[1]) - int(ppos[1])) < reach:
                obj.update()
        if self._step % 10 == 0:
            for chunk, objs in self._world.chunks.items():
                self._balance_chunk(chunk, objs)
        obs = self._obs()
        reward = (player.health - self._last_health) / 10
        self._last_health = player.health
        unlocked = {name for name, count in player.achievements.items() if count > 0 and name not in self._unlocked}
        if unlocked:
            self._unlocked |= unlocked
            reward += 1.0
        dead = player.health <= 0
        over = bool(self._length) and self._step >= self._length
        info = {
            "inventory": player.inventory.copy(),
            "achievements": player.achievements.copy(),
            "discount": 1 - float(dead),
            "semantic": self._sem_view(),
            "player_pos": player.pos,
            "reward": reward,
        }
        if not self._reward:
            reward = 0.0
        return obs, reward, dead or over, info

    # -- the three changes ---------------------------------------------------------------------

    def _obs(self) -> np.ndarray | None:
        if self.render_images:
            self.last_image = self.render()
            return self.last_image
        # The local view draws this noise at night (crafter.engine.LocalView._noise): burn it.
        if self._world.daylight < 0.5:
            self._world.random.uniform(32, 127, self._noise_shape)
        self.last_image = None
        return None

    def render_again(self) -> np.ndarray | None:
        """Render the current frame once more, as a wrapper that renders each frame twice does.

        At night crafter draws the second image's noise from the world's generator too (burnt in text-only
        mode), so the world's random stream then follows that wrapper's; the new image replaces ``last_image``.
        """
        return self._obs()

    def _balance_object(self, chunk: Any, objs: Any, *args: Any) -> None:
        if self.stable_order:
            obj_map = self._world._obj_map
            objs = sorted(objs, key=lambda obj: int(obj_map[obj.pos[0], obj.pos[1]]))
        super()._balance_object(chunk, objs, *args)

    # -- state, for descriptors and reference policies ------------------------------------------

    @property
    def player(self) -> Any:
        """The player object (position, facing, inventory, achievements, sleeping)."""
        return self._player

    @property
    def world(self) -> Any:
        """The crafter world (materials, objects, daylight, random generator)."""
        return self._world

    @property
    def step_count(self) -> int:
        """Engine steps since reset (the hidden reset tick of the suites counts)."""
        return int(self._step or 0)

    def semantic(self) -> np.ndarray:
        """The whole world's semantic map: material ids 1-12 and object ids 13-18 (do not modify)."""
        return self._sem_view.current()

    def unlocked(self) -> list[str]:
        """Achievements unlocked so far, in crafter's order."""
        return [a for a in ACHIEVEMENTS if self._player.achievements.get(a, 0) > 0]

    def id_names(self) -> list[str]:
        """Name of every semantic id (index 0 is ``None``, outside the world)."""
        if self._names is None:
            view = self._sem_view.view
            names = ["None"] * (len(view._mat_ids) + len(view._obj_ids))
            for name, index in view._mat_ids.items():
                if name is not None:
                    names[index] = str(name)
            for cls, index in view._obj_ids.items():
                names[index] = cls.__name__.lower()
            self._names = names
        return self._names


class _CachedSemantic:
    """crafter's semantic view, remembering the map it computed at the end of the latest step."""

    def __init__(self, view: Any, engine: CrafterEngine) -> None:
        self.view = view
        self._engine = engine
        self._key: tuple[int, int, int] | None = None
        self._map: np.ndarray | None = None

    def forget(self) -> None:
        """Drop the cached map (after changing the world by hand)."""
        self._key = None

    def _token(self) -> tuple[int, int, int]:
        engine = self._engine
        return (engine.generation, engine._episode, int(engine._step or 0))

    def __call__(self) -> np.ndarray:
        self._map = self.view()
        self._key = self._token()
        return self._map.copy()

    def current(self) -> np.ndarray:
        """The map now: cached if nothing has stepped since it was computed."""
        if self._key != self._token() or self._map is None:
            self._map = self.view()
            self._key = self._token()
        return self._map


def world_fingerprint(engine: crafter.Env) -> tuple[bytes, tuple[tuple[str, int, int, int], ...], tuple[Any, ...]]:
    """Everything that identifies a world state: materials, objects (with health) and the RNG state."""
    world = engine._world
    objs = tuple((type(o).__name__, int(o.pos[0]), int(o.pos[1]), int(o.health)) for o in world.objects)
    state = world.random.get_state()
    return world._mat_map.tobytes(), objs, (int(state[2]), state[1].tobytes())


class StableOrderEnv(crafter.Env):  # type: ignore[misc]  # crafter ships no types: Env is Any to mypy
    """Stock ``crafter.Env`` with only the stable creature order: the reference the tests compare against."""

    def _balance_object(self, chunk: Any, objs: Any, *args: Any) -> None:
        obj_map = self._world._obj_map
        super()._balance_object(chunk, sorted(objs, key=lambda obj: int(obj_map[obj.pos[0], obj.pos[1]])), *args)

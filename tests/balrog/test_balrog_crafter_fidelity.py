"""BALROG's Crafter against stock crafter driven as BALROG's wrapper drives it: two renders a step (the world's
random stream at night, the image shown) and the text at the world's edges (an empty window at the low edges)."""

import os
import tempfile

# generated worlds are cached on disk: keep the tests' cache out of the user's cache directory
os.environ.setdefault("PLAYBENCH_CRAFTER_WORLDS", tempfile.mkdtemp(prefix="playbench-crafter-worlds-"))

from typing import Any

import numpy as np
import pytest

from playbench.core.registry import get_task
from playbench.suites.balrog.crafter.game import BalrogCrafter
from playbench.suites.balrog.crafter.params import BalrogCrafterParams
from playbench.suites.crafter import describe
from playbench.suites.crafter.engine import CrafterEngine, StableOrderEnv, world_fingerprint
from playbench.suites.crafter.prompts import ACTIONS

BALROG_ROW = get_task("balrog/crafter/default").facts
SEED = 7  # a noop player there lives through the night's first zombies (seed 4 dies at step 159)
#: Crafter's first night: daylight < 0.5 for steps 149..271 (``1 - |cos(pi * (t / 300 + 0.3))| ** 3``).
STEPS = 175


def _expected_text(env: Any) -> str:
    """BALROG's long-term text of a stock env, read the way its wrapper reads it (balrog.md §6.2).

    The window is ``semantic[x-4 : x+5, y-3 : y+4]`` with Python's slicing (a negative start wraps, so the
    window comes out empty), the player at (4, 3) in it, names in the order first met.
    """
    view = getattr(env._sem_view, "view", env._sem_view)  # crafter's own semantic view under playbench's cache
    semantic = view()
    names = ["None"] * 19
    for name, index in view._mat_ids.items():
        names[index] = str(name)
    for cls, index in view._obj_ids.items():
        names[index] = cls.__name__.lower()
    px, py = (int(v) for v in env._player.pos)
    window = semantic[px - 4: px + 5, py - 3: py + 4]
    nearest: dict[str, tuple[int, str]] = {}
    for i in range(window.shape[0]):
        for j in range(window.shape[1]):
            dx, dy = i - 4, j - 3
            if (dx, dy) == (0, 0):
                continue
            dist = abs(dx) + abs(dy)
            where = "-".join([w for w, on in (("north", dy < 0), ("south", dy > 0)) if on]
                             + [w for w, on in (("west", dx < 0), ("east", dx > 0)) if on])
            name = names[int(window[i, j])]
            if name not in nearest or dist < nearest[name][0]:
                nearest[name] = (dist, f"{dist} step{'s' if dist > 1 else ''} to your {where}")
    seen = ("You see:\n" + "\n".join(f"- {n} {loc}" for n, (_, loc) in nearest.items())) if nearest \
        else "You see nothing away from you."
    tx, ty = 4 + int(env._player.facing[0]), 3 + int(env._player.facing[1])
    front = names[int(window[tx, ty])] if 0 <= tx < window.shape[0] and 0 <= ty < window.shape[1] else "nothing"
    status = describe.SLEEPING if env._player.sleeping else describe.DIED if env._player.health <= 0 else ""
    return ((status + "\n\n" if status else "") + "\n\n" + seen + f"\n\nYou face {front} at your front.").strip()


def _stock_balrog(seed: int, actions: list[int]) -> list[tuple[Any, str, np.ndarray]]:
    """Stock crafter (stable creature order) at BALROG's config, rendered again after each step as BALROG's
    ``process_obs`` does; after each step: the world's fingerprint, the text and the image shown."""
    env = StableOrderEnv(area=(64, 64), view=(9, 9), size=(256, 256), seed=seed)
    env.reset()
    env.step(0)  # BALROG's reset: a noop step, then process_obs
    env.render()
    out = []
    for action in actions:
        _, _, done, _ = env.step(action)
        image = env.render()
        out.append((world_fingerprint(env), _expected_text(env), image))
        if done:
            break
    return out


def _daylight(step: int) -> float:
    return float(1 - np.abs(np.cos(np.pi * (step / 300 + 0.3))) ** 3)


def test_night_draws_noise_twice_a_step_as_balrog():
    actions = [0] * STEPS
    expected = _stock_balrog(SEED, actions)
    assert len(expected) == STEPS and sum(_daylight(t + 2) < 0.5 for t in range(STEPS)) > 20  # night came
    game = BalrogCrafter(BalrogCrafterParams(), BALROG_ROW)
    game.reset(seed=SEED)
    for t, action in enumerate(actions):
        obs, _, terminated, truncated, _ = game.step(ACTIONS[action])
        fingerprint, text, _ = expected[t]
        assert world_fingerprint(game.engine) == fingerprint, f"step {t + 1}"
        assert obs == text, f"step {t + 1}"
        assert not (terminated or truncated)


def test_the_image_shown_is_the_second_render():
    actions = [0] * 152  # the first night's first steps
    expected = _stock_balrog(SEED, actions)
    game = BalrogCrafter(BalrogCrafterParams(images=True), BALROG_ROW)
    game.reset(seed=SEED)
    for action in actions:
        _, _, _, _, info = game.step(ACTIONS[action])
    assert _daylight(game.engine.step_count) < 0.5
    assert np.array_equal(info["image"], expected[-1][2])


def _engine_at(spot: tuple[int, int], facing: tuple[int, int], sleeping: bool = False) -> CrafterEngine:
    """A world with the player moved to ``spot`` (made grass), facing ``facing``."""
    engine = CrafterEngine(seed=0, render_images=False)
    engine.reset()
    world, player = engine.world, engine.player
    if world[spot][1] is not None:
        world.remove(world[spot][1])
    world[spot] = "grass"
    world.move(player, spot)
    player.facing = facing
    player.sleeping = sleeping
    engine._sem_view.forget()
    return engine


@pytest.mark.parametrize(("spot", "facing", "sleeping"), [
    ((0, 30), (-1, 0), False),  # west edge, facing out of the world
    ((3, 30), (1, 0), False),  # x - 4 < 0: the window is empty although the facing cell is in the world
    ((30, 2), (0, -1), True),  # y - 3 < 0, asleep: the status line stays
    ((4, 3), (-1, 0), False),  # the first spot whose window starts at 0: the whole window
    ((63, 30), (1, 0), False),  # east edge: the window is cut at the world, facing out of it
    ((30, 63), (0, 1), False),  # south edge
    ((62, 61), (0, 1), False),
])
def test_text_at_the_edges_is_balrogs(spot, facing, sleeping):
    engine = _engine_at(spot, facing, sleeping)
    text = describe.balrog_long_term(describe.window(engine))
    assert text == _expected_text(engine)
    assert describe.OUT_OF_MAP not in text
    if spot[0] < 4 or spot[1] < 3:
        assert text.endswith("You see nothing away from you.\n\nYou face nothing at your front.")

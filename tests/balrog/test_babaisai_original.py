"""Baba Is AI levels and images equal the original's (nacloos/baba-is-ai as BALROG runs it) seed for seed.

``tests/data/balrog/babaisai_levels.json`` holds facts recorded from the original: for each of the 40
BALROG env ids and seeds 0-4, 1234567 and 4294967295, the env was made with BALROG's ``make_env`` and
reset as BALROG's evaluator does (``random.seed(s); np.random.seed(s); env.reset(seed=s)``). Per state:
every cell's stack (bottom first, the fixed border left out), the active rules as BALROG lists them,
the agent's position and facing, ``target_plan``, and SHA-256 prefixes of the text observation and of
the RGB image BALROG's VLM mode receives. ``runs`` are four short action sequences with the same facts
after every step; ``resets`` break ``baba is you`` (BALROG then resets the env mid-episode, bug B15).
The recorder ran outside the repository (see tests/data/balrog/babaisai_levels.md).
"""

import hashlib
import json
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from playbench.core.errors import PlaybenchError
from playbench.core.registry import get_task
from playbench.suites.balrog.babaisai.engine import BORDER, OBJ, World
from playbench.suites.balrog.babaisai.game import BabaGame
from playbench.suites.balrog.babaisai.levels import generate, level_rng
from playbench.suites.balrog.babaisai.render import render
from playbench.suites.balrog.babaisai.text import observation_text


def _row(name: str):  # noqa: ANN202
    """The facts row of ``balrog/babaisai/NAME``: the row its task hands the game."""
    return get_task(f"balrog/babaisai/{name}").facts


DATA = json.loads((Path(__file__).parents[1] / "data" / "balrog" / "babaisai_levels.json").read_text())
LEVEL_IDS = list(DATA["levels"])


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def image_sha(img: np.ndarray) -> str:
    return sha(np.ascontiguousarray(img, dtype=np.uint8).tobytes())


def token(o: tuple) -> str | None:
    """The recorder's name of an object: ``rule:<word>``, ``<noun>:<colour>`` (baba: ``:<facing>``)."""
    if o[0] == BORDER:
        return None
    if o[0] == OBJ:
        return f"{o[1]}:{o[2]}" + (f":{o[3]}" if o[1] == "baba" else "")
    return f"rule:{o[1]}"


def facts(w: World) -> dict:
    cells = []
    for y in range(w.height):
        for x in range(w.width):
            stack = [t for t in map(token, w.cells[y * w.width + x]) if t]
            if stack:
                cells.append([x, y, stack])
    you = w.you_positions()
    return {"size": [w.width, w.height], "cells": cells, "rules": w.rules.lines(),
            "agent": [*you[-1], w.facing] if you else None}


def test_the_recording_covers_all_forty_ids_and_several_seeds():
    assert len(LEVEL_IDS) == 40 and len(DATA["seeds"]) >= 5
    assert all(list(per) == [str(s) for s in DATA["seeds"]] for per in DATA["levels"].values())


@pytest.mark.parametrize("env_id", LEVEL_IDS)
def test_level_equals_the_originals_for_every_recorded_seed(env_id):
    for seed, want in DATA["levels"][env_id].items():
        level = generate(env_id.removeprefix("env/"), level_rng(int(seed)))
        got = facts(level.world)
        for key in ("size", "cells", "rules", "agent"):
            assert got[key] == want[key], (env_id, seed, key)
        assert level.target_plan == want["target_plan"], (env_id, seed)
        assert sha(observation_text(level.world, True, False).encode()) == want["text_sha"], (env_id, seed)


def test_images_equal_the_originals_pixel_for_pixel():
    """All recorded initial states (8x8 and 13x9): the image's SHA-256 equals the original's."""
    wrong = []
    for env_id, per in DATA["levels"].items():
        for seed, want in per.items():
            world = generate(env_id.removeprefix("env/"), level_rng(int(seed))).world
            if image_sha(render(world)) != want["image_sha"]:
                wrong.append((env_id, seed))
    assert not wrong


def test_tile_mean_colours_match_the_originals():
    """A readable fingerprint of two images: the mean colour of every tile (diagnoses a hash mismatch)."""
    for key, means in DATA["tile_means"].items():
        env_id, seed = key.split("#")
        img = render(generate(env_id.removeprefix("env/"), level_rng(int(seed))).world).astype(np.float64)
        h, w = img.shape[0] // 32, img.shape[1] // 32
        got = img.reshape(h, 32, w, 32, 3).mean(axis=(1, 3))
        np.testing.assert_allclose(got, np.array(means), atol=0.006)


@pytest.mark.parametrize("run", DATA["runs"], ids=lambda r: f"{r['task']}#{r['seed']}")
def test_steps_images_and_texts_follow_the_original(run):
    """Baba turning and moving in all four directions, pushing blocks: facts, text, image, reward per step."""
    world = generate(run["task"].removeprefix("env/"), level_rng(run["seed"])).world
    for i, want in enumerate(run["steps"]):
        reward, done, _, _ = world.step(want["action"])
        got = facts(world)
        for key in ("cells", "rules", "agent"):
            assert got[key] == want[key], (i, key)
        assert sha(observation_text(world, True, False).encode()) == want["text_sha"], i
        assert image_sha(render(world)) == want["image_sha"], i
        assert reward == pytest.approx(want["reward"], abs=1e-12) and done == want["done"], i


@pytest.mark.parametrize("env_id", ["env/goto_win", "env/two_room-make_you-make_win", "env/two_room-make_wall_win"])
def test_the_episode_seed_is_the_seed_balrog_gives_the_original(env_id):
    """``Game.reset(seed=s)`` plays the original's level for ``np.random.seed(s)``, image included."""
    game = BabaGame(_row(env_id.removeprefix("env/")), images=True)
    for seed in (0, 4294967295):
        _, info = game.reset(seed=seed)
        want = DATA["levels"][env_id][str(seed)]
        assert game.world is not None and facts(game.world)["cells"] == want["cells"]
        assert image_sha(np.asarray(info["image"])) == want["image_sha"]
        assert game.instance()["seed"] == seed and game.instance()["target_plan"] == want["target_plan"]


def test_image_mode_refuses_opencv_5_with_a_clear_line(monkeypatch):
    fake = types.ModuleType("cv2")
    fake.__version__ = "5.0.0"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "cv2", fake)
    with pytest.raises(PlaybenchError, match="OpenCV 4"):
        BabaGame(_row("goto_win"), images=True)
    BabaGame(_row("goto_win"), images=False)  # text mode does not need OpenCV


@pytest.mark.parametrize("run", DATA["resets"], ids=lambda r: f"{r['task']}#{r['seed']}")
def test_compat_mid_episode_reset_regenerates_the_originals_next_level(run):
    """B15 (compat): breaking ``baba is you`` makes BALROG reset the env, drawing the next level from the
    same RNG stream; the new level, text (addresses as the fixed placeholder) and image are the original's."""
    game = BabaGame(_row(run["task"].removeprefix("env/")), compat=True, images=True)
    game.reset(seed=run["seed"])
    for i, want in enumerate(run["steps"]):
        _, reward, term, trunc, info = game.step(want["action"])
        assert game.world is not None
        got = facts(game.world)
        for key in ("cells", "rules", "agent"):
            assert got[key] == want[key], (i, key)
        assert sha(info["long_term_context"].encode()) == want["text_sha"], i
        assert image_sha(np.asarray(info["image"])) == want["image_sha"], i
        assert game.stats()["target_plan"] == want["target_plan"], i
        assert reward == pytest.approx(want["reward"], abs=1e-12) and (term or trunc) == want["done"], i
    assert game.stats()["level_resets"] == 1

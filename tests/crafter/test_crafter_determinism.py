"""Crafter reproducibility: same seed and actions give the same trajectory in one process and across real
processes (B12); the text-only mode equals the rendering mode for 1,000 steps crossing nights; the faster
world generator builds the stock worlds."""

import os
import tempfile

# generated worlds are cached on disk: keep the tests' cache out of the user's cache directory
os.environ.setdefault("PLAYBENCH_CRAFTER_WORLDS", tempfile.mkdtemp(prefix="playbench-crafter-worlds-"))


import hashlib
import json
import os
import subprocess
import sys

import crafter
import numpy as np
import opensimplex
import pytest

from playbench.core.registry import get_task
from playbench.suites.balrog.crafter.game import BalrogCrafter
from playbench.suites.balrog.crafter.params import BalrogCrafterParams
from playbench.suites.crafter import worldcache
from playbench.suites.crafter.engine import CrafterEngine, StableOrderEnv, world_fingerprint
from playbench.suites.crafter.fastgen import FastSimplex
from playbench.suites.crafter.games import world_seed
from playbench.suites.crafter.prompts import ACTIONS
from playbench.suites.smartplay.crafter.game import SmartPlayCrafter
from playbench.suites.smartplay.crafter.params import SmartPlayCrafterParams

#: The facts rows the games are handed (as their tasks hand them).
SMARTPLAY_ROW = get_task("smartplay/crafter").facts
BALROG_ROW = get_task("balrog/crafter/default").facts

SEED = 11
ACTIONS_1000 = np.random.default_rng(5).integers(0, 17, 1000).tolist()


def _digest(fingerprint) -> str:
    mat, objs, (pos, state) = fingerprint
    return hashlib.sha256(mat + repr(objs).encode() + str(pos).encode() + state).hexdigest()


@pytest.fixture(scope="module")
def reference_run():
    """Stock crafter stepping with rendering, only with the stable creature order: digest after each step."""
    env = StableOrderEnv(seed=SEED)
    env.reset()
    digests, rewards, daylight = [_digest(world_fingerprint(env))], [], []
    for action in ACTIONS_1000:
        _, reward, _, _ = env.step(action)
        digests.append(_digest(world_fingerprint(env)))
        rewards.append(reward)
        daylight.append(env._world.daylight)
    return digests, rewards, daylight


def _engine_run(engine: CrafterEngine, steps: int) -> tuple[list[str], list[float]]:
    engine.reset()
    digests, rewards = [_digest(world_fingerprint(engine))], []
    for action in ACTIONS_1000[:steps]:
        _, reward, _, _ = engine.step(action)
        digests.append(_digest(world_fingerprint(engine)))
        rewards.append(reward)
    return digests, rewards


def test_text_only_equals_rendering_for_1000_steps(reference_run):
    digests, rewards, daylight = reference_run
    assert sum(d < 0.5 for d in daylight) > 200  # the run crosses several nights
    engine = CrafterEngine(seed=SEED, render_images=False)
    assert _engine_run(engine, 1000) == (digests, rewards)  # worlds, creatures and RNG state, every step


def test_skipping_the_night_noise_draw_would_diverge(reference_run):
    class NoBurn(CrafterEngine):
        def _obs(self):
            return None

    digests, _, daylight = reference_run
    got, _ = _engine_run(NoBurn(seed=SEED, render_images=False), 300)
    first_night = next(i for i, d in enumerate(daylight) if d < 0.5) + 1
    first_diff = next(i for i, (a, b) in enumerate(zip(got, digests, strict=False)) if a != b)
    assert first_diff == first_night


def test_rendering_engine_matches_and_returns_images():
    engine = CrafterEngine(seed=3, render_images=True)
    image = engine.reset()
    assert image.shape == (64, 64, 3) and image.dtype == np.uint8
    text_only = CrafterEngine(seed=3, render_images=False)
    assert text_only.reset() is None
    for action in ACTIONS_1000[:200]:
        engine.step(action)
        text_only.step(action)
    assert world_fingerprint(engine) == world_fingerprint(text_only)


def test_same_seed_same_trajectory_in_process():
    runs = []
    for _ in range(2):
        game = SmartPlayCrafter(SmartPlayCrafterParams(), SMARTPLAY_ROW)
        obs, _ = game.reset(seed=SEED)
        texts = [obs]
        for action in ACTIONS_1000[:400]:
            obs, _, terminated, truncated, _ = game.step(ACTIONS[action])
            texts.append(obs)
            if terminated or truncated:
                break
        runs.append((texts, world_fingerprint(game.engine)))
    assert runs[0] == runs[1]
    other = SmartPlayCrafter(SmartPlayCrafterParams(), SMARTPLAY_ROW)
    assert other.reset(seed=SEED + 1)[0] != runs[0][0][0]


_CHILD = """
import hashlib, json, sys
import numpy as np
from playbench.suites.balrog.crafter.game import BalrogCrafter
from playbench.suites.balrog.crafter.params import BalrogCrafterParams
from playbench.suites.crafter.prompts import ACTIONS
from playbench.suites.crafter import worldcache
from playbench.suites.crafter.engine import world_fingerprint
from playbench.core.registry import get_task
game = BalrogCrafter(BalrogCrafterParams(), get_task("balrog/crafter/default").facts)
obs, _ = game.reset(seed=int(sys.argv[1]))
h = hashlib.sha256(obs.encode())
for a in json.loads(sys.argv[2]):
    obs, r, term, trunc, info = game.step(ACTIONS[a])
    h.update(obs.encode() + repr(r).encode())
    if term or trunc:
        break
mat, objs, (pos, state) = world_fingerprint(game.engine)
h.update(mat + repr(objs).encode() + state)
print(h.hexdigest())
"""


def _trajectory_digest(seed: int, actions: list[int]) -> str:
    game = BalrogCrafter(BalrogCrafterParams(), BALROG_ROW)
    obs, _ = game.reset(seed=seed)
    h = hashlib.sha256(obs.encode())
    for a in actions:
        obs, r, term, trunc, _ = game.step(ACTIONS[a])
        h.update(obs.encode() + repr(r).encode())
        if term or trunc:
            break
    mat, objs, (_, state) = world_fingerprint(game.engine)
    h.update(mat + repr(objs).encode() + state)
    return h.hexdigest()


def test_same_seed_same_trajectory_across_processes():
    actions = ACTIONS_1000[:300]
    here = _trajectory_digest(SEED, actions)
    outputs = []
    for hash_seed in ("0", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        res = subprocess.run([sys.executable, "-c", _CHILD, str(SEED), json.dumps(actions)], capture_output=True,
                             text=True, env=env, timeout=300)
        assert res.returncode == 0, res.stderr
        outputs.append(res.stdout.strip())
    assert outputs == [here, here]


def test_fast_noise_is_bit_identical():
    rng = np.random.default_rng(0)
    for seed in (0, 12345, 2**31 - 2):
        stock, fast = opensimplex.OpenSimplex(seed=seed), FastSimplex(seed=seed)
        for x, y, z in rng.uniform(-50, 50, (500, 3)).tolist():
            assert fast.noise3(x, y, z) == stock.noise3(x, y, z)


@pytest.mark.slow
def test_fast_world_generation_builds_the_stock_world():
    for seed in (0, 7):
        stock = crafter.Env(seed=seed)
        stock.reset()
        fast = CrafterEngine(seed=seed, render_images=False, world_cache=False)
        fast.reset()
        assert world_fingerprint(fast) == world_fingerprint(stock)


def test_cached_worlds_equal_generated_worlds(tmp_path, monkeypatch):
    monkeypatch.setenv("PLAYBENCH_CRAFTER_WORLDS", str(tmp_path))
    worldcache.clear_memory()
    generated = CrafterEngine(seed=SEED + 1, render_images=False, world_cache=False)
    generated.reset()
    initial = world_fingerprint(generated)

    def cached_engine() -> CrafterEngine:
        engine = CrafterEngine(seed=SEED + 1, render_images=False)
        engine.reset()
        return engine

    stored = cached_engine()  # generates and stores
    from_memory = cached_engine()
    worldcache.clear_memory()
    from_disk = cached_engine()
    assert len(list(tmp_path.rglob("*.npz"))) == 1
    engines = (stored, from_memory, from_disk)
    for engine in engines:
        assert world_fingerprint(engine) == initial
        assert list(engine.world._chunks) == list(generated.world._chunks)
    for action in ACTIONS_1000[:300]:
        for engine in (generated, *engines):
            engine.step(action)
    assert all(world_fingerprint(e) == world_fingerprint(generated) for e in engines)
    # an unreadable cache file is ignored (and replaced)
    next(tmp_path.rglob("*.npz")).write_bytes(b"garbage")
    worldcache.clear_memory()
    assert world_fingerprint(cached_engine()) == initial


def test_world_seed_is_crafters():
    game = BalrogCrafter(BalrogCrafterParams(), BALROG_ROW)
    game.reset(seed=123)
    assert game.instance()["world_seed"] == world_seed(123) == hash((123, 1)) % (2**31 - 1)
    assert game.engine.world.random is not None

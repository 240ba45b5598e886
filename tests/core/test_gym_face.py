"""The gymnasium face: ids from the registry, check_env on every task, render mode, input checks, seeding,
illegal actions. The tests walk the registry, not a list."""

import random
import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from playbench.core.errors import PlaybenchError
from playbench.core.registry import get_task, list_tasks
from playbench.gymenvs import gym_id
from playbench.suites.balrog.protocol import invalid_action_feedback

ALL = [t.id for t in list_tasks()]
# TextWorld generates its games on first use into its cache (kept for later runs): one game per task.
KWARGS = {tid: {"games": 1} for tid in ALL if tid.startswith("balrog/textworld/")}
ILLEGAL = "\\not an action\n"


def make(task_id: str, **kwargs: object) -> gymnasium.Env:
    return gymnasium.make(gym_id(task_id), **KWARGS.get(task_id, {}), **kwargs)


def test_every_task_has_its_id_with_its_rows_step_limit():
    ids = {k for k in gymnasium.registry if k.startswith("playbench/")}
    assert ids == {gym_id(t) for t in ALL}
    for task in list_tasks():
        assert gymnasium.registry[gym_id(task.id)].max_episode_steps == task.max_steps, task.id
    assert gymnasium.registry[gym_id("balrog/crafter/default")].max_episode_steps == 2000
    assert gymnasium.registry[gym_id("mango/df")].max_episode_steps is None


def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)


_GAME_MODULES = ("m.endswith('.game') or m.startswith(('crafter', 'nle', 'minihack', 'textworld', 'minigrid'))")


@pytest.mark.parametrize("order", ["gymnasium, playbench", "playbench, gymnasium"])
def test_import_registers_every_id_without_loading_a_game(order: str):
    res = _python(
        f"import sys, {order}\n"
        "ids = [k for k in gymnasium.registry if k.startswith('playbench/')]\n"
        f"print(len(ids), [m for m in sys.modules if {_GAME_MODULES}])\n"
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == [str(len(ALL)), "[]"]


def test_the_core_imports_no_face():
    core = Path(__file__).resolve().parents[2] / "src" / "playbench" / "core"
    assert [p.name for p in core.glob("*.py") if "gymenvs" in p.read_text()] == []
    res = _python("import sys, playbench.core.registry as r\nr.list_tasks()\n"
                  "print(sorted(m for m in sys.modules if m.startswith('gymnasium')))")
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "[]"  # loading every suite registers no gymnasium id by itself


def test_make_with_module_prefix_needs_no_other_call():
    res = _python(
        "import gymnasium\n"
        "env = gymnasium.make('playbench:playbench/smartplay.hanoi-3-v0')\n"
        "obs, info = env.reset(seed=1)\n"
        "print(obs.splitlines()[0])\n"
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "Current configuration:"


def test_render_mode_ansi_renders_the_observation():
    env = make("smartplay/hanoi-3", render_mode="ansi")
    obs, _ = env.reset(seed=2)
    assert env.unwrapped.render_mode == "ansi" and env.render() == obs
    obs, *_ = env.step(env.unwrapped.legal_actions()[0])
    assert env.render() == obs
    with pytest.raises(PlaybenchError, match="the only render mode is 'ansi'"):
        make("smartplay/hanoi-3", render_mode="rgb_array")


def test_messenger_compat_without_the_official_sentences_is_refused_as_by_eval():
    from helpers import run_cli

    task = get_task("smartplay/messenger-1")
    with pytest.raises(PlaybenchError) as by_eval_check:
        task.validate_inputs(task.params({"compat": True}))
    with pytest.raises(PlaybenchError) as by_make:
        gymnasium.make("playbench:playbench/smartplay.messenger-1-v0", compat=True)
    assert str(by_make.value) == str(by_eval_check.value)
    assert "needs the official manual sentences" in str(by_make.value)
    proc = run_cli("eval", "smartplay/messenger-1", "-T", "compat=true", "--dry-run")
    assert proc.returncode == 2 and str(by_make.value) in proc.stderr


@pytest.mark.slow
@pytest.mark.parametrize("task_id", ALL)
def test_check_env(task_id):
    env = make(task_id)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            check_env(env.unwrapped)  # default arguments: the render and close checks too
        # gymnasium's checker warns (rather than fails) on some contract breaches: none may be raised
        assert [str(w.message) for w in caught if "WARN" in str(w.message)] == []
    finally:
        env.close()


def _play(env: gymnasium.Env, seed: int, steps: int) -> list:
    """Observations of: a seeded reset, a few steps, an unseeded reset and a few more steps."""
    game = env.unwrapped
    rng = np.random.default_rng(0)  # the actions: the same in both envs when the games are the same
    seen = []
    for reset_seed in (seed, None):
        obs, info = env.reset(seed=reset_seed)
        seen.append((obs, info.get("score")))
        for _ in range(steps):
            legal = game.legal_actions()
            action = legal[int(rng.integers(len(legal)))] if legal else "north"
            obs, reward, terminated, truncated, info = env.step(action)
            seen.append((obs, reward, info.get("score")))
            if terminated or truncated:
                break
    return seen


@pytest.mark.slow
@pytest.mark.parametrize("task_id", ALL)
def test_the_seed_is_the_only_randomness(task_id):
    a, b = make(task_id), make(task_id)
    try:
        # different global random states: a game drawing from them would play differently
        random.seed(1)
        np.random.seed(1)
        first = _play(a, 11, 5)
        random.seed(2)
        np.random.seed(2)
        assert _play(b, 11, 5) == first
    finally:
        a.close()
        b.close()


@pytest.mark.slow
@pytest.mark.parametrize("task_id", ALL)
def test_an_illegal_action_plays_the_default_action(task_id):
    a, b = make(task_id), make(task_id)
    try:
        a.reset(seed=3)
        b.reset(seed=3)
        game = a.unwrapped
        if game.legal_actions() is None and game.is_legal(ILLEGAL):
            # free text (TextWorld, GRASP's one-step answers): any answer is played as given, never invalid
            got, want = a.step(ILLEGAL), b.step(ILLEGAL)
            assert got[4]["invalid_actions"] == 0 and got[:4] == want[:4]
            return
        default = game.default_action
        got = a.step(ILLEGAL)
        want = b.step(default)
        # GRASP's interactive NOOP is no legal action itself: playing it directly counts too
        assert got[4]["invalid_actions"] == 1 and want[4]["invalid_actions"] == int(not game.is_legal(default))
        assert got[1:4] == want[1:4]
        feedback = getattr(game, "feedback", False)  # BALROG's games say so in the next observation
        assert got[0] == (invalid_action_feedback(default, want[0]) if feedback else want[0])
        if not (got[2] or got[3]):
            a.step(7)  # not even text: the default action too
            assert a.unwrapped.invalid_actions == 2
    finally:
        a.close()
        b.close()


def test_the_documented_example_runs():
    doc = (Path(__file__).resolve().parents[2] / "docs" / "gym.md").read_text()
    example = doc.split("```python\n", 1)[1].split("```", 1)[0]
    # every warning an error: a deprecated parameter name in the example fails
    res = subprocess.run([sys.executable, "-W", "error", "-c", example], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert "List of all actions" in res.stdout

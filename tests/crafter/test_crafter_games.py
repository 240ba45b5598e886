"""The two Crafter tasks through the registry, the runner and the CLI: parameters, scores, progression,
images, the oracle, and identical records from two real processes."""

import os
import tempfile

# generated worlds are cached on disk: keep the tests' cache out of the user's cache directory
os.environ.setdefault("PLAYBENCH_CRAFTER_WORLDS", tempfile.mkdtemp(prefix="playbench-crafter-worlds-"))


import json

import gymnasium
import numpy as np
import pytest

from helpers import only_run_dir, run_cli, stable_lines, stable_trajectories
from playbench.core.registry import get_task
from playbench.gymenvs import gym_id
from playbench.suites.balrog.crafter.game import BalrogCrafter
from playbench.suites.balrog.crafter.params import BalrogCrafterParams
from playbench.suites.crafter.games import world_seed
from playbench.suites.crafter.names import ACHIEVEMENTS
from playbench.suites.crafter.prompts import ACTIONS
from playbench.suites.smartplay.crafter.game import SmartPlayCrafter
from playbench.suites.smartplay.crafter.params import SmartPlayCrafterParams

#: The facts rows the games are handed (as their tasks hand them).
SMARTPLAY_ROW = get_task("smartplay/crafter").facts
BALROG_ROW = get_task("balrog/crafter/default").facts


def test_registration_and_parameters():
    task = get_task("Crafter-v0")
    assert task.id == "smartplay/crafter" and task.suite == "smartplay"
    assert task.episodes(task.params()) == 10 and task.episodes(task.params({"episodes": "3"})) == 3
    assert set(task.reference_agents) == {"random", "oracle"}
    balrog = get_task("balrog/crafter/default")
    assert balrog.suite == "balrog"
    assert balrog.episodes(balrog.params()) == 10 == balrog.episodes(balrog.params({"preset": "paper"}))
    game = task.make_game(task.params({"compat": "true", "history": "5"}), 0)
    assert game.compat and game.tracker.history == 5 and game.max_steps == 10000


def test_smartplay_score_is_the_running_sum_of_unlocked_achievements():
    game = SmartPlayCrafter(SmartPlayCrafterParams(max_steps=120), SMARTPLAY_ROW)
    _, info = game.reset(seed=2)
    rng = np.random.default_rng(0)
    expected, done, steps = info["score"], False, 0
    while not done:
        _, reward, terminated, truncated, info = game.step(game.reference_action("oracle", rng))
        expected += len(game.engine.unlocked())
        done, steps = terminated or truncated, steps + 1
        assert info["score"] == expected and info["completed"] == 0
    assert info["metrics"]["achievements_unlocked"] == len(info["metrics"]["achievements"]) > 0
    assert info["progress"] == info["metrics"]["achievements_unlocked"] / 22
    assert steps == 120 and truncated and not terminated


def test_balrog_progression_images_and_step_limit():
    default = BalrogCrafter(BalrogCrafterParams(), BALROG_ROW)
    default.reset(seed=5)
    assert default.max_steps == 2000
    game = BalrogCrafter(BalrogCrafterParams(images=True, max_steps=30), BALROG_ROW)
    _, info = game.reset(seed=5)
    assert info["image"].shape == (256, 256, 3) and info["image"].dtype == np.uint8
    assert info["score"] == 0.0 == info["metrics"]["progression"]
    rng = np.random.default_rng(1)
    steps, done = 0, False
    while not done:
        _, _, terminated, truncated, info = game.step(game.reference_action("oracle", rng))
        steps, done = steps + 1, terminated or truncated
    assert steps == 30 or terminated
    unlocked = info["metrics"]["achievements"]
    assert info["score"] == pytest.approx(len(unlocked) / 22) == info["metrics"]["progression"]
    assert set(info["metrics"]["achievement_counts"]) == set(ACHIEVEMENTS)
    assert info["metrics"]["num_steps"] == steps


def test_balrog_invalid_action_feedback():
    game = BalrogCrafter(BalrogCrafterParams(), BALROG_ROW)
    game.reset(seed=0)
    obs, _, _, _, info = game.step("jump around")
    assert obs.startswith("\n\nYour previous output did not contain a valid action. Defaulted to action: Noop"
                          "\n\nObservation:\nYou see:")
    assert info["metrics"]["failed_candidates"] == ["jump around"]
    assert info["short_term_context"].startswith("Your status:")
    small = SmartPlayCrafter(SmartPlayCrafterParams(images=True), SMARTPLAY_ROW)
    assert small.reset(seed=5)[1]["image"].shape == (64, 64, 3)


def test_text_is_the_same_with_and_without_images():
    texts = []
    for images in (False, True):
        game = SmartPlayCrafter(SmartPlayCrafterParams(images=images), SMARTPLAY_ROW)
        obs, _ = game.reset(seed=9)
        seq = [obs]
        for a in np.random.default_rng(3).integers(0, 17, 200).tolist():  # crosses the first night (step 148+)
            obs, _, terminated, truncated, _ = game.step(ACTIONS[a])
            seq.append(obs)
            if terminated or truncated:
                break
        texts.append(seq)
    assert texts[0] == texts[1]


def test_oracle_plays_the_tech_tree():
    game = BalrogCrafter(BalrogCrafterParams(max_steps=400), BALROG_ROW)
    game.reset(seed=1)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        _, _, terminated, truncated, info = game.step(game.reference_action("oracle", rng))
        done = terminated or truncated
    unlocked = set(info["metrics"]["achievements"])
    assert len(unlocked) >= 12, unlocked
    assert {"collect_wood", "place_table", "make_wood_pickaxe", "collect_stone", "make_stone_pickaxe"} <= unlocked


def test_gymnasium_id():
    env = gymnasium.make(gym_id("smartplay/crafter"), max_steps=5)
    obs, info = env.reset(seed=0)
    assert obs.startswith("You see:") and "manual" in info
    obs, reward, terminated, truncated, info = env.step("Move West")
    assert obs.startswith("You took action move_west.")


def test_cli_runs_are_reproducible_across_processes(tmp_path):
    runs = []
    for name in ("a", "b"):  # two real processes, each with its own random hash seed
        res = run_cli("eval", "Crafter-v0", "--agent", "random", "--episodes", "2", "--seed", "3", "-T", "max_steps=60",
                      "--log-dir", str(tmp_path / name), "--quiet")
        assert res.returncode == 0, res.stderr
        runs.append(only_run_dir(tmp_path / name))
    assert stable_lines(runs[0]) == stable_lines(runs[1])
    assert stable_trajectories(runs[0]) == stable_trajectories(runs[1])
    for line in (runs[0] / "episodes.jsonl").read_text().splitlines():
        record = json.loads(line)
        assert record["task"] == "smartplay/crafter" and record["status"] == "ok"
        assert record["instance"]["world_seed"] == world_seed(record["seed"])
        assert "achievements_unlocked" in record["metrics"]

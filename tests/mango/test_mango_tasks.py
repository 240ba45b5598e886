"""The mango tasks end to end: runs with reference agents, the run report, and re-scoring a run."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

from playbench.core.registry import get_task
from playbench.core.seeding import episode_seed


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "playbench.cli.main", *args], capture_output=True, text=True)


def _only_run(log_dir: Path) -> Path:
    (run,) = list(log_dir.iterdir())
    return run


def test_one_step_game_contract():
    task = get_task("mango/rf")
    assert task.one_step and set(task.reference_agents) == {"random", "oracle"}
    game = task.make_game(task.params({"episodes": "3"}), 1)
    obs, info = game.reset(seed=episode_seed(0, "mango/rf", 1))
    assert game.legal_actions() is None
    assert obs.startswith("!!! Here is a walkthrough of a text game:\n\n==>STEP NUM: 0")
    assert obs.endswith("Start your response with '['.")
    answer = game.reference_action("oracle", np.random.default_rng(0))
    _, reward, terminated, _, info = game.step(answer)
    assert terminated and reward == 1.0
    m = info["metrics"]
    assert m["task"] == "rf" and m["difficulty"] in ("easy", "hard") and m["strict"] == m["reasoning"] == 1.0
    again = task.make_game(task.params({}), 1)
    assert again.reset(seed=episode_seed(0, "mango/rf", 1))[0] == obs  # same seed, same prompt


def test_runs_and_rescoring(tmp_path: Path):
    oracle, rnd = tmp_path / "oracle", tmp_path / "random"
    for agent, log in (("oracle", oracle), ("random", rnd)):
        proc = _cli("eval", "mango/df", "mango/rf", "mango/minigame", "--agent", agent, "--episodes", "6",
                    "--log-dir", str(log), "--quiet")
        assert proc.returncode == 0, proc.stderr
    report = json.loads(_cli("report", str(_only_run(oracle)), "--json").stdout)
    assert report["mango"]["df"]["overall"]["all"]["success_rate"] == 1.0
    assert report["mango"]["rf"]["overall"]["all"]["reasoning"] == 1.0
    assert report["mango"]["minigame"]["success_rate"] == 1.0
    scored = json.loads(_cli("mango", "score", str(_only_run(oracle)), "--json").stdout)
    assert scored["sets"]  # df and rf of the run, each re-scored from the regenerated procedural mazes
    for summary in scored["sets"].values():
        assert summary["overall"]["all"]["success_rate"] == 1.0 and summary["overall"]["all"]["n"] == 6
    rnd_report = json.loads(_cli("report", str(_only_run(rnd)), "--json").stdout)
    assert rnd_report["mango"]["df"]["overall"]["all"]["success_rate"] < 1.0


def test_data_tasks(shared_data: Path, tmp_path: Path):
    data = str(shared_data / "mango")
    task = get_task("mango/df")
    params = task.params({"data": data, "games": "905,snacktime"})
    assert task.episodes(params) == 16 + 12
    assert task.episodes(task.params({"data": data, "games": "lostpig"})) == 16  # answerable at c = 57
    proc = _cli("eval", "mango/rf", "--agent", "oracle", "-T", f"data={data}", "-T", "games=905",
                "--log-dir", str(tmp_path), "--quiet")
    assert proc.returncode == 0, proc.stderr
    whole = json.loads(_cli("mango", "score", str(_only_run(tmp_path)), "--data", data, "--json").stdout)
    assert len(whole["sets"]) == 1 and next(iter(whole["sets"])).endswith(":mango/rf")
    scored = next(iter(whole["sets"].values()))
    assert scored["overall"]["all"]["n"] == 16 and scored["overall"]["all"]["success_rate"] == 1.0
    mg = get_task("mango/minigame")
    assert mg.episodes(mg.params({"data": data, "games": "905"})) > 0

"""Same seed -> same records, across processes and concurrency settings; oracles do what they claim."""

import json

from helpers import only_run_dir, run_cli, stable_lines, stable_trajectories
from playbench.core.seeding import episode_seed

TASKS = ["smartplay/hanoi-3", "smartplay/bandit-highlow", "smartplay/rps-basic"]


def test_episode_seed_depends_only_on_its_inputs():
    a = episode_seed(0, "smartplay/hanoi-3", 4)
    assert a == episode_seed(0, "smartplay/hanoi-3", 4)
    assert len({episode_seed(0, "smartplay/hanoi-3", i) for i in range(100)}) == 100
    assert a != episode_seed(1, "smartplay/hanoi-3", 4)
    assert a != episode_seed(0, "smartplay/hanoi-4", 4)


def test_same_seed_same_records_across_processes_and_concurrency(tmp_path):
    runs = []
    for name, extra in [("a", ["--max-episodes", "1"]), ("b", ["--max-episodes", "1"]), ("c", ["--max-episodes", "16"])]:
        log = tmp_path / name
        res = run_cli("eval", *TASKS, "--agent", "random", "--episodes", "6", "--seed", "7", "--log-dir", str(log),
                      "--quiet", *extra)
        assert res.returncode == 0, res.stderr
        runs.append(only_run_dir(log))
    first = stable_lines(runs[0])
    assert len(first) == 18
    assert all(stable_lines(r) == first for r in runs[1:])
    assert all(stable_trajectories(r) == stable_trajectories(runs[0]) for r in runs[1:])
    # a different seed gives different games
    log = tmp_path / "d"
    assert run_cli("eval", *TASKS, "--agent", "random", "--episodes", "6", "--seed", "8", "--log-dir", str(log),
                   "--quiet").returncode == 0
    assert stable_lines(only_run_dir(log)) != first


def test_hanoi_oracle_solves_in_minimum_moves(tmp_path):
    res = run_cli("eval", "smartplay/hanoi-3", "Hanoi4Disk-v0", "--agent", "oracle", "--log-dir", str(tmp_path),
                  "--quiet")
    assert res.returncode == 0, res.stderr
    rows = [json.loads(x) for x in (only_run_dir(tmp_path) / "episodes.jsonl").read_text().splitlines()]
    assert len(rows) == 20
    for row in rows:
        disks = 3 if row["task"] == "smartplay/hanoi-3" else 4
        assert row["status"] == "ok" and row["completion"] == 1.0
        assert row["steps"] == 2**disks - 1
        assert row["score"] == disks


def test_bandit_oracle_beats_random(tmp_path):
    scores = {}
    for agent in ("oracle", "random"):
        log = tmp_path / agent
        res = run_cli("eval", "smartplay/bandit-highlow", "--agent", agent, "--episodes", "20", "--log-dir", str(log),
                      "--quiet")
        assert res.returncode == 0, res.stderr
        rep = json.loads(run_cli("report", str(only_run_dir(log)), "--json").stdout)
        scores[agent] = rep["tasks"]["smartplay/bandit-highlow"]["score"]["mean"]
    assert scores["oracle"] == 50
    assert scores["oracle"] > scores["random"] + 10

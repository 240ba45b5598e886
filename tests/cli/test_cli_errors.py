"""Every bad input gives one clear line on stderr, exit code 2, no traceback, and loses nothing."""

import json

import pytest

from helpers import only_run_dir, run_cli


def assert_clean_error(res, *needles):
    assert res.returncode == 2, (res.returncode, res.stdout, res.stderr)
    lines = [x for x in res.stderr.strip().splitlines() if x.strip()]
    assert len(lines) == 1, res.stderr
    assert "Traceback" not in res.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["eval", "smartplay/hanoi3"], ["unknown task", "smartplay/hanoi-3"]),
        (["eval", "nope/nothing"], ["unknown task 'nope/nothing'"]),
        (["eval", "smartplay/hanoi-3", "--agent", "genius"], ["unknown agent 'genius'"]),
        (["eval", "smartplay/hanoi-3", "-T", "historyy=3"], ["unknown parameter 'historyy'", "history"]),
        (["eval", "smartplay/hanoi-3", "-T", "history=lots"], ["'lots'", "history"]),
        (["eval", "smartplay/hanoi-3", "-T", "compat=maybe"], ["'maybe'", "compat"]),
        (["eval", "smartplay/hanoi-3", "-T", "history"], ["key=value"]),
        (["eval", "smartplay/hanoi-3", "--episodes", "0"], ["--episodes"]),
        (["eval"], ["task"]),
        (["eval", "grasp/energy", "-T", "data=/no/such/folder"], ["'data'", "no such file or folder"]),
        (["eval", "mango/rf", "-T", "data=/no/such/folder"], ["'data'", "no such file or folder"]),
        (["report", "/definitely/not/here"], ["not a playbench run"]),
    ],
)
def test_bad_input_is_one_line_exit_2(args, needles, tmp_path):
    res = run_cli(*args, "--log-dir", str(tmp_path)) if args[0] == "eval" else run_cli(*args)
    assert_clean_error(res, *needles)
    assert not any(tmp_path.iterdir()), "nothing may be written for a refused run"


def test_corrupt_episodes_file_is_reported_and_kept(tmp_path):
    assert run_cli("eval", "smartplay/hanoi-3", "--episodes", "3", "--log-dir", str(tmp_path), "--quiet").returncode == 0
    run_dir = only_run_dir(tmp_path)
    episodes = run_dir / "episodes.jsonl"
    lines = episodes.read_text().splitlines()
    corrupt = "\n".join([lines[0], "{not json", *lines[1:]]) + "\n"
    episodes.write_text(corrupt)
    for args in (["report", str(run_dir)], ["eval", "--resume", str(run_dir)]):
        res = run_cli(*args)
        assert_clean_error(res, "line 2", "corrupt")
        assert episodes.read_text() == corrupt


def test_not_a_run_directory(tmp_path):
    (tmp_path / "run.json").write_text("{\"hello\": 1}")
    assert_clean_error(run_cli("report", str(tmp_path)), "not a valid run file")
    assert_clean_error(run_cli("eval", "--resume", str(tmp_path / "missing")), "not a playbench run")


def test_report_json_shape(tmp_path):
    assert run_cli("eval", "smartplay/hanoi-3", "smartplay/bandit-highlow", "--episodes", "4", "--log-dir",
                   str(tmp_path), "--quiet").returncode == 0
    rep = json.loads(run_cli("report", str(only_run_dir(tmp_path)), "--json").stdout)
    entry = rep["tasks"]["smartplay/hanoi-3"]
    assert entry["episodes"] == 4 and entry["status"]["ok"] == 4
    for key in ("score", "completion"):
        assert set(entry[key]) >= {"mean", "stderr", "ci95", "n"} and entry[key]["n"] == 4
    assert 4 <= entry["steps"] <= 4 * 30
    assert entry["invalid_actions"] == 0


def test_list_has_ids_first(tmp_path):
    res = run_cli("list")
    assert res.returncode == 0
    ids = [line.split()[0] for line in res.stdout.splitlines()]
    assert "smartplay/hanoi-3" in ids and "smartplay/bandit-highlow" in ids
    rows = json.loads(run_cli("list", "--json").stdout)
    assert any(r["id"] == "smartplay/hanoi-3" and "Hanoi3Disk-v0" in r["aliases"] for r in rows)


def test_gymnasium_make_works():
    import gymnasium

    import playbench.core.registry as registry
    from playbench.gymenvs import gym_id

    registry.load_suites()
    env = gymnasium.make(gym_id("smartplay/hanoi-3"))
    obs, info = env.reset(seed=1)
    assert obs.startswith("Current configuration:")
    assert "List of all actions" in info["manual"]

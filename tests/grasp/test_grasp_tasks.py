import json
import subprocess
import sys

import numpy as np
import pytest

from playbench.core.registry import get_task
from playbench.suites.grasp.instances import count, make_instance
from playbench.suites.grasp.optimal import solve


def _run(tmp_path, *args):
    cmd = [sys.executable, "-m", "playbench.cli.main", "eval", *args, "--log-dir", str(tmp_path), "--quiet"]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    run = next(p for p in tmp_path.iterdir() if p.is_dir())
    return [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines()], run


def test_registration_and_defaults(shared_data):
    task = get_task("grasp/energy")
    assert task.one_step and set(task.reference_agents) == {"random", "greedy", "optimal"}
    assert task.episodes(task.params()) == 160
    assert task.episodes(task.params({"data": str(shared_data / "grasp")})) == 160
    assert task.episodes(task.params({"data": str(shared_data / "grasp"), "indices": "0-9"})) == 1600
    assert task.episodes(task.params({"distribution": "cluster", "movement": "8"})) == 16
    assert get_task("grasp/energy-interactive").episodes(task.params()) == 40
    assert count(task.params({"data": str(shared_data / "grasp")})) == 16000
    with pytest.raises(Exception, match="distribution"):
        task.params({"distribution": "diagonal"})


def test_first_1600_official_episodes_are_the_paper_subset(shared_data):
    p = get_task("grasp/energy").params({"data": str(shared_data / "grasp")})
    seen = {make_instance(p, i, 0).source["custom_id"] for i in range(0, 1600, 7)}
    assert all(0 <= int(cid.split("-")[1]) <= 9 for cid in seen)
    first = [make_instance(p, i, 0) for i in range(160)]
    assert len({(x.distribution, x.obstacle, x.start_region, x.constraints) for x in first}) == 160


def test_optimal_run_records(tmp_path):
    records, run = _run(tmp_path, "grasp/energy", "--agent", "optimal", "--episodes", "16", "-T", "scoring=compat")
    assert len(records) == 16 and all(r["status"] == "ok" for r in records)
    for r in records:
        m, inst = r["metrics"], r["instance"]
        assert m["parser_rule"] in ("list", "none") and m["scoring"] == "compat"
        assert m["energy"] == m["energy_compat"] and r["score"] == m["energy"]
        assert {"plan", "length", "energy_fixed", "energy_compat"} <= set(m)
        assert inst["source"] == "generated" and "seed" in inst and "constraints" in inst and "grid" in inst
    report = subprocess.run([sys.executable, "-m", "playbench.cli.main", "report", "--json", str(run)],
                            capture_output=True, text=True, check=True)
    data = json.loads(report.stdout)
    table = data["grasp"]["tables"]["grasp/energy"]
    assert table["overall"]["n"] == 16 and table["by"]["movement"]["4"]["n"] == 8
    assert table["overall"]["energy_stderr"] is not None
    extras = data["tasks"]["grasp/energy"]["grasp"]
    assert extras["energy_compat"] == pytest.approx(table["overall"]["energy"]) and extras["parse_failed"] >= 0
    text = subprocess.run([sys.executable, "-m", "playbench.cli.main", "report", str(run)],
                          capture_output=True, text=True, check=True).stdout
    assert "GRASP (Table 1)" in text and "μ2 (8)" in text


def test_same_seed_same_records(tmp_path):
    a, _ = _run(tmp_path / "a", "grasp/energy", "--agent", "greedy", "--episodes", "10", "-T", "planner=compat")
    b, _ = _run(tmp_path / "b", "grasp/energy", "--agent", "greedy", "--episodes", "10", "-T", "planner=compat")
    strip = [[{k: v for k, v in r.items() if k not in ("timing", "trajectory")} for r in x] for x in (a, b)]
    assert strip[0] == strip[1]


def test_random_agent_on_official_data(tmp_path, shared_data):
    records, _ = _run(tmp_path, "grasp/energy", "--agent", "random", "--episodes", "8", "-T",
                      f"data={shared_data / 'grasp'}", "-T", "distribution=spiral", "-T", "indices=3")
    assert len(records) == 8
    assert all(r["metrics"]["length"] == 19 and r["instance"]["file"].endswith("_spiral_block.jsonl")
               or r["instance"]["file"].endswith("_spiral_free.jsonl") for r in records)
    assert all(r["instance"]["index"] == 3 and r["instance"]["custom_id"].startswith(r["instance"]["file"])
               for r in records)


def test_interactive_optimal_reaches_the_one_step_optimum(shared_data):
    from playbench.suites.grasp.game import GraspGame, GraspInteractiveGame

    task = get_task("grasp/energy-interactive")
    p = task.params({"data": str(shared_data / "grasp"), "scoring": "fixed"})
    rng = np.random.default_rng(0)
    for index in (0, 5, 13, 22):
        game = GraspInteractiveGame(p, index)
        obs, info = game.reset(seed=1)
        assert "You are at row" in obs and "one step at a time" in info["manual"]
        done, total = False, 0.0
        while not done:
            action = game.reference_action("optimal", rng)
            assert action in game.legal_actions()
            obs, reward, done, _, info = game.step(action)
            total += reward
        best = solve(game.inst.grid, game.inst.constraints, "fixed").energy
        assert info["metrics"]["energy"] == pytest.approx(best) and total == pytest.approx(best)
        one = GraspGame(p, index)
        one.reset(seed=1)
        _, score, done, _, info1 = one.step(one.reference_action("optimal", rng))
        assert done and score == pytest.approx(best) and info1["metrics"]["parser_rule"] in ("list", "none")


def test_interactive_invalid_answer_uses_a_step(shared_data):
    from playbench.suites.grasp.game import GraspInteractiveGame

    p = get_task("grasp/energy-interactive").params({"data": str(shared_data / "grasp"), "cost": "0.3"})
    game = GraspInteractiveGame(p, 0)
    game.reset(seed=0)
    _, reward, done, _, _ = game.step(game.default_action)
    assert not done and reward == pytest.approx(-0.3) and game.state.used == 1
    _, _, done, _, info = game.step("STOP")
    assert done and info["metrics"]["length"] == 1


def test_gymnasium_id_and_one_step_contract():
    import gymnasium

    from playbench.core.registry import load_suites

    load_suites()
    env = gymnasium.make("playbench/grasp.energy-v0", index=3, movement="8")
    first, info = env.reset(seed=5)
    obs = first
    assert obs.startswith("You are an agent in a grid world.") and "UPLEFT allows" in info["manual"]
    system, user = (m["content"] for m in info["messages"])
    assert system == info["manual"] and user.startswith("You are given the following")
    assert obs == system + "\n\n" + user and env.unwrapped.legal_actions() is None
    obs, reward, terminated, truncated, info = env.step("I refuse.")
    assert terminated and not truncated and reward == 0.0 and info["metrics"]["parse_failed"]
    again = gymnasium.make("playbench/grasp.energy-v0", index=3, movement="8")
    assert again.reset(seed=5)[0] == first and again.reset(seed=6)[0] != first

import json
import subprocess
import sys

import numpy as np
import pytest

from playbench.core.errors import PlaybenchError
from playbench.suites.grasp.baselines import greedy, random_walk
from playbench.suites.grasp.grid import COMBINATIONS, Constraints
from playbench.suites.grasp.official import custom_id, load_grids, parse_custom_id, read_results
from playbench.suites.grasp.parse import ParserOptions
from playbench.suites.grasp.rescore import rescore
from playbench.suites.grasp.simulate import execute

FILES = ("inner_random_block.jsonl", "outer_cluster_free.jsonl")


def test_custom_id_round_trip():
    assert parse_custom_id("inner_leftRight_free.jsonl-3-1-0-1") == (
        "inner_leftRight_free.jsonl", 3, Constraints(8, None, 0.3))
    for c in COMBINATIONS:
        assert parse_custom_id(custom_id("a_b_c.jsonl", 7, c)) == ("a_b_c.jsonl", 7, c)
    for bad in ("x.jsonl-1-0-0", "x.json-1-0-0-0", "x.jsonl-1-2-0-0", "x.jsonl-a-0-0-0"):
        with pytest.raises(ValueError):
            parse_custom_id(bad)


def test_missing_grid_dir_is_a_user_error(tmp_path):
    with pytest.raises(PlaybenchError):
        load_grids(tmp_path / "nope")
    with pytest.raises(PlaybenchError):
        load_grids(tmp_path)


@pytest.fixture(scope="module")
def published(tmp_path_factory, shared_data):
    """Result files in the three official formats, built from playbench's own baselines."""
    grids = load_grids(shared_data / "grasp")
    root = tmp_path_factory.mktemp("results")
    (root / "greedy_results").mkdir()
    rng = np.random.default_rng(0)
    expected: dict[str, list[float]] = {"greedy": [], "gpt-4o-2024-05-13": [], "o1-mini": []}
    for name in FILES:
        with open(root / "greedy_results" / name, "w") as out:
            for c in COMBINATIONS:
                for i in range(100):
                    plan = greedy(grids[(name, i)].grid, c, rng, "compat")
                    expected["greedy"].append(execute(grids[(name, i)].grid, c, plan).compat)
                    out.write(json.dumps({
                        "baseline": "greedy", "index": i, "answer": [a.lower() for a in plan],
                        "movement_prompt": c.movement, "energy_limit_prompt": 100 if c.carry is None else 2,
                        "cost_of_step_prompt": c.cost}) + "\n")
    with open(root / "batch_gpt4o_output.jsonl", "w") as out, open(root / "gpt_o1_mini_output.jsonl", "w") as o1:
        for name in FILES:
            for c in COMBINATIONS:
                for i in range(10):
                    g = grids[(name, i)].grid
                    plan = random_walk(c, rng)
                    text = "Here is my plan:\n```\n[" + ", ".join(f'"{a}"' for a in plan) + "]\n```\nDone."
                    expected["gpt-4o-2024-05-13"].append(execute(g, c, plan).compat)
                    body = {"model": "gpt-4o-2024-05-13", "choices": [{"message": {"content": text},
                                                                       "finish_reason": "stop"}]}
                    out.write(json.dumps({"id": "batch_req", "custom_id": custom_id(name, i, c), "error": None,
                                          "response": {"status_code": 200, "request_id": "r", "body": body}}) + "\n")
                    numbered = "\n".join(f"{k + 1}. {a}" for k, a in enumerate(plan))
                    expected["o1-mini"].append(execute(g, c, plan).compat)
                    o1.write(json.dumps({"custom_id": custom_id(name, i, c), "response": numbered}) + "\n")
        out.write("{not json\n")
        body = {"model": "gpt-4o-2024-05-13", "choices": [{"message": {"content": "[UP]"}}]}
        for cid in ("missing_file_x.jsonl-0-0-0-0", "inner_random_block.jsonl-0-0-0"):
            out.write(json.dumps({"custom_id": cid, "response": {"status_code": 200, "body": body}}) + "\n")
        out.write(json.dumps({"custom_id": "inner_random_block.jsonl-0-0-0-0", "method": "POST", "body": {}}) + "\n")
    return root, expected


def test_read_results_formats(published):
    root, _ = published
    read = read_results([root / "batch_gpt4o_output.jsonl", root / "gpt_o1_mini_output.jsonl",
                         root / "greedy_results" / FILES[0]])
    agents = {a.agent for a in read.answers}
    assert agents == {"gpt-4o-2024-05-13", "o1-mini", "greedy"}
    assert len(read.answers) == 160 + 160 + 800 + 1  # the unknown-file line is read; the join rejects it
    lines = sorted(p.line for p in read.problems)
    assert lines == [161, 163, 164]


def test_rescore_joins_and_matches_direct_scores(published, shared_data):
    root, expected = published
    files = [root / "batch_gpt4o_output.jsonl", root / "gpt_o1_mini_output.jsonl",
             *sorted((root / "greedy_results").glob("*.jsonl"))]
    result = rescore(files, shared_data / "grasp", "compat")
    for name, values in expected.items():
        agent = result["agents"][name]
        assert agent["overall"]["n"] == len(values)
        assert agent["overall"]["energy"] == pytest.approx(np.mean(values))
        assert set(agent["by"]) == {"distribution", "obstacle", "start", "movement", "carry", "cost"}
        assert sum(v["n"] for v in agent["by"]["cost"].values()) == len(values)
    assert result["agents"]["greedy"]["parser_rules"] == {"baseline": 1600}
    assert result["agents"]["gpt-4o-2024-05-13"]["parser_rules"] == {"list": 160}
    assert result["agents"]["o1-mini"]["parser_rules"] == {"numbered": 160}
    assert result["counts"]["problems"] == 4
    assert {p["line"] for p in result["problems"]} == {161, 162, 163, 164}
    assert any("no grid missing_file_x.jsonl" in p["reason"] for p in result["problems"])
    fixed = rescore(files, shared_data / "grasp", "fixed", ParserOptions(mode="all-words"))
    assert fixed["parser"] == "all-words" and fixed["agents"]["greedy"]["overall"]["energy"] <= \
        result["agents"]["greedy"]["overall"]["energy"]


def test_cli_rescore_json_and_table(published, shared_data):
    root, expected = published
    cmd = [sys.executable, "-m", "playbench.cli.main", "grasp", "rescore", str(root / "gpt_o1_mini_output.jsonl"),
           str(root / "batch_gpt4o_output.jsonl"), "--grids", str(shared_data / "grasp"), "--scoring", "compat"]
    out = subprocess.run([*cmd, "--json"], capture_output=True, text=True, check=True)
    data = json.loads(out.stdout)
    assert data["agents"]["o1-mini"]["overall"]["energy"] == pytest.approx(np.mean(expected["o1-mini"]))
    assert data["agents"]["o1-mini"]["overall"]["length"] == pytest.approx(19.0)
    table = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    assert "o1-mini" in table and "average" in table and "batch_gpt4o_output.jsonl:161" in table
    bad = subprocess.run([*cmd[:5], str(root / "nope.jsonl"), "--grids", str(shared_data / "grasp")],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "file not found" in bad.stderr


def test_rescore_keeps_only_the_chosen_indices(published, shared_data):
    root, expected = published
    files = sorted((root / "greedy_results").glob("*.jsonl"))
    everything = rescore(files, shared_data / "grasp", "compat")
    table1 = rescore(files, shared_data / "grasp", "compat", indices=frozenset(range(10)))
    assert everything["counts"]["scored"] == 1600 and everything["indices"] is None
    assert table1["counts"]["scored"] == 160 and table1["counts"]["left_out"] == 1440
    assert table1["indices"] == list(range(10))
    # expected["greedy"] lists files, then combinations, then indices 0-99: pick indices 0-9 directly
    subset = [v for k, v in enumerate(expected["greedy"]) if k % 100 < 10]
    assert table1["agents"]["greedy"]["overall"]["energy"] == pytest.approx(np.mean(subset))
    assert table1["agents"]["greedy"]["overall"]["energy"] != pytest.approx(np.mean(expected["greedy"]))


def test_cli_rescore_indices(published, shared_data):
    root, _ = published
    cmd = [sys.executable, "-m", "playbench.cli.main", "grasp", "rescore", str(root / "greedy_results"),
           "--grids", str(shared_data / "grasp"), "--scoring", "compat"]
    data = json.loads(subprocess.run([*cmd, "--indices", "0-4,7", "--json"], capture_output=True, text=True,
                                     check=True).stdout)
    assert data["indices"] == [0, 1, 2, 3, 4, 7] and data["counts"]["scored"] == 6 * 8 * 2
    table = subprocess.run([*cmd, "--indices", "0-9"], capture_output=True, text=True, check=True).stdout
    assert "indices 0-9" in table and "average" in table
    for bad in ("9-0", "x", "0-100"):
        refused = subprocess.run([*cmd, "--indices", bad], capture_output=True, text=True)
        assert refused.returncode == 2 and "--indices" in refused.stderr

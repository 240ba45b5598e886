"""Reports people read: every mean with its uncertainty, cost, plots of every suite, 80-column tables."""

import json
import re

import pytest

from helpers import only_run_dir, run_cli

NARROW = {"COLUMNS": "80", "NO_COLOR": "1"}


def _eval(tmp, name: str, *args: str):
    log = tmp / name
    res = run_cli("eval", *args, "--log-dir", str(log), "--quiet")
    assert res.returncode == 0, res.stderr
    return only_run_dir(log)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("runs")
    sp = ("smartplay/hanoi-3", "smartplay/bandit-highlow")
    return {
        # the same model with two agents (labels must differ), priced so cost shows
        "naive": _eval(tmp, "naive", *sp, "--model", "mock/demo", "--agent", "naive", "--episodes", "3",
                       "-M", "price_input=2.5", "-M", "price_output=10"),
        "cot": _eval(tmp, "cot", *sp, "--model", "mock/demo", "--agent", "cot", "--episodes", "3"),
        "oracle": _eval(tmp, "oracle", *sp, "--agent", "oracle", "--episodes", "3", "--label", "oracle baseline"),
        "one_game": _eval(tmp, "one", "smartplay/bandit-highlow", "--agent", "random", "--episodes", "3"),
        "balrog": _eval(tmp, "balrog", "balrog/babyai/goto", "balrog/crafter/default", "--agent", "random",
                        "--episodes", "3", "-T", "max_steps=5"),
        "mango": _eval(tmp, "mango", "mango/df", "--agent", "oracle", "--episodes", "6"),
        "grasp": _eval(tmp, "grasp", "grasp/energy", "--agent", "greedy", "--episodes", "6", "--label", "greedy"),
    }


def _fits(text: str, ids: list[str]) -> None:
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 80, max(lines, key=len)
    assert "…" not in text  # nothing cut
    for tid in ids:
        assert tid.split("/", 1)[1] in text, tid  # the short name whole, under its suite header


def test_report_json_carries_errors_cost_and_label(runs):
    rep = json.loads(run_cli("report", str(runs["naive"]), "--json").stdout)
    assert rep["run"]["label"] == "mock/demo + naive"
    hanoi = rep["tasks"]["smartplay/hanoi-3"]
    lo, hi = hanoi["score"]["ci95"]
    assert hanoi["score"]["ci_method"] == "bootstrap" and 0 <= lo <= hanoi["score"]["mean"] <= hi <= 3
    usage = rep["run"]["usage"]
    assert usage["calls"] > 0 and usage["input_tokens"] > 0
    expected = (usage["input_tokens"] * 2.5 + usage["output_tokens"] * 10) / 1e6
    assert usage["cost_usd"] == pytest.approx(expected, rel=1e-3)
    sp = rep["smartplay"]
    assert set(sp["normalized_stderr"]) == set(sp["normalized"])
    assert all(sp["capabilities_stderr"][c] is not None for c, v in sp["capabilities"].items() if v is not None)
    balrog = json.loads(run_cli("report", str(runs["balrog"]), "--json").stdout)["balrog"]
    for block in [*balrog["envs"].values(), balrog["overall"]]:
        lo, hi = block["ci95"]
        assert 0 <= lo <= block["mean"] <= hi <= 100
    mango = json.loads(run_cli("report", str(runs["mango"]), "--json").stdout)["mango"]["df"]["overall"]["all"]
    assert mango["success_rate"] == 1.0 and 0.5 < mango["ci95"]["success_rate"][0] < 1.0


def test_text_report_fits_80_columns_with_cost_and_errors(runs):
    res = run_cli("report", str(runs["naive"]), env=NARROW)
    assert res.returncode == 0, res.stderr
    _fits(res.stdout, ["smartplay/hanoi-3", "smartplay/bandit-highlow"])
    assert "model usage and cost" in res.stdout and "total (run)" in res.stdout and "$" in res.stdout
    assert re.search(r"\d ± \d", res.stdout) and "[0.000–" in res.stdout  # mean ± SE over its interval
    for name in ("balrog", "mango", "grasp"):
        out = run_cli("report", str(runs[name]), env=NARROW).stdout
        assert max(len(line) for line in out.splitlines()) <= 80, name


def test_capability_rows_only_when_they_mean_something(runs):
    one = run_cli("report", str(runs["one_game"]), env=NARROW).stdout
    assert "only smartplay/bandit-highlow is human-normalized" in one and "Spatial Reasoning" not in one
    two = run_cli("report", str(runs["oracle"]), env=NARROW).stdout
    assert "Learning from Interactions" in two
    assert "not measured by the supplied games: Spatial Reasoning" in two and "null (" not in two


def test_compare_normalizes_per_task_and_fits(runs):
    res = run_cli("compare", str(runs["naive"]), str(runs["oracle"]), "--json")
    out = json.loads(res.stdout)
    overall = out["overall"]
    assert overall["n"] == 6 and "normalized" in overall["pooling"]
    assert 0 <= overall["mean_a"] <= 1 and 0 <= overall["mean_b"] <= 1  # not raw 0-50 scores pooled with 0-3
    assert out["b"]["label"] == "oracle baseline"
    text = run_cli("compare", str(runs["naive"]), str(runs["oracle"]), env=NARROW)
    assert text.returncode == 0 and "oracle baseline (B)" in text.stdout
    _fits(text.stdout, ["smartplay/hanoi-3", "smartplay/bandit-highlow"])


def test_compare_of_disjoint_runs_is_one_line_without_warnings(runs):
    res = run_cli("compare", str(runs["naive"]), str(runs["grasp"]), env={"PYTHONWARNINGS": "default"})
    assert res.returncode == 2
    assert res.stderr.count("\n") == 1 and "share no task" in res.stderr and "Warning" not in res.stderr
    same = run_cli("compare", str(runs["oracle"]), str(runs["oracle"]), env={"PYTHONWARNINGS": "default"})
    assert same.returncode == 0 and "Warning" not in same.stderr  # constant data: scipy's notices stay inside


def test_plots_cover_every_suite_with_run_labels(runs, tmp_path):
    res = run_cli("plot", *(str(runs[k]) for k in ("naive", "cot", "oracle", "balrog", "mango", "grasp")),
                  "--output", str(tmp_path))
    assert res.returncode == 0, res.stderr
    expected = {"task_scores": ["mock/demo + naive", "mock/demo + cot", "oracle baseline", "greedy"],
                "smartplay_games": ["mock/demo + naive", "oracle baseline", "bandit-highlow"],
                "smartplay_capabilities": ["oracle baseline", "(n/a)"],
                "balrog_progress": ["random", "babyai", "overall"],
                "mango_success": ["oracle", "DF easy"],
                "grasp_energy": ["greedy", "distribution"]}
    for name, labels in expected.items():
        png, svg = tmp_path / f"{name}.png", tmp_path / f"{name}.svg"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000, name
        text = svg.read_text()
        for label in labels:
            assert label in text, (name, label)


def test_dry_run_estimates_without_calling(tmp_path):
    res = run_cli("eval", "smartplay/hanoi-3", "mango/df", "--model", "openai/gpt-4o-mini", "--episodes", "2",
                  "--dry-run", "--log-dir", str(tmp_path / "runs"), env={**NARROW, "OPENAI_API_KEY": ""})
    assert res.returncode == 0, res.stderr
    assert not (tmp_path / "runs").exists()  # no run directory, no request
    row = re.search(r"hanoi-3\s+2\s+30\s+60\s+(\S+)\s+(\S+)\s+\$(\S+)", res.stdout)
    assert row, res.stdout  # 2 episodes × 30 steps = 60 calls, with tokens and a cost
    assert re.search(r"\bdf\s+2\s+1\s+2\b", res.stdout)  # one-step task: one call per episode
    assert "total" in res.stdout and max(len(line) for line in res.stdout.splitlines()) <= 80


def test_list_filters_and_describe(tmp_path):
    res = run_cli("list", "balrog/babyai", env=NARROW)
    ids = [line.split()[0] for line in res.stdout.splitlines() if not line.startswith((" ", "("))]
    assert ids and all(i.startswith("balrog/babyai/") for i in ids)
    assert "max_steps=none" in res.stdout and max(len(line) for line in res.stdout.splitlines()) <= 80
    suite = run_cli("list", "--suite", "grasp", env=NARROW).stdout
    assert "grasp/energy  (160 episodes)" in suite and "smartplay/" not in suite
    full = run_cli("describe", "smartplay/hanoi-3")
    assert full.returncode == 0 and "max_steps (int | None, default none)" in full.stdout
    assert "reference agents: random, oracle" in full.stdout
    assert run_cli("list", "no-such-thing").returncode == 2


def _count(text: str) -> float:
    text = text.replace(",", "")
    scale = {"k": 1e3, "M": 1e6}.get(text[-1], 1)
    return float(text.rstrip("kM")) * scale


def test_dry_run_input_tokens_are_close_to_what_a_run_uses(tmp_path):
    args = ("smartplay/hanoi-3", "--model", "mock/demo", "--episodes", "2", "--seed", "4")
    dry = run_cli("eval", *args, "--dry-run", env=NARROW)
    row = re.search(r"hanoi-3\s+2\s+30\s+60\s+(\S+)", dry.stdout)
    assert row, dry.stdout
    estimated = _count(row.group(1))
    real = json.loads(run_cli("report", str(_eval(tmp_path, "real", *args)), "--json").stdout)
    used = real["tasks"]["smartplay/hanoi-3"]["usage"]["input_tokens"]
    assert real["tasks"]["smartplay/hanoi-3"]["usage"]["calls"] == 60  # mock never solves: every step is a call
    assert abs(estimated - used) / used < 0.25, (estimated, used)

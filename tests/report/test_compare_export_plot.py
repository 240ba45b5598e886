"""Statistics against scipy, exact pairing of two runs, export round trips, plots are written."""

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from helpers import only_run_dir, run_cli
from playbench.stats import summarize
from playbench.stats.compare import paired, paired_bootstrap_ci, unpaired, wilcoxon_p


def test_summary_matches_scipy():
    values = [1.0, 3.0, 4.0, 8.0, 9.5]
    s = summarize(values)
    assert s["mean"] == pytest.approx(np.mean(values))
    assert s["stderr"] == pytest.approx(stats.sem(values))
    boot = stats.bootstrap((np.asarray(values),), np.mean, n_resamples=2000, method="percentile",
                           random_state=np.random.default_rng(0))
    assert s["ci95"] == pytest.approx([boot.confidence_interval.low, boot.confidence_interval.high])
    assert s["ci_method"] == "bootstrap"
    assert summarize([])["mean"] is None and summarize([2.0])["stderr"] is None


def test_paired_statistics_match_scipy():
    rng = np.random.default_rng(1)
    a = rng.normal(0, 1, 40)
    b = a + rng.normal(0.5, 0.3, 40)
    r = paired(list(a), list(b))
    assert r["n"] == 40 and r["mean_diff"] == pytest.approx(np.mean(b - a))
    assert r["p_value"] == pytest.approx(stats.wilcoxon(b - a).pvalue)
    lo, hi = r["ci95"]
    assert lo < np.mean(b - a) < hi and hi - lo < 0.4
    assert paired_bootstrap_ci([0.5] * 10) == [0.5, 0.5]
    assert wilcoxon_p([0, 0, 0]) == 1.0
    u = unpaired(list(a), list(b))
    assert not u["paired"] and u["p_value"] == pytest.approx(stats.ttest_ind(b, a, equal_var=False).pvalue)


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    runs = []
    for agent in ("random", "oracle"):
        log = tmp_path_factory.mktemp(agent)
        res = run_cli("eval", "smartplay/hanoi-3", "smartplay/bandit-highlow", "--agent", agent, "--episodes", "8",
                      "--seed", "5", "--log-dir", str(log), "--quiet")
        assert res.returncode == 0, res.stderr
        runs.append(only_run_dir(log))
    return runs


def test_compare_pairs_exactly(two_runs):
    res = run_cli("compare", str(two_runs[0]), str(two_runs[1]), "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    for task in ("smartplay/hanoi-3", "smartplay/bandit-highlow"):
        assert out["tasks"][task]["paired"] and out["tasks"][task]["n"] == 8
        assert out["tasks"][task]["mean_diff"] > 0
    assert out["overall"]["n"] == 16
    # a run compared with itself: zero difference, p = 1
    same = json.loads(run_cli("compare", str(two_runs[0]), str(two_runs[0]), "--json").stdout)
    assert same["overall"]["mean_diff"] == 0 and same["overall"]["p_value"] == 1.0
    assert "B − A" in run_cli("compare", str(two_runs[0]), str(two_runs[1])).stdout


def test_compare_without_shared_episodes_is_unpaired(two_runs, tmp_path):
    res = run_cli("eval", "smartplay/hanoi-3", "--episodes", "8", "--seed", "99", "--log-dir", str(tmp_path), "--quiet")
    assert res.returncode == 0
    out = json.loads(run_cli("compare", str(two_runs[1]), str(only_run_dir(tmp_path)), "--json").stdout)
    assert out["tasks"]["smartplay/hanoi-3"]["paired"] is False
    assert "unpaired" in out["tasks"]["smartplay/hanoi-3"]["note"]


@pytest.mark.parametrize("fmt", ["csv", "parquet", "jsonl"])
def test_export_round_trips_through_pandas(two_runs, tmp_path, fmt):
    target = tmp_path / f"out.{fmt}"
    res = run_cli("export", str(two_runs[1]), "--format", fmt, "--output", str(target))
    assert res.returncode == 0, res.stderr
    frame = {"csv": pd.read_csv, "parquet": pd.read_parquet, "jsonl": lambda p: pd.read_json(p, lines=True)}[fmt](target)
    assert len(frame) == 16
    assert set(frame["task"]) == {"smartplay/hanoi-3", "smartplay/bandit-highlow"}
    assert (frame["agent"] == "oracle").all() and (frame["status"] == "ok").all()
    hanoi = frame[frame["task"] == "smartplay/hanoi-3"]
    assert (hanoi["score"] == 3).all() and (hanoi["steps"] == 7).all()
    assert json.loads(hanoi["instance"].iloc[0]) == {"disks": 3}


def test_plots_are_written(two_runs, tmp_path):
    res = run_cli("plot", str(two_runs[0]), str(two_runs[1]), "--output", str(tmp_path))
    assert res.returncode == 0, res.stderr
    files = {p.name: p for p in tmp_path.iterdir()}
    for name in ("task_scores.png", "task_scores.svg", "smartplay_capabilities.png"):
        assert name in files and files[name].stat().st_size > 2000
    assert files["task_scores.png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"<svg" in files["task_scores.svg"].read_bytes()


def test_report_of_several_runs_is_a_leaderboard(two_runs):
    out = json.loads(run_cli("report", str(two_runs[0]), str(two_runs[1]), "--json").stdout)
    assert len(out["runs"]) == 2
    rows = out["leaderboard"]["rows"]
    assert [r["who"] for r in rows] == ["random", "oracle"]
    assert rows[1]["scores"]["smartplay/hanoi-3"]["mean"] == 3
    text = run_cli("report", str(two_runs[0]), str(two_runs[1])).stdout
    assert "leaderboard" in text and "oracle" in text

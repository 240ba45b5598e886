"""BALROG aggregation (§5, §11.5, B3, B17)."""

import math

import pytest
from rich.console import Console

from playbench.core.records import EpisodeRecord
from playbench.suites.balrog import summary


def rec(task, i, score, status="ok"):
    return EpisodeRecord(task=task, index=i, seed=i, status=status, agent="x",
                         score=score if status == "ok" else None, completion=float(score == 1.0))


def test_vector_one():
    xs = [1.0, 0.0, 0.0, 1.0]
    assert summary.mean(xs) == 0.5
    assert summary.stderr_population(xs) == pytest.approx(0.25)
    assert summary.stderr_sample(xs) == pytest.approx(math.sqrt(1 / 3) / 2)
    out = summary.summarize({"balrog/babyai/goto": [rec("balrog/babyai/goto", i, x) for i, x in enumerate(xs)]},
                            {"balrog/babyai/goto": 4})
    env = out["envs"]["babyai"]
    assert env["mean"] == pytest.approx(50.0) and env["stderr"] == pytest.approx(25.0)
    assert env["episodes_scored"] == 4 and env["episodes_scheduled"] == 4


def test_paper_overall_gpt4o():
    ses = [3.73, 2.32, 5.24, 3.30, 4.74, 0.37]
    means = [77.60, 33.10, 39.31, 33.66, 10.00, 0.37]
    assert round(summary.combine_stderr(ses), 2) == 1.49
    assert round(summary.mean(means), 2) == 32.34


def test_pooled_vs_balanced_and_status():
    a = [rec("balrog/babyai/goto", i, 1.0) for i in range(4)]
    b = [rec("balrog/babyai/open", 0, 0.0), rec("balrog/babyai/open", 1, 0.0, status="infra-error")]
    out = summary.summarize({"balrog/babyai/goto": a, "balrog/babyai/open": b},
                            {"balrog/babyai/goto": 4, "balrog/babyai/open": 2})
    env = out["envs"]["babyai"]
    assert env["mean"] == pytest.approx(80.0)  # pooled: 4 of 5 scored episodes
    assert env["mean_task_balanced"] == pytest.approx(50.0)
    assert env["episodes_scored"] == 5 and env["episodes_scheduled"] == 6
    assert out["overall"]["partial"] is True and "crafter" in out["overall"]["missing_envs"]


def test_overall_six_envs_not_partial():
    data, sched = {}, {}
    for k, env in enumerate(summary.ENV_TITLES):
        tid = f"balrog/{env}/t"
        data[tid] = [rec(tid, i, float((i + k) % 2)) for i in range(4)]
        sched[tid] = 4
    out = summary.summarize(data, sched)
    assert out["overall"]["partial"] is False
    assert out["overall"]["mean"] == pytest.approx(50.0)
    assert out["overall"]["stderr"] == pytest.approx(math.sqrt(6 * 25.0**2) / 6)
    assert set(out["envs"]["babyai"]) >= {"mean", "stderr", "episodes_scored", "episodes_scheduled"}


def test_env_without_scored_episodes_is_flagged():
    tid = "balrog/textworld/coin_collector"
    out = summary.summarize({tid: [rec(tid, 0, 0.0, status="infra-error")]}, {tid: 1})
    assert out["envs"]["textworld"]["episodes_scored"] == 0
    assert out["overall"]["partial"] is True and out["overall"]["envs_scored"] == 0
    # nothing scored is no number, never a 0.00 that looks measured
    assert out["envs"]["textworld"]["mean"] is None and out["overall"]["mean"] is None
    assert summary.task_extras(tid, [rec(tid, 0, 0.0, status="infra-error")])["balrog"]["progression_percentage"] \
        is None
    console = Console(record=True, width=200)
    for item in summary.render(out):
        console.print(item)
    text = console.export_text()
    assert "0.00" not in text and "Overall Average Progression: —" in text
    row = next(line for line in text.splitlines() if line.strip().startswith("TextWorld"))
    assert row.split()[1:6] == ["—", "—", "—", "—", "0/1"]


def test_render_and_extras():
    tid = "balrog/babyai/goto"
    out = summary.summarize({tid: [rec(tid, i, x) for i, x in enumerate([1.0, 0.0, 0.0, 1.0])]}, {tid: 4})
    console = Console(record=True, width=200)
    for item in summary.render(out):
        console.print(item)
    text = console.export_text()
    assert "BabyAI" in text and "50.00 ± 25.00" in text and "Overall Average Progression: 50.00% ± 25.00%" in text
    # 2 of 4 successes: the Wilson interval, in percent, inside 0-100
    assert out["envs"]["babyai"]["ci_method"] == "wilson" and "15.0–85.0" in text
    lo, hi = out["overall"]["ci95"]
    assert 0.0 <= lo < 50.0 < hi <= 100.0
    assert summary.task_extras(tid, [rec(tid, 0, 1.0)])["balrog"]["progression_percentage"] == 100.0
    assert summary.summarize({}, {}) is None


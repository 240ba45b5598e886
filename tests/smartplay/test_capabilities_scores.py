"""SmartPlay scores: Table 4 -> Table 2 (56 cells), the capability test vector (§4.4), nulls not NaN (B5)."""

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from playbench.core.records import EpisodeRecord
from playbench.core.registry import get_task, list_groups, resolve_tasks
from playbench.suites.smartplay import summary
from playbench.suites.smartplay.capabilities import CAPABILITIES, capability_scores, capability_values, degrees
from playbench.suites.smartplay.scoring import normalize

GAMES = ["smartplay/bandit-highlow", "smartplay/rps-basic", "smartplay/hanoi-3", "smartplay/messenger-1",
         "smartplay/messenger-2", "smartplay/crafter", "smartplay/minecraft-plains"]
TABLE4 = {
    "Human Baseline": [45, 43, 3, 1, 1, 2680, 1],
    "GPT-4-0613": [45.09, 39.25, 2.5, 0.8, 0.85, 700, 0.61],
    "GPT-4-0314": [43.86, 42.05, 2.7, 0.74, 0.93, 845.6, 0.592],
    "text-davinci-003": [46.92, 17.0, 1.5, 0.24, -0.07, 186.25, 0.449],
    "Claude": [32.43, 20.3, 2, -0.12, 0.2, 143.3, 0.5],
    "Bard": [38.85, 12.9, 2, 0.22, -0.21, 112.3, 0.54],
    "llama-2-13b": [22.33, 15.05, 1.1, -0.76, -0.745, 115.3, 0.606],
    "llama-13b": [30.5, 21.4, 1, -0.68, -0.885, 100.2, 0.5],
    "vicuna-13b": [28.81, 7.1, 0.2, -1, -0.76, 56.7, 0.43],
}
TABLE2 = {
    "Human Baseline": [1.00, 1.00, 1.00, 1.00, 1.00, 1.00, 1.00],
    "GPT-4-0613": [1.00, 0.91, 0.83, 0.90, 0.93, 0.26, 0.61],
    "GPT-4-0314": [0.97, 0.98, 0.90, 0.87, 0.97, 0.32, 0.59],
    "text-davinci-003": [1.04, 0.40, 0.50, 0.62, 0.46, 0.07, 0.45],
    "Claude": [0.72, 0.47, 0.67, 0.44, 0.60, 0.05, 0.50],
    "Bard": [0.86, 0.30, 0.67, 0.61, 0.40, 0.04, 0.54],
    "llama-2-13b": [0.50, 0.35, 0.37, 0.12, 0.13, 0.04, 0.61],
    "llama-13b": [0.68, 0.50, 0.33, 0.16, 0.06, 0.04, 0.50],
    "vicuna-13b": [0.64, 0.17, 0.07, 0.00, 0.12, 0.02, 0.43],
}
MODELS = ["GPT-4-0613", "GPT-4-0314", "text-davinci-003", "Claude", "Bard", "llama-2-13b", "llama-13b", "vicuna-13b"]
VECTOR = {
    "Error/Mistake Handling": [.490, .532, .272, .318, .322, .265, .227, .135],
    "Generalization": [.685, .701, .445, .416, .416, .300, .310, .229],
    "Instruction Following": [.701, .741, .371, .406, .362, .251, .266, .125],
    "Learning from Interactions": [.600, .648, .342, .302, .263, .220, .300, .173],
    "Long Text Understanding": [.687, .724, .363, .374, .346, .149, .154, .060],
    "Planning": [.622, .682, .320, .408, .364, .190, .160, .060],
    "Understanding the Odds": [.815, .831, .560, .496, .489, .325, .390, .274],
    "Reasoning": [.622, .682, .320, .408, .364, .190, .160, .060],
    "Spatial Reasoning": [.662, .668, .410, .418, .426, .302, .252, .200],
}


def test_table4_normalizes_to_table2_all_56_cells():
    cells = 0
    for model, raws in TABLE4.items():
        for game, raw, expected in zip(GAMES, raws, TABLE2[model], strict=True):
            value, kind = normalize(game, raw)
            assert kind == "human"
            assert round(value, 2) == pytest.approx(expected, abs=1e-9), (model, game, value)
            cells += 1
    assert cells == 63  # 7 columns × 9 rows; the 56 model cells plus the human row
    assert normalize("smartplay/bandit-highlow", 46.92)[0] > 1  # not clipped


@pytest.mark.parametrize("i,model", list(enumerate(MODELS)))
def test_capability_test_vector(i, model):
    values = capability_values(dict(zip(GAMES, TABLE2[model], strict=True)), "code")
    for cap, column in VECTOR.items():
        # To 3 d.p.: halves such as 0.2725 may land on either side depending on summation order.
        assert abs(values[cap] - column[i]) <= 0.0005 + 1e-9, (model, cap, values[cap])


def test_planning_equals_reasoning_over_the_benchmark_and_paper_weighting_differs():
    scores = dict(zip(GAMES, TABLE2["Claude"], strict=True))
    code = capability_values(scores, "code")
    paper = capability_values(scores, "paper")
    assert code["Planning"] == code["Reasoning"]
    assert any(abs(code[c] - paper[c]) > 1e-3 for c in CAPABILITIES)
    with pytest.raises(ValueError):
        capability_values(scores, "other")  # type: ignore[arg-type]


def test_bandit_alone_gives_six_nulls_with_reasons_not_nan():
    caps = capability_scores({"smartplay/bandit-highlow": 0.9})
    nulls = [c for c, v in caps.items() if v.value is None]
    assert len(nulls) == 6
    assert all(caps[c].reason for c in nulls)
    assert {c for c, v in caps.items() if v.value is not None} == {
        "Generalization", "Understanding the Odds", "Learning from Interactions"}
    values = capability_values({"smartplay/bandit-highlow": 0.9})
    assert not any(isinstance(v, float) and math.isnan(v) for v in values.values())
    assert "NaN" not in json.dumps(values)
    # Paper weighting never divides by zero.
    assert None not in capability_values({"smartplay/bandit-highlow": 0.9}, "paper").values()


def test_every_registered_smartplay_task_has_degrees_and_unknown_ids_are_ignored():
    for group in ("smartplay/benchmark-v0",):
        for task in resolve_tasks([group]):
            assert degrees(task.id) is not None
    assert degrees("smartplay/messenger-3") == degrees("smartplay/messenger-2")
    assert capability_values({"grasp/energy": 0.5})["Planning"] is None


def test_benchmark_group_has_the_seven_games_with_default_trials():
    desc, members = list_groups()["smartplay/benchmark-v0"]
    assert members == GAMES
    trials = [t.episodes(t.params({})) for t in resolve_tasks(["smartplay/benchmark-v0"])]
    assert trials == [20, 20, 10, 100, 100, 10, 20]
    assert get_task("MinedojoCreative7-v0").id == "smartplay/minecraft-ice-spikes"
    assert get_task("MinedojoCreative0").id == "smartplay/minecraft-plains"


def _record(task: str, index: int, score: float) -> EpisodeRecord:
    return EpisodeRecord(task=task, index=index, seed=index, status="ok", agent="x", score=score,
                         metrics={"picked_message": score > 0})


def test_summary_is_a_pure_function_of_records():
    by_task = {g: [_record(g, 0, raw)] for g, raw in zip(GAMES, TABLE4["GPT-4-0613"], strict=True)}
    by_task["smartplay/messenger-3"] = [_record("smartplay/messenger-3", 0, 1.0), _record("smartplay/messenger-3", 1, 0)]
    out = summary.summarize(by_task, {g: 1 for g in by_task})
    assert out["normalized"]["smartplay/crafter"] == pytest.approx(700 / 2680)
    assert out["normalization"]["smartplay/messenger-3"] == "range"
    assert out["normalized"]["smartplay/messenger-3"] == pytest.approx(0.75)
    assert out["benchmark_complete"] is True
    assert "smartplay/messenger-3" not in out["capability_tasks"]
    expected = capability_values({g: normalize(g, r)[0] for g, r in zip(GAMES, TABLE4["GPT-4-0613"], strict=True)})
    assert out["capabilities"] == pytest.approx(expected)
    json.dumps(out, allow_nan=False)
    assert set(out["crafter"]) == {"crafter_score", "mean_achievements_unlocked"}
    crafter = summary.task_extras("smartplay/crafter", by_task["smartplay/crafter"])
    assert crafter["normalized"]["kind"] == "human" and "crafter_score" in crafter
    assert len(summary.render(out)) >= 3
    extras = summary.task_extras("smartplay/messenger-3", by_task["smartplay/messenger-3"])
    assert {k: extras["normalized"][k] for k in ("value", "kind")} == {"value": 0.75, "kind": "range"}
    assert extras["picked_message"] == 0.5
    # episodes scored 1 and 0 on a 0..1 range: SE 0.5/sqrt(2) / range, interval inside the observed values
    assert extras["normalized"]["stderr"] == pytest.approx(0.25) and extras["normalized"]["ci95"] == [0.5, 1.0]
    assert out["normalized_stderr"]["smartplay/messenger-3"] == pytest.approx(0.25)
    assert out["normalized_stderr"]["smartplay/crafter"] is None  # one episode: no standard error
    assert all(v is None for v in out["capabilities_stderr"].values())
    alone = summary.summarize({"smartplay/bandit-highlow": [_record("smartplay/bandit-highlow", 0, 45)]}, {})
    assert sum(v is None for v in alone["capabilities"].values()) == 6
    assert set(alone["capability_reasons"]) == {c for c, v in alone["capabilities"].items() if v is None}


def test_cli_report_json_carries_the_smartplay_block(tmp_path):
    exe = Path(sys.executable).with_name("playbench")
    env = {**os.environ, "NO_COLOR": "1"}
    subprocess.run([str(exe), "eval", "smartplay/messenger-1", "smartplay/bandit-highlow", "--agent", "oracle",
                    "--episodes", "2", "--log-dir", str(tmp_path), "--quiet"], check=True, env=env, timeout=300)
    (run,) = list(tmp_path.iterdir())
    out = subprocess.run([str(exe), "report", str(run), "--json"], check=True, capture_output=True, text=True,
                         env=env, timeout=120).stdout
    report = json.loads(out)
    block = report["smartplay"]
    assert block["normalized"]["smartplay/messenger-1"] == 1.0
    assert set(block["capabilities"]) == set(CAPABILITIES)
    normalized = report["tasks"]["smartplay/messenger-1"]["normalized"]
    assert (normalized["value"], normalized["kind"], normalized["stderr"]) == (1.0, "human", 0.0)
    assert block["capabilities_stderr"]["Learning from Interactions"] is not None
    text = subprocess.run([str(exe), "report", str(run)], check=True, capture_output=True, text=True, env=env,
                          timeout=120).stdout
    assert "Table 2" in text and "Learning from Interactions" in text

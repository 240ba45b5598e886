"""Re-scoring the published baseline plans on indices 0-9 gives the paper's Table 1 cells.

`tests/data/grasp_table1_baseline_plans.json` holds, as facts, the plans of GRASP's published random-walk
and greedy baselines for grid indices 0-9 (jasontangzs0/GRASP `data/results/{random,greedy}_results`,
one letter per action). Joined to the official grids ($PLAYBENCH_TEST_DATA) and scored with the Table 1
rule (`compat`), every cell of those two columns must equal the paper's, as rounded there.
"""

import json
from pathlib import Path

import pytest

from playbench.suites.grasp.rescore import rescore

PLANS = Path(__file__).parents[1] / "data" / "grasp_table1_baseline_plans.json"

# Table 1 of the paper (specs/grasp.md §11.1): (dimension, value) -> (random walk, greedy) as length / energy;
# the grid files' upDown and leftRight are the paper's vertically- and horizontally-skewed (spec §2.1).
TABLE1 = {
    ("distribution", "random"): ((19.0, -0.80), (18.8, 0.37)),
    ("distribution", "upDown"): ((19.0, -0.98), (18.7, 0.33)),
    ("distribution", "leftRight"): ((19.0, -0.97), (18.6, 0.47)),
    ("distribution", "cluster"): ((19.0, -1.60), (18.8, 0.37)),
    ("distribution", "spiral"): ((19.0, -1.38), (18.7, 0.20)),
    ("obstacle", "block"): ((19.0, -1.18), (18.7, 0.31)),
    ("obstacle", "free"): ((19.0, -1.11), (18.7, 0.39)),
    ("start", "inner"): ((19.0, -1.06), (18.7, 0.46)),
    ("start", "outer"): ((19.0, -1.23), (18.7, 0.23)),
    ("movement", "4"): ((19.0, -1.21), (18.5, 0.80)),
    ("movement", "8"): ((19.0, -1.08), (18.9, -0.10)),
    ("carry", "none"): ((19.0, -0.89), (18.7, 1.50)),
    ("carry", "2"): ((19.0, -1.40), (18.7, -0.81)),
    ("cost", "0"): ((19.0, 1.68), (18.7, 3.14)),
    ("cost", "0.3"): ((19.0, -3.97), (18.7, -2.44)),
    ("average", ""): ((19.0, -1.14), (18.7, 0.35)),
}


def _write_published(folder: Path) -> list[Path]:
    """The published result files, rebuilt from the facts in the original's line format."""
    facts = json.loads(PLANS.read_text())
    word = {letter: action for action, letter in facts["code"].items()}
    paths = []
    for baseline, files in facts["plans"].items():
        for name, rows in files.items():
            path = folder / f"{baseline}_results" / name
            path.parent.mkdir(parents=True, exist_ok=True)
            lines = [json.dumps({"baseline": baseline, "index": index, "answer": [word[c] for c in plan],
                                 "movement_prompt": movement, "energy_limit_prompt": limit,
                                 "cost_of_step_prompt": cost})
                     for index, movement, limit, cost, plan in rows]
            path.write_text("\n".join(lines) + "\n")
            paths.append(path)
    return paths


def _round(x: float, digits: int) -> float:
    return round(x + 0.0, digits) + 0.0  # +0.0: -0.0 prints and compares as 0.0


def test_rescored_baselines_equal_table1(tmp_path: Path, shared_data: Path) -> None:
    paths = _write_published(tmp_path)
    result = rescore(paths, shared_data / "grasp", "compat", indices=frozenset(range(10)))
    assert result["counts"]["problems"] == 0 and result["counts"]["scored"] == 3200
    mismatches = []
    for (dim, value), cells in TABLE1.items():
        for agent, (length, energy) in zip(("random", "greedy"), cells, strict=True):
            block = result["agents"][agent]
            stats = block["overall"] if dim == "average" else block["by"][dim][value]
            assert stats["n"] == (1600 if dim == "average" else 1600 // len(block["by"][dim]))
            got = (_round(stats["length"], 1), _round(stats["energy"], 2))
            if got != (length, energy):
                mismatches.append(f"{agent} {dim}={value}: {got} vs paper {(length, energy)}")
    assert not mismatches, mismatches


def test_the_default_scoring_differs_from_table1(tmp_path: Path, shared_data: Path) -> None:
    """The default (`fixed`: energy brought back to the start) is not the Table 1 rule, so it must differ."""
    result = rescore(_write_published(tmp_path), shared_data / "grasp", "fixed", indices=frozenset(range(10)))
    assert _round(result["agents"]["greedy"]["overall"]["energy"], 2) != pytest.approx(0.35)

"""``playbench export RUN... --format csv|parquet|jsonl``: several runs make one tidy table, a row per episode.

Three real runs of different suites and agents (one with a label) are exported together, read back with
pandas, and every row is checked against the run's own files, read here as plain JSON.
"""

import json
import math
import shutil
from pathlib import Path
from typing import Any

import pytest

from helpers import only_run_dir, run_cli

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

#: the columns every table starts with (the first layout's columns are all among them)
FIXED = ["run", "run_id", "label", "model", "agent", "base_seed", "task", "index", "seed", "status", "score",
         "completion", "progress", "reward", "steps", "invalid_actions", "input_tokens", "output_tokens",
         "error", "instance"]
FIRST_LAYOUT = ["run_id", "task", "index", "seed", "instance", "agent", "model", "status", "score", "completion",
                "progress", "reward", "steps", "invalid_actions", "input_tokens", "output_tokens", "error"]
# JSON lines read as plain JSON: pandas' read_json would guess a column of false and null to be floats
READ = {"csv": pd.read_csv, "parquet": pd.read_parquet,
        "jsonl": lambda p: pd.DataFrame(json.loads(line) for line in p.read_text().splitlines())}


def _write(frame: Any, path: Path, fmt: str) -> None:
    """``frame`` written as someone's own table would be."""
    if fmt == "csv":
        frame.to_csv(path, index=False)
    elif fmt == "parquet":
        frame.to_parquet(path, index=False)
    else:
        frame.to_json(path, orient="records", lines=True)


def _eval(log: Path, *args: str) -> Path:
    res = run_cli("eval", *args, "--quiet", "--log-dir", str(log))
    assert res.returncode == 0, res.stderr
    return only_run_dir(log)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> list[Path]:
    """A labelled model run of Hanoi, a random-agent BabyAI run with a parameter and its own seed, and a
    one-step GRASP run whose metrics hold lists, booleans and text."""
    root = tmp_path_factory.mktemp("runs")
    return [
        _eval(root / "a", "smartplay/hanoi-3", "--model", "mock/demo", "--episodes", "2", "-T", "max_steps=6",
              "--label", "mock on hanoi"),
        _eval(root / "b", "balrog/babyai/goto", "--agent", "random", "--episodes", "3", "-T", "max_steps=5",
              "--seed", "7"),
        _eval(root / "c", "grasp/energy", "--model", "mock/demo", "--episodes", "2"),
    ]


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _cell(value: Any) -> Any:
    """What a cell holds for a record value: scalars as they are, lists and mappings as JSON text."""
    return value if value is None or isinstance(value, bool | int | float | str) else json.dumps(value, sort_keys=True)


def expected_rows(run: Path) -> list[dict[str, Any]]:
    """The rows a run's files call for, read here without playbench: the last record of each episode."""
    meta = json.loads((run / "run.json").read_text())
    config = meta["config"]
    label = meta["settings"].get("label") or (f"{config['model']} + {config['agent']}" if config["model"]
                                              else config["agent"])
    params = {spec["id"]: spec["params"] for spec in config["tasks"]}
    latest = {(r["task"], r["index"]): r for r in _lines(run / "episodes.jsonl")}
    rows = []
    for key in sorted(latest):
        r = latest[key]
        row = {"run": run.name, "run_id": meta["run_id"], "label": label, "model": r["model"], "agent": r["agent"],
               "base_seed": config["seed"], "task": r["task"], "index": r["index"], "seed": r["seed"],
               "status": r["status"], "score": r["score"], "completion": r["completion"],
               "progress": r["progress"], "reward": r["reward"], "steps": r["steps"],
               "invalid_actions": r["invalid_actions"], "input_tokens": r["usage"].get("input_tokens", 0),
               "output_tokens": r["usage"].get("output_tokens", 0), "error": r["error"],
               "instance": json.dumps(r["instance"], sort_keys=True)}
        row.update({f"param.{k}": _cell(v) for k, v in params[r["task"]].items()})
        row.update({f"metric.{k}": _cell(v) for k, v in r["metrics"].items()})
        row.update({f"usage.{k}": v for k, v in r["usage"].items() if k not in ("input_tokens", "output_tokens")})
        rows.append(row)
    return rows


def _empty(value: Any) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def _same(got: Any, want: Any) -> bool:
    if _empty(want):
        return _empty(got)
    if _empty(got):
        return False
    if isinstance(want, bool) or isinstance(got, bool):
        return str(got) == str(want)  # a CSV cell of a column mixing kinds may read True back as text
    if isinstance(want, int | float) and not isinstance(got, str):
        return math.isclose(float(got), float(want), rel_tol=1e-12, abs_tol=1e-12)
    return got == want


@pytest.mark.parametrize("fmt", ["parquet", "csv", "jsonl"])
def test_several_runs_make_one_table_checked_row_by_row(runs, tmp_path, fmt):
    target = tmp_path / f"all.{fmt}"
    res = run_cli("export", *map(str, runs), "--format", fmt, "-o", str(target))
    assert res.returncode == 0, res.stderr
    frame = READ[fmt](target)
    want = [row for run in runs for row in expected_rows(run)]
    extra = {name for row in want for name in row if name not in FIXED}
    families = {name.split(".", 1)[0] for name in extra}
    assert families == {"param", "metric", "usage"}
    order = {"param": 0, "metric": 1, "usage": 2}
    assert list(frame.columns) == FIXED + sorted(extra, key=lambda n: (order[n.split(".", 1)[0]], n))
    assert set(FIRST_LAYOUT) <= set(frame.columns)  # one run's earlier columns are all still there
    assert len(frame) == len(want) == 7
    for i, row in enumerate(want):
        got = frame.iloc[i]
        for column in frame.columns:
            assert _same(got[column], row.get(column)), (fmt, i, column, got[column], row.get(column))
    # what the rows say, spelled out for the three runs
    assert list(frame["label"]) == ["mock on hanoi"] * 2 + ["random"] * 3 + ["mock/demo + naive"] * 2
    assert list(frame["base_seed"]) == [0, 0, 7, 7, 7, 0, 0]
    assert list(frame["run"]) == [runs[0].name] * 2 + [runs[1].name] * 3 + [runs[2].name] * 2
    hanoi, babyai, grasp = frame.iloc[:2], frame.iloc[2:5], frame.iloc[5:]
    assert (hanoi["param.max_steps"] == 6).all() and (babyai["param.max_steps"] == 5).all()
    assert grasp["param.max_steps"].map(_empty).all()  # GRASP has no such parameter: left empty
    assert babyai["metric.progression"].notna().all() and hanoi["metric.progression"].map(_empty).all()
    assert grasp["metric.energy"].notna().all() and babyai["metric.energy"].map(_empty).all()
    assert (hanoi["usage.calls"] == hanoi["steps"]).all() and babyai["usage.calls"].map(_empty).all()
    assert (hanoi["input_tokens"] > 0).all() and (babyai["input_tokens"] == 0).all()
    assert all(isinstance(json.loads(cell), list) for cell in grasp["metric.final"])  # a list as JSON text
    if fmt == "parquet":  # whole numbers stay integers beside empty cells
        import pyarrow.parquet as pq

        schema = pq.read_schema(target)
        assert str(schema.field("param.max_steps").type) == "int64"
        assert str(schema.field("seed").type) == "int64" and str(schema.field("metric.energy").type) == "double"


def test_a_column_mixing_kinds_holds_json_text(runs, tmp_path):
    run = shutil.copytree(runs[1], tmp_path / "mixed")
    records = _lines(run / "episodes.jsonl")
    records[0]["metrics"]["mission"] = 42  # text in the others: one column cannot hold both
    (run / "episodes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    target = tmp_path / "mixed.parquet"
    res = run_cli("export", str(run), str(runs[0]), "--format", "parquet", "-o", str(target))
    assert res.returncode == 0, res.stderr
    frame = pd.read_parquet(target)
    missions = list(frame["metric.mission"])
    assert missions[0] == "42" and missions[1] == json.dumps(records[1]["metrics"]["mission"])
    assert [json.loads(m) for m in missions[:3]] == [42] + [r["metrics"]["mission"] for r in records[1:]]
    assert frame["metric.mission"].iloc[3:].map(_empty).all()


def test_several_runs_need_an_output_and_each_run_once(runs, tmp_path):
    for args, words in (([str(runs[0]), str(runs[1])], "--output"),
                        ([str(runs[0]), str(runs[0]) + "/", "-o", str(tmp_path / "x.csv")], "given twice"),
                        ([str(runs[0]), str(runs[1]), "--format", "balrog", "-o", str(tmp_path / "b")], "one run"),
                        ([str(runs[0]), "--per", "episode", "-o", str(tmp_path / "y.csv")], "--per")):
        res = run_cli("export", *args)
        assert res.returncode == 2, res.stdout + res.stderr
        assert words in res.stderr and len(res.stderr.strip().splitlines()) == 1, res.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    for run in runs:
        assert not list(run.glob("export*"))


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_a_table_of_the_first_layout_is_replaced_as_an_earlier_export(runs, tmp_path, fmt):
    earlier = pd.DataFrame([{name: 1 for name in FIRST_LAYOUT}], columns=FIRST_LAYOUT)
    target = tmp_path / f"old.{fmt}"
    _write(earlier, target, fmt)
    res = run_cli("export", str(runs[0]), str(runs[2]), "--format", fmt, "-o", str(target))
    assert res.returncode == 0, res.stderr
    assert list(READ[fmt](target)["run"]) == [runs[0].name] * 2 + [runs[2].name] * 2
    # a table with one more column of its own is somebody's: refused, untouched
    frame = READ[fmt](target)
    frame["notes"] = "mine"
    _write(frame, target, fmt)
    kept = target.read_bytes()
    res = run_cli("export", str(runs[0]), "--format", fmt, "-o", str(target))
    assert res.returncode == 2 and "not a" in res.stderr and target.read_bytes() == kept

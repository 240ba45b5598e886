"""Bad data files, counts below one and undecodable text are refused before a run exists.

Small MANGO, GRASP and Boxoban fixtures in the official formats (``data_fixtures.py``, written from the specs, not
from the readers) are corrupted in many ways. For each corruption the real ``playbench eval`` must exit with code 2,
print exactly one line naming the file (and the line, where the format has lines) and what is wrong, write no
run directory and make no model call. The intact fixtures must still run.
"""

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from data_fixtures import (
    GAME,
    GRID_FILE,
    LEVEL,
    PATHS,
    ROWS,
    edge_line,
    grid_record,
    grid_text,
    mango_file,
    set_grid_line,
    set_level_line,
    walkthrough_line,
    write_boxoban,
    write_grasp,
    write_mango,
)
from helpers import only_run_dir, run_cli

# -- corruptions -------------------------------------------------------------------------------------------------

def _cut(path: Path, keep: float) -> str:
    """Truncate a file to a fraction of its bytes; returns the kept text."""
    raw = path.read_bytes()
    path.write_bytes(raw[: int(len(raw) * keep)])
    return raw[: int(len(raw) * keep)].decode()


def m_edges_truncated(d: Path):
    path = mango_file(d, "edges.json")
    kept = _cut(path, 0.6)
    return path, kept.count("\n") + 1


def m_edges_wrong_type(d: Path):
    path = mango_file(d, "edges.json")
    edges = json.loads(path.read_text())
    edges[2]["seen_in_forward"] = "2"
    path.write_text(json.dumps(edges, indent=4))
    return path, edge_line(2)


def m_edges_missing_key(d: Path):
    path = mango_file(d, "edges.json")
    edges = json.loads(path.read_text())
    del edges[1]["action"]
    path.write_text(json.dumps(edges, indent=4))
    return path, edge_line(1)


def m_edges_negative_step(d: Path):
    path = mango_file(d, "edges.json")
    edges = json.loads(path.read_text())
    edges[3]["seen_in_reversed"] = -5
    path.write_text(json.dumps(edges, indent=4))
    return path, edge_line(3)


def m_edges_unknown_location(d: Path):
    path = mango_file(d, "edges.json")
    edges = json.loads(path.read_text())
    edges[2]["dst_node"] = "gardn"
    path.write_text(json.dumps(edges, indent=4))
    return path, edge_line(2)


def m_locations_not_a_list(d: Path):
    path = mango_file(d, "locations.json")
    path.write_text(json.dumps({"kitchen": 1}, indent=4))
    return path, 1


def m_locations_upper_case(d: Path):
    path = mango_file(d, "locations.json")
    path.write_text(json.dumps(["kitchen", "Hall", "garden"], indent=4))
    return path, 3


def m_all2all_truncated_line(d: Path):
    path = mango_file(d, "all2all.jsonl")
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:50])
    return path, len(lines)


def m_all2all_line_dropped(d: Path):
    # cut at a line boundary: still valid JSON lines, but all_pairs promises a path that is gone
    path = mango_file(d, "all2all.jsonl")
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:-1]))
    return mango_file(d, "all_pairs.jsonl"), len(lines)


def m_all2all_bad_path(d: Path):
    path = mango_file(d, "all2all.jsonl")
    lines = path.read_text().splitlines()
    rec = json.loads(lines[1])
    rec["path_details"][1]["action"] = "northeast"
    lines[1] = json.dumps(rec)
    path.write_text("\n".join(lines) + "\n")
    return path, 2


def m_all_pairs_wrong_type(d: Path):
    path = mango_file(d, "all_pairs.jsonl")
    lines = path.read_text().splitlines()
    rec = json.loads(lines[3])
    rec["num_paths"] = None
    lines[3] = json.dumps(rec)
    path.write_text("\n".join(lines) + "\n")
    return path, 4


def m_all_pairs_empty(d: Path):
    path = mango_file(d, "all_pairs.jsonl")
    path.write_text("")
    return path, None


def m_all_pairs_missing(d: Path):
    path = mango_file(d, "all_pairs.jsonl")
    path.unlink()
    return path, None


def m_walkthrough_binary(d: Path):
    path = mango_file(d, "walkthrough")
    path.write_bytes(path.read_bytes()[:40] + b"\xff\xfe\x00garbage\x89PNG")
    return path, 4  # the first 40 bytes are lines 1-3, whole


def m_walkthrough_gap(d: Path):
    path = mango_file(d, "walkthrough")
    blocks = path.read_text().split("===========\n")
    del blocks[3]  # step 2 (blocks[0] is the empty text before the first separator)
    path.write_text("===========\n".join(blocks))
    return path, walkthrough_line(2)


def m_no_games(d: Path):
    for file in (d / GAME).iterdir():
        file.unlink()
    (d / GAME).rmdir()
    (d / "README.txt").write_text("nothing here\n")
    return d, None


def g_truncated_line(d: Path):
    path = d / GRID_FILE
    lines = path.read_text().splitlines()
    path.write_text(lines[0] + "\n" + lines[1][: len(lines[1]) // 2])
    return path, 2


def g_ten_rows(d: Path):
    return set_grid_line(d, 2, grid_record(1, ROWS[:10]))


def g_twelve_columns(d: Path):
    return set_grid_line(d, 1, grid_record(0, [r + "." for r in ROWS]))


def g_missing_grid(d: Path):
    rec = grid_record(1)
    del rec["grid"]
    return set_grid_line(d, 2, rec)


def g_index_string(d: Path):
    return set_grid_line(d, 2, grid_record("1"))


def g_probability_out_of_range(d: Path):
    return set_grid_line(d, 1, grid_record(0, energy_probability=1.7))


def g_start_mismatch(d: Path):
    return set_grid_line(d, 2, grid_record(1, start=[0, 0]))


def g_unknown_cell(d: Path):
    return set_grid_line(d, 1, grid_record(0, [ROWS[0][:4] + "X" + ROWS[0][5:], *ROWS[1:]]))


def g_two_starts(d: Path):
    return set_grid_line(d, 2, grid_record(1, [*ROWS[:7], "A" + ROWS[7][1:], *ROWS[8:]]))


def g_setting_mismatch(d: Path):
    return set_grid_line(d, 1, grid_record(0, energy="cluster", energy_probability=4))


def g_duplicate_index(d: Path):
    return set_grid_line(d, 2, grid_record(0))


def g_not_an_object(d: Path):
    return set_grid_line(d, 1, "[1, 2, 3]")


def g_empty_file(d: Path):
    (d / GRID_FILE).write_text("\n")
    return d / GRID_FILE, None


def g_binary(d: Path):
    path = d / GRID_FILE
    first = path.read_bytes().split(b"\n")[0]
    path.write_bytes(first + b"\n\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xd8")
    return path, 2


def g_unreadable(d: Path):
    path = d / "inner_random_free.jsonl"  # a folder where a grid file is expected
    path.mkdir()
    return path, None


def g_misnamed(d: Path):
    path = d / "inner_random_blocked.jsonl"
    (d / GRID_FILE).rename(path)
    return path, None


def g_no_grid_files(d: Path):
    (d / GRID_FILE).unlink()
    return d, None


def b_short_row(path: Path):
    return set_level_line(path, 4, "# $ .   #")


def b_unknown_char(path: Path):
    return set_level_line(path, 16, "#   $ .x #")


def b_three_boxes(path: Path):
    set_level_line(path, 19, "#        #")  # level 1 loses a box and a goal row: 3 boxes, 3 goals
    return path, 13


def b_open_wall(path: Path):
    set_level_line(path, 2, "#### #####")
    return path, 1


def b_nine_rows(path: Path):
    set_level_line(path, 20, None)
    return path, 13


def b_two_players(path: Path):
    return set_level_line(path, 21, "#  @     #")[0], 13


def b_no_header(path: Path):
    return set_level_line(path, 13, "")[0], 14


def b_bad_header(path: Path):
    return set_level_line(path, 13, "; one")


def b_duplicate_number(path: Path):
    return set_level_line(path, 13, "; 0")


def b_empty_file(path: Path):
    path.write_text("")
    return path, None


def b_binary(path: Path):
    path.write_bytes(b"; 0\n\xde\xad\xbe\xef\x00\xff")
    return path, 2


def b_empty_folder(path: Path):
    path.unlink()
    (path.parent / "README.md").write_text("levels go here\n")
    return path.parent, None


Corrupt = Callable[[Path], tuple[Path, int | None]]
MANGO_DF = ("mango/df", "--model", "mock/demo")
MANGO_RF = ("mango/rf", "--agent", "oracle")
GRASP = ("grasp/energy", "--model", "mock/demo")
BOXOBAN = ("balrog/minihack/boxoban-medium", "--agent", "random")

# (id, suite, eval arguments, corruption, words the message must hold)
CASES: list[tuple[str, str, tuple[str, ...], Corrupt, str]] = [
    ("mango-edges-truncated-json", "mango", MANGO_DF, m_edges_truncated, "invalid JSON"),
    ("mango-edges-wrong-type", "mango", MANGO_DF, m_edges_wrong_type, "'seen_in_forward'"),
    ("mango-edges-missing-key", "mango", MANGO_RF, m_edges_missing_key, "missing key 'action'"),
    ("mango-edges-negative-step", "mango", MANGO_DF, m_edges_negative_step, "-5"),
    ("mango-edges-unknown-location", "mango", MANGO_RF, m_edges_unknown_location, "'gardn'"),
    ("mango-locations-not-a-list", "mango", MANGO_DF, m_locations_not_a_list, "array"),
    ("mango-locations-upper-case", "mango", MANGO_DF, m_locations_upper_case, "'Hall'"),
    ("mango-all2all-truncated-line", "mango", MANGO_DF, m_all2all_truncated_line, "invalid JSON"),
    ("mango-all2all-line-dropped", "mango", MANGO_RF, m_all2all_line_dropped, "'num_paths'"),
    ("mango-all2all-path-off-map", "mango", MANGO_DF, m_all2all_bad_path, "not an edge"),
    ("mango-all-pairs-wrong-type", "mango", MANGO_RF, m_all_pairs_wrong_type, "'num_paths' is None"),
    ("mango-all-pairs-empty", "mango", MANGO_DF, m_all_pairs_empty, "empty file"),
    ("mango-all-pairs-missing", "mango", MANGO_DF, m_all_pairs_missing, "not found"),
    ("mango-walkthrough-binary", "mango", MANGO_DF, m_walkthrough_binary, "not UTF-8"),
    ("mango-walkthrough-step-gap", "mango", MANGO_RF, m_walkthrough_gap, "step 3 where step 2"),
    ("mango-no-game-folders", "mango", MANGO_DF, m_no_games, "no MANGO game folders"),
    ("mango-minigame-edges-truncated", "mango", ("mango/minigame", "--agent", "oracle"), m_edges_truncated,
     "invalid JSON"),
    ("grasp-truncated-json", "grasp", GRASP, g_truncated_line, "invalid JSON"),
    ("grasp-ten-rows", "grasp", GRASP, g_ten_rows, "22 lines, expected 24"),
    ("grasp-twelve-columns", "grasp", GRASP, g_twelve_columns, "expected 47"),
    ("grasp-missing-grid", "grasp", GRASP, g_missing_grid, "missing key 'grid'"),
    ("grasp-index-is-a-string", "grasp", GRASP, g_index_string, "'index' is '1'"),
    ("grasp-probability-out-of-range", "grasp", GRASP, g_probability_out_of_range, "1.7"),
    ("grasp-start-mismatch", "grasp", ("grasp/energy", "--agent", "random"), g_start_mismatch, "'start'"),
    ("grasp-unknown-cell", "grasp", GRASP, g_unknown_cell, "'X'"),
    ("grasp-two-starts", "grasp", GRASP, g_two_starts, "2 start cells"),
    ("grasp-setting-mismatch", "grasp", GRASP, g_setting_mismatch, "inner_random_block.jsonl"),
    ("grasp-duplicate-index", "grasp", GRASP, g_duplicate_index, "already on line 1"),
    ("grasp-not-an-object", "grasp", GRASP, g_not_an_object, "JSON object"),
    ("grasp-empty-file", "grasp", GRASP, g_empty_file, "empty file"),
    ("grasp-binary-garbage", "grasp", GRASP, g_binary, "not UTF-8"),
    ("grasp-unreadable", "grasp", GRASP, g_unreadable, "cannot read"),
    ("grasp-misnamed-file", "grasp", GRASP, g_misnamed, "not an official GRASP grid file name"),
    ("grasp-no-grid-files", "grasp", GRASP, g_no_grid_files, "no GRASP grid files"),
    ("grasp-interactive-truncated-json", "grasp", ("grasp/energy-interactive", "--agent", "greedy"),
     g_truncated_line, "invalid JSON"),
    ("boxoban-short-row", "boxoban", BOXOBAN, b_short_row, "9 characters"),
    ("boxoban-unknown-character", "boxoban", BOXOBAN, b_unknown_char, "'x'"),
    ("boxoban-three-boxes", "boxoban", BOXOBAN, b_three_boxes, "3 boxes"),
    ("boxoban-open-wall", "boxoban", ("balrog/minihack/boxoban-hard", "--model", "mock/demo"), b_open_wall,
     "outer wall not closed"),
    ("boxoban-nine-rows", "boxoban", BOXOBAN, b_nine_rows, "9 rows"),
    ("boxoban-two-players", "boxoban", BOXOBAN, b_two_players, "2 players"),
    ("boxoban-rows-without-header", "boxoban", BOXOBAN, b_no_header, "without a '; N' header"),
    ("boxoban-bad-header", "boxoban", BOXOBAN, b_bad_header, "'one'"),
    ("boxoban-duplicate-number", "boxoban", BOXOBAN, b_duplicate_number, "already on line 1"),
    ("boxoban-empty-file", "boxoban", BOXOBAN, b_empty_file, "no Boxoban levels"),
    ("boxoban-binary-garbage", "boxoban", BOXOBAN, b_binary, "not UTF-8"),
    ("boxoban-empty-folder", "boxoban", BOXOBAN, b_empty_folder, "no Boxoban level files"),
]


def _fixture(suite: str, tmp_path: Path) -> tuple[str, Path]:
    """(``-T`` argument, path handed to the corruption) of a fresh intact fixture."""
    if suite == "mango":
        data = write_mango(tmp_path / "mango")
        return f"data={data}", data
    if suite == "grasp":
        data = write_grasp(tmp_path / "grasp")
        return f"data={data}", data
    path = write_boxoban(tmp_path / "boxoban")
    return f"levels={path.parent}", path


@pytest.mark.parametrize(("suite", "args", "corrupt", "needle"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_data_file_is_refused_before_the_run(tmp_path: Path, suite: str, args: tuple[str, ...],
                                                 corrupt: Corrupt, needle: str) -> None:
    param, target = _fixture(suite, tmp_path)
    bad_file, line = corrupt(target)
    logs = tmp_path / "logs"
    res = run_cli("eval", *args, "-T", param, "--episodes", "2", "--log-dir", str(logs), timeout=120)
    lines = res.stderr.splitlines()
    assert res.returncode == 2, (res.returncode, res.stderr[-2000:])
    assert len(lines) == 1, res.stderr
    where = f"error: {bad_file}:{line}: " if line else f"error: {bad_file}"
    assert lines[0].startswith(where), (lines[0], where)
    assert needle in lines[0], (lines[0], needle)
    assert "Traceback" not in res.stderr and "calls" not in res.stderr  # no model summary: nothing was sent
    assert not logs.exists() or not any(logs.iterdir()), "a refused run must leave no run directory"


def test_the_table_covers_every_suite_many_ways() -> None:
    by_suite = {s: sum(1 for c in CASES if c[1] == s) for s in ("mango", "grasp", "boxoban")}
    assert len(CASES) >= 21 and min(by_suite.values()) >= 10, by_suite


def _episodes(log_dir: Path) -> list[dict]:
    run = only_run_dir(log_dir)
    return [json.loads(x) for x in (run / "episodes.jsonl").read_text().splitlines()]


def test_intact_mango_fixture_runs(tmp_path: Path) -> None:
    data = write_mango(tmp_path / "mango")
    for task in ("mango/df", "mango/rf", "mango/minigame"):
        logs = tmp_path / task.replace("/", "-")
        res = run_cli("eval", task, "--agent", "oracle", "-T", f"data={data}", "--log-dir", str(logs), "--quiet")
        assert res.returncode == 0, res.stderr
        records = _episodes(logs)
        assert records and all(r["status"] == "ok" and r["score"] == 1.0 for r in records), task
    assert len(_episodes(tmp_path / "mango-df")) == len(PATHS)  # every DF skeleton is answerable at step 70


def test_intact_grasp_fixture_runs(tmp_path: Path) -> None:
    data = write_grasp(tmp_path / "grasp")
    logs = tmp_path / "logs"
    res = run_cli("eval", "grasp/energy", "--agent", "random", "-T", f"data={data}", "--episodes", "16",
                  "--log-dir", str(logs), "--quiet")
    assert res.returncode == 0, res.stderr
    records = _episodes(logs)
    assert len(records) == 16 and all(r["status"] == "ok" for r in records)
    assert {r["instance"]["index"] for r in records} == {0, 1}
    assert records[0]["instance"]["grid"] == grid_text(ROWS)


def test_intact_boxoban_fixture_runs(tmp_path: Path) -> None:
    path = write_boxoban(tmp_path / "boxoban")
    logs = tmp_path / "logs"
    res = run_cli("eval", "balrog/minihack/boxoban-medium", "--agent", "random", "-T", f"levels={path}",
                  "--episodes", "1", "--log-dir", str(logs), "--quiet")
    assert res.returncode == 0, res.stderr
    (record,) = _episodes(logs)
    assert record["status"] == "ok" and record["instance"]["level_source"] == "official"
    assert record["instance"]["level"] == LEVEL


# -- bad values and undecodable text are refused before a run folder exists ---------------------------------------

BAD_COUNTS = [
    (["smartplay/hanoi-3", "-T", "max_steps=0"], "'max_steps'", "'0'"),
    (["smartplay/hanoi-3", "-T", "max_steps=-1"], "'max_steps'", "'-1'"),
    (["smartplay/hanoi-3", "-T", "episodes=-3"], "'episodes'", "'-3'"),
    (["mango/minigame", "-T", "max_step=0"], "'max_step'", "'0'"),
    (["balrog/babyai/goto", "-T", "max_steps=0"], "'max_steps'", "'0'"),
    (["smartplay/hanoi-3", "--episodes", "0"], "--episodes", "0"),
]


@pytest.mark.parametrize(("args", "name", "value"), BAD_COUNTS, ids=[" ".join(c[0]) for c in BAD_COUNTS])
def test_counts_below_one_are_refused(tmp_path: Path, args: list[str], name: str, value: str) -> None:
    logs = tmp_path / "logs"
    res = run_cli("eval", *args, "--log-dir", str(logs), "--quiet")
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2 and len(lines) == 1, (res.returncode, res.stderr[-2000:])
    assert name in lines[0] and value in lines[0] and "Traceback" not in res.stderr, lines[0]
    assert not logs.exists(), "a refused run must leave no run directory"


def test_counts_below_one_are_refused_by_the_library_and_the_gym_face(tmp_path: Path) -> None:
    import gymnasium

    import playbench
    from playbench.core.errors import PlaybenchError
    from playbench.core.registry import get_task
    from playbench.gymenvs import gym_id

    for options, needle in [({"episodes": 0}, "--episodes 0"), ({"episodes": -3}, "--episodes -3"),
                            ({"episodes": True}, "--episodes True"),
                            ({"task_params": {"max_steps": 0}}, "'max_steps'"),
                            ({"task_params": {"episodes": -3}}, "'episodes'")]:
        with pytest.raises(PlaybenchError, match=needle):
            playbench.eval("smartplay/hanoi-3", log_dir=tmp_path, **options)
    assert not any(tmp_path.iterdir())
    with pytest.raises(PlaybenchError, match="'max_steps'"):
        gymnasium.make(gym_id("smartplay/hanoi-3"), max_steps=-1)
    task = get_task("smartplay/hanoi-3")  # a group's preset of 0 episodes is refused too
    with pytest.raises(PlaybenchError, match="episodes=0"):
        task.check_episodes(task.params({}), 0)


UNDECODABLE = [
    ([b"-M", b"stop=a\xffb"], "-M stop=a\\xffb"),
    ([b"-M", b"temperature=\xff"], "-M temperature=\\xff"),
    ([b"-T", b"history=\xfe"], "-T history=\\xfe"),
    ([b"-A", b"compat=\xff"], "-A compat=\\xff"),
    ([b"--label", b"run \xff"], "--label run \\xff"),
    ([b"--base-url", b"http://127.0.0.1:9/\xff"], "--base-url http://127.0.0.1:9/\\xff"),
    ([b"smartplay/rps-\xff"], "task id smartplay/rps-\\xff"),
    ([b"--log-dir", b"runs-\xff"], "--log-dir runs-\\xff"),
]


@pytest.mark.parametrize(("extra", "needle"), UNDECODABLE, ids=[c[1].split()[0] + "-" + str(i) for i, c in
                                                                 enumerate(UNDECODABLE)])
def test_undecodable_arguments_are_one_line(tmp_path: Path, extra: list[bytes], needle: str) -> None:
    """Bytes that are not UTF-8, passed as a shell passes them (click sees lone surrogates)."""
    from helpers import PLAYBENCH

    argv = [*map(os.fsencode, PLAYBENCH), b"eval", b"smartplay/hanoi-3", b"--model", b"mock/demo",
            b"--episodes", b"1", b"--quiet", *([] if b"--log-dir" in extra else [b"--log-dir", b"runs"]), *extra]
    res = subprocess.run(argv, capture_output=True, cwd=tmp_path, timeout=120)
    lines = res.stderr.decode("utf-8", "replace").strip().splitlines()
    assert res.returncode == 2 and len(lines) == 1, (res.returncode, lines[-20:])
    assert lines[0] == f"error: {needle}: not valid UTF-8", lines[0]
    assert not any(tmp_path.iterdir()), "a refused run must leave no folder"


def test_undecodable_text_is_refused_by_the_library(tmp_path: Path) -> None:
    import playbench
    from playbench.core.errors import PlaybenchError

    for options, needle in [({"model_params": {"stop": "a\udcffb"}}, "-M stop=a\\\\xffb"),
                            ({"label": "\udcfe"}, "--label \\\\xfe"),
                            ({"task_params": ["history=\ud800"]}, "-T history=\\\\ud800")]:
        with pytest.raises(PlaybenchError, match=needle):
            playbench.eval("smartplay/hanoi-3", model="mock/demo", log_dir=tmp_path, **options)
    assert not any(tmp_path.iterdir())

"""The strict reader of official GRASP grid files, on hand-written fixtures (spec §2-§3)."""

import json
from pathlib import Path

import numpy as np
import pytest

from data_fixtures import GRID_FILE, ROWS, grid_record, grid_text, write_grasp
from playbench.core.errors import PlaybenchError
from playbench.core.registry import get_task
from playbench.suites.grasp.generate import generate
from playbench.suites.grasp.grid import DISTRIBUTIONS, OBSTACLES, STARTS
from playbench.suites.grasp.instances import make_instance
from playbench.suites.grasp.official import load_grids, parse_grid_text, read_grid_file
from playbench.suites.grasp.render import render_grid


def test_generated_grids_round_trip_through_the_strict_parser() -> None:
    rng = np.random.default_rng(3)
    for distribution in DISTRIBUTIONS:
        for obstacle in OBSTACLES:
            for start in STARTS:
                grid = generate(rng, distribution, obstacle, start, "paper", "inner").grid
                assert parse_grid_text(render_grid(grid)) == grid


def test_fixture_matches_the_renderer() -> None:
    text = grid_text(ROWS)
    grid = parse_grid_text(text)
    assert render_grid(grid) == text and grid.start == (5, 5) and (0, 3) in grid.obstacles


@pytest.mark.parametrize(
    ("edit", "needle"),
    [
        (lambda t: t[:-1], "does not end with a newline"),
        (lambda t: t.replace("    0   1", "   0   1", 1), "'grid' line 1 is"),
        (lambda t: t.replace("  +---+", "  +--+", 1), "'grid' line 2 is"),
        (lambda t: t.replace(" 3| ", " 3! ", 1), "'grid' row 3 does not start with ' 3|'"),
        (lambda t: t.replace(" A |", " A !", 1), "'grid' line 13 is"),
        (lambda t: t.replace(" A ", "   ", 1), "0 start cells 'A'"),
    ],
)
def test_malformed_grid_texts_are_refused(edit, needle: str) -> None:
    with pytest.raises(ValueError) as err:
        parse_grid_text(edit(grid_text(ROWS)))
    assert needle in str(err.value)


def test_faults_name_file_and_line_counting_blank_lines(tmp_path: Path) -> None:
    root = write_grasp(tmp_path / "g")
    path = root / GRID_FILE
    good = [json.dumps(grid_record(i)) for i in range(2)]
    path.write_text(good[0] + "\n\n" + json.dumps(grid_record(1, obstacle="free")) + "\n")
    with pytest.raises(PlaybenchError) as err:
        read_grid_file(path)
    assert str(err.value) == (f"{path}:3: 'obstacle' is 'free' but the grid has obstacle cells 'O'")
    outer = grid_record(1, start_position="outer")
    path.write_text(good[0] + "\n" + json.dumps(outer) + "\n")
    with pytest.raises(PlaybenchError, match=r":2: 'start_position' is 'outer' but the start \[5, 5\] is in rows"):
        read_grid_file(path)
    path.write_text(good[0] + "\n" + json.dumps(grid_record(1, energy_probability=True)) + "\n")
    with pytest.raises(PlaybenchError, match=r":2: 'energy_probability' is True, expected a number"):
        read_grid_file(path)


def test_checked_grids_serve_the_run_without_reading_again(tmp_path: Path) -> None:
    root = write_grasp(tmp_path / "g")
    task = get_task("grasp/energy")
    params = task.params({"data": str(root)})
    task.validate_inputs(params)
    (root / GRID_FILE).write_text("garbage\n")  # same folder, same file: the cached reading is used
    inst = make_instance(params, 9, 0)
    assert inst.text == grid_text(ROWS) and inst.source["index"] == 1
    assert len(load_grids(root)) == 2


def test_filters_that_select_nothing_are_refused_up_front(tmp_path: Path) -> None:
    root = write_grasp(tmp_path / "g")
    task = get_task("grasp/energy-interactive")
    with pytest.raises(PlaybenchError, match="select no instance"):
        task.validate_inputs(task.params({"data": str(root), "indices": "5-9"}))
    with pytest.raises(PlaybenchError, match="select no instance"):
        task.validate_inputs(task.params({"data": str(root), "obstacle": "free"}))
    task.validate_inputs(task.params({"data": str(root), "indices": "1"}))

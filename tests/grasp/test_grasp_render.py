import json

from playbench.suites.grasp.grid import Grid
from playbench.suites.grasp.official import FILE_NAMES, load_grids, read_grid_file
from playbench.suites.grasp.render import render_grid, render_state


def test_all_official_grids_render_byte_for_byte(shared_data):
    folder = shared_data / "grasp"
    count = 0
    for name in FILE_NAMES:
        for line in (folder / name).read_text().splitlines():
            d = json.loads(line)
            grid = Grid.from_text(d["grid"])
            assert render_grid(grid) == d["grid"], (name, d["index"])
            assert list(grid.start) == d["start"]
            assert grid.energy[grid.start[0]][grid.start[1]] == 0
            count += 1
    assert count == 2000


def test_layout_details(shared_data):
    rec = load_grids(shared_data / "grasp")[("inner_random_block.jsonl", 0)]
    lines = rec.text.split("\n")
    assert len(lines) == 25 and lines[-1] == ""  # header + 12 separators + 11 rows, each ending with "\n"
    assert lines[0] == "    0   1   2   3   4   5   6   7   8   9   10 " and len(lines[0]) == 47
    assert lines[1] == "  +" + "---+" * 11
    assert lines[16].startswith(" 7| E |   |")
    assert lines[22].startswith("10|")
    assert rec.grid.start == (7, 4) and lines[16][4 + 4 * 4] == "A"


def test_read_grid_file_fields(shared_data):
    recs = read_grid_file(shared_data / "grasp" / "outer_spiral_free.jsonl")
    assert [r.index for r in recs] == list(range(100))
    assert all(r.distribution == "spiral" and r.energy_probability == -1 and not r.blocked for r in recs)
    assert all(r.start_region == "outer" for r in recs)


def test_interactive_view_shows_agent_and_stacks():
    grid = Grid.build({(0, 1)}, {(1, 1)}, (0, 0), rows=2, cols=3)
    energy = [[0, 1, 0], [0, 0, 3]]
    text = render_state(grid, energy, (0, 1), 2, 5, 20)
    assert " 0|   | A |   |" in text and " 1|   | O | 3 |" in text
    assert "carry 2 unit(s)" in text and "Steps used: 5 of 20" in text

"""The strict MANGO readers and the checks across a game's files (datacheck), on hand-written fixtures."""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from data_fixtures import GAME, LOCATIONS, PATHS, mango_file, walkthrough_line, write_mango
from playbench.core.errors import PlaybenchError
from playbench.core.registry import get_task
from playbench.suites.mango.datacheck import check_game
from playbench.suites.mango.formats import item_line, open_data, write_game
from playbench.suites.mango.procedural import MazeParams, generate
from playbench.suites.mango.walkthrough import walkthrough_problem


def _on_line(text: str, number: int, old: str, new: str) -> str:
    lines = text.splitlines(keepends=True)
    assert old in lines[number - 1]
    lines[number - 1] = lines[number - 1].replace(old, new)
    return "".join(lines)


def _game(root: Path):
    (game,) = open_data(root)
    return game


def test_fixture_and_procedural_games_pass(tmp_path: Path) -> None:
    check_game(_game(write_mango(tmp_path / "fixture")))
    for seed in range(8):  # playbench's own writer produces files the strict reader accepts
        g = generate(seed, MazeParams(locations=5 + seed))
        write_game(tmp_path / "procedural", g.name, g.files())
    for game in open_data(tmp_path / "procedural"):
        check_game(game)


def test_official_samples_pass(shared_data: Path) -> None:
    games = open_data(shared_data / "mango")
    assert len(games) == 10
    for game in games:
        check_game(game)


def test_item_line_finds_each_array_element() -> None:
    text = '[\n  "a",\n  [1,\n   2], {"k": [3,\n 4]},\n\n  5\n]'
    assert [item_line(text, i) for i in range(4)] == [2, 3, 4, 7]
    assert json.loads(text)[3] == 5


def test_walkthrough_problems_name_their_line() -> None:
    good = "".join(f"===========\n==>STEP NUM: {n}\n==>ACT: go\n==>OBSERVATION: Room {n}\n\n" for n in range(3))
    assert walkthrough_problem(good) is None
    assert walkthrough_problem(good.replace("==>ACT: go\n==>OBSERVATION: Room 1", "==>OBSERVATION: Room 1")) == (
        7, "malformed step block (expected '==>STEP NUM: n', '==>ACT: ...', '==>OBSERVATION: ...')")
    assert walkthrough_problem(good.replace("STEP NUM: 2", "STEP NUM: 7")) == (
        12, "step 7 where step 2 was expected (steps run 0, 1, 2 ...)")
    assert walkthrough_problem("just some text\n") == (1, "no step blocks ('==>STEP NUM: 0' ...)")
    assert walkthrough_problem(good + "trailing ==>STEP NUM: 3\n==>ACT: go\n==>OBSERVATION: x\n")[1] == (
        "step header in the middle of a line")


@pytest.mark.parametrize(
    ("suffix", "edit", "line", "needle"),
    [
        ("locations.json", lambda t: t.replace('"garden"', '"garden",\n    "kitchen"'), 5, "listed twice"),
        ("edges.json", lambda t: t.replace('"seen_in_forward": 3,', '"seen_in_forward": 30,').replace(
            '"seen_in_forward_answerable": 3,', '"seen_in_forward_answerable": 30,'), 35, "beyond the walkthrough"),
        ("edges.json", lambda t: t.replace('"edge_min_step": 2,', '"edge_min_step": 1,', 1), 24, "not the minimum"),
        ("all2all.jsonl", lambda t: _on_line(t, 2, '"diff_shortest": 0', '"diff_shortest": 1'), 2,
         "'diff_shortest' is 1"),
        ("all2all.jsonl", lambda t: t.replace('"step_count": 2', '"step_count": 3', 1), 2, "'step_count' is 3"),
        ("all_pairs.jsonl", lambda t: t.replace('"min_step_total": 2', '"min_step_total": 5', 1), 2, "'min_step_total' is 5"),
        ("all_pairs.jsonl", lambda t: "".join(t.splitlines(keepends=True)[:-1]), None, "no record for the pair"),
    ],
)
def test_cross_file_faults(tmp_path: Path, suffix: str, edit, line: int | None, needle: str) -> None:
    root = write_mango(tmp_path)
    path = mango_file(root, suffix)
    path.write_text(edit(path.read_text()))
    with pytest.raises(PlaybenchError) as err:
        check_game(_game(root))
    message = str(err.value)
    assert message.startswith(f"{path}:{line}: " if line else f"{path}: "), message
    assert needle in message and "\n" not in message


def test_a_game_folder_with_a_missing_file_is_not_skipped(tmp_path: Path) -> None:
    root = write_mango(tmp_path)
    shutil.copytree(root / GAME, root / "other")
    for file in (root / "other").iterdir():
        file.rename(file.with_name(file.name.replace(GAME, "other")))
    mango_file(root, "edges.json").unlink()
    with pytest.raises(PlaybenchError, match=r"tiny is not a MANGO game folder \(missing tiny.edges.json\)"):
        open_data(root)
    with pytest.raises(PlaybenchError, match="one game's folder"):
        open_data(root / "other")


def test_checked_data_is_read_once_and_serves_the_run(tmp_path: Path) -> None:
    root = write_mango(tmp_path / "data")
    task = get_task("mango/rf")
    params = task.params({"data": str(root)})
    task.validate_inputs(params)
    shutil.rmtree(root)  # every episode must now come from what the check read
    assert task.episodes(params) == len(PATHS)
    game = task.make_game(params, 5)
    obs, _ = game.reset(seed=1)
    assert all(loc in obs for loc in LOCATIONS)
    _, reward, *_ = game.step(game.reference_action("oracle", np.random.default_rng(0)))
    assert reward == 1.0


def test_tasks_check_their_data(tmp_path: Path) -> None:
    root = write_mango(tmp_path)
    path = mango_file(root, "walkthrough")
    path.write_text(path.read_text().replace("STEP NUM: 2", "STEP NUM: 9"))
    for task_id in ("mango/df", "mango/rf", "mango/minigame"):
        task = get_task(task_id)
        with pytest.raises(PlaybenchError, match=f"{path}:{walkthrough_line(2)}: step 9 where step 2"):
            task.validate_inputs(task.params({"data": str(root)}))
    task = get_task("mango/df")
    task.validate_inputs(task.params({}))  # procedural mazes: nothing to read


def test_a_first_step_beyond_the_token_budget_is_refused(tmp_path: Path) -> None:
    root = write_mango(tmp_path)
    path = mango_file(root, "walkthrough")
    path.write_text(path.read_text().replace("A small kitchen.", "A small kitchen. " + "Pots and pans. " * 1500))
    task = get_task("mango/df")
    with pytest.raises(PlaybenchError, match=f"^{path}: cannot cut the walkthrough at the token budget"):
        task.validate_inputs(task.params({"data": str(root)}))

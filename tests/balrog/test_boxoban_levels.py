"""Boxoban offline levels: generator validity, solvability, determinism; official files parse strictly and play."""

import numpy as np
import pytest

import playbench.suites.balrog.nle.tasks  # noqa: F401  (registers the tasks)
from data_fixtures import LEVEL, set_level_line, write_boxoban
from playbench.core.errors import PlaybenchError
from playbench.core.registry import get_task
from playbench.suites.balrog.nle.boxoban import source
from playbench.suites.balrog.nle.boxoban.generator import generate
from playbench.suites.balrog.nle.boxoban.level import parse_file, parse_level, problems, read_levels
from playbench.suites.balrog.nle.boxoban.solver import replay, solve


@pytest.mark.parametrize(("preset", "seeds"), [("medium", range(6)), ("hard", range(3))])
def test_generated_levels_are_valid_solvable_and_deterministic(preset: str, seeds: range) -> None:
    for seed in seeds:
        gen = generate(seed, preset)
        level = gen.level
        assert problems(level) == [], level.rows()
        assert len(level.boxes) == 4 and len(level.goals) == 4 and len(level.rows()) == 10
        assert replay(level, gen.solution.moves), "the solver's solution must solve the level"
        assert len(gen.solution.moves) <= 90  # fits MiniHack's 100-step budget
        again = generate(seed, preset)
        assert again.level.rows() == level.rows() and again.solution == gen.solution
    assert generate(0, preset).level.rows() != generate(1, preset).level.rows()


def test_solver_proves_unsolvable_levels() -> None:
    rows = ["##########"] + ["# $.    @#"] + ["#" + " " * 8 + "#"] * 7 + ["##########"]
    boxed_in = parse_level(["#####", "#$ .#", "#@  #", "#####"])
    assert solve(boxed_in) is None  # box in a corner is dead
    assert solve(parse_level(rows)) is not None


def test_validity_checker_catches_broken_levels() -> None:
    open_wall = parse_level(["#### #####"] + ["#$$$$....#"] + ["#   @    #"] * 7 + ["##########"])
    assert "outer wall not closed" in problems(open_wall)
    three = parse_level(["##########", "#$$$ ... #", "#   @    #"] + ["#        #"] * 6 + ["##########"])
    assert any("3 boxes" in p for p in problems(three))


def test_official_files_parse(shared_data) -> None:
    hard = read_levels(shared_data / "boxoban" / "hard")
    medium = read_levels(shared_data / "boxoban" / "medium")
    assert len(hard) == 1000 and len(medium) == 1000
    assert hard[0].level_id == "000.txt;0" and medium[-1].level_id == "train/000.txt;999"
    for level in hard[:50] + medium[:50]:
        assert problems(level) == []
    with pytest.raises(PlaybenchError):
        read_levels(shared_data / "no-such-folder")
    with pytest.raises(PlaybenchError, match="levels"):
        get_task("balrog/minihack/boxoban-medium").params({"levels": str(shared_data / "no-such-folder")})


def test_official_levels_play_and_are_recorded(shared_data) -> None:
    task = get_task("balrog/minihack/boxoban-hard")
    path = str(shared_data / "boxoban" / "hard")
    game = task.make_game(task.params({"levels": path}), 0)
    obs, info = game.reset(seed=11)
    inst = game.instance()
    assert inst["level_source"] == "official" and inst["level_id"].startswith("000.txt;")
    level = read_levels(path)[int(inst["level_id"].split(";")[1])]
    assert inst["level"] == level.rows()
    assert "boulder" in obs and "fountain" in obs
    rng = np.random.default_rng(0)
    done, steps = False, 0
    while not done:
        obs, reward, term, trunc, info = game.step(game.reference_action("random", rng))
        done, steps = term or trunc, steps + 1
    assert steps <= 100 and info["score"] in (0.0, 1.0)
    game.close()


def test_generated_levels_are_the_default_source_and_recorded() -> None:
    task = get_task("balrog/minihack/boxoban-medium")
    game = task.make_game(task.params({}), 0)
    game.reset(seed=5)
    inst = game.instance()
    assert inst["level_source"] == "generated" and inst["preset"] == "medium" and inst["level_id"].startswith("medium-")
    game.close()


def test_official_file_faults_name_file_and_line(tmp_path) -> None:
    path = write_boxoban(tmp_path)
    assert [lv.level_id for lv in parse_file(path.read_text(), "000.txt")] == ["000.txt;0", "000.txt;1"]
    set_level_line(path, 7, "#   $ .$ #")  # level 0 gets a fifth box
    with pytest.raises(PlaybenchError) as err:
        read_levels(path.parent)
    assert str(err.value) == f"{path}:1: level 0: 5 boxes"
    text = "\n".join(LEVEL) + "\n"
    with pytest.raises(PlaybenchError, match=r"^x.txt:1: a level row without a '; N' header"):
        parse_file(text, "x.txt")
    with pytest.raises(PlaybenchError, match=r"^x.txt:4: level 7: unexpected character '\*'"):
        parse_file("; 7\n" + text.replace("$", "*", 1), "x.txt")
    path.write_text("; 0\n" + text)
    (path.parent / "LICENSE.txt").write_text("Apache 2.0\n")  # the licence beside the levels is no level file
    assert [lv.level_id for lv in read_levels(path.parent)] == ["000.txt;0"]


def test_boxoban_tasks_check_their_levels_and_reuse_them(tmp_path) -> None:
    path = write_boxoban(tmp_path)
    task = get_task("balrog/minihack/boxoban-hard")
    params = task.params({"levels": str(path.parent)})
    task.validate_inputs(params)
    path.write_text("garbage\n")  # the checked reading is what the episodes play
    level, solution = source.pick(123, "hard", str(path.parent))
    assert level.rows() == LEVEL and solution is None
    fresh = task.params({"levels": str(path)})
    with pytest.raises(PlaybenchError, match=f"^{path}:1: a level row without"):
        task.validate_inputs(fresh)
    task.validate_inputs(task.params({}))  # generated levels: nothing to read
    assert get_task("balrog/minihack/corridor-r3").check_inputs is None


def _official_tree(root):
    """A checkout of the official set in miniature: hard/, medium/train/, medium/valid/ (two levels each)."""
    for part in ("hard", "medium/train", "medium/valid"):
        made = write_boxoban(root / part)
        made.rename(root / part / "000.txt")
        made.parent.rmdir()
    return root


def test_levels_path_plays_the_tasks_own_difficulty_and_split(tmp_path) -> None:
    root = _official_tree(tmp_path / "boxoban-levels")
    hard, medium = read_levels(root, "hard"), read_levels(root, "medium")  # the set's root: narrowed
    assert [lv.level_id for lv in hard] == [lv.level_id for lv in medium] == ["000.txt;0", "000.txt;1"]
    assert read_levels(root / "hard", "hard") and read_levels(root / "medium" / "train", "medium")
    refusals = [(root / "hard", "medium", "hard"), (root / "medium", "medium", "medium/valid"),
                (root / "medium" / "train" / "000.txt", "hard", "medium/train"),
                (root / "medium" / "valid", "medium", "medium/valid")]
    for path, preset, named in refusals:
        with pytest.raises(PlaybenchError, match=f"official {named} levels; boxoban-{preset} plays"):
            read_levels(path, preset)
    own = tmp_path / "test" / "mine"  # the user's own folder: nothing says which set it is from
    write_boxoban(own)
    assert len(read_levels(own, "hard")) == 2
    task = get_task("balrog/minihack/boxoban-hard")
    with pytest.raises(PlaybenchError, match="medium/train levels"):
        task.check_inputs(task.params({"levels": str(root / "medium" / "train")}))

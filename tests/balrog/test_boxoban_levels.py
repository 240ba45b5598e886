"""Boxoban offline levels: generator validity, solvability, determinism; official files parse strictly and play;
compat draws the level as BALROG does."""

import csv
import json
import os
import random
from pathlib import Path

import numpy as np
import pytest

import playbench.suites.balrog.nle.tasks  # noqa: F401  (registers the tasks)
from data_fixtures import LEVEL, set_level_line, write_boxoban
from playbench.core.errors import PlaybenchError
from playbench.core.registry import get_task
from playbench.suites.balrog.nle import engine
from playbench.suites.balrog.nle.boxoban import source
from playbench.suites.balrog.nle.boxoban.generator import generate
from playbench.suites.balrog.nle.boxoban.level import minihack_texts, parse_file, parse_level, problems, read_levels
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


# -- compat: BALROG's own draw of the level (facts: data/boxoban_draw.json) -----------------------------------

DRAW = json.loads((Path(__file__).parent / "data" / "boxoban_draw.json").read_text())


def _balrog_draw(folder: Path, seed: int) -> str:
    """The level BALROG's episode with ``seed`` plays, as the facts' calls make it, the files in name order.

    MiniHack's own loader (``load_boxoban_levels``, ``os.listdir`` made sorted), then, as BALROG's evaluator
    and MiniHack's reset do, ``random.seed(seed)`` and one ``random.choice`` over the list.
    """
    boxohack = engine.modules()["boxohack"]
    listdir = os.listdir
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(boxohack.os, "listdir", lambda path: sorted(listdir(path)))
        levels = boxohack.load_boxoban_levels(str(folder))
    state = random.getstate()
    try:
        random.seed(seed)
        return str(random.choice(levels))
    finally:
        random.setstate(state)


def test_draw_facts_are_the_installed_minihack_and_nle() -> None:
    """The lines the facts cite (the loader's order, the one draw at reset, NLE's SystemRandom) are the installed code."""
    site = Path(engine.modules()["boxohack"].__file__).parents[2]
    for name, lines in DRAW["source_lines"].items():
        text = (site / name).read_text().splitlines()
        for number, code in lines.items():
            assert text[int(number) - 1].strip() == code, f"{name}:{number}"
    calls = DRAW["calls"]
    seeded = [c["call"] for c in calls].index("random.seed(seed)")
    drawing = [c for c in calls[seeded + 1:] if c["python_random"] != "none"]
    assert len(drawing) == 1 and "random.choice(self._levels)" in drawing[0]["python_random"]


def test_leaderboard_facts_agree_with_pythons_random() -> None:
    """Each recorded episode's draw is ``random.seed(seed); random.choice`` over the set; its level is at that place of its file.

    Only the order of the files differs (``os.listdir`` on BALROG's machine): the hard ones were listed in
    the recorded order, which maps every hard draw to the level played.
    """
    sizes = {"Hard": sum(DRAW["official_set"]["hard"].values()),
             "Medium": DRAW["official_set"]["medium/train"]["files"] * DRAW["official_set"]["medium/train"]["levels_per_file"]}
    listed = [(name, DRAW["official_set"]["hard"][name]) for name in DRAW["leaderboard"]["hard_listdir_order"]]
    for episode in DRAW["leaderboard"]["episodes"]:
        kind = "Hard" if "Boxoban-Hard" in episode["episode"] else "Medium"
        state = random.getstate()
        random.seed(episode["seed"])
        index = random.choice(range(sizes[kind]))
        random.setstate(state)
        assert index == episode["draw_index"], episode["episode"]
        file, number = episode["played_level"].split(";")
        assert int(number) == index % 1000 or kind == "Hard"
        if kind == "Hard":
            for name, size in listed:
                if index < size:
                    assert episode["played_level"] == f"{name};{index}", episode["episode"]
                    break
                index -= size


def test_compat_draws_as_balrog_over_the_official_samples(shared_data) -> None:
    """compat picks, for every seed, the level BALROG's draw picks with the files in name order."""
    root = shared_data / "boxoban"  # the set's root: each task narrows it to its own part, as MiniHack does
    seeds = [*range(60), *(e["seed"] for e in DRAW["leaderboard"]["episodes"])]
    for preset, folder in (("hard", root / "hard"), ("medium", root / "medium" / "train")):
        same_as_default = 0
        for seed in seeds:
            level, _ = source.pick(0, preset, str(root), balrog_seed=seed)
            assert level.text() == _balrog_draw(folder, seed), (preset, seed)
            same_as_default += level == source.pick(seed, preset, str(root))[0]
        assert same_as_default < 5  # playbench's own pick (levels[H(seed) mod n]) is another draw


def test_compat_plays_the_leaderboards_level_where_the_file_order_agrees(shared_data, tmp_path) -> None:
    """With hard/'s four files (000.txt the official sample, the others stand-ins of the official sizes), compat
    picks for each Llama-3.2-1B episode the level of its draw in name order; where that is 000.txt (listed
    first on BALROG's machine too), it is the level the episode played: its walls are the first map's."""
    hard = tmp_path / "hard"
    hard.mkdir()
    sample = (shared_data / "boxoban" / "hard" / "000.txt").read_text()
    (hard / "000.txt").write_text(sample)
    rows = [lv.rows() for lv in read_levels(hard)]
    for name, size in DRAW["official_set"]["hard"].items():
        if name != "000.txt":
            (hard / name).write_text("".join(f"; {n}\n" + "\n".join(rows[n]) + "\n\n" for n in range(size)))
    checked = 0
    for episode in DRAW["leaderboard"]["episodes"]:
        if "Boxoban-Hard" not in episode["episode"]:
            continue
        level, _ = source.pick(0, "hard", str(hard), balrog_seed=episode["seed"])
        assert level.level_id == episode["sorted_order_level"] and level.text() == _balrog_draw(hard, episode["seed"])
        if episode["played_level"] == level.level_id:
            csv.field_size_limit(1 << 26)
            played = shared_data / "balrog-leaderboard" / episode["episode"].replace(".json", ".csv")
            with played.open(newline="") as handle:
                first = list(csv.reader(handle))[1][1]
            board = [line for line in first.split("map:\n")[1].split("\n") if "#" in line][:10]
            left = min(line.index("#") for line in board)
            walls = {(r, c) for r, line in enumerate(board) for c, ch in enumerate(line[left:left + 10]) if ch == "#"}
            assert walls == set(level.walls)
            checked += 1
    assert checked == 1  # run_04, seed 2053806347: 000.txt;18


def test_compat_games_play_balrogs_draw_seeded_with_the_nethack_seed(shared_data) -> None:
    task = get_task("balrog/minihack/boxoban-medium")
    path = str(shared_data / "boxoban" / "medium")
    for compat in (True, False):
        game = task.make_game(task.params({"levels": path, "compat": str(compat).lower()}), 0)
        game.reset(seed=7)
        inst = game.instance()
        levels = source.official(path, "medium", compat)
        expected = source.balrog_draw(levels, inst["nethack_seed"]) if compat else source.pick(7, "medium", path)[0]
        assert inst["level_id"] == expected.level_id and inst["level"] == expected.rows()
        game.close()


def test_compat_refuses_files_minihack_reads_otherwise(tmp_path) -> None:
    """A last level without its empty line (MiniHack drops it), a LICENSE.txt beside the levels (MiniHack reads
    it), a file in a subfolder (MiniHack does not): the default reads them; compat cannot draw as BALROG."""
    task = get_task("balrog/minihack/boxoban-hard")
    cases = {}
    path = write_boxoban(tmp_path / "short")
    path.write_text(path.read_text().rstrip("\n") + "\n")
    cases[path.parent] = f"^{path}: MiniHack's loader reads 1 levels here, not 2"
    path = write_boxoban(tmp_path / "licence")
    (path.parent / "LICENSE.txt").write_text("Apache 2.0\n")
    cases[path.parent] = "LICENSE.txt: MiniHack would read it as a level file"
    path = write_boxoban(tmp_path / "nested")
    (path.parent / "more").mkdir()
    (path.parent / "more" / "001.txt").write_text(path.read_text())
    cases[path.parent] = "more: level files in more than one folder; MiniHack reads one"
    for folder, message in cases.items():
        assert len(read_levels(folder, "hard")) >= 1
        task.check_inputs(task.params({"levels": str(folder)}))
        with pytest.raises(PlaybenchError, match=message):
            task.check_inputs(task.params({"levels": str(folder), "compat": "true"}))
    assert minihack_texts("; 0\n" + "\n".join(LEVEL) + "\n\n\n") == ["\n".join(LEVEL) + "\n", ""]

"""``eval --instances`` on BALROG folders whose instances the seed alone does not fix (issue 37): each such
instance carries the reset options that make it (``Instance.options``), recorded in ``run.json`` and in each
episode's record, so ``--resume`` and ``verify`` play it again, and ``compare`` pairs the run with the folder.

NetHack and MiniHack: NetHack seeded with the episode's seed itself and its clock at the row's date (the first
step of every such episode of both shared rows gives the recorded text); TextWorld: the game of BALROG's
per-process counter; Crafter: the world the worker's NumPy state gave, found by its first steps; Boxoban: the
official level its first recorded map shows. A Crafter world drawn from the clock, a Boxoban level without the
official levels or a map, a row without a date are refused in one line, naming what and why.
The tests on the leaderboard rows need ``PLAYBENCH_TEST_DATA`` (the ``shared_data`` fixture).
"""

import csv
import json
import shutil
from pathlib import Path

import pytest

import playbench
from helpers import only_run_dir, run_cli
from playbench.core.errors import PlaybenchError
from playbench.core.registry import get_task
from playbench.log import read_run
from playbench.suites.balrog import leaderboard, leaderboard_instances
from playbench.suites.balrog.facts import TASKS
from playbench.suites.balrog.leaderboard_games import compat_game

LLM_ROW = Path("balrog-leaderboard/LLM/20241030_naive-Llama-3.2-1B-Instruct")
VLM_ROW = Path("balrog-leaderboard/VLM/20250425_naive_Gemini-2.5-Pro-Exp-03-25")
MAZE = "MiniHack-MazeWalk-9x9-v0"
NETHACK = {"balrog_seeding": True, "clock": "2025-04-25"}


def _folder(folder: Path, env: str, task: str, seeds: list[int], date: str | None = "2025-04-25",
            first: list[str] | None = None) -> Path:
    """A BALROG folder of one task's episode files (index k, seed ``seeds[k]``), dated by its metadata; with
    ``first``, each episode's steps table: one step, ``north``, whose observation is ``first[k]``."""
    (folder / env / task).mkdir(parents=True)
    (folder / env / f"{env}_summary.json").write_text("{}")
    if date is not None:
        (folder / "metadata.yaml").write_text(f'name: x\ndate: "{date}"\n')
    for index, seed in enumerate(seeds):
        episode = {"task": task, "seed": seed, "progression": 0.0, "process_num": "ForkProcess-1"}
        (folder / env / task / f"{task}_run_{index:02d}.json").write_text(json.dumps(episode))
        if first is not None:
            with (folder / env / task / f"{task}_run_{index:02d}.csv").open("w", newline="", encoding="utf-8") as fh:
                writer = csv.writer(fh, escapechar="˘")
                writer.writerows([leaderboard.COLUMNS, [0, "north", "", first[index], 0.0, False]])
    return folder


def _first_text(task: str, seed: int, options: dict) -> str:
    """What the task's game (BALROG's text) shows after ``north``, reset from ``seed`` with ``options``."""
    game = compat_game(get_task(task), {})
    try:
        game.reset(seed=seed, options=options)
        return game.step("north")[0]
    finally:
        game.close()


def _records(run: Path) -> list:
    return sorted(read_run(run).episodes(), key=lambda r: (r.task, r.index))


def test_a_nethack_instance_carries_its_seeding_and_clock_through_resume_and_verify(tmp_path: Path) -> None:
    maze = "balrog/minihack/mazewalk-9x9"
    texts = [_first_text(maze, seed, NETHACK) for seed in (7, 8)]  # as if BALROG had recorded them
    other = _folder(tmp_path / "other", "minihack", MAZE, [7, 8], first=[texts[0], texts[0]])
    with pytest.raises(PlaybenchError, match="instance 1 \\(seed 8\\) of 2 again: its first step gives another text than the "
                                             "one recorded: .*; --episodes 1 takes the first 1$"):
        playbench.eval(maze, agent="random", instances=other, log_dir=tmp_path / "none")
    folder = _folder(tmp_path / "row", "minihack", MAZE, [7, 8], first=texts)
    run = playbench.eval("balrog/minihack/mazewalk-9x9", agent="random", instances=folder,
                         task_params={"max_steps": 3}, log_dir=tmp_path / "runs").path
    (spec,) = json.loads((run / "run.json").read_text())["config"]["tasks"]
    assert spec["seeds"] == [7, 8] and spec["options"] == [NETHACK, NETHACK]
    records = _records(run)
    assert [(r.seed, r.options, r.instance["nethack_seed"], r.instance["clock"]) for r in records] == [
        (7, NETHACK, 7, "2025-04-25"), (8, NETHACK, 8, "2025-04-25")]  # BALROG's seeding: the seed itself
    assert playbench.verify(run).ok
    done = run_cli("export", str(run), "--format", "balrog", "-o", str(tmp_path / "export"))
    assert done.returncode == 0, done.stderr  # its seeds alone do not fix these instances: not marked seeded
    assert json.loads((tmp_path / "export" / "summary.json").read_text())["playbench"]["episodes"] == []

    lines = (run / "episodes.jsonl").read_text().splitlines(keepends=True)  # the last record lost: resumed
    (run / "episodes.jsonl").write_text(lines[0])
    assert playbench.eval(resume=run).complete
    assert [(r.seed, r.options, r.instance) for r in _records(run)] == [(r.seed, r.options, r.instance)
                                                                         for r in records]
    again = playbench.eval("balrog/minihack/mazewalk-9x9", agent="random", instances=run,  # a run as a source
                           task_params={"max_steps": 3}, log_dir=tmp_path / "again").path
    assert [(r.seed, r.options, r.instance) for r in _records(again)] == [(r.seed, r.options, r.instance)
                                                                          for r in records]

    options = '"options":{"balrog_seeding":true,"clock":"2025-04-25"}'
    forged = (run / "episodes.jsonl").read_text().replace(options, options.replace('25"}', '26"}'), 1)
    (run / "episodes.jsonl").write_text(forged)
    found = playbench.verify(run)  # a record claiming other options than run.json gives its episode
    assert not found.ok and found.findings[0].difference.field == "options"


def test_a_run_without_instances_records_no_options(tmp_path: Path) -> None:
    run = playbench.eval("balrog/minihack/mazewalk-9x9", agent="random", episodes=1, task_params={"max_steps": 2},
                         log_dir=tmp_path).path
    assert '"options"' not in (run / "run.json").read_text() + (run / "episodes.jsonl").read_text()
    (record,) = _records(run)
    assert record.options is None and "clock" not in record.instance and record.instance["nethack_seed"] != record.seed


def test_what_cannot_be_made_again_is_refused_in_one_line(tmp_path: Path) -> None:
    undated = _folder(tmp_path / "undated", "minihack", MAZE, [7], date=None)
    with pytest.raises(PlaybenchError, match="mazewalk-9x9: playbench cannot play .* instance 0 \\(seed 7\\) of 1 "
                                             "again: the row names no date"):
        playbench.eval("balrog/minihack/mazewalk-9x9", agent="random", instances=undated, log_dir=tmp_path / "runs")
    box = _folder(tmp_path / "box", "minihack", "MiniHack-Boxoban-Hard-v0", [1, 2])
    with pytest.raises(PlaybenchError, match="instances 0 \\(seed 1\\), 1 \\(seed 2\\) of 2 again: .*os.listdir"):
        playbench.eval("balrog/minihack/boxoban-hard", agent="random", instances=box, log_dir=tmp_path / "runs")
    worker = _folder(tmp_path / "worker", "textworld", "coin_collector", [5])
    (episode,) = worker.rglob("*_run_00.json")
    episode.write_text(json.dumps({"task": "coin_collector", "seed": 5}))  # no process_num
    with pytest.raises(PlaybenchError, match="coin_collector: .* again: .*names no process"):
        playbench.eval("balrog/textworld/coin_collector", agent="random", instances=worker, log_dir=tmp_path / "runs")
    assert not (tmp_path / "runs").exists()


def test_a_game_refuses_an_option_it_does_not_take() -> None:
    game = compat_game(get_task("balrog/babyai/goto"), {})
    with pytest.raises(ValueError, match="takes no reset option 'world' \\(it takes none\\)"):
        game.reset(seed=1, options={"world": 3})
    crafter = compat_game(get_task("balrog/crafter/default"), {})
    with pytest.raises(ValueError, match="takes no reset option 'clock' \\(it takes world\\)"):
        crafter.reset(seed=1, options={"clock": "2025-04-25"})
    with pytest.raises(ValueError, match="the reset option world is a seed"):
        crafter.reset(seed=1, options={"world": -1})
    nle = compat_game(get_task("balrog/minihack/mazewalk-9x9"), {})
    try:
        with pytest.raises(ValueError, match="is not a date YYYY-MM-DD"):
            nle.reset(seed=1, options={"clock": "2025-04-25 00:00:00; rm"})
    finally:
        nle.close()


# -- the shared leaderboard rows -------------------------------------------------------------------------------


def _tasks(env: str) -> dict[str, dict]:
    return {row.id: {} for row in TASKS if row.env == env and row.kind != "boxoban"}


@pytest.mark.parametrize(("where", "images"), [(LLM_ROW, False), (VLM_ROW, True)])
def test_the_first_step_of_each_nethack_and_minihack_instance_is_the_recorded_one(shared_data: Path, where: Path,
                                                                                   images: bool) -> None:
    """Played from its instance (its reset options), a game's first step gives the row's recorded text: every
    NetHack episode and each MiniHack task's first (BALROG's text: compat; the VLM row's without the map)."""
    row = shared_data / where
    found = leaderboard_instances.by_file(row, _tasks("nle") | _tasks("minihack"))  # Boxoban: below
    firsts = {instance.task: relative for relative, instance in reversed(found.items())}
    chosen = [relative for relative, instance in found.items()
              if instance.task.startswith("balrog/nle/") or firsts[instance.task] == relative]
    assert len(chosen) == 11
    for relative in chosen:
        instance = found[relative]
        assert instance.problem is None and instance.options == {"balrog_seeding": True,
                                                                 "clock": "2024-11-11" if not images else "2025-04-25"}
        step = leaderboard.read_steps(row, relative.removesuffix(".json") + ".csv")[0][0]
        game = compat_game(get_task(instance.task), {"images": images})
        try:
            game.reset(seed=instance.seed, options=dict(instance.options))
            action = step.answer if step.answer in game.legal_actions() else game.default_action
            text = game.step(action)[0]
        finally:
            game.close()
        if action != step.answer:
            text = leaderboard.with_note("plain" if images else "quoted", False, step.answer, action, text)
        assert text == step.observation, relative
    game = compat_game(get_task(found[chosen[0]].task), {"images": images})  # playbench's own seeding: another game
    try:
        game.reset(seed=found[chosen[0]].seed)
        assert game.step(game.default_action)[0] != leaderboard.read_steps(row, chosen[0][:-5] + ".csv")[0][0].observation
    finally:
        game.close()


def _compared(row: Path, run: Path) -> dict:
    done = run_cli("compare", str(row), str(run), "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _played(log: Path, row: Path, *tasks: str, more: tuple[str, ...] = ()) -> Path:
    done = run_cli("eval", *tasks, "--instances", str(row), "--model", "mock/demo", "--agent", "naive",
                   "-T", "max_steps=2", *more, "--log-dir", str(log), "--quiet")
    assert done.returncode == 0, done.stderr
    return only_run_dir(log)


def test_nethack_and_minihack_instances_round_trip_to_compare(shared_data: Path, tmp_path: Path) -> None:
    row = shared_data / LLM_ROW
    run = _played(tmp_path / "runs", row, "balrog/nle/nethackchallenge", "balrog/minihack/corridor-r3")
    out = _compared(row, run)
    for task in ("balrog/nle/nethackchallenge", "balrog/minihack/corridor-r3"):
        assert out["tasks"][task]["paired"] and out["tasks"][task]["n"] == 5, task  # every instance paired
    assert playbench.verify(run).ok


def test_textworld_instances_play_the_counters_game_and_round_trip_to_compare(shared_data: Path,
                                                                                  tmp_path: Path) -> None:
    row = shared_data / LLM_ROW
    run = _played(tmp_path / "runs", row, "balrog/textworld/coin_collector")
    records = _records(run)
    assert [r.options for r in records] == [{"game": 1}] * 10  # each worker's first coin collector: game 1
    assert {r.instance["position"] for r in records} == {1}
    out = _compared(row, run)
    assert out["tasks"]["balrog/textworld/coin_collector"]["paired"]
    assert out["tasks"]["balrog/textworld/coin_collector"]["n"] == 10


#: Crafter episodes of the Llama row whose world a worker's recorded seed gave: episode -> (the worker's
#: previous episode, whose seed's second NumPy draw is the world seed); episode 9's worker left no such seed.
CRAFTER = {3: "textworld/treasure_hunter/treasure_hunter_run_08.json",
           4: "textworld/treasure_hunter/treasure_hunter_run_09.json",
           5: "textworld/the_cooking_game/the_cooking_game_run_00.json",
           6: "textworld/treasure_hunter/treasure_hunter_run_07.json",
           7: "textworld/the_cooking_game/the_cooking_game_run_02.json",
           8: "textworld/the_cooking_game/the_cooking_game_run_01.json"}


def _crafter_row(source: Path, target: Path) -> Path:
    """The row's Crafter episodes 3-9 and the episode files whose seeds gave their worlds (few candidates)."""
    target.mkdir()
    shutil.copy(source / "metadata.yaml", target / "metadata.yaml")
    for env in ("crafter", "textworld"):
        (target / env).mkdir()
        shutil.copy(source / env / f"{env}_summary.json", target / env / f"{env}_summary.json")
    for index in (*CRAFTER, 9):
        for suffix in (".json", ".csv"):
            name = f"crafter/default/default_run_{index:02d}{suffix}"
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(source / name, target / name)
    for name in CRAFTER.values():
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source / name, target / name)
    return target


def test_crafter_instances_play_their_worlds_and_the_clock_drawn_one_is_refused(shared_data: Path,
                                                                                tmp_path: Path) -> None:
    row = _crafter_row(shared_data / LLM_ROW, tmp_path / "row")
    with pytest.raises(PlaybenchError) as refused:
        playbench.eval("balrog/crafter/default", agent="random", instances=row, log_dir=tmp_path / "none")
    assert str(refused.value).startswith(f"balrog/crafter/default: playbench cannot play {row}'s instance 6 (seed "
                                         "1308227724) of 7 again: its world seed was drawn from the clock")
    assert str(refused.value).endswith("; --episodes 6 takes the first 6") and "\n" not in str(refused.value)
    run = _played(tmp_path / "runs", row, "balrog/crafter/default", more=("--episodes", "6"))
    records = _records(run)
    assert all(r.options is not None and r.instance["seed"] == r.options["world"] for r in records), records
    out = _compared(row, run)
    assert out["tasks"]["balrog/crafter/default"]["paired"] and out["tasks"]["balrog/crafter/default"]["n"] == 6
    claims = leaderboard_instances.Claims(row)  # what compare checks: the world claimed gives the episode's steps
    first = records[0]
    assert claims.episode(first.task, first.seed, first.options, first.instance) == "crafter/default/default_run_03.json"
    assert claims.episode(first.task, first.seed, {"world": first.options["world"] + 1}, first.instance) is None
    with pytest.raises(PlaybenchError, match="holds 6 of the 30 TextWorld episodes its summary counts"):
        playbench.eval("balrog/textworld/treasure_hunter", agent="random", instances=row, log_dir=tmp_path / "none")
    # the same seeds played on playbench's own worlds pair with nothing of the row
    lines = tmp_path / "seeds.txt"
    lines.write_text("".join(f"balrog/crafter/default {r.seed}\n" for r in records))
    own = _played(tmp_path / "own", lines, "balrog/crafter/default")
    assert not _compared(row, own)["tasks"]["balrog/crafter/default"]["paired"]


HARD = "minihack/MiniHack-Boxoban-Hard-v0/MiniHack-Boxoban-Hard-v0_run_{:02d}"


def test_a_boxoban_instance_is_the_official_level_its_recorded_map_shows(shared_data: Path, tmp_path: Path) -> None:
    """The shared data holds one of the four files of the official hard levels: episode 4's level is in it."""
    row, levels = shared_data / LLM_ROW, str(shared_data / "boxoban" / "hard")
    found = leaderboard_instances.by_file(row, {"balrog/minihack/boxoban-hard": {"levels": levels}})
    assert [found[HARD.format(k) + ".json"].problem for k in range(4)] == [  # in the files the sample leaves out
        f"no level of the official hard levels under {levels} shows the map its first step shows"] * 4
    instance = found[HARD.format(4) + ".json"]
    assert instance.options == {"balrog_seeding": True, "clock": "2024-11-11", "level": "000.txt;18"}
    step = leaderboard.read_steps(row, HARD.format(4) + ".csv")[0][0]
    game = compat_game(get_task("balrog/minihack/boxoban-hard"), {"levels": levels})
    try:  # the first step gives the recorded text
        game.reset(seed=instance.seed, options=dict(instance.options))
        assert game.step(step.answer)[0] == step.observation
    finally:
        game.close()

    one = tmp_path / "row"  # the row's episode 4 alone: played again, paired with it
    (one / "minihack").mkdir(parents=True)
    shutil.copy(row / "metadata.yaml", one / "metadata.yaml")
    shutil.copy(row / "minihack" / "minihack_summary.json", one / "minihack" / "minihack_summary.json")
    for suffix in (".json", ".csv"):
        (one / HARD.format(4)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(row / (HARD.format(4) + suffix), one / (HARD.format(4) + suffix))
    run = _played(tmp_path / "runs", one, "balrog/minihack/boxoban-hard", more=("-T", f"levels={levels}"))
    (record,) = _records(run)
    assert record.options == instance.options and record.instance["level_id"] == "000.txt;18"
    assert playbench.verify(run).ok
    out = _compared(one, run)
    assert out["tasks"]["balrog/minihack/boxoban-hard"]["paired"] and out["tasks"]["balrog/minihack/boxoban-hard"]["n"] == 1

    with pytest.raises(PlaybenchError, match="os.listdir.*give the official levels \\(-T levels=PATH\\)"):
        playbench.eval("balrog/minihack/boxoban-hard", agent="random", instances=one, log_dir=tmp_path / "none")
    vlm = leaderboard_instances.by_file(shared_data / VLM_ROW, {"balrog/minihack/boxoban-hard": {"levels": levels}})
    assert {i.problem for i in vlm.values()} == {"its first recorded observation shows no map (a VLM row's text "
                                                  "leaves it out): which Boxoban level it played cannot be told"}

"""TextWorld on BALROG's games (§6.3, B1c, B10, B11): the published facts, regeneration, folders, cache, play.

The module makes two of BALROG's games once into a private cache (coin collector and cooking game,
position 0 of each task, in parallel); every regenerated game is checked against the published table.
The other 73 games are checked by ``benchmarks/textworld_games.py`` (minutes).
"""

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from helpers import PLAYBENCH, textworld_cache
from playbench.agents.reference import ReferenceAgent
from playbench.core.errors import PlaybenchError
from playbench.core.params import PlaybenchDeprecation
from playbench.core.registry import get_task
from playbench.core.seeding import episode_seed
from playbench.runner.plan import EpisodeJob
from playbench.runner.runner import play_episode
from playbench.suites.balrog.protocol import textworld_prompt
from playbench.suites.balrog.textworld.cache import ensure, game_dir
from playbench.suites.balrog.textworld.game import TextWorldGame, check_published, clean_observation, game_position
from playbench.suites.balrog.textworld.generate import GameSpec
from playbench.suites.balrog.textworld.published import GAMES, RECIPES
from playbench.suites.balrog.textworld.sets import balrog_specs, game_set

COIN, COOK = balrog_specs("coin_collector")[0], balrog_specs("the_cooking_game")[0]
#: A tiny spec for the cache tests (the grammar parsing still takes seconds).
TINY = GameSpec(task="coin_collector", stem="tiny", challenge="tw-coin_collector", settings={"level": 1}, seeds=7)


@pytest.fixture(scope="module")
def tw_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("tw-cache")
    with textworld_cache(root):
        ensure([COIN, COOK], show_progress=False)
        yield root


def _row(name: str):  # noqa: ANN202
    """The facts row of ``balrog/textworld/NAME``: the row its task hands the game."""
    return get_task(f"balrog/textworld/{name}").facts


def balrog_game(task: str, index: int = 0, **kwargs) -> TextWorldGame:
    return TextWorldGame(_row(task), index, game_set(task, None, "balrog", 10), **kwargs)


def play(game, policy="oracle", seed=0):
    obs, info = game.reset(seed=seed)
    rng = np.random.default_rng(seed)
    done = False
    while not done:
        obs, _, term, trunc, info = game.step(game.reference_action(policy, rng))
        done = term or trunc
    return info


def test_published_table():
    """The facts of BALROG's 75 games (intelligent-go-explore ``tw_games/*.json``) and their settings."""
    assert {task: len(rows) for task, rows in GAMES.items()} == dict.fromkeys(RECIPES, 25)
    facts = {task: {(g.rooms, g.max_score) for g in rows} for task, rows in GAMES.items()}
    assert facts == {"treasure_hunter": {(20, 1)}, "the_cooking_game": {(12, 17)}, "coin_collector": {(60, 1)}}
    assert {g.walkthrough for g in GAMES["treasure_hunter"]} == {20}  # make_treasure.py kept only 20-step games
    assert {g.walkthrough for g in GAMES["coin_collector"]} == {20}
    assert min(g.walkthrough for g in GAMES["the_cooking_game"]) == 45
    assert max(g.walkthrough for g in GAMES["the_cooking_game"]) == 90
    assert RECIPES["coin_collector"].settings == {"level": 220}
    assert RECIPES["treasure_hunter"].settings == {"level": 30}
    cooking = RECIPES["the_cooking_game"].settings
    assert cooking["split"] == "test" and cooking["drop"] is False and cooking["go"] == 12
    for task, rows in GAMES.items():
        labels = [g.label for g in rows]
        assert labels == sorted(labels), "BALROG sorts each task's files"
        assert len({g.uuid for g in rows}) == 25 and all(g.uuid.startswith(RECIPES[task].challenge) for g in rows)
    assert GAMES["coin_collector"][0].label == "level_220_seed_100"


@pytest.mark.parametrize("spec", [COIN, COOK], ids=["coin_collector", "the_cooking_game"])
def test_regenerated_games_are_balrogs(tw_root, spec):
    """Same uuid, rooms, walkthrough (length and text), max score and objective as the published game."""
    entry = ensure([spec], show_progress=False)[0]
    row = GAMES[spec.task][0]
    assert (entry["uuid"], entry["rooms"], entry["walkthrough_length"], entry["max_score"]) == \
        (row.uuid, row.rooms, row.walkthrough, row.max_score)
    assert (entry["walkthrough_sha"], entry["objective_sha"]) == (row.walkthrough_sha, row.objective_sha)
    assert entry["file"].endswith(".z8") and Path(entry["dir"]).parent.name == spec.task
    assert Path(entry["dir"], entry["file"]).read_bytes()[0x12:0x18] == b"000000"  # no compile date
    ref = game_set(spec.task, None, "balrog", 10).games[0]
    check_published(entry, ref)
    with pytest.raises(RuntimeError, match=r"is not BALROG's .*: walkthrough \d+ != 21$"):
        check_published(entry, replace(ref, published=replace(row, walkthrough=21)))


def test_selection_follows_balrogs_order():
    assert [game_position(i, 25, False) for i in (0, 1, 24, 25)] == [0, 1, 24, 0]
    assert [game_position(i, 25, True) for i in (0, 1, 24)] == [1, 2, 0]  # the counter, incremented before use
    assert balrog_game("coin_collector", 3).ref.label == GAMES["coin_collector"][3].label
    assert balrog_game("coin_collector", 0, compat=True).ref.label == "level_220_seed_1171"
    assert len(game_set("coin_collector", 2, "balrog", 10).games) == 2


def test_cleaning_goal_and_empty_command(tw_root):
    game = balrog_game("coin_collector")
    obs, info = game.reset(seed=1)
    objective = game._objective
    assert objective == "Your objective is to pick up the coin from the floor of the kitchenette."
    assert objective not in obs and "$$$$" not in obs
    assert obs.startswith("-= Dish-Pit =-") and info["manual"] == textworld_prompt("coin_collector")
    assert game.legal_actions() is None and info["short_term_context"] == ""
    obs, *_ = game.step("goal")
    assert objective not in obs and obs.startswith(">")
    obs, reward, term, trunc, info = game.step("")
    assert obs.startswith("I beg your pardon?") and not (term or trunc)


def test_clean_observation_function():
    assert clean_observation("banner OBJ\n\n-= Room =-\ntext\n", "OBJ") == "-= Room =-\ntext"
    assert clean_observation("  x  ", "") == "x"


def test_done_at_step_80(tw_root):
    game = balrog_game("coin_collector")
    game.reset(seed=0)
    for step in range(1, 81):
        _, _, term, trunc, info = game.step("look")
        assert (term or trunc) == (step == 80)
    assert info["score"] == 0.0 and info["completed"] == 0 and game.steps == 80
    prompt = balrog_game("coin_collector", max_steps_mode="prompt")  # B10 variant: 25 steps
    prompt.reset(seed=0)
    assert prompt.max_steps == 25


@pytest.mark.parametrize("task", ["coin_collector", "the_cooking_game"])
def test_oracle_wins(tw_root, task):
    game = balrog_game(task)
    info = play(game)
    assert info["completed"] == 1 and info["score"] == 1.0 and game.steps == GAMES[task][0].walkthrough


def test_progression_only_on_done_in_compat(tw_root):
    """B11: the cooking game scores points on the way; compat sets progression only on done."""
    def partial(compat):
        game = balrog_game("the_cooking_game", 24 if compat else 0, compat=compat,
                           max_steps=30)  # compat index 24 -> position 0
        info = play(game)
        return info["score"], info["metrics"]["score"], info["metrics"]["max_score"]

    fixed, raw, top = partial(False)
    assert 0 < raw < top == 17 and fixed == pytest.approx(raw / top)
    compat, raw_c, _ = partial(True)
    assert raw_c == raw and compat == 0.0


def test_through_the_runner_with_random_agent(tw_root):
    task = get_task("balrog/textworld/coin_collector")
    params = task.params({})
    job = EpisodeJob(task, params, 0, episode_seed(0, task.id, 0))
    record, steps = asyncio.run(play_episode(job, ReferenceAgent("random"), "random", None))
    assert record.status == "ok", record.error
    assert record.instance["set"] == "balrog" and record.instance["game"] == "level_220_seed_100"
    assert record.instance["uuid"] == GAMES["coin_collector"][0].uuid
    again, steps2 = asyncio.run(play_episode(job, ReferenceAgent("random"), "random", None))
    assert [s.executed for s in steps] == [s.executed for s in steps2]  # same seed, same episode


def test_folder_of_games(tw_root, tmp_path):
    """``-T games=PATH``: a .z8 is played, a .ulx with its .json is compiled, a lone .ulx is refused."""
    made = Path(ensure([COIN], show_progress=False)[0]["dir"])
    folder = tmp_path / "tw_games" / "coin_collector"  # BALROG's layout: one sub-folder per task
    folder.mkdir(parents=True)
    shutil.copy(made / f"{COIN.stem}.z8", folder / "b.z8")
    shutil.copy(made / f"{COIN.stem}.json", folder / "b.json")
    shutil.copy(made / f"{COIN.stem}.json", folder / "a.json")
    (folder / "a.ulx").write_bytes(b"Glul")  # textworld 1.7 cannot play it: its .json is compiled instead
    (folder / "notes.txt").write_text("ignored")
    task = get_task("balrog/textworld/coin_collector")
    params = task.params({"games": str(tmp_path / "tw_games")})
    task.validate_inputs(params)
    games = game_set("coin_collector", params.games, params.game_set, 10)
    assert [g.label for g in games.games] == ["a", "b"]  # BALROG's order: .ulx first, then .z8
    compiled, ready = (TextWorldGame(_row("coin_collector"), i, games) for i in (0, 1))
    assert play(compiled)["completed"] == 1 and play(ready)["completed"] == 1
    assert compiled.instance()["set"] == "folder" and compiled.instance()["command"].startswith("compile a.json")
    assert ready.instance()["sha256"] == ensure([COIN], show_progress=False)[0]["sha256"]

    (tmp_path / "glulx").mkdir()
    (tmp_path / "glulx" / "x.ulx").write_bytes(b"Glul")
    with pytest.raises(PlaybenchError, match=r"x\.ulx is a Glulx game, which textworld 1\.7 cannot play"):
        task.validate_inputs(task.params({"games": str(tmp_path / "glulx")}))
    (tmp_path / "bare").mkdir()
    shutil.copy(made / f"{COIN.stem}.z8", tmp_path / "bare" / "c.z8")
    with pytest.raises(PlaybenchError, match=r"c\.z8 has no TextWorld \.json beside it"):
        task.validate_inputs(task.params({"games": str(tmp_path / "bare")}))
    (tmp_path / "empty").mkdir()
    with pytest.raises(PlaybenchError, match="no TextWorld game"):
        task.validate_inputs(task.params({"games": str(tmp_path / "empty")}))


def test_unplayable_folder_refused_before_the_run(tmp_path):
    (tmp_path / "g").mkdir()
    (tmp_path / "g" / "x.ulx").write_bytes(b"Glul")
    logs = tmp_path / "runs"
    cmd = [sys.executable, "-m", "playbench.cli.main", "eval", "balrog/textworld/coin_collector", "--agent", "random",
           "-T", f"games={tmp_path / 'g'}", "--log-dir", str(logs)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Glulx" in lines[0] and not logs.exists()


def test_old_run_records_keep_the_legacy_set():
    """Parameters as runs recorded them before BALROG's games (every key, no game_set) name the legacy set."""
    task = get_task("balrog/textworld/coin_collector")
    old = {"preset": "config", "images": False, "compat": False, "feedback": True, "max_steps": None,
           "games": 2, "step_limit": "engine"}
    with pytest.warns(PlaybenchDeprecation, match="'step_limit' is deprecated"):  # max_steps_mode's old name
        params = task.params(old)
    assert (params.game_set, params.max_steps_mode) == ("legacy", "engine")
    legacy = game_set("coin_collector", params.games, params.game_set, 10)
    assert [g.spec.seeds for g in legacy.games] == [1, 2] and legacy.games[0].spec.settings == {"level": 120}
    assert task.params(task.params({}).model_dump(mode="json")).game_set == "balrog"  # a new record stays new
    assert task.params({"games": "2"}).game_set == "balrog"
    with pytest.raises(PlaybenchError, match="25 games"):
        task.params({"games": "26"})


def test_concurrent_processes_make_one_game(tmp_path):
    """Two processes with different hash seeds make the same game at once: same bytes, one directory."""
    code = ("import sys, json; from pathlib import Path; "
            "from playbench.suites.balrog.textworld.cache import ensure; "
            "from playbench.suites.balrog.textworld.generate import GameSpec; "
            "e = ensure([GameSpec.from_json(sys.argv[1])], Path(sys.argv[2]), show_progress=False)[0]; "
            "print(json.dumps(e))")
    procs = [subprocess.Popen([sys.executable, "-c", code, TINY.to_json(), str(tmp_path)], stdout=subprocess.PIPE,
                              text=True, env=dict(os.environ, PYTHONHASHSEED=seed)) for seed in ("1", "98765")]
    entries = [json.loads(p.communicate(timeout=300)[0].strip().splitlines()[-1]) for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert entries[0]["files"] == entries[1]["files"]
    task_dir = game_dir(TINY, tmp_path).parent
    assert [p.name for p in task_dir.iterdir()] == [game_dir(TINY, tmp_path).name]  # no temporary left
    other = replace(TINY, settings={"level": 2})
    assert game_dir(other, tmp_path) != game_dir(TINY, tmp_path)  # other settings, other directory


@pytest.mark.slow
def test_legacy_game_is_the_one_old_runs_played(tmp_path):
    """The legacy coin-collector game 1 is byte-identical to the one playbench made before (sha256 recorded then)."""
    entry = ensure([game_set("coin_collector", 1, "legacy", 10).games[0].spec], tmp_path, show_progress=False)[0]
    assert entry["sha256"] == "ad2e75e343f81d67edb277eb59e35a36ec8e1cc3cdbf2f622bc2133ac8115214"


def _processes_mentioning(text: str) -> list[int]:
    """Pids of live processes whose command line contains ``text``."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and text in (proc / "cmdline").read_bytes().decode(errors="replace"):
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def _wait_for_makers(cache: Path, count: int) -> None:
    """Wait (at most 60 s) until ``count`` processes are making games into ``cache``."""
    deadline = time.monotonic() + 60
    while len(_processes_mentioning(str(cache))) < count and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(_processes_mentioning(str(cache))) >= count, "the games are not being made"


def _assert_nothing_left(cache: Path) -> None:
    """No process is making a game any more, and no treasure-hunter directory (temporary or half-made) is left."""
    time.sleep(0.5)
    assert _processes_mentioning(str(cache)) == []  # the children and Inform's compilers are gone
    assert [p for p in cache.rglob("*") if p.is_dir() and p.parent.name == "treasure_hunter"] == []


def test_ctrl_c_while_a_game_is_made_exits_at_once_and_leaves_nothing_behind(tmp_path):
    """A run stopped while its games are made exits in seconds: each child making one is killed, and no
    half-made game reaches the cache."""
    cache = tmp_path / "tw"
    env = {**os.environ, "PLAYBENCH_TEXTWORLD_DIR": str(cache)}
    # the full-size treasure hunter takes minutes to make: without abandoning it, the run would wait for it
    args = ["eval", "balrog/textworld/treasure_hunter", "--agent", "random", "--episodes", "2",
            "--log-dir", str(tmp_path / "runs")]
    proc = subprocess.Popen([*PLAYBENCH, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stderr is not None
        seen = ""
        while "making" not in seen:
            line = proc.stderr.readline()
            assert line, f"the run ended before making a game: {seen}"
            seen += line
        _wait_for_makers(cache, 1)
        time.sleep(1)  # well inside the making (TextWorld generating, or Inform compiling)
        stopped = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        took = time.monotonic() - stopped
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert took < 15, f"the run took {took:.0f} s to stop"
    assert "playbench eval --resume" in seen + err
    _assert_nothing_left(cache)


def test_ctrl_c_while_pre_making_games_exits_at_once(tmp_path):
    """The shell's pre-make command: Ctrl-C reaches it alone (its children lead their own process groups),
    and it stops them too."""
    cache = tmp_path / "tw"
    proc = subprocess.Popen([sys.executable, "-m", "playbench.suites.balrog.textworld.cache", "treasure_hunter", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PLAYBENCH_TEXTWORLD_DIR": str(cache)})
    try:
        _wait_for_makers(cache, 2)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130 and err.strip().splitlines()[-1] == "TextWorld: interrupted; the games made so far are kept"
    _assert_nothing_left(cache)

"""BALROG's submission folder: ``export --format balrog`` writes it, ``report FOLDER`` reads it back.

The facts are from the leaderboard's published submission ``submissions/LLM/20241209_naive-claude-3-5-haiku``
of github.com/balrog-ai/experiments (commit 989931c): its per-episode progressions and Crafter step
counts, the figures its ``summary.json`` and ``<env>_summary.json`` state, and the layout and key order
of its files (the layout BALROG's evaluator writes: ``<env>/<task>/<task>_run_<NN>.json``, where a task
name may hold a slash). The test writes a folder of that shape itself and checks that the figure is
recomputed as published.
"""

import csv
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from playbench.cli.eval_cmd import command as eval_command
from playbench.cli.export_cmd import command as export_command
from playbench.cli.report_cmd import command as report_command
from playbench.core.errors import PlaybenchError
from playbench.core.registry import find_task
from playbench.log import read_run
from playbench.suites.balrog import submission

# -- facts of the published submission -------------------------------------------------------------------

BABYAI = "BabyAI-MixedTrainLocal-v0/"
#: progressions per (env, task); Crafter's are achievements / 22, the cooking game's points / 17
PROGRESSIONS: dict[str, dict[str, list[float]]] = {
    "babyai": {BABYAI + "goto": [1.0] * 10, BABYAI + "putnext": [0.0] * 10,
               BABYAI + "pick_up_seq_go_to": [1.0] * 5 + [0.0] * 5, BABYAI + "pickup": [1.0] * 5 + [0.0] * 5,
               BABYAI + "open": [1.0] * 6 + [0.0] * 4},
    "crafter": {"default": [k / 22 for k in (3, 3, 5, 5, 6, 6, 6, 7, 7, 10)]},
    "textworld": {"coin_collector": [0.0] * 10,
                  "the_cooking_game": [k / 17 for k in (1, 1, 2, 2, 3, 3, 9, 9, 14, 14)],
                  "treasure_hunter": [1.0] * 2 + [0.0] * 8},
    # 4 wins in 40 episodes (CorridorBattle-Dark 1, MazeWalk-15x15 2, MazeWalk-9x9 1)
    "minihack": {"MiniHack-CorridorBattle-Dark-v0": [1.0] + [0.0] * 4,
                 "MiniHack-MazeWalk-15x15-v0": [1.0] * 2 + [0.0] * 3,
                 "MiniHack-MazeWalk-9x9-v0": [1.0] + [0.0] * 4,
                 **{t: [0.0] * 5 for t in ("MiniHack-Boxoban-Hard-v0", "MiniHack-Boxoban-Medium-v0",
                                           "MiniHack-Corridor-R3-v0", "MiniHack-Quest-Easy-v0",
                                           "MiniHack-Quest-Medium-v0")}},
    "nle": {"NetHackChallenge-v0": [0.0, 0.0, 0.01847840456172601, 0.01847840456172601, 0.02081163581974355]},
}
# Baba Is AI: 10 wins in 120 episodes (40 tasks x 3); which tasks is not part of the env figure
_BABA_TASKS = [f"env/level{i:02d}" for i in range(38)] + ["env/goto_win", "env/goto_win-distr_obj"]
PROGRESSIONS["babaisai"] = {t: [0.0] * 3 for t in _BABA_TASKS[:38]}
PROGRESSIONS["babaisai"]["env/goto_win"] = [1.0, 0.0, 0.0]
PROGRESSIONS["babaisai"]["env/goto_win-distr_obj"] = [1.0, 1.0, 1.0]
PROGRESSIONS["babaisai"]["env/level00"] = [1.0, 1.0, 1.0]
PROGRESSIONS["babaisai"]["env/level01"] = [1.0, 1.0, 1.0]
CRAFTER_STEPS = [77, 95, 135, 160, 153, 169, 258, 202, 241, 219]

#: what the submission's summary.json states
PUBLISHED = {
    "average_progress": 19.31525904701802,
    "standard_error": 1.8294268418571227,
    "environments": {
        "babaisai": {"progression_percentage": 8.333333333333332, "standard_error": 2.5230419617479125,
                     "episodes_played": 120},
        "textworld": {"progression_percentage": 18.03921568627451, "standard_error": 5.809571530119767,
                      "episodes_played": 30},
        "minihack": {"progression_percentage": 10.0, "standard_error": 4.743416490252569, "episodes_played": 40},
        "nle": {"progression_percentage": 1.1553688988639115, "standard_error": 0.423598115933611,
                "episodes_played": 5},
        "crafter": {"progression_percentage": 26.36363636363636, "standard_error": 2.7872199485010705,
                    "episodes_played": 10},
        "babyai": {"progression_percentage": 52.0, "standard_error": 7.065408693062279, "episodes_played": 50},
    },
}
#: task figures its <env>_summary.json files state
PUBLISHED_TASKS = {
    ("babyai", BABYAI + "pick_up_seq_go_to"): (50.0, 15.811388300841896, 10),
    ("babyai", BABYAI + "open"): (60.0, 15.491933384829668, 10),
    ("textworld", "the_cooking_game"): (34.11764705882353, 9.218606129016344, 10),
    ("textworld", "treasure_hunter"): (20.0, 12.64911064067352, 10),
}
CRAFTER_AVERAGE_STEPS = 170.9
#: the key order of the published episode files (BALROG's evaluator, then each env's get_stats())
KEYS_HEAD = ["task", "action_frequency", "input_tokens", "output_tokens", "done", "episode_return", "num_steps",
             "failed_candidates"]
KEYS_TAIL = ["process_num", "seed", "agent", "client"]
STATS_KEYS = {"babyai": ["mission", "progression"], "babaisai": ["target_plan", "progression"],
              "crafter": ["score", "progression", "achievements"], "textworld": ["progression"],
              "minihack": ["progression", "end_reason"],
              "nle": ["score", "depth", "gold", "experience_level", "time", "dlvl_list", "xplvl_list",
                      "highest_achievement", "progression", "end_reason"]}
#: Crafter's achievements as BALROG writes them: a count for each of the 22
CRAFTER_ACHIEVEMENTS = 22


def _write_published(folder: Path) -> None:
    """A submission folder with the published episodes' progressions, laid out as published."""
    for env, tasks in PROGRESSIONS.items():
        for task, xs in tasks.items():
            for index, x in enumerate(xs):
                log = {"task": task, "action_frequency": {}, "input_tokens": 0, "output_tokens": 0, "done": True,
                       "episode_return": x, "num_steps": CRAFTER_STEPS[index] if env == "crafter" else 1,
                       "failed_candidates": [], "progression": x, "process_num": "ForkProcess-1",
                       "seed": 1000 + index, "agent": {"type": "naive"}, "client": {"model_id": "m"}}
                path = folder / submission.episode_path(env, task, index)
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(json.dumps(log, indent=4))
                path.with_suffix(".csv").write_text("Step,Action,Reasoning,Observation,Reward,Done\n")
        (folder / env / f"{env}_summary.json").write_text(json.dumps({"progression_percentage": -1}))
    (folder / "babyai" / ".DS_Store").write_bytes(b"\x00\x01")  # as in a published folder: not an episode
    (folder / "images" / "step").mkdir(parents=True)  # a folder without episode files is no environment
    (folder / "summary.json").write_text(json.dumps({**PUBLISHED, "total_input_tokens": 0, "total_output_tokens": 0,
                                                     "client": {}, "agent": {}}, indent=4))


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-12 * max(1.0, abs(b))


def test_published_layout_paths() -> None:
    """Task names with a slash nest, as BALROG's os.path.join nests them in the published folders."""
    assert submission.episode_path("babyai", BABYAI + "goto", 0) == \
        "babyai/BabyAI-MixedTrainLocal-v0/goto/BabyAI-MixedTrainLocal-v0/goto_run_00.json"
    assert submission.episode_path("babaisai", "env/goto_win", 2) == "babaisai/env/goto_win/env/goto_win_run_02.json"
    assert submission.episode_path("nle", "NetHackChallenge-v0", 4, ".csv") == \
        "nle/NetHackChallenge-v0/NetHackChallenge-v0_run_04.csv"
    assert submission.original_name("balrog/babyai/pick_up_seq_go_to") == ("babyai", BABYAI + "pick_up_seq_go_to")
    assert submission.original_name("balrog/babaisai/goto_win") == ("babaisai", "env/goto_win")
    assert submission.original_name("balrog/minihack/corridor-r3") == ("minihack", "MiniHack-Corridor-R3-v0")
    assert submission.original_name("balrog/crafter/default") == ("crafter", "default")
    assert submission.original_name("balrog/textworld/the_cooking_game") == ("textworld", "the_cooking_game")
    assert submission.original_name("balrog/nle/nethackchallenge") == ("nle", "NetHackChallenge-v0")


def test_published_figure_recomputed(tmp_path: Path) -> None:
    _write_published(tmp_path)
    assert submission.is_submission(tmp_path)
    result = submission.read_submission(tmp_path)
    summary, envs = result["summary"], result["envs"]
    assert _close(summary["average_progress"], PUBLISHED["average_progress"])
    assert _close(summary["standard_error"], PUBLISHED["standard_error"])
    for env, block in PUBLISHED["environments"].items():
        got = summary["environments"][env]
        assert got["episodes_played"] == block["episodes_played"], env
        assert _close(got["progression_percentage"], block["progression_percentage"]), env
        assert _close(got["standard_error"], block["standard_error"]), env
    for (env, task), (pct, se, n) in PUBLISHED_TASKS.items():
        got = envs[env]["tasks"][task]
        assert (got["episodes_played"], _close(got["progression_percentage"], pct), _close(got["standard_error"], se)) \
            == (n, True, True), task
    assert _close(envs["crafter"]["average_steps"], CRAFTER_AVERAGE_STEPS)
    assert result["mismatches"] == []


def test_report_prints_the_leaderboard_line_and_flags_a_wrong_summary(tmp_path: Path) -> None:
    _write_published(tmp_path)
    out = CliRunner().invoke(report_command, [str(tmp_path)])
    assert out.exit_code == 0, out.output
    assert "Overall Average Progression: 19.32% ± 1.83%" in out.output
    assert "summary.json agrees with the episode files" in out.output
    # a summary.json that its episode files do not give is reported, figure by figure
    stated = json.loads((tmp_path / "summary.json").read_text())
    stated["average_progress"] = 25.0
    stated["environments"]["nle"]["episodes_played"] = 6
    (tmp_path / "summary.json").write_text(json.dumps(stated))
    result = submission.read_submission(tmp_path)
    assert [m.split(":")[0] for m in result["mismatches"]] == ["average_progress", "nle episodes_played"]
    out = CliRunner().invoke(report_command, [str(tmp_path)])
    assert out.exit_code == 0
    assert "summary.json disagrees with its episode files" in out.output
    assert "Overall Average Progression: 19.32% ± 1.83%" in out.output
    data = json.loads(CliRunner().invoke(report_command, [str(tmp_path), "--json"]).output)
    assert _close(data["summary"]["average_progress"], PUBLISHED["average_progress"])


def test_bad_episode_file_is_one_clear_line(tmp_path: Path) -> None:
    _write_published(tmp_path)
    bad = tmp_path / submission.episode_path("nle", "NetHackChallenge-v0", 0)
    bad.write_text('{"task": "NetHackChallenge-v0", "progression": "high"}')
    out = CliRunner().invoke(report_command, [str(tmp_path)])
    assert isinstance(out.exception, PlaybenchError)  # the CLI prints it as one line, exit 2
    assert "progression 'high' is not a number" in str(out.exception)
    bad.write_text("{torn")
    out = CliRunner().invoke(report_command, [str(tmp_path)])
    assert isinstance(out.exception, PlaybenchError) and "is not a readable episode file" in str(out.exception)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    """A small real run: random agent, five environments (two with task names that nest), two short episodes each."""
    logs = tmp_path_factory.mktemp("runs")
    result = CliRunner().invoke(eval_command, ["balrog/babyai/goto", "balrog/babaisai/goto_win",
                                               "balrog/minihack/corridor-r3", "balrog/crafter/default",
                                               "balrog/nle/nethackchallenge", "--agent", "random", "-T", "max_steps=10",
                                               "--episodes", "2", "--log-dir", str(logs), "--quiet"])
    assert result.exit_code == 0, result.output
    (run,) = [p for p in logs.iterdir() if p.is_dir()]
    return run


def test_round_trip_run_export_report(run_dir: Path, tmp_path: Path) -> None:
    target = tmp_path / "sub"
    out = CliRunner().invoke(export_command, [str(run_dir), "--format", "balrog", "-o", str(target)])
    assert out.exit_code == 0, out.output
    for env, task in (("babyai", BABYAI + "goto"), ("babaisai", "env/goto_win"),
                      ("minihack", "MiniHack-Corridor-R3-v0"), ("crafter", "default"), ("nle", "NetHackChallenge-v0")):
        for index in range(2):
            log = json.loads((target / submission.episode_path(env, task, index)).read_text())
            assert list(log) == KEYS_HEAD + STATS_KEYS[env] + KEYS_TAIL, env
            assert log["task"] == task
            assert (target / submission.episode_path(env, task, index, ".csv")).read_text().startswith(
                "Step,Action,Reasoning,Observation,Reward,Done")
        assert (target / env / f"{env}_summary.json").is_file()
    stated = json.loads((target / "summary.json").read_text())
    assert list(stated) == ["average_progress", "standard_error", "environments", "total_input_tokens",
                            "total_output_tokens", "client", "agent", "playbench"]  # BALROG's, then playbench's mark
    assert stated["playbench"]["seeded"] is True and len(stated["playbench"]["episodes"]) == 10
    assert stated["agent"]["type"] == "random"
    # report of the folder = the figure playbench's own report gives for the run (BALROG's way)
    ours = json.loads(CliRunner().invoke(report_command, [str(run_dir), "--json"]).output)["balrog"]
    back = json.loads(CliRunner().invoke(report_command, [str(target), "--json"]).output)
    assert back["mismatches"] == []
    assert _close(back["summary"]["average_progress"], ours["overall"]["mean"])
    assert _close(back["summary"]["standard_error"], ours["overall"]["stderr"])
    crafter = json.loads((target / submission.episode_path("crafter", "default", 0)).read_text())
    assert len(crafter["achievements"]) == CRAFTER_ACHIEVEMENTS and crafter["score"] == sum(
        1 for n in crafter["achievements"].values() if n)
    for env in ("babyai", "babaisai", "minihack", "crafter", "nle"):
        assert _close(back["summary"]["environments"][env]["progression_percentage"], ours["envs"][env]["mean"])
        assert _close(back["summary"]["environments"][env]["standard_error"], ours["envs"][env]["stderr"])
    # the folder is never written over
    again = CliRunner().invoke(export_command, [str(run_dir), "--format", "balrog", "-o", str(target)])
    assert isinstance(again.exception, PlaybenchError) and "already exists" in str(again.exception)


def test_only_ok_balrog_episodes_are_written(tmp_path: Path) -> None:
    """BALROG writes no file for a failed episode; playbench says what it left out instead of hiding it."""
    from playbench.core.records import EpisodeRecord

    def rec(task: str, index: int, status: str, score: float | None) -> EpisodeRecord:
        return EpisodeRecord(task=task, index=index, seed=index, status=status, agent="naive", model="openai/m",
                             score=score, usage={"input_tokens": 10, "output_tokens": 2},
                             metrics={"progression": score or 0.0, "num_steps": 3, "episode_return": 1.0,
                                      "action_frequency": {"up": 3}, "failed_candidates": [],
                                      "target_plan": "goto[ball]"})

    episodes = [(rec("balrog/babaisai/goto_win", 0, "ok", 1.0), None),
                (rec("balrog/babaisai/goto_win", 1, "infra-error", None), None),
                (rec("balrog/babaisai/goto_win", 2, "ok", 0.0), None),
                (rec("smartplay/hanoi-3", 0, "ok", 1.0), None)]
    written = submission.write_submission(tmp_path, episodes, submission.agent_config("robust-cot", {}),
                                          submission.client_config("openai/m", {"temperature": 0}))
    assert (written.episodes, written.left_out, written.other_tasks) == (2, {"infra-error": 1}, ["smartplay/hanoi-3"])
    assert not (tmp_path / submission.episode_path("babaisai", "env/goto_win", 1)).exists()
    log = json.loads((tmp_path / submission.episode_path("babaisai", "env/goto_win", 2)).read_text())
    assert (log["agent"], log["client"]) == ({"type": "robust_cot"},
                                             {"client_name": "openai", "model_id": "m",
                                              "generate_kwargs": {"temperature": 0}})
    assert (log["target_plan"], log["input_tokens"]) == ("goto[ball]", 10)
    stated = json.loads((tmp_path / "summary.json").read_text())
    block = stated["environments"]["babaisai"]  # progressions 1 and 0: 50% with population SE 0.5 / sqrt(2)
    assert list(stated["environments"]) == ["babaisai"] and block["episodes_played"] == 2
    assert _close(block["progression_percentage"], 50.0) and _close(block["standard_error"], 50 / 2 ** 0.5)
    assert (stated["average_progress"], stated["total_input_tokens"]) == (50.0, 20)


def test_an_episode_file_linked_out_of_the_folder_is_refused(tmp_path: Path) -> None:
    """A link is never followed out of a submission: the figure counts the folder's own regular files only."""
    folder = tmp_path / "sub"
    _write_published(folder)
    linked = folder / submission.episode_path("nle", "NetHackChallenge-v0", 0)
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps({**json.loads(linked.read_text()), "progression": 1.0}))
    linked.unlink()
    linked.symlink_to(outside)
    with pytest.raises(PlaybenchError, match="symbolic link"):
        submission.read_submission(folder)
    out = CliRunner().invoke(report_command, [str(folder)])
    assert isinstance(out.exception, PlaybenchError) and str(linked) in str(out.exception)
    linked.unlink()  # a linked folder on the way is refused as well
    (folder / "nle" / "NetHackChallenge-v0" / "more").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "x_run_00.json").write_text(outside.read_text())
    with pytest.raises(PlaybenchError, match="symbolic link"):
        submission.read_episodes(folder)


def test_deeply_nested_json_is_one_line(tmp_path: Path) -> None:
    _write_published(tmp_path)
    bad = tmp_path / submission.episode_path("nle", "NetHackChallenge-v0", 0)
    bad.write_text("[" * 200_000 + "]" * 200_000)
    with pytest.raises(PlaybenchError, match="is not a readable episode file"):
        submission.read_submission(tmp_path)
    bad.unlink()
    (tmp_path / "summary.json").write_text('{"a": ' + "[" * 200_000 + "]" * 200_000 + "}")
    with pytest.raises(PlaybenchError, match="summary.json is not readable JSON"):
        submission.read_submission(tmp_path)


# -- the steps table's last row: the observation the game showed after the final step ---------------------------

#: BALROG's note before the observation that follows an answer naming no valid action (its evaluator since c347aa8)
NOTE = "\n\nYour previous output did not contain a valid action. Defaulted to action: {action}\n\nObservation:\n"


def _eval(tmp_path: Path, *args: str) -> Path:
    logs = tmp_path / "logs"
    result = CliRunner().invoke(eval_command, [*args, "--log-dir", str(logs), "--quiet"])
    assert result.exit_code == 0, result.output
    (run,) = [p for p in logs.iterdir() if p.is_dir()]
    return run


def _shown_after(run: Path, record: Any) -> str:
    """What the game shows after the episode's steps: a fresh game reset with its seed, stepped with its actions."""
    log = read_run(run)
    task = find_task(record.task)
    assert task is not None
    values = next(spec.params for spec in log.config.tasks if spec.id == record.task)
    game = task.make_game(task.params(values), record.index)
    try:
        shown, _ = game.reset(seed=record.seed)
        for step in log.read_trajectory(record):
            shown, *_ = game.step(step.executed)
    finally:
        game.close()
    return shown


def _rows(folder: Path, task_id: str, index: int) -> list[list[str]]:
    env, task = submission.original_name(task_id)
    text = (folder / submission.episode_path(env, task, index, ".csv")).read_text(encoding="utf-8")
    return list(csv.reader(io.StringIO(text, newline=""), escapechar="˘"))[1:]


def test_last_row_shows_the_observation_after_the_final_step(run_dir: Path, tmp_path: Path) -> None:
    """Every row's Observation is the text after its step; the last one's too (no longer ``""``)."""
    target = tmp_path / "sub"
    assert CliRunner().invoke(export_command, [str(run_dir), "--format", "balrog", "-o", str(target)]).exit_code == 0
    log = read_run(run_dir)
    checked = 0
    for record in log.episodes():
        if record.task not in ("balrog/babyai/goto", "balrog/babaisai/goto_win", "balrog/crafter/default"):
            continue
        steps, rows = log.read_trajectory(record), _rows(target, record.task, record.index)
        assert [row[3] for row in rows[:-1]] == [step.observation for step in steps[1:]]
        assert rows[-1][3] == steps[-1].next_observation == _shown_after(run_dir, record) != ""
        assert rows[-1][5] == "True" and [s.next_observation is None for s in steps[:-1]] == [True] * (len(steps) - 1)
        checked += 1
    assert checked == 6


def test_an_invalid_final_answer_shows_balrog_note(tmp_path: Path) -> None:
    """After an answer naming no valid action the row holds the agent's parsed answer and BALROG's note."""
    run = _eval(tmp_path, "balrog/babyai/goto", "balrog/babaisai/goto_win", "--model", "mock/demo",
                "-M", "invalid_rate=1", "-T", "max_steps=3", "--episodes", "1", "--seed", "1")
    target = tmp_path / "sub"
    assert CliRunner().invoke(export_command, [str(run), "--format", "balrog", "-o", str(target)]).exit_code == 0
    log = read_run(run)
    defaults = {"balrog/babyai/goto": "go forward", "balrog/babaisai/goto_win": "idle"}  # each game's default action
    assert sorted(record.task for record in log.episodes()) == sorted(defaults)
    for record in log.episodes():
        default = defaults[record.task]
        *_, last = rows = _rows(target, record.task, record.index)
        assert len(rows) == 3 and last[1] == "I am not sure what to do here"  # BALROG's response.completion
        assert last[3] == NOTE.format(action=default) + _shown_after(run, record), record.task
        assert all(row[3].startswith(NOTE.format(action=default)) for row in rows)


def test_a_run_recorded_before_next_observation_exports_and_verifies(tmp_path: Path) -> None:
    """A run whose steps hold no ``next_observation`` (the first layout, as written then) reads, verifies and exports."""
    import playbench
    from playbench.log import trajectory_path

    run = _eval(tmp_path, "balrog/babyai/goto", "--agent", "random", "--episodes", "2")
    log = read_run(run)
    old = tmp_path / "old"
    old.mkdir()
    shutil.copy(run / "run.json", old / "run.json")
    lines = []
    for record in log.episodes():
        steps = log.read_trajectory(record)
        assert steps[-1].next_observation is not None
        path = old / trajectory_path(record.task, record.index)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"".join(s.model_copy(update={"next_observation": None}).json_line() for s in steps))
        lines.append(record.model_copy(update={"trajectory": trajectory_path(record.task, record.index)}))
    (old / "episodes.jsonl").write_text("".join(r.model_dump_json() + "\n" for r in lines))
    assert b"next_observation" not in b"".join(p.read_bytes() for p in old.rglob("*.jsonl"))

    assert (playbench.verify(old).verified, playbench.verify(old).differing) == (2, 0)
    target = tmp_path / "sub"
    assert CliRunner().invoke(export_command, [str(old), "--format", "balrog", "-o", str(target)]).exit_code == 0
    for index in range(2):
        rows = _rows(target, "balrog/babyai/goto", index)
        assert rows[-1][3] == "" and all(row[3] for row in rows[:-1])
    result = playbench.verify(target)
    assert (result.verified, result.differing, result.not_verifiable) == (2, 0, 0)

"""The BALROG versions a leaderboard row's re-play reproduces (``leaderboard_games``), from small facts.

Each test builds what BALROG's code of a row's date did from a fact the public rows show (quoted in the test),
never from the rows' files themselves; the last two edit a copy of the shared sample row
(``PLAYBENCH_TEST_DATA``, the ``shared_data`` fixture) as an earlier or later evaluator would have written it.
"""

import csv
import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from playbench.api.verify import verify
from playbench.core.registry import find_task
from playbench.core.verdict import NotVerifiable
from playbench.suites.balrog import leaderboard_games as games
from playbench.suites.balrog import leaderboard_nle
from playbench.suites.balrog.babaisai.text import ADDRESS, broken_you_text
from playbench.suites.balrog.babyai.levels import MixedTrainLocal
from playbench.suites.balrog.leaderboard import QUOTED_NOTE, Played, Row, Step

ROW = Path("balrog-leaderboard/LLM/20241030_naive-Llama-3.2-1B-Instruct")


def _played(env: str, task: str, task_id: str, seed: int, data: dict[str, Any], steps: list[Step]) -> Played:
    return Played(env, task, task_id, task_id, 0, seed, data, steps, early=False)


# -- BabyAI: the distractors of the code that played the row -------------------------------------------------

KIND = "pick_up_seq_go_to"
#: LLM/20241115_naive-Qwen2.5-7B-it (2024-11-25), pick_up_seq_go_to run 00: its seed and recorded mission
QWEN_SEED, QWEN_MISSION = 692561915, "go to the blue key after you pick up the grey ball"


def _mission(distractors: int, seed: int) -> str:
    level = MixedTrainLocal(KIND, num_dists=distractors)
    level.reset(seed=seed)
    return str(level.mission)


def _open_babyai(seed: int, mission: str, steps: list[Step] | None = None) -> Any:
    episode = _played("babyai", f"BabyAI-MixedTrainLocal-v0/{KIND}", f"balrog/babyai/{KIND}", seed,
                      {"mission": mission}, steps or [])
    return games.open_babyai(episode, Row(Path("."), "2024-11-25", "quoted"))


def test_babyai_level_of_the_recorded_mission() -> None:
    assert _mission(8, QWEN_SEED) == QWEN_MISSION != _mission(0, QWEN_SEED)  # the fact: 8 distractors
    player = _open_babyai(QWEN_SEED, QWEN_MISSION)
    assert player.game.env.num_dists == 8 and player.game.env.mission == QWEN_MISSION
    configured = _mission(0, QWEN_SEED)
    assert _open_babyai(QWEN_SEED, configured).game.env.num_dists == 0


def test_babyai_same_mission_both_ways_is_told_by_the_first_step() -> None:
    seed = next(s for s in range(1000) if _mission(0, s) == _mission(8, s))
    crowded = MixedTrainLocal(KIND, num_dists=8)
    crowded.reset(seed=seed)
    level = find_task(f"balrog/babyai/{KIND}")
    assert level is not None
    game = games.compat_game(level, {})
    game.env = crowded
    game.reset(seed=seed)
    text = game.step("turn left")[0]
    assert isinstance(text, str)
    after = [Step("0", "turn left", text, "0", "False")]
    assert _open_babyai(seed, _mission(0, seed), after).game.env.num_dists == 8
    other = [Step("0", "turn left", text + " ", "0", "False")]  # neither level's: the configured one
    assert _open_babyai(seed, _mission(0, seed), other).game.env.num_dists == 0


# -- Baba Is AI: the memory addresses of BALROG's process --------------------------------------------------


def test_baba_addresses_are_not_compared() -> None:
    task = find_task("balrog/babaisai/goto_win")
    assert task is not None
    player = games.BabaPlayer(games.compat_game(task, {}), 100)
    ours = broken_you_text("wall is stop", "Active rules:\nbaba is you", (416, 288))
    # as BALROG printed it (Claude-3.5-Sonnet's rows): the lambda's address in lower case, the image's upper
    lower, upper = "0x7f9628ce4310", "0x7F9628CE0190"
    theirs = ours.replace(ADDRESS, lower, 1).replace(ADDRESS, upper, 1)
    assert theirs != ours and player.recorded(theirs) == ours
    assert player.recorded("rule `is` 4 step up at 0x12>") == "rule `is` 4 step up at 0x12>"  # no reset: kept


# -- TextWorld: the Glulx build BALROG played coin collector and treasure hunter as ---------------------------


@pytest.fixture(scope="module")
def coin() -> Any:
    """Coin collector's game 1 (the one the sample row's test makes too), as BALROG's Glulx build is re-played."""
    task = find_task("balrog/textworld/coin_collector")
    assert task is not None
    game = games.compat_game(task, {"max_steps": task.facts.max_steps}, index=0)
    return task, game


def _player(coin: Any) -> games.TextWorldPlayer:
    task, game = coin
    game.reset(seed=0)
    return games.TextWorldPlayer(game, task.facts.max_steps, glulx=True)


def test_glulx_answer_over_lines_is_one_command(coin: Any) -> None:
    # Llama-3.2-3B's row: the answer "goal\ngo north" got "That's not a verb I recognise." (one line, one word
    # "goal\ngo"); the .z8 given the line break plays "goal" and keeps the rest for the next command
    player = _player(coin)
    assert player.step("goal\ngo north")[0] == "That's not a verb I recognise."
    assert player.step("go north")[0] != "I beg your pardon?"


def test_glulx_answer_longer_than_the_z8_reads(coin: Any) -> None:
    player = _player(coin)
    short = player.step("a b c, go")[0]
    assert short.startswith("You seem to want to talk to someone")
    assert player.recorded("Something else.") == "Something else."  # a difference, reported as one
    reply = player.step("a b c d e f g h i j k l m n o, go")[0]  # the comma is the 16th word: never read
    assert reply == "That's not a verb I recognise." and player.recorded(reply) == reply  # agreeing: compared
    with pytest.raises(NotVerifiable, match="the answer has 17 words and 33 bytes, more than the .z8"):
        player.recorded(short)


def test_glulx_end_screen_keeps_its_prompt(coin: Any) -> None:
    player = _player(coin)
    text = player.step("go north")[0]
    assert player.recorded(text + "\n>") == text + "\n>"  # not the end: a difference
    rng, done = np.random.default_rng(0), False
    while not done:
        text, _, done = player.step(player.game.reference_action("oracle", rng))
    assert "*** The End ***" in text and text.endswith("UNDO the last command?")
    assert player.recorded(text + "\n>") == text  # the Glulx build's last prompt, left in its text


# -- a copy of the shared sample row, as another evaluator wrote it -----------------------------------------


def _copy(shared: Path, target: Path, part: str, row: Path = ROW) -> Path:
    target.mkdir()
    shutil.copy(shared / row / "metadata.yaml", target / "metadata.yaml")
    shutil.copytree(shared / row / part, target / part)
    env = part.split("/")[0]
    shutil.copy(shared / row / env / f"{env}_summary.json", target / env / f"{env}_summary.json")
    return target


def _edit(path: Path, step: int, values: dict[str, str]) -> None:
    """Set cells of one row of a steps table, read and written as BALROG's evaluator writes it."""
    with path.open(newline="", encoding="utf-8") as fh:
        table = list(csv.reader(fh, escapechar="˘"))
    for column, value in values.items():
        table[step + 1][table[0].index(column)] = value
    with path.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh, escapechar="˘", quoting=csv.QUOTE_MINIMAL).writerows(table)


def test_early_table_notes_an_invalid_answer(shared_data: Path, tmp_path: Path) -> None:
    # The sample row's Baba Is AI tables have the early column order; Claude-3.5-Sonnet's (the same order)
    # show the quoted note after an invalid answer. Step 0 of this episode answered "idle" (the default).
    task = "babaisai/env/goto_win-distr_obj-irrelevant_rule"
    row = _copy(shared_data, tmp_path / "row", task)
    steps = row / task / "env" / "goto_win-distr_obj-irrelevant_rule_run_00.csv"
    with steps.open(newline="", encoding="utf-8") as fh:
        table = list(csv.reader(fh, escapechar="˘"))
    assert table[0][:3] == ["Step", "Observation", "Action"] and table[1][2] == "idle"
    answer = "I would go idle"
    _edit(steps, 0, {"Action": answer,
                     "Observation": QUOTED_NOTE.format(answer=answer, action="idle") + table[1][1]})
    result = verify(str(row))
    assert (result.verified, result.differing) == (3, 0)


def test_textworld_episode_without_seed(shared_data: Path, tmp_path: Path) -> None:
    # Claude-3.5-Sonnet's TextWorld episode files hold no seed: its game is the worker's counter's
    row = _copy(shared_data, tmp_path / "row", "textworld/coin_collector")
    for path in (row / "textworld/coin_collector").glob("*_run_*.json"):
        data = json.loads(path.read_text())
        del data["seed"]
        path.write_text(json.dumps(data))
    result = verify(str(row))
    assert (result.verified, result.differing, result.not_verifiable) == (10, 0, 0)


def test_nethack_clock_of_a_neighbouring_day(shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Microsoft phi-4's row (2025-01-13) parts on its date and agrees on the full moon of the 14th. Here the
    # sample VLM row (its date 2025-04-25: no full or new moon) is named the full moon of 2025-04-14 instead:
    # its Corridor episode 0 parts at step 1 on that clock and agrees on the nearest ordinary day's.
    assert leaderboard_nle.clock_days("2025-01-13") == ["2025-01-13", "2025-01-14"]
    assert leaderboard_nle.clock_days("2025-04-14") == ["2025-04-14", "2025-04-16"]
    row = _copy(shared_data, tmp_path / "row", "minihack/MiniHack-Corridor-R3-v0",
                Path("balrog-leaderboard/VLM/20250425_naive_Gemini-2.5-Pro-Exp-03-25"))
    metadata = row / "metadata.yaml"
    metadata.write_text(metadata.read_text().replace('date: "2025-04-25"', 'date: "2025-04-14"'))
    result = verify(str(row))
    assert result.verified >= 1 and result.differing == 0
    monkeypatch.setattr(leaderboard_nle, "CLOCK_DAYS", 0)  # the row's date only
    result = verify(str(row))
    [finding] = [f for f in result.findings if f.verdict == "differs"]
    assert finding.name == "balrog/minihack/corridor-r3 #0" and finding.difference is not None
    assert finding.difference.step == 1

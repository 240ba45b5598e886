"""``playbench verify -T levels=PATH`` on a leaderboard row's Boxoban episodes (issue 37).

BALROG drew a Boxoban level over MiniHack's level files in ``os.listdir`` order, so the seed does not fix it:
given the official levels, an episode is re-played on the one level its first recorded map shows; without them,
without a map or without a single such level it is not verifiable, with that reason.

The shared Llama-1B row's Boxoban episodes are of BALROG's evaluator before its public code (not re-played,
whatever their level), so the episode here is one of the public code's text on a level of the shared hard file
(``000.txt;18``, the row's episode 4's level), recorded by playbench's own Boxoban game. The tests need
``PLAYBENCH_TEST_DATA`` (the ``shared_data`` fixture).
"""

import csv
import json
from pathlib import Path

import pytest

import playbench
from helpers import run_cli
from playbench.core.errors import PlaybenchError
from playbench.core.registry import get_task
from playbench.suites.balrog import leaderboard
from playbench.suites.balrog.leaderboard_games import compat_game

TASK = "MiniHack-Boxoban-Hard-v0"
EPISODE = f"minihack/{TASK}/{TASK}_run_00"
SEED = 7


def _row(folder: Path, levels: str, change: dict[int, str] | None = None) -> Path:
    """A row dated 2025-04-25 of one Boxoban episode played to its 100-step limit on ``000.txt;18``.

    ``change``: step -> a text put in place of that step's recorded observation.
    """
    game = compat_game(get_task("balrog/minihack/boxoban-hard"), {"levels": levels})
    table: list[list[object]] = [list(leaderboard.COLUMNS)]
    try:
        game.reset(seed=SEED, options={"balrog_seeding": True, "clock": "2025-04-25", "level": "000.txt;18"})
        legal = game.legal_actions()
        for k in range(100):
            answer = legal[k % len(legal)]
            text, reward, terminated, truncated, _ = game.step(answer)
            table.append([k, answer, "", (change or {}).get(k, text), reward, terminated or truncated])
            if terminated or truncated:
                break
        progression = game.progression()
    finally:
        game.close()
    (folder / f"minihack/{TASK}").mkdir(parents=True)
    (folder / "metadata.yaml").write_text('name: x\ndate: "2025-04-25"\n')
    (folder / "minihack" / "minihack_summary.json").write_text("{}")
    episode = {"task": TASK, "seed": SEED, "progression": progression, "num_steps": len(table) - 1,
               "process_num": "ForkProcess-1"}
    (folder / f"{EPISODE}.json").write_text(json.dumps(episode))
    with (folder / f"{EPISODE}.csv").open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh, escapechar="˘").writerows(table)
    return folder


def _one(result: playbench.VerifyResult) -> tuple[str, str | None]:
    (finding,) = result.findings
    return finding.verdict, finding.reason


def test_a_boxoban_episode_is_re_played_on_the_level_its_first_map_shows(shared_data: Path, tmp_path: Path) -> None:
    levels = str(shared_data / "boxoban" / "hard")
    row = _row(tmp_path / "row", levels)
    assert _one(playbench.verify(row, {"levels": levels})) == ("verified", None)

    verdict, reason = _one(playbench.verify(row))  # without the levels: which level it played is not told
    assert verdict == "not-verifiable" and reason is not None
    assert "os.listdir" in reason and "give the official levels (verify -T levels=PATH)" in reason

    changed = _row(tmp_path / "changed", levels, {37: "something else"})
    (finding,) = playbench.verify(changed, {"levels": levels}).findings
    assert finding.verdict == "differs" and finding.difference is not None
    assert (finding.difference.field, finding.difference.step) == ("Observation", 37)


def test_without_a_map_or_a_level_that_shows_it_the_episode_is_not_verifiable(shared_data: Path,
                                                                             tmp_path: Path) -> None:
    levels = str(shared_data / "boxoban" / "hard")
    no_map = _row(tmp_path / "vlm", levels, {0: "language observation:\nwall far east"})  # a VLM row's text
    assert _one(playbench.verify(no_map, {"levels": levels})) == (
        "not-verifiable", "its first recorded observation shows no map (a VLM row's text leaves it out): which "
                          "Boxoban level it played cannot be told")
    medium = str(shared_data / "boxoban" / "medium")  # the hard level is in no medium file
    row = _row(tmp_path / "row", levels)
    assert _one(playbench.verify(row, {"levels": medium})) == (
        "not-verifiable", f"no level of the official hard levels under {medium} shows the map its first step shows")


def test_verify_takes_levels_for_a_folder_and_refuses_other_settings(shared_data: Path, tmp_path: Path) -> None:
    levels = str(shared_data / "boxoban" / "hard")
    row = _row(tmp_path / "row", levels)
    done = run_cli("verify", str(row), "-T", f"levels={levels}")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("1 verified, 0 differing, 0 not verifiable")
    with pytest.raises(PlaybenchError, match="-T level: a BALROG submission folder.s verify takes -T levels=...: PATH of the official"):
        playbench.verify(row, {"level": levels})
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "run.json").write_text("{}")
    with pytest.raises(PlaybenchError, match="a playbench run is re-played with the parameters it records"):
        playbench.verify(tmp_path / "run", {"levels": levels})
    refused = run_cli("verify", str(row), "-T", "levels")
    assert refused.returncode == 2 and "expected KEY=VALUE" in refused.stderr and "Traceback" not in refused.stderr


def test_a_whole_row_verifies_with_levels_the_other_environments_ignoring_them(shared_data: Path,
                                                                               tmp_path: Path) -> None:
    levels = str(shared_data / "boxoban" / "hard")
    row = _row(tmp_path / "row", levels)
    babyai = shared_data / "balrog-leaderboard/LLM/20241030_naive-Llama-3.2-1B-Instruct/babyai"
    goto = Path("BabyAI-MixedTrainLocal-v0/goto/BabyAI-MixedTrainLocal-v0")
    (row / "babyai" / goto).mkdir(parents=True)
    for name in ("goto_run_00.json", "goto_run_00.csv"):  # a model-played BabyAI episode of the Llama row beside it
        (row / "babyai" / goto / name).write_bytes((babyai / goto / name).read_bytes())
    (row / "babyai" / "babyai_summary.json").write_text("{}")
    done = run_cli("verify", str(row), "-T", f"levels={levels}")
    assert done.returncode == 0 and done.stdout.startswith("2 verified, 0 differing, 0 not verifiable"), done.stdout

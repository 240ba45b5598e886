"""``playbench verify`` on model-played BALROG leaderboard rows (the two public rows in the shared data).

Gated on ``PLAYBENCH_TEST_DATA`` (the ``shared_data`` fixture): without it these tests are reported as not run.
The CI sample, per environment of ``LLM/20241030_naive-Llama-3.2-1B-Instruct``: every BabyAI, Baba Is AI,
MiniHack and NetHack episode, and TextWorld's coin collector (its game 1: made in seconds when not
cached; the other two tasks' games can take minutes each to make, so their episodes are copied without
their steps, which keeps their seeds for Crafter's worlds; Crafter's episodes are copied without steps too,
their search taking seconds each: ``test_leaderboard_crafter.py`` re-plays one; the whole row runs in the
benchmark ``benchmarks/leaderboard_replay.py``, with every row). Of ``VLM/20250425_naive_Gemini-2.5-Pro-Exp-03-25``:
every BabyAI, Baba Is AI and MiniHack episode. Then the same files with one observation, one reward and one
answer changed, each reported as differing at its step.
"""

import csv
import shutil
from pathlib import Path

import pytest

from playbench.api.verify import verify
from playbench.cli.verify_cmd import lines

LLM_ROW = Path("balrog-leaderboard/LLM/20241030_naive-Llama-3.2-1B-Instruct")
VLM_ROW = Path("balrog-leaderboard/VLM/20250425_naive_Gemini-2.5-Pro-Exp-03-25")
GOTO = "babyai/BabyAI-MixedTrainLocal-v0/goto/BabyAI-MixedTrainLocal-v0/goto_run_{:02d}.csv"


def _copy(source: Path, target: Path, parts: list[str], files_only: tuple[str, ...] = ()) -> Path:
    """The row's ``parts`` (environment or task folders), their environments' summaries (which make it a
    submission folder) and its metadata, without ``summary.json`` (it counts every episode of the row)."""
    target.mkdir()
    shutil.copy(source / "metadata.yaml", target / "metadata.yaml")
    for part in parts:
        shutil.copytree(source / part, target / part)
        env = part.split("/")[0]
        shutil.copy(source / env / f"{env}_summary.json", target / env / f"{env}_summary.json")
    for part in files_only:  # episode files without their steps: their seeds and workers still count
        shutil.copytree(source / part, target / part, ignore=shutil.ignore_patterns("*.csv"))
    return target


def _counts(notes: list[str]) -> dict[str, str]:
    return {note.split(":")[0]: note.split(": ", 1)[1] for note in notes if " verified, " in note}


def test_llm_row_replayed(shared_data: Path, tmp_path: Path) -> None:
    row = _copy(shared_data / LLM_ROW, tmp_path / "row",
                ["babyai", "babaisai", "minihack", "nle", "textworld/coin_collector"],
                ("textworld/treasure_hunter", "textworld/the_cooking_game", "crafter"))
    result = verify(str(row))
    counts = _counts(result.notes)
    assert counts["babyai"] == "50 verified, 0 differing, 0 not verifiable"
    assert counts["babaisai"] == "120 verified, 0 differing, 0 not verifiable"
    assert counts["textworld"] == "10 verified, 0 differing, 20 not verifiable"  # 20 without steps
    assert counts["crafter"] == "0 verified, 0 differing, 10 not verifiable"  # without steps (seconds each to
    # search: tests/balrog/test_leaderboard_crafter.py re-plays one, benchmarks/leaderboard_crafter.py all)
    assert counts["minihack"] == "0 verified, 0 differing, 40 not verifiable"
    assert counts["nle"] == "0 verified, 0 differing, 5 not verifiable"
    reasons = [f.reason or "" for f in result.findings if f.verdict == "not-verifiable"]
    assert sum("os.listdir" in r for r in reasons) == 10  # Boxoban
    assert sum("before its public code" in r for r in reasons) == 35  # the other MiniHack tasks and NetHack
    assert not result.ok or result.differing == 0
    assert sum("steps file" in r and "is missing" in r for r in reasons) == 30
    assert lines(result)[0].startswith("180 verified, 0 differing, 75 not verifiable")


def test_vlm_row_replayed(shared_data: Path, tmp_path: Path) -> None:
    row = _copy(shared_data / VLM_ROW, tmp_path / "row", ["babyai", "babaisai", "minihack"])
    result = verify(str(row))
    counts = _counts(result.notes)
    assert counts["babyai"] == "50 verified, 0 differing, 0 not verifiable"
    assert counts["babaisai"] == "120 verified, 0 differing, 0 not verifiable"
    assert counts["minihack"] == "30 verified, 0 differing, 10 not verifiable"  # 10 Boxoban
    assert result.differing == 0


def _edit(path: Path, step: int, column: str, change) -> str:  # type: ignore[no-untyped-def]
    """Change one cell of a steps table (read and written as BALROG's evaluator writes it); the old value."""
    with path.open(newline="", encoding="utf-8") as fh:
        table = list(csv.reader(fh, escapechar="˘"))
    at = table[0].index(column)
    old = table[step + 1][at]
    table[step + 1][at] = change(old)
    with path.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh, escapechar="˘", quoting=csv.QUOTE_MINIMAL).writerows(table)
    return old


@pytest.mark.parametrize(("column", "change", "field"), [
    ("Observation", lambda text: text + " ", "Observation"),
    ("Reward", lambda reward: "0.5", "Reward"),
    ("Action", lambda answer: "turn right" if answer != "turn right" else "turn left", "Observation"),
])
def test_changed_cell_differs_at_its_step(shared_data: Path, tmp_path: Path, column: str, change, field: str) -> None:  # type: ignore[no-untyped-def]
    row = _copy(shared_data / LLM_ROW, tmp_path / "row", ["babyai/BabyAI-MixedTrainLocal-v0/goto"])
    _edit(row / GOTO.format(3), 2, column, change)
    result = verify(str(row))
    assert result.verified == 9 and result.differing == 1 and not result.ok
    [finding] = [f for f in result.findings if f.verdict == "differs"]
    assert finding.name == "balrog/babyai/goto #3"
    assert finding.difference is not None
    assert (finding.difference.field, finding.difference.step) == (field, 2)
    assert "differs: balrog/babyai/goto #3 step 2 " + field in "\n".join(lines(result))

"""``board`` and ``compare`` say a BALROG row's pairing keys in words: a seed, never compare's ``SEED@TAG``.

A MiniHack episode of a leaderboard row is keyed ``SEED@TAG`` (its seed does not fix its instance, so it pairs
only with runs played from that folder's instances); the tag is the folder's own hash and means nothing to a
reader, so the board's reason for not pairing a row, its episode table and compare's refusal show the seed.
"""

import json
import re
from pathlib import Path

from helpers import run_cli
from playbench.suites.balrog.compared import episodes
from playbench.suites.balrog.submission import episode_path, original_name

CORRIDOR, GOTO = "balrog/minihack/corridor-r3", "balrog/babyai/goto"
CLIENT = {"client_name": "openai", "model_id": "gpt-4o-mini", "generate_kwargs": {"temperature": 0.0}}


def _row(folder: Path, played: list[tuple[str, int, float]]) -> Path:
    """A BALROG row: one episode file (and its CSV of steps) per ``(task, seed, progression)``."""
    for index, (task_id, seed, progression) in enumerate(played):
        env, task = original_name(task_id)
        path = folder / episode_path(env, task, index)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"task": task, "input_tokens": 100, "output_tokens": 10, "num_steps": 1,
                                    "progression": progression, "seed": seed,
                                    "agent": {"type": "naive", "max_text_history": 16}, "client": CLIENT}))
        path.with_suffix(".csv").write_text("Step,Action,Reasoning,Observation,Reward,Done\n0,up,,a wall,0,False\n")
        (folder / env / f"{env}_summary.json").write_text("{}")
    (folder / "summary.json").write_text("{}")
    return folder


def test_a_seed_played_twice_is_named_as_a_seed(tmp_path: Path) -> None:
    row = _row(tmp_path / "twice", [(CORRIDOR, 3, 1.0), (CORRIDOR, 3, 0.0), (GOTO, 1, 1.0)])
    keys = [e.key for e in episodes(row, {}).episodes if e.task == CORRIDOR]
    assert keys[0] == keys[1] and str(keys[0]).startswith("3@")  # the internal key the text must not show
    done = run_cli("board", str(row), "-o", str(tmp_path / "site"))
    assert done.returncode == 0, done.stderr
    site = Path(done.stdout.strip()).parent
    data = json.loads((site / "board.json").read_text())
    reason = data["rows"][0]["unpaired"]
    assert f"two episodes of {CORRIDOR} share seed 3: cannot tell which one pairs" in reason, reason
    page = (site / "row-0.html").read_text()
    assert "@" not in reason and not re.search(r"3@[0-9a-f]{8}", page)
    assert f"<td class='l'>{CORRIDOR}</td><td>3</td>" in page  # the seed column shows the seed
    refused = run_cli("compare", str(row), str(_row(tmp_path / "other", [(CORRIDOR, 3, 1.0)])))
    assert refused.returncode == 2 and f"two episodes of {CORRIDOR} under seed 3: cannot" in refused.stderr
    assert "@" not in refused.stderr.replace(str(tmp_path), "")

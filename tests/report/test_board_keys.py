"""``board`` and ``compare`` say a BALROG row's pairing keys in words: a seed, never compare's ``SEED@TAG``.

A MiniHack episode of a leaderboard row is keyed ``SEED@TAG`` (its seed does not fix its instance, so it pairs
only with runs played from that folder's instances); the tag is the folder's own hash and means nothing to a
reader, so the board's reason for not pairing a row, its episode table and compare's refusal show the seed.
"""

import json
import re
from pathlib import Path

from helpers import balrog_row, run_cli
from playbench.suites.balrog.compared import episodes

CORRIDOR, GOTO = "balrog/minihack/corridor-r3", "balrog/babyai/goto"
def test_a_seed_played_twice_is_named_as_a_seed(tmp_path: Path) -> None:
    row = balrog_row(tmp_path / "twice", [(CORRIDOR, 3, 1.0), (CORRIDOR, 3, 0.0), (GOTO, 1, 1.0)], num_steps=1)
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
    refused = run_cli("compare", str(row), str(balrog_row(tmp_path / "other", [(CORRIDOR, 3, 1.0)], num_steps=1)))
    assert refused.returncode == 2 and f"two episodes of {CORRIDOR} under seed 3: cannot" in refused.stderr
    assert "@" not in refused.stderr.replace(str(tmp_path), "")

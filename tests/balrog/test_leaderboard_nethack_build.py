"""Which NetHack build a leaderboard row's NetHack episodes are re-played on (``verify -T nethack=PATH``), and
hallucinating steps (what the hero sees comes from the display RNG, recorded nowhere).

The public rows of DeepSeek-R1-distill, Grok-4 and Gemini-2.5-flash were played on a NetHack built by clang,
whose games from a seed part from those of balrog-nle's Linux wheel (gcc); this machine has no such build, so
these tests check that a given build is the one the re-play's child loads, that it is tried where the
installed build parts, what verify says of it, and the refusals (docs/reproduce.md).
"""

import csv
import shutil
from pathlib import Path
from typing import Any, cast

import pytest

from playbench.api.verify import verify
from playbench.core.errors import PlaybenchError
from playbench.core.verdict import NotVerifiable
from playbench.suites.balrog import leaderboard_nle

VLM_ROW = Path("balrog-leaderboard/VLM/20250425_naive_Gemini-2.5-Pro-Exp-03-25")
STEPS = "nle/NetHackChallenge-v0/NetHackChallenge-v0_run_{:02d}.csv"
STATUS = "Dlvl:1 $:0 HP:12(12) Pw:2(2) AC:7 Xp:1/0 T:93{}"


def _installed_library() -> Path:
    import nle.nethack.nethack as nethack_module

    return Path(nethack_module.DLPATH)


def _nle_row(shared_data: Path, target: Path, keep: int) -> Path:
    """The VLM row's NetHack folder with its episode ``keep`` alone (and the metadata that dates it)."""
    source = shared_data / VLM_ROW
    target.mkdir()
    shutil.copy(source / "metadata.yaml", target / "metadata.yaml")
    shutil.copytree(source / "nle", target / "nle",
                    ignore=lambda folder, names: [n for n in names if "_run_" in n and f"_run_{keep:02d}." not in n])
    return target


def _change_observation(path: Path, step: int) -> None:
    with path.open(newline="", encoding="utf-8") as fh:
        table = list(csv.reader(fh, escapechar="˘"))
    table[step + 1][table[0].index("Observation")] += " "
    with path.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh, escapechar="˘", quoting=csv.QUOTE_MINIMAL).writerows(table)


def test_the_child_loads_the_given_build(tmp_path: Path) -> None:
    pytest.importorskip("nle")
    library = tmp_path / "libnethack.so"
    shutil.copy(_installed_library(), library)
    try:
        assert leaderboard_nle._child("2025-07-23", str(library)).call("library") == str(library)
        assert leaderboard_nle._child("2025-07-23").call("library") == str(_installed_library())
    finally:
        leaderboard_nle.stop_children()


@pytest.mark.parametrize("content", [None, b"not a library"])
def test_a_build_that_is_not_a_library_is_refused(shared_data: Path, tmp_path: Path, content: bytes | None) -> None:
    row = _nle_row(shared_data, tmp_path / "row", 0)
    path = tmp_path / "libnethack.so"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(PlaybenchError, match=r"^-T nethack=.*: not a shared library"):
        verify(str(row), {"nethack": str(path)})


def test_an_episode_that_parts_is_tried_on_the_given_build(shared_data: Path, tmp_path: Path) -> None:
    pytest.importorskip("nle")
    row = _nle_row(shared_data, tmp_path / "row", 0)
    _change_observation(row / STEPS.format(0), 2)
    alone = verify(str(row))
    [finding] = alone.findings
    assert finding.verdict == "differs" and finding.difference is not None and finding.difference.step == 2
    assert any(note.startswith("1 NetHack/MiniHack episodes differ on the installed NetHack") for note in alone.notes)

    library = tmp_path / "libnethack.so"  # the installed build again: it parts at the same step
    shutil.copy(_installed_library(), library)
    given = verify(str(row), {"nethack": str(library)})
    [finding] = given.findings
    assert finding.verdict == "differs" and finding.difference is not None and finding.difference.step == 2
    assert not any("differ on the installed NetHack" in note or "given NetHack build" in note for note in given.notes)


class _Child:
    """A re-play child that answers with the texts it is given."""

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts

    def call(self, *message: Any) -> Any:
        if message[0] == "open":
            return ["north"], "north"
        return self.texts.pop(0), 0.0, False


def _player(texts: list[str]) -> leaderboard_nle.NetHackPlayer:
    child = cast(leaderboard_nle._Child, _Child(texts))
    return leaderboard_nle.NetHackPlayer(child, "NetHackChallenge-v0", 1, False, True, 100)


def test_a_hallucinating_step_that_differs_is_not_verifiable() -> None:
    player = _player([f"giant eel\n{STATUS.format(' Hallu')}", f"jackal\n{STATUS.format(' Hallu')}"])
    player.step("north")
    assert player.recorded(f"giant eel\n{STATUS.format(' Hallu')}") == f"giant eel\n{STATUS.format(' Hallu')}"
    player.step("north")
    with pytest.raises(NotVerifiable, match="from step 1 the hero hallucinates"):
        player.recorded(f"Famine\n{STATUS.format(' Hallu')}")


def test_a_step_that_differs_without_hallucinating_is_compared() -> None:
    player = _player([f"jackal\n{STATUS.format('')}", f"jackal\n{STATUS.format(' Hallu')}"])
    player.step("north")
    assert player.recorded(f"newt\n{STATUS.format('')}") == f"newt\n{STATUS.format('')}"  # compared: differs
    player.step("north")
    assert player.recorded(f"newt\n{STATUS.format('')}") == f"newt\n{STATUS.format('')}"  # one side only


def test_the_folder_names_date_is_tried_after_the_rows() -> None:
    from playbench.suites.balrog.leaderboard import Row

    row = Row(Path("/rows/20241115_naive-Qwen2.5-7B-it"), "2024-11-25", "quoted")  # submitted ten days after
    days = leaderboard_nle.row_days(row)
    assert days[: len(leaderboard_nle.clock_days("2024-11-25"))] == leaderboard_nle.clock_days("2024-11-25")
    assert "2024-11-15" in days  # NetHack's full moon, which the row's Boxoban medium #2 shows
    assert leaderboard_nle.row_days(Row(Path("/rows/20250713_naive_grok-4"), "2025-07-13", "quoted")) == \
        leaderboard_nle.clock_days("2025-07-13")

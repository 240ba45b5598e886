"""NetHack's end reason, as BALROG's progress tracker writes it from the final screen."""

import numpy as np

from playbench.suites.balrog.nle.game import tombstone_reason


def _screen(*rows: str) -> np.ndarray:
    padded = [row.ljust(80)[:80] for row in rows] + [" " * 80] * (24 - len(rows))
    return np.array([[ord(c) for c in row] for row in padded], dtype=np.uint8)


def test_nethack_end_reason_is_written_as_balrogs_tracker_writes_it():
    words = "w0 w1 w2 w3 w4 w5 w6"
    quit_screen = _screen(f"{words} quit in The Dungeons of Doom on level 1. x y")
    assert tombstone_reason(-1, quit_screen) == "ABORTED: quit."
    # the player's name is skipped, later sentences kept, the top-ten line ignored
    died = _screen("You made the top ten list!", f"{words} Agent killed by a jackal, in The Gnomish Mines.",
                   "While helpless. z z")
    assert tombstone_reason(1, died) == "DEATH: killed by a jackal,. While helpless."
    # rows are joined without a separator, as the tracker reads the screen: a word may span two rows
    first_row = f"{words} ".ljust(75) + "starv"
    assert tombstone_reason(1, _screen(first_row, "ed. q q")) == "DEATH: starved."

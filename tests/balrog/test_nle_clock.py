"""NetHack does not follow the calendar: engines run in workers whose clock is fixed (clock.py, worker.py)."""

import datetime
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import PLAYBENCH, only_run_dir, stable_lines, stable_trajectories
from playbench.suites.balrog.nle import clock

FULL_MOON = "2026-11-24 20:00:00"  # NetHack says "You are lucky! Full moon tonight." on this day
NEW_MOON = "2026-12-09 10:00:00"
FRIDAY_13TH = "2026-11-13 23:30:00"  # also night time


def _date(text: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(text)


def test_moon_phase_is_nethacks() -> None:
    assert clock.moon_phase(_date(FULL_MOON)) == 4
    assert clock.moon_phase(_date(NEW_MOON)) == 0
    assert [clock.moon_phase(_date(f"2026-11-{d:02d}")) for d in (17, 20, 28)] == [2, 3, 5]


def test_fixed_date_is_an_ordinary_day() -> None:
    when = clock.FIXED_DATE
    assert clock.moon_phase(when) not in (0, 4)  # neither new nor full moon
    assert not (when.weekday() == 4 and when.day == 13)
    assert 6 <= when.hour < 21  # NetHack's night() is hour < 6 or > 21; midnight() is hour 0


# -- the whole command under other dates (Debian's faketime around it) -------------------------------

needs_faketime = pytest.mark.skipif(
    shutil.which("faketime") is None and not os.environ.get("CI"),
    reason="Debian's faketime is not installed (scripts/test.sh installs it)",
)


def _under(date: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    assert shutil.which("faketime"), "Debian's faketime is required (scripts/test.sh installs it)"
    # "@" lets the faked clock run from that date, so the run's own timeouts behave
    return subprocess.run(["faketime", "-f", f"@{date}", *PLAYBENCH, *args], capture_output=True, text=True,
                          cwd=cwd, timeout=600)


@needs_faketime
def test_faketime_really_changes_an_unfixed_nethack() -> None:
    """Control: the outer faketime does reach NLE, so the test below can see a date dependence."""
    probe = (
        "from playbench.suites.balrog.nle.engine import Engine\n"
        "e = Engine('MiniHack-MazeWalk-9x9-v0'); e.seed_raw(5, 5); print(e.message(e.reset()))"
    )
    outs = [subprocess.run(["faketime", "-f", f"@{d}", sys.executable, "-c", probe], capture_output=True,
                           text=True, timeout=120, check=True).stdout for d in (FULL_MOON, NEW_MOON)]
    assert "Full moon tonight" in outs[0] and "Full moon" not in outs[1]


@needs_faketime
@pytest.mark.parametrize("extra", [[], ["-T", "compat=true"]], ids=["fixed", "compat"])
def test_same_seed_same_records_on_any_date(tmp_path: Path, extra: list[str]) -> None:
    records = []
    for date in (FULL_MOON, NEW_MOON, FRIDAY_13TH):
        logs = tmp_path / date[:10]
        out = _under(date, "eval", "balrog/nle/nethackchallenge", "balrog/minihack/mazewalk-9x9", "--agent",
                     "random", "--episodes", "2", "-T", "max_steps=40", *extra, "--quiet", "--log-dir", str(logs),
                     cwd=tmp_path)
        run = only_run_dir(logs)
        lines = stable_lines(run)
        assert len(lines) == 4, out.stderr
        if not extra:  # in compat, a random "00"-"99" action ends a NetHack episode as BALROG's crash (B4)
            assert out.returncode == 0 and all('"status": "ok"' in line for line in lines), out.stderr
        trajectories = stable_trajectories(run)
        assert all("Full moon" not in str(steps) for steps in trajectories.values())
        records.append((lines, trajectories))
    assert records[0] == records[1] == records[2]

"""NetHack does not follow the calendar: engines run in workers whose clock is fixed (clock.py, worker.py)."""

import datetime
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import PLAYBENCH, only_run_dir, stable_lines, stable_trajectories
from playbench.core.errors import PlaybenchError
from playbench.suites.balrog.nle import clock, worker
from playbench.suites.balrog.nle.worker import ClockedEngine, EngineProcessError

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


def test_worker_clock_is_fixed_and_workers_are_reused() -> None:
    worker.stop_idle_workers()
    engine = ClockedEngine("MiniHack-MazeWalk-9x9-v0")
    engine.seed_raw(5, 5)
    first = engine.message(engine.reset())
    assert first.startswith("Konnichi wa Agent, welcome to NetHack!")  # never "You are lucky! Full moon"
    pid = engine._worker.process.pid if engine._worker else None
    engine.close()
    again = ClockedEngine("MiniHack-MazeWalk-9x9-v0")
    assert again._worker is not None and again._worker.process.pid == pid
    again.close()


def test_a_worker_without_the_fixed_clock_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    worker.stop_idle_workers()
    monkeypatch.setattr(clock, "preload_library", lambda: Path("/nonexistent/libfaketime.so.1"))
    with pytest.raises(PlaybenchError, match="could not fix NetHack's clock"):
        ClockedEngine("MiniHack-MazeWalk-9x9-v0")


def test_a_dead_worker_is_a_clear_engine_error() -> None:
    engine = ClockedEngine("MiniHack-MazeWalk-9x9-v0")
    engine.seed(1)
    engine.reset()
    assert engine._worker is not None
    engine._worker.process.kill()
    engine._worker.process.wait()
    with pytest.raises(EngineProcessError, match="engine process died"):
        engine.step("north")
    engine.close()  # closing a dead engine is harmless


_ORPHAN = """
from playbench.suites.balrog.nle.worker import ClockedEngine
engine = ClockedEngine("MiniHack-MazeWalk-9x9-v0")
print(engine._worker.process.pid, flush=True)
import time; time.sleep(60)
"""


def test_workers_exit_when_their_parent_is_killed() -> None:
    parent = subprocess.Popen([sys.executable, "-c", _ORPHAN], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and Path(f"/proc/{child}").exists():
        status = Path(f"/proc/{child}/stat").read_text().split()[2] if Path(f"/proc/{child}").exists() else "X"
        if status == "Z":
            break
        time.sleep(0.1)
    gone = not Path(f"/proc/{child}").exists() or Path(f"/proc/{child}/stat").read_text().split()[2] == "Z"
    assert gone, "the engine worker outlived its killed parent"


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

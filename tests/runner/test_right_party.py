"""Environment faults are named as such: never a ``game-error``, and refused before the run where they can be.

An ``OSError`` raised while a game is built, prepared, reset or stepped (a cache that cannot be written, a full
disk, a missing file) is the machine's fault: the episode is an ``infra-error`` whose error is one line starting
``environment:``, and a plain ``--resume`` plays it again. The game's own bugs stay ``game-error``. A cache that
cannot be written (TextWorld's games, ``--cache``'s answers) is refused before a run folder exists.
"""

import asyncio
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import playbench
from helpers import run_cli
from playbench.core.errors import PlaybenchError, environment_fault
from playbench.suites.smartplay.hanoi import HanoiGame

FAILING = "/nowhere/playbench-cache/game-file"


def _fail(exc: Exception) -> Any:
    def raise_it(*args: Any, **kwargs: Any) -> Any:
        raise exc

    return raise_it


def _patch(monkeypatch: pytest.MonkeyPatch, phase: str, exc: Exception) -> None:
    """Make every Hanoi game raise ``exc`` while it is built, prepared, reset or stepped."""
    if phase == "prepare":
        async def prepare(self: HanoiGame) -> None:
            await asyncio.sleep(0)
            raise exc

        monkeypatch.setattr(HanoiGame, "prepare", prepare)
    else:
        monkeypatch.setattr(HanoiGame, {"build": "__init__"}.get(phase, phase), _fail(exc))


def _statuses(path: Path) -> dict[int, tuple[str, str | None]]:
    return {r.index: (r.status, r.error) for r in playbench.read_run(path).episodes()}


@pytest.mark.parametrize("phase", ["build", "prepare", "reset", "step"])
def test_an_os_error_from_the_game_is_an_infra_error_that_resume_plays_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, phase: str) -> None:
    with monkeypatch.context() as patched:
        _patch(patched, phase, PermissionError(13, "Permission denied", FAILING))
        first = playbench.eval("smartplay/hanoi-3", agent="random", episodes=2, log_dir=tmp_path)
    assert first.status_counts == {"infra-error": 2}
    for status, error in _statuses(first.path).values():
        assert error == f"environment: cannot use {FAILING}: Permission denied (PermissionError)", (status, error)
    again = playbench.eval(resume=first.path)  # a plain resume, on a repaired machine
    assert again.path == first.path and again.totals.by_status == {"ok": 2}
    assert {index: status for index, (status, _) in _statuses(first.path).items()} == {0: "ok", 1: "ok"}


def test_the_games_own_bug_stays_a_game_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as patched:
        _patch(patched, "step", ValueError("rod index out of range"))
        first = playbench.eval("smartplay/hanoi-3", agent="random", episodes=2, log_dir=tmp_path)
    assert first.status_counts == {"game-error": 2}
    assert all((e or "").startswith("ValueError: rod index out of range") for _, e in _statuses(first.path).values())
    again = playbench.eval(resume=first.path)
    assert again.totals.episodes == 0  # a plain resume does not play a game's deterministic crash again


def test_environment_fault_reads_the_cause_and_keeps_one_line() -> None:
    try:
        try:
            raise OSError(28, "No space left\non device", "/full/disk")
        except OSError as err:
            raise RuntimeError("could not make the game") from err
    except RuntimeError as wrapped:
        assert environment_fault(wrapped) == "environment: cannot use /full/disk: No space left on device (OSError)"
    assert environment_fault(OSError("disk gone")) == "environment: disk gone (OSError)"
    assert environment_fault(ValueError("bug")) is None
    assert environment_fault(RuntimeError("no cause")) is None


# -- caches that cannot be written are refused before the run ---------------------------------------------------


@pytest.fixture
def read_only_dir(tmp_path: Path) -> Iterator[Path]:
    """A folder nobody can write into: a read-only tmpfs mount as root, else a folder without write permission."""
    folder = tmp_path / "read-only"
    folder.mkdir()
    if os.geteuid() != 0:
        folder.chmod(0o555)
        yield folder
        folder.chmod(0o755)
        return
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", str(folder)], capture_output=True)
    if mounted.returncode != 0:  # root in a container without the right to mount: nothing stops root's writes
        pytest.skip(f"cannot make a read-only folder as root here: {mounted.stderr.decode().strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=True)


def _assert_refused(res: subprocess.CompletedProcess, logs: Path, *needles: str) -> None:
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2, (res.returncode, res.stderr[-2000:])
    assert len(lines) == 1 and lines[0].startswith("error: "), res.stderr
    assert all(needle in lines[0] for needle in needles), (lines[0], needles)
    assert "Traceback" not in res.stderr and "calls" not in res.stderr  # no model summary: nothing was sent
    assert not logs.exists() or not any(logs.iterdir()), "a refused run must leave no run folder"


def test_a_read_only_textworld_cache_is_refused_before_the_run(tmp_path: Path, read_only_dir: Path) -> None:
    pytest.importorskip("textworld")
    logs = tmp_path / "logs"
    res = run_cli("eval", "balrog/textworld/coin_collector", "--model", "mock/demo", "--episodes", "1",
                  "--log-dir", str(logs), "--quiet", env={"PLAYBENCH_TEXTWORLD_DIR": str(read_only_dir / "tw")})
    _assert_refused(res, logs, "TextWorld game cache", str(read_only_dir / "tw"), "cannot be written",
                    "PLAYBENCH_TEXTWORLD_DIR")


def test_a_read_only_cache_holding_every_game_is_only_read(read_only_dir: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("textworld")
    from playbench.suites.balrog.textworld import cache
    from playbench.suites.balrog.textworld.sets import balrog_specs

    specs = balrog_specs("coin_collector")[:2]
    with pytest.raises(PlaybenchError, match="cannot be written"):
        cache.check_cache(specs, read_only_dir)
    monkeypatch.setattr(cache, "read_entry", lambda directory: {"dir": str(directory)})  # every game made
    cache.check_cache(specs, read_only_dir)


def test_a_read_only_answer_cache_is_refused_before_the_run(tmp_path: Path, read_only_dir: Path) -> None:
    logs = tmp_path / "logs"
    res = run_cli("eval", "smartplay/hanoi-3", "--model", "mock/demo", "--cache", "--episodes", "1",
                  "--log-dir", str(logs), "--quiet", env={"PLAYBENCH_CACHE_DIR": str(read_only_dir / "answers")})
    _assert_refused(res, logs, "--cache", str(read_only_dir / "answers"), "cannot be written")

"""Engine workers (worker.py): several games share one worker process, independently; workers start off
the event loop and together; a dead or clock-less worker is a clear error; workers die with their parent."""

import asyncio
import gc
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import playbench.suites.balrog.nle.tasks  # noqa: F401  (registers the tasks)
from playbench.core.errors import PlaybenchError
from playbench.core.registry import get_task
from playbench.suites.balrog.nle import clock, worker
from playbench.suites.balrog.nle.worker import ClockedEngine, EngineProcessError

MAZE = "MiniHack-MazeWalk-9x9-v0"


@pytest.fixture
def pool(monkeypatch: pytest.MonkeyPatch) -> Iterator[worker._Pool]:
    """A pool of this test's own, empty: its workers hold no other test's games, and stop after it."""
    fresh = worker._Pool()
    monkeypatch.setattr(worker, "_POOL", fresh)
    yield fresh
    fresh.stop(idle_only=False)


def _pid(engine: ClockedEngine) -> int:
    assert engine._seat is not None and engine._seat.worker.pid is not None
    return engine._seat.worker.pid


def _kill(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _walk(engine: ClockedEngine, seed: int, actions: list[str]) -> list[bytes]:
    """The screens of a game from ``seed`` under ``actions`` (reset included)."""
    engine.seed(seed)
    screens = [engine.reset()["tty_chars"].tobytes()]
    for action in actions:
        obs, _, done, _ = engine.step(action)
        screens.append(obs["tty_chars"].tobytes())
        if done:
            break
    return screens


def test_worker_clock_is_fixed_and_workers_are_reused(pool: worker._Pool) -> None:
    engine = ClockedEngine(MAZE)
    engine.seed_raw(5, 5)
    first = engine.message(engine.reset())
    assert first.startswith("Konnichi wa Agent, welcome to NetHack!")  # never "You are lucky! Full moon"
    pid = _pid(engine)
    engine.close()
    again = ClockedEngine(MAZE)
    assert _pid(again) == pid
    again.close()


def test_games_share_a_worker_and_stay_independent(pool: worker._Pool) -> None:
    rng = np.random.default_rng(0)
    moves = [str(a) for a in rng.choice(["north", "east", "south", "west", "northeast", "southwest"], 60)]
    alone = ClockedEngine(MAZE)
    expected = {seed: _walk(alone, seed, moves) for seed in (3, 4)}
    assert expected[3] != expected[4]
    hack = ClockedEngine("NetHackChallenge-v0")
    hack_alone = _walk(hack, 7, ["search"] * 20)
    # two games of one seed, one of another and a NetHack game, stepped in turn in the same worker
    games = [ClockedEngine(MAZE) for _ in range(3)]
    assert {_pid(e) for e in [alone, hack, *games]} == {_pid(alone)}
    for engine, seed in zip(games, (3, 3, 4), strict=True):
        engine.seed(seed)
    screens = [[e.reset()["tty_chars"].tobytes()] for e in games]
    hack.seed(7)
    hack_screens = [hack.reset()["tty_chars"].tobytes()]
    for t, move in enumerate(moves):
        for engine, seen in zip(games, screens, strict=True):
            if len(seen) == t + 1 and not engine.done:
                seen.append(engine.step(move)[0]["tty_chars"].tobytes())
        if t < 20:
            hack_screens.append(hack.step("search")[0]["tty_chars"].tobytes())
    assert screens == [expected[3], expected[3], expected[4]]
    assert hack_screens == hack_alone
    for engine in [alone, hack, *games]:
        engine.close()


def test_a_full_worker_starts_another_and_seats_go_to_the_emptiest(
        pool: worker._Pool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(worker, "GAMES_PER_WORKER", 2)
    a, b, c = (ClockedEngine(MAZE) for _ in range(3))
    assert _pid(a) == _pid(b) != _pid(c) and len(pool.workers) == 2
    a.close()
    b.close()
    d = ClockedEngine(MAZE)  # the first worker has no game now, the second one
    assert _pid(d) != _pid(c) and [w.seats for w in pool.workers] == [1, 1]
    for engine in (c, d):
        engine.close()
    assert [w.seats for w in pool.workers] == [0, 0]


def test_an_engine_dropped_unclosed_frees_its_seat_and_game(pool: worker._Pool) -> None:
    kept = ClockedEngine(MAZE)
    dropped = ClockedEngine(MAZE)
    (only,) = pool.workers
    assert only.seats == 2
    del dropped
    gc.collect()
    assert only.seats == 1 and len(only.orphans) == 1  # closed in the worker with the next call
    kept.seed(1)
    kept.reset()
    assert only.orphans == []
    kept.close()


def test_a_worker_without_the_fixed_clock_refuses(pool: worker._Pool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(clock, "preload_library", lambda: Path("/nonexistent/libfaketime.so.1"))
    for _ in range(2):  # the failed worker is not given another game: a new one refuses again
        with pytest.raises(PlaybenchError, match="could not fix NetHack's clock"):
            ClockedEngine(MAZE)
    assert len(pool.workers) == 1


def test_a_dead_worker_is_a_clear_engine_error_for_each_of_its_games(pool: worker._Pool) -> None:
    engines = [ClockedEngine(MAZE) for _ in range(2)]
    for engine in engines:
        engine.seed(1)
        engine.reset()
    pid = _pid(engines[0])
    _kill(pid)
    for engine in engines:
        with pytest.raises(EngineProcessError, match="engine process died"):
            engine.step("north")
        engine.close()  # closing a dead engine is harmless
    fresh = ClockedEngine(MAZE)  # a new worker
    assert _pid(fresh) != pid
    fresh.close()


def test_games_open_off_the_event_loop_and_new_workers_start_together(
        pool: worker._Pool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(worker, "GAMES_PER_WORKER", 2)
    spawned: list[float] = []
    spawn = worker._Worker.__init__

    def noted(self: worker._Worker, conn: Any, *rest: Any) -> None:
        spawn(self, conn, *rest)
        spawned.append(time.monotonic())

    monkeypatch.setattr(worker._Worker, "__init__", noted)
    task = get_task("balrog/minihack/mazewalk-9x9")
    games: list[Any] = [task.make_game(task.params({}), i) for i in range(4)]
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    async def prepare_all() -> float:
        beat = asyncio.ensure_future(ticker())
        preparing = [asyncio.ensure_future(game.prepare()) for game in games]
        first_done = min([await done for done in asyncio.as_completed(
            [asyncio.ensure_future(_timed(p)) for p in preparing])])
        beat.cancel()
        return first_done

    first_ready = asyncio.run(prepare_all())
    assert ticks > 10  # the loop ran while the workers imported NLE (a blocking start gives it no turn)
    assert len(spawned) == 2 and max(spawned) < first_ready  # the second worker did not wait for the first
    assert all(game.engine is not None for game in games)
    for game in games:
        assert game.reset(seed=0)[0].startswith("message:")
        game.close()
    assert [w.seats for w in pool.workers] == [0, 0]


async def _timed(job: "asyncio.Future[None]") -> float:
    await job
    return time.monotonic()


_ORPHAN = """
from playbench.suites.balrog.nle import worker
engine = worker.ClockedEngine("MiniHack-MazeWalk-9x9-v0")
print(engine._seat.worker.pid, worker._POOL.server.process.pid, flush=True)
import time; time.sleep(60)
"""


def test_workers_and_their_fork_server_exit_when_their_parent_is_killed() -> None:
    parent = subprocess.Popen([sys.executable, "-c", _ORPHAN], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    pids = [int(pid) for pid in parent.stdout.readline().split()]
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(pid) for pid in pids):
        time.sleep(0.1)
    assert not any(_alive(pid) for pid in pids), "an engine process outlived its killed parent"

"""``playbench.eval_async`` inside a running loop, and ``playbench.eval`` refusing there (issue 28)."""

import asyncio
import gc
import signal
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path
from typing import Any

import pytest

import playbench
from helpers import only_run_dir, stable_lines, stable_trajectories, wait_for_episodes

# two tasks, a model agent (requests, answers and messages in the trajectories), several episodes in flight
REQUEST: dict[str, Any] = {"model": "mock/demo", "episodes": 3, "seed": 4, "max_episodes": 2,
                           "task_params": {"max_steps": 6}}
TASKS = ["smartplay/hanoi-3", "smartplay/rps-basic"]


class _Watch:
    """A progress hook that notes, at every step, what the process looks like while the run plays."""

    def __init__(self) -> None:
        self.seen: set[tuple[Any, ...]] = set()
        self.episodes = 0
        self.first = asyncio.Event()

    def start(self, plan: Any) -> None:
        pass

    def step(self, task_id: str) -> None:
        self.seen.add((gc.get_threshold(), signal.getsignal(signal.SIGTERM), asyncio.get_running_loop()))

    def episode(self, record: Any) -> None:
        self.episodes += 1
        self.first.set()

    def stop(self) -> None:
        pass


def test_eval_async_in_a_running_loop_records_what_eval_records(tmp_path: Path) -> None:
    done = playbench.eval(TASKS, **REQUEST, log_dir=tmp_path / "sync")
    watch = _Watch()
    ticks = 0

    loops = []

    async def cell() -> playbench.EvalResult:
        nonlocal ticks
        loops.append(asyncio.get_running_loop())

        async def ticker() -> None:  # another task of the same loop keeps running beside the run
            nonlocal ticks
            while True:
                await asyncio.sleep(0)
                ticks += 1

        other = asyncio.create_task(ticker())
        try:
            return await playbench.eval_async(TASKS, **REQUEST, log_dir=tmp_path / "async", progress=watch)
        finally:
            other.cancel()

    before = (gc.get_threshold(), signal.getsignal(signal.SIGTERM))
    awaited = asyncio.run(cell())
    assert awaited.path.parent == tmp_path / "async" and awaited.complete
    assert awaited.played == done.played and sum(awaited.played.values()) == 6
    assert awaited.steps == done.steps > 0 and awaited.model_stats.calls == done.model_stats.calls > 0
    assert awaited.config == done.config and awaited.log.meta.settings == done.log.meta.settings
    assert stable_lines(awaited.path) == stable_lines(done.path) and len(stable_lines(done.path)) == 6
    assert stable_trajectories(awaited.path) == stable_trajectories(done.path)
    # played on the caller's own loop, leaving the process as it was: no handlers, no collector settings
    assert ticks > 0 and watch.episodes == 6
    assert watch.seen == {(before[0], before[1], loops[0])}
    assert (gc.get_threshold(), signal.getsignal(signal.SIGTERM)) == before


def test_eval_inside_a_running_loop_refuses_naming_eval_async_and_creates_nothing(tmp_path: Path) -> None:
    from playbench.runner.loop import run as run_loop

    log_dir = tmp_path / "runs"

    async def cell() -> None:
        with pytest.raises(playbench.PlaybenchError, match=r"await playbench\.eval_async\(\.\.\.\)"):
            playbench.eval("smartplay/hanoi-3", agent="oracle", episodes=2, log_dir=log_dir)
        with pytest.raises(playbench.PlaybenchError, match="eval_async"):  # refused first, whatever was asked
            playbench.eval("smartplay/hanoi-3", model="mock/demo", episodes=1, progress=True, log_dir=log_dir)

        async def nothing() -> None:
            pass

        with pytest.raises(RuntimeError, match="inside a running one"):
            run_loop(nothing())  # the runner's own loop, asked for inside a running one: the coroutine is closed

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        asyncio.run(cell())
        gc.collect()
    assert not [w for w in caught if "never awaited" in str(w.message)], [str(w.message) for w in caught]
    assert not log_dir.exists()


def test_eval_async_refuses_a_bad_request_before_anything_is_created(tmp_path: Path) -> None:
    with pytest.raises(playbench.PlaybenchError, match="unknown option"):
        asyncio.run(playbench.eval_async("smartplay/hanoi-3", log_dir=tmp_path, episode=3))  # type: ignore[call-arg]
    with pytest.raises(playbench.PlaybenchError, match="unknown task"):
        asyncio.run(playbench.eval_async("smartplay/no-such-game", log_dir=tmp_path))
    assert not list(tmp_path.iterdir())


def test_cancelling_eval_async_keeps_the_finished_episodes_and_resume_finishes(tmp_path: Path) -> None:
    watch = _Watch()

    async def cell() -> None:
        run = asyncio.create_task(playbench.eval_async(
            "smartplay/hanoi-3", model="mock/demo", model_params={"latency": 0.05}, episodes=6, max_episodes=1,
            task_params={"max_steps": 4}, log_dir=tmp_path, progress=watch))
        await watch.first.wait()
        run.cancel()
        with pytest.raises(asyncio.CancelledError) as stopped:
            await run
        notes = getattr(stopped.value, "__notes__", [])
        assert any(str(only_run_dir(tmp_path)) in note and "resume=" in note for note in notes), notes

    asyncio.run(cell())
    path = only_run_dir(tmp_path)
    kept = stable_lines(path)
    assert 1 <= len(kept) < 6 and all('"status": "ok"' in line for line in kept)
    again = playbench.eval(resume=path)  # the directory was closed (its lock released) when the task ended
    assert again.complete and again.episodes == 6 - len(kept) and len(stable_lines(path)) == 6


CTRL_C = textwrap.dedent("""
    import signal, sys
    import playbench

    before = signal.getsignal(signal.SIGINT)
    try:
        playbench.eval("smartplay/hanoi-3", model="mock/demo", model_params={"latency": 0.2}, episodes=8,
                       max_episodes=2, task_params={"max_steps": 3}, log_dir=sys.argv[1])
    except playbench.RunInterrupted as stop:
        print("interrupted", stop.signal == signal.SIGINT, stop.path, signal.getsignal(signal.SIGINT) is before)
""")


def test_ctrl_c_still_stops_eval_with_run_interrupted(tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-c", CTRL_C, str(tmp_path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        run = wait_for_episodes(tmp_path, 1)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert out.split() == ["interrupted", "True", str(run), "True"], out + err
    kept = stable_lines(run)
    assert 1 <= len(kept) < 8 and all('"status": "ok"' in line for line in kept)
    assert playbench.eval(resume=run).complete

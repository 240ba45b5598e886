"""Runs you can trust: resume replays the whole configuration, one writer per run, clean stops, and
faults recorded against the right party. Real CLI processes against a real loopback server."""

import asyncio
import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from helpers import PLAYBENCH, only_run_dir, run_cli, stable_lines, wait_for_episodes
from playbench.core.errors import PlaybenchError
from playbench.core.records import RunConfig, TaskSpec
from playbench.core.registry import get_task
from playbench.core.task import Task
from playbench.log import StoreWriteError, read_run
from playbench.log.store import RunStore
from playbench.models.fakeserver import FakeServer
from playbench.runner import PoolSettings, plan_jobs, run_jobs
from playbench.runner.plan import EpisodeJob

NO_KEYS = {"OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""}
MODEL_RUN = ["smartplay/hanoi-3", "--model", "openai/fake", "-T", "max_steps=3", "--retry-backoff", "0", "--quiet"]


def _lines(run: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (run / "episodes.jsonl").read_text().splitlines() if x.strip()]


def _latest_status(run: Path) -> dict[tuple[str, int], str]:
    return {(r["task"], r["index"]): r["status"] for r in _lines(run)}


# -- resume replays the recorded configuration ------------------------------------------------------


def test_resume_replays_the_recorded_server_and_settings(tmp_path: Path) -> None:
    with FakeServer(down=True) as server:
        first = run_cli("eval", *MODEL_RUN, "--episodes", "2", "--base-url", server.url, "--max-retries", "0",
                        "--timeout", "7", "--log-dir", str(tmp_path), env=NO_KEYS)
        assert first.returncode == 1 and "--resume" in first.stderr, first.stderr
        run = only_run_dir(tmp_path)
        assert set(_latest_status(run).values()) == {"infra-error"}
        seen = server.stats.requests
        settings = json.loads((run / "run.json").read_text())["settings"]
        assert settings["base_url"] == server.url and settings["timeout"] == 7 and settings["max_retries"] == 0
        server.down = False
        again = run_cli("eval", "--resume", str(run), "--quiet", env=NO_KEYS)  # a server only run.json names
        assert again.returncode == 2 and f"--base-url {server.url} again" in again.stderr, again.stderr
        assert server.stats.requests == seen
        again = run_cli("eval", "--resume", str(run), "--base-url", server.url, "--quiet", env=NO_KEYS)
        assert again.returncode == 0, again.stderr
        assert server.stats.requests > seen  # the resumed episodes went to the recorded server
    assert set(_latest_status(run).values()) == {"ok"}


def test_resume_may_move_the_server_and_records_the_change(tmp_path: Path) -> None:
    with FakeServer(down=True) as old:
        assert run_cli("eval", *MODEL_RUN, "--episodes", "1", "--base-url", old.url, "--max-retries", "0",
                       "--log-dir", str(tmp_path), env=NO_KEYS).returncode == 1
    run = only_run_dir(tmp_path)
    with FakeServer() as new:
        res = run_cli("eval", "--resume", str(run), "--base-url", new.url, "--max-connections", "2", "--quiet",
                      env=NO_KEYS)
        assert res.returncode == 0, res.stderr
        assert new.stats.requests > 0
    meta = json.loads((run / "run.json").read_text())
    assert meta["settings"]["base_url"] == new.url and meta["settings"]["max_connections"] == 2
    (event,) = meta["resumes"]
    assert event["changed"] == {"base_url": [old.url, new.url], "max_connections": [8, 2]}


@pytest.mark.parametrize(
    ("extra", "flag", "recorded", "given"),
    [
        (["--agent", "oracle"], "--agent", "'random'", "'oracle'"),
        (["--seed", "5"], "--seed", "3", "5"),
        (["--episodes", "12"], "--episodes (smartplay/hanoi-3)", "2", "12"),
        (["-T", "compat=true"], "-T compat (smartplay/hanoi-3)", "False", "True"),
        (["--cache"], "--cache", "False", "True"),
        (["smartplay/hanoi-4"], "TASKS", "['smartplay/hanoi-3']", "['smartplay/hanoi-4']"),
        (["--log-dir", "elsewhere"], "--log-dir", "", ""),
    ],
)
def test_resume_refuses_options_that_change_results(tmp_path: Path, extra: list[str], flag: str, recorded: str,
                                                    given: str) -> None:
    assert run_cli("eval", "smartplay/hanoi-3", "--episodes", "2", "--seed", "3", "--quiet", "--log-dir",
                   str(tmp_path)).returncode == 0
    run = only_run_dir(tmp_path)
    before = {p: p.read_bytes() for p in (run / "episodes.jsonl", run / "run.json")}
    res = run_cli("eval", "--resume", str(run), *extra)
    assert res.returncode == 2, res.stderr
    (line,) = res.stderr.strip().splitlines()
    assert line.startswith(f"error: {flag} "), line
    if recorded:
        assert f"recorded {recorded}, given {given}" in line, line
    assert all(p.read_bytes() == data for p, data in before.items())
    # the recorded value itself is accepted
    same = run_cli("eval", "--resume", str(run), "--seed", "3", "--episodes", "2", "--quiet")
    assert same.returncode == 0, same.stderr


# -- one writer per run --------------------------------------------------------------------------------


def test_a_second_writer_is_refused_at_once(tmp_path: Path) -> None:
    with FakeServer(latency=0.2) as server:
        args = ["eval", *MODEL_RUN, "--episodes", "30", "--max-connections", "2", "--base-url", server.url,
                "--log-dir", str(tmp_path)]
        first = subprocess.Popen([*PLAYBENCH, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                 env={**os.environ, **NO_KEYS})
        run = wait_for_episodes(tmp_path, 1)
        started = time.monotonic()
        second = run_cli("eval", "--resume", str(run), "--quiet", env=NO_KEYS)
        assert second.returncode == 2 and "is being written by playbench pid" in second.stderr, second.stderr
        assert time.monotonic() - started < 10
        assert first.wait(timeout=120) == 0
    lines = _lines(run)
    assert len(lines) == 30 and len({(r["task"], r["index"]) for r in lines}) == 30


def test_kill_9_releases_the_lock(tmp_path: Path) -> None:
    with FakeServer(latency=0.2) as server:
        args = ["eval", *MODEL_RUN, "--episodes", "6", "--max-connections", "1", "--base-url", server.url,
                "--log-dir", str(tmp_path)]
        proc = subprocess.Popen([*PLAYBENCH, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                env={**os.environ, **NO_KEYS})
        run = wait_for_episodes(tmp_path, 1)
        proc.kill()
        proc.wait()
        res = run_cli("eval", "--resume", str(run), "--base-url", server.url, "--quiet", env=NO_KEYS)
        assert res.returncode == 0, res.stderr
    assert len(_latest_status(run)) == 6


# -- clean stops ---------------------------------------------------------------------------------------


def test_ctrl_c_prints_the_run_and_the_resume_command(tmp_path: Path) -> None:
    with FakeServer(latency=0.2) as server:
        args = ["eval", *MODEL_RUN, "--episodes", "8", "--max-connections", "2", "--base-url", server.url,
                "--log-dir", str(tmp_path)]
        proc = subprocess.Popen([*PLAYBENCH, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env={**os.environ, **NO_KEYS})
        run = wait_for_episodes(tmp_path, 1)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 130, err
        assert str(run) in err and f"playbench eval --resume {run}" in err and "aborted" not in err
        recorded = _lines(run)
        assert all(r["status"] == "ok" for r in recorded)  # nothing cut short was recorded as a fault
        res = run_cli("eval", "--resume", str(run), "--base-url", server.url, "--quiet", env=NO_KEYS)
        assert res.returncode == 0, res.stderr
    final = _lines(run)
    assert len(final) == 8 and len({r["index"] for r in final}) == 8


def test_quiet_still_prints_the_run_path(tmp_path: Path) -> None:
    res = run_cli("eval", "smartplay/hanoi-3", "--episodes", "1", "--quiet", "--log-dir", str(tmp_path))
    assert res.returncode == 0 and res.stdout.strip() == f"run written to {only_run_dir(tmp_path)}"


def test_unusable_log_dir_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    res = run_cli("eval", "smartplay/hanoi-3", "--episodes", "1", "--log-dir", str(blocker / "runs"))
    assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1, res.stderr
    assert res.stderr.startswith(f"error: cannot create a run in {blocker / 'runs'}")


def _tmpfs(path: Path, size: str) -> bool:
    path.mkdir(parents=True, exist_ok=True)
    return subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
                          capture_output=True).returncode == 0


def test_disk_full_stops_cleanly_and_resume_finishes(tmp_path: Path) -> None:
    small = tmp_path / "small"
    if not _tmpfs(small, "160k"):
        pytest.skip("this machine does not allow mounting a tmpfs (the in-process write-failure test covers it)")
    try:
        args = ["smartplay/hanoi-3", "--episodes", "400", "--seed", "2", "--quiet"]
        res = run_cli("eval", *args, "--log-dir", str(small))
        assert res.returncode == 1 and "the disk is full" in res.stderr and "--resume" in res.stderr, res.stderr
        assert "Traceback" not in res.stderr
        run = only_run_dir(small)
        kept = _lines(run)  # every line whole and every trajectory it names readable in full
        log = read_run(run)
        assert 0 < len(kept) < 400 and all(len(log.read_trajectory(r)) == r.steps > 0 for r in log.episodes())
        assert not list(run.rglob("*.tmp"))
        subprocess.run(["mount", "-o", "remount,size=64m", str(small)], check=True)
        again = run_cli("eval", "--resume", str(run), "--quiet")
        assert again.returncode == 0, again.stderr
        reference = tmp_path / "reference"
        assert run_cli("eval", *args, "--log-dir", str(reference)).returncode == 0
        assert stable_lines(run) == stable_lines(only_run_dir(reference))
    finally:
        subprocess.run(["umount", "-l", str(small)], check=False)


# -- episodes are isolated; faults on the right party (in-process runner) -----------------------------


class _Flaky:
    """Builds hanoi games, but building the game of one index fails the same way every time."""

    def __init__(self, bad_index: int) -> None:
        self.base = get_task("smartplay/hanoi-3")
        self.bad_index = bad_index

    def __call__(self, params: Any, index: int) -> Any:
        if index == self.bad_index:
            raise RuntimeError("this game cannot be built")
        return self.base.make_game(params, index)


def _jobs(task: Task, count: int) -> list[EpisodeJob]:
    params = task.params({})
    return [EpisodeJob(task, params, i, 100 + i) for i in range(count)]


def _store(tmp_path: Path, count: int) -> RunStore:
    config = RunConfig(tasks=[TaskSpec(id="smartplay/hanoi-3", episodes=count)], agent="random")
    return RunStore.create(tmp_path, {"config": config, "config_hash": config.hash(), "versions": {}})


def _random_agent() -> Any:
    from playbench.agents.registry import get_agent

    spec = get_agent("random")
    return spec.factory(spec.params({}), None)


def test_a_game_that_cannot_be_built_is_a_game_error_and_touches_no_other_episode(tmp_path: Path) -> None:
    base = get_task("smartplay/hanoi-3")
    task = Task(id=base.id, description="", make_game=_Flaky(bad_index=2), params_model=base.params_model)
    store = _store(tmp_path, 5)
    totals = asyncio.run(run_jobs(_jobs(task, 5), store, _random_agent, "random", None, PoolSettings(max_episodes=3)))
    store.close()
    assert totals.stopped is None
    status = {r.index: r.status for r in store.read_episodes()}
    assert status == {0: "ok", 1: "ok", 2: "game-error", 3: "ok", 4: "ok"}
    assert "this game cannot be built" in (store.latest_episodes()[(base.id, 2)].error or "")
    config = store.meta.config
    assert plan_jobs(config, store.latest_episodes()) == []  # a plain resume does not replay it
    assert [j.index for j in plan_jobs(config, store.latest_episodes(), retry_errors=True)] == [2]


class _FailingStore(RunStore):
    """A store whose disk fills up when one episode's last steps are written."""

    fail_index = 3

    def steps(self, task_id: str, index: int) -> Any:
        writer = super().steps(task_id, index)
        if index == self.fail_index:
            def fail() -> str:
                raise StoreWriteError("the disk is full (simulated)")
            writer.finish = fail  # type: ignore[method-assign]
        return writer


class _SlowAgent:
    """A random agent that takes its time, so episodes are in flight when the run stops."""

    def __init__(self) -> None:
        self.inner = _random_agent()

    async def start(self, ctx: Any) -> None:
        await self.inner.start(ctx)

    async def act(self, turn: Any) -> Any:
        await asyncio.sleep(0.001)
        return await self.inner.act(turn)


def test_a_write_failure_stops_the_run_without_blaming_anyone(tmp_path: Path) -> None:
    base = get_task("smartplay/hanoi-3")
    plain = _store(tmp_path, 8)
    store = _FailingStore(plain.path, plain.meta)
    plain.close()
    totals = asyncio.run(run_jobs(_jobs(base, 8), store, _SlowAgent, "random", None, PoolSettings(max_episodes=4)))
    store.close()
    assert totals.stopped == "the disk is full (simulated)"
    records = store.read_episodes()
    assert records and all(r.status == "ok" for r in records)  # the others were cancelled, not blamed
    assert 3 not in {r.index for r in records}
    assert all(len(store.read_trajectory(r)) == r.steps > 0 for r in records)


def test_a_record_naming_a_file_outside_the_run_is_refused(tmp_path: Path) -> None:
    assert run_cli("eval", "smartplay/hanoi-3", "--episodes", "1", "--quiet", "--log-dir", str(tmp_path)).returncode == 0
    run = only_run_dir(tmp_path)
    secret = tmp_path / "secret.jsonl"
    secret.write_text("{}\n")
    row = _lines(run)[0]
    row["trajectory"] = "../secret.jsonl"
    (run / "episodes.jsonl").write_text(json.dumps(row) + "\n")
    store = RunStore.open(run)
    with pytest.raises(PlaybenchError, match="outside the run"):
        store.read_trajectory(store.read_episodes()[0])

"""Trajectory shards (``playbench.log.shard``): steps stored once, rebuilt exactly, safe across kills."""

import json
import shutil
from pathlib import Path

import orjson
import pytest

from helpers import run_cli
from playbench.core.errors import PlaybenchError
from playbench.core.records import EpisodeRecord, RunConfig, StepRecord, TaskSpec
from playbench.log import read_run, shard
from playbench.log.store import RunStore
from playbench.models.fakeserver import FakeServer

TASK = "smartplay/hanoi-3"
CONFIG = RunConfig(tasks=[TaskSpec(id=TASK, episodes=4)], agent="naive", seed=0)
OLD_RUN = Path(__file__).resolve().parents[1] / "data" / "runs" / "v1-hanoi-mock"


def _store(tmp_path: Path) -> RunStore:
    return RunStore.create(tmp_path, {"config": CONFIG, "config_hash": CONFIG.hash(), "versions": {}})


def _record(index: int, steps: int, trajectory: str | None, status: str = "ok") -> EpisodeRecord:
    return EpisodeRecord(task=TASK, index=index, seed=index, status=status, agent="naive", steps=steps,  # type: ignore[arg-type]
                         trajectory=trajectory)


def _windows(count: int) -> list[list[dict]]:
    """Prompt windows of the shapes agents send: a growing history, one that slides (keeping its first
    message), a message repeated word for word, a rebuilt copy of an earlier dict, a non-object."""
    system = {"role": "system", "content": "rules " * 50}
    history: list[dict] = []
    out = []
    for i in range(count):
        history += [{"role": "user", "content": f"observation {i}"}, {"role": "assistant", "content": "move"}]
        window = [system, *history[-6:], {"role": "user", "content": f"Current observation {i}"}]
        if i % 5 == 3:
            window.append(dict(window[1]))  # the same content in a new dict
        out.append(window)
    if count > 7:
        out[7] = [*out[7], "a bare string"]  # not an object: that step keeps its messages whole
    return out


def _steps(count: int, tag: str) -> list[StepRecord]:
    return [StepRecord(step=i, observation=f"{tag} obs {i}", raw_output=f"move {i}", action=f"move {i}",
                       executed=f"move {i}", valid=True, reward=-1.0, score=0.5, done=i == count - 1,
                       messages=window, usage={"input_tokens": i}, timing={"latency_s": 0.001})
            for i, window in enumerate(_windows(count))]


def test_interleaved_episodes_are_rebuilt_byte_for_byte(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shard, "CHUNK_BYTES", 600)  # several chunks per episode, interleaved
    store = _store(tmp_path)
    steps = {i: _steps(12 + i, f"ep{i}") for i in range(3)}
    writers = {i: store.steps(TASK, i) for i in steps}
    for n in range(max(len(s) for s in steps.values())):
        for i, writer in writers.items():
            if n < len(steps[i]):
                writer.add(steps[i][n])
    for i in (2, 0, 1):
        store.append_episode(_record(i, len(steps[i]), writers[i].finish()))
    store.close()

    log = read_run(store.path)
    assert [r.trajectory for r in log.episodes()] == [f"trajectories/{TASK}/steps.pbt#{i}" for i in range(3)]
    for record in log.episodes():
        rebuilt = log.read_trajectory(record)
        assert rebuilt == steps[record.index]
        assert [s.json_line() for s in rebuilt] == [s.json_line() for s in steps[record.index]]
    whole = sum(len(s.json_line()) for ep in steps.values() for s in ep)
    assert (store.path / f"trajectories/{TASK}/steps.pbt").stat().st_size < whole / 4


def test_a_kill_leaves_nothing_that_is_read_and_resume_cuts_the_torn_tail(tmp_path: Path) -> None:
    store = _store(tmp_path)
    first = store.steps(TASK, 0)
    for s in _steps(5, "first try"):
        first.add(s)
    first.finish()  # its steps reached the shard but its record never did: the process was killed
    store.close()
    file = store.path / f"trajectories/{TASK}/steps.pbt"
    whole = file.read_bytes()
    file.write_bytes(whole + whole[:37])  # and a chunk torn mid-write

    again = RunStore.open_for_writing(store.path)  # a resume: the torn chunk goes before it appends
    second = again.steps(TASK, 0)
    assert file.read_bytes() == whole
    replay = _steps(6, "second try")
    for s in replay:
        second.add(s)
    again.append_episode(_record(0, 6, second.finish(), status="infra-error"))
    retry = again.steps(TASK, 0)  # a re-run after an infra error: tagged apart from the recorded one
    for s in _steps(3, "retry"):
        retry.add(s)
    again.append_episode(_record(0, 3, retry.finish()))
    again.close()

    log = read_run(store.path)
    records = log.read_episodes()
    assert [r.trajectory for r in records] == [f"trajectories/{TASK}/steps.pbt#0", f"trajectories/{TASK}/steps.pbt#0.1"]
    assert log.read_trajectory(records[0]) == replay
    assert [s.observation for s in log.read_trajectory(records[1])] == [f"retry obs {i}" for i in range(3)]


def test_damaged_steps_are_one_clear_error(tmp_path: Path) -> None:
    store = _store(tmp_path)
    writer = store.steps(TASK, 0)
    for s in _steps(4, "x"):
        writer.add(s)
    store.append_episode(_record(0, 4, writer.finish()))
    store.close()
    file = store.path / f"trajectories/{TASK}/steps.pbt"
    data = bytearray(file.read_bytes())
    data[40] ^= 0xFF
    file.write_bytes(bytes(data))
    log = read_run(store.path)
    with pytest.raises(PlaybenchError, match="cannot be read"):
        log.read_trajectory(log.episodes()[0])


def test_runs_in_the_first_layout_are_read_and_resumed(tmp_path: Path) -> None:
    old = read_run(OLD_RUN)
    for record in old.episodes():
        lines = (OLD_RUN / (record.trajectory or "")).read_bytes().splitlines(keepends=True)
        assert [s.json_line() for s in old.read_trajectory(record)] == lines and len(lines) == record.steps

    run = tmp_path / "run"
    shutil.copytree(OLD_RUN, run)
    rows = (run / "episodes.jsonl").read_bytes().splitlines(keepends=True)
    last = json.loads(rows[-1])
    last["status"], last["error"] = "infra-error", "the server went away"
    (run / "episodes.jsonl").write_bytes(b"".join(rows[:-1]) + json.dumps(last).encode() + b"\n")
    done = run_cli("eval", "--resume", str(run), "--quiet")
    assert done.returncode == 0, done.stderr
    log = read_run(run)
    first, second = log.episodes()
    assert first.trajectory == "trajectories/smartplay/hanoi-3/000000.jsonl"
    assert second.trajectory == "trajectories/smartplay/hanoi-3/steps.pbt#1.1"
    def stable(steps: list[StepRecord]) -> list[dict]:
        return [s.model_dump(exclude={"timing", "next_observation"}) for s in steps]

    replayed = log.read_trajectory(second)
    assert stable(replayed) == stable(old.read_trajectory(old.episodes()[1]))  # same answers
    # the old run kept no observation after its last step; the episode played again keeps it on that step only
    assert all(s.next_observation is None for s in old.read_trajectory(old.episodes()[1]))
    assert [s.next_observation is None for s in replayed] == [True] * (len(replayed) - 1) + [False]


def test_rebuilt_requests_are_the_bytes_the_server_received(tmp_path: Path) -> None:
    with FakeServer(record=True) as server:
        done = run_cli("eval", TASK, "--model", "openai/fake", "--base-url", server.url, "--episodes", "1",
                       "-T", "max_steps=12", "--max-connections", "1", "--quiet", "--log-dir", str(tmp_path),
                       env={"OPENAI_API_KEY": ""})
        assert done.returncode == 0, done.stderr
        bodies = list(server.bodies)
    log = read_run(next(tmp_path.iterdir()))
    steps = log.read_trajectory(log.episodes()[0])
    assert len(steps) == len(bodies) == 12
    for step, body in zip(steps, bodies, strict=True):
        assert step.messages is not None
        assert body == orjson.dumps({"model": "fake", "messages": step.messages})  # the whole request


class _CountingStore(RunStore):
    """Counts the commits (each: one fsync of the shards, one of episodes.jsonl) and the lines each wrote."""

    batches: list[int]

    def _commit_lines(self, shards: list, lines: bytes) -> None:
        super()._commit_lines(shards, lines)
        self.batches.append(lines.count(b"\n"))


def test_episodes_ending_together_share_a_commit_and_count_only_once_on_disk(tmp_path: Path) -> None:
    import asyncio

    from playbench.agents.registry import get_agent
    from playbench.core.registry import get_task
    from playbench.runner import PoolSettings, run_jobs
    from playbench.runner.plan import EpisodeJob

    task = get_task(TASK)
    plain = _store(tmp_path)
    store = _CountingStore(plain.path, plain.meta)
    plain.close()
    store.batches = []
    seen_on_disk: list[bool] = []

    def on_episode(record: EpisodeRecord) -> None:  # told only once the line is on disk
        lines = (store.path / "episodes.jsonl").read_bytes().splitlines()
        seen_on_disk.append(any(json.loads(x)["index"] == record.index for x in lines))

    spec = get_agent("random")
    jobs = [EpisodeJob(task, task.params({"max_steps": 3}), i, 100 + i) for i in range(64)]
    totals = asyncio.run(run_jobs(jobs, store, lambda: spec.factory(spec.params({}), None), "random", None,
                                  PoolSettings(max_episodes=64, on_episode=on_episode)))
    store.close()
    assert totals.episodes == 64 and totals.stopped is None
    assert seen_on_disk == [True] * 64
    assert sum(store.batches) == 64 and len(store.batches) < 64  # episodes ending together shared fsyncs
    log = read_run(store.path)
    assert all(len(log.read_trajectory(r)) == r.steps == 3 for r in log.episodes())


def test_commits_are_spaced_and_episodes_ending_in_between_share_the_next(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    from playbench.log import store as store_module

    monkeypatch.setattr(store_module, "COMMIT_INTERVAL", 0.3)
    plain = _store(tmp_path)
    store = _CountingStore(plain.path, plain.meta)
    plain.close()
    store.batches = []

    async def main() -> tuple[float, float]:
        loop = asyncio.get_running_loop()
        await store.commit(_record(0, 0, None))  # the first commit of a run is not held back
        first_done = loop.time()
        later = [store.commit(_record(i, 0, None)) for i in (1, 2)]
        await asyncio.sleep(0.05)
        later.append(store.commit(_record(3, 0, None)))  # ends between two commits: joins the next one
        await asyncio.gather(*later)
        return first_done, loop.time()

    first_done, rest_done = asyncio.run(main())
    store.close()
    assert store.batches == [1, 3]
    assert rest_done - first_done >= 0.3
    assert [r.index for r in read_run(store.path).episodes()] == [0, 1, 2, 3]

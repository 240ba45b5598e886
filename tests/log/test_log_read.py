"""``playbench.log``: reading a run (``read_run``/``RunLog``) over records its writer (``RunStore``) made."""

from pathlib import Path

import pytest

from playbench.core.errors import PlaybenchError
from playbench.core.records import EpisodeRecord, RunConfig, StepRecord, TaskSpec
from playbench.log import EPISODES, RunLog, StoreWriteError, find_runs, is_run, read_run
from playbench.log.store import RunStore

CONFIG = RunConfig(tasks=[TaskSpec(id="smartplay/hanoi-3", episodes=3)], agent="random", seed=4)


def _record(index: int, status: str = "ok", trajectory: str | None = None) -> EpisodeRecord:
    return EpisodeRecord(task="smartplay/hanoi-3", index=index, seed=index, status=status, agent="random",
                         trajectory=trajectory)  # type: ignore[arg-type]


def _run(tmp_path: Path) -> RunStore:
    return RunStore.create(tmp_path, {"config": CONFIG, "config_hash": CONFIG.hash(), "versions": {}})


def test_read_run_gives_meta_config_episodes_and_trajectories(tmp_path: Path) -> None:
    store = _run(tmp_path)
    steps = [StepRecord(step=0, observation="o", executed="a", valid=True, reward=1.0, score=1.0, done=True)]
    store.append_episode(_record(2, trajectory=store.write_trajectory("smartplay/hanoi-3", 2, steps)))
    store.append_episode(_record(0, "infra-error"))
    store.append_episode(_record(0))  # a resume re-played it: the last record counts
    store.close()

    log = read_run(store.path)
    assert isinstance(log, RunLog) and not isinstance(log, RunStore)
    assert log.config == CONFIG and log.run_id == store.path.name and log.meta.config_hash == CONFIG.hash()
    assert [r.status for r in log.read_episodes()] == ["ok", "infra-error", "ok"]
    assert [(r.index, r.status) for r in log.episodes()] == [(0, "ok"), (2, "ok")]
    assert log.read_trajectory(log.episodes()[1]) == steps
    assert log.read_trajectory(log.episodes()[0]) == []
    assert is_run(store.path) and find_runs(tmp_path) == [store.path]


def test_a_torn_last_line_is_skipped_and_only_repair_cuts_it(tmp_path: Path) -> None:
    store = _run(tmp_path)
    store.append_episode(_record(0))
    store.close()
    file = store.path / EPISODES
    whole = file.read_bytes()
    file.write_bytes(whole + b'{"task": "smartplay/han')
    log = read_run(store.path)
    assert [r.index for r in log.read_episodes()] == [0]
    assert file.read_bytes() != whole  # reading alone changes nothing
    log.read_episodes(repair=True)
    assert file.read_bytes() == whole


def test_bad_runs_and_records_are_refused(tmp_path: Path) -> None:
    with pytest.raises(PlaybenchError, match="not a playbench run"):
        read_run(tmp_path)
    store = _run(tmp_path / "runs")
    store.append_episode(_record(0, trajectory="../../outside.jsonl"))
    store.close()
    log = read_run(store.path)
    with pytest.raises(PlaybenchError, match="outside the run"):
        log.read_trajectory(log.episodes()[0])
    file = store.path / EPISODES
    file.write_bytes(b"not json\n" + file.read_bytes())
    with pytest.raises(PlaybenchError, match="line 1 is corrupt"):
        log.read_episodes()


def test_a_second_writer_is_refused_and_the_lock_is_released_on_close(tmp_path: Path) -> None:
    store = _run(tmp_path)
    with pytest.raises(PlaybenchError, match="being written by playbench pid"):
        RunStore.open_for_writing(store.path)
    store.close()
    again = RunStore.open_for_writing(store.path)
    again.close()


def test_a_failed_write_is_a_store_write_error_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    store = _run(tmp_path)
    (store.path / "trajectories").write_text("a file where the folder should be")
    with pytest.raises(StoreWriteError, match="cannot write"):
        store.write_trajectory("smartplay/hanoi-3", 0, [])
    store.close()
    assert sorted(p.name for p in store.path.iterdir()) == [".lock", EPISODES, "run.json", "trajectories"]

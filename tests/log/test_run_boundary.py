"""A run folder is a trust boundary (issue 27): what a run from elsewhere holds never leads playbench out of it.

Links inside a run are refused before anything is read or written through them, a shard chunk inflates at
most to what a chunk holds, records with non-finite numbers or a newer format are refused, a run whose
folder disappears stops at its next commit, and an unwritable log folder is refused before a run exists.
Every run here is a real one written by ``playbench.eval`` or ``RunStore``, then edited.
"""

import contextlib
import json
import math
import os
import shutil
import struct
import subprocess
import tracemalloc
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

import playbench
from playbench.core.errors import PlaybenchError
from playbench.core.records import RUN_FORMAT, EpisodeRecord, RunConfig, StepRecord, TaskSpec
from playbench.log import StoreWriteError, read_run, shard
from playbench.log.store import RunStore

TASK = "smartplay/hanoi-3"
LINKED = "is a symbolic link; a run's files must be regular files inside it"
SECRET = b"the user's own file\n{\"task\": \"torn"  # ends in a torn line: a repair would cut it


def _played(log_dir: Path, episodes: int = 3) -> Path:
    result = playbench.eval(TASK, agent="random", episodes=episodes, task_params={"max_steps": 4}, log_dir=log_dir)
    assert result.stopped is None
    return result.path


@pytest.fixture
def run(tmp_path: Path) -> Path:
    """A finished three-episode run whose last record was lost, so a resume plays (and writes) again."""
    path = _played(tmp_path / "runs")
    episodes = path / "episodes.jsonl"
    lines = episodes.read_bytes().splitlines(keepends=True)
    episodes.write_bytes(b"".join(lines[:-1]))
    return path


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A file of the user's, outside the run."""
    file = tmp_path / "mine.txt"
    file.write_bytes(SECRET)
    return file


def _link(link: Path, target: Path) -> None:
    link.unlink()
    link.symlink_to(target)


def _resume(path: Path) -> Any:
    return playbench.eval(resume=path)


def test_a_linked_lock_is_refused_and_the_linked_file_is_untouched(run: Path, outside: Path) -> None:
    _link(run / ".lock", outside)
    with pytest.raises(PlaybenchError, match=f"{run / '.lock'} {LINKED}"):
        _resume(run)
    with pytest.raises(PlaybenchError, match=LINKED):
        RunStore.open_for_writing(run)
    assert outside.read_bytes() == SECRET


def test_a_linked_run_json_is_refused_by_readers_and_writers(run: Path, tmp_path: Path) -> None:
    copy = tmp_path / "their-run.json"
    shutil.copy(run / "run.json", copy)
    before = copy.read_bytes()
    _link(run / "run.json", copy)
    for open_it in (read_run, RunStore.open_for_writing, _resume):
        with pytest.raises(PlaybenchError, match=f"{run / 'run.json'} {LINKED}: refusing to open it"):
            open_it(run)
    assert copy.read_bytes() == before


def test_linked_episodes_are_refused_and_never_repaired(run: Path, tmp_path: Path) -> None:
    theirs = tmp_path / "episodes-elsewhere.jsonl"
    theirs.write_bytes((run / "episodes.jsonl").read_bytes() + b'{"task": "torn')  # a torn line resume would cut
    before = theirs.read_bytes()
    _link(run / "episodes.jsonl", theirs)
    with pytest.raises(PlaybenchError, match=LINKED):
        read_run(run).episodes()
    with pytest.raises(PlaybenchError, match=LINKED):
        _resume(run)
    store = RunStore.open(run)
    with pytest.raises(PlaybenchError, match=LINKED):
        store.latest_episodes(repair=True)
    assert theirs.read_bytes() == before


def _shard_of(path: Path) -> Path:
    return path / "trajectories" / TASK / "steps.pbt"


def test_a_linked_shard_is_neither_read_nor_repaired(run: Path, outside: Path) -> None:
    _link(_shard_of(run), outside)
    log = read_run(run)
    with pytest.raises(PlaybenchError, match="outside the run"):
        log.read_trajectory(log.episodes()[0])
    with pytest.raises(PlaybenchError, match=LINKED):
        _resume(run)
    assert outside.read_bytes() == SECRET


def test_a_shard_linked_inside_the_run_is_refused_too(run: Path) -> None:
    """Even a link that stays inside the run is refused: a run's files are regular files, links are not."""
    shard_file = _shard_of(run)
    (run / "trajectories" / "copy.pbt").write_bytes(shard_file.read_bytes())
    _link(shard_file, Path("..") / ".." / "copy.pbt")
    log = read_run(run)
    with pytest.raises(PlaybenchError, match=f"{shard_file} {LINKED}"):
        log.read_trajectory(log.episodes()[0])


def test_a_linked_trajectories_folder_is_refused(run: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    shutil.move(run / "trajectories", elsewhere)
    (run / "trajectories").symlink_to(elsewhere, target_is_directory=True)
    before = {p: p.read_bytes() for p in elsewhere.rglob("*") if p.is_file()}
    with pytest.raises(PlaybenchError, match=f"{run / 'trajectories'} {LINKED}"):
        _resume(run)
    log = read_run(run)
    with pytest.raises(PlaybenchError, match="outside the run"):
        log.read_trajectory(log.episodes()[0])
    assert {p: p.read_bytes() for p in elsewhere.rglob("*") if p.is_file()} == before


def test_a_folder_linked_inside_the_run_is_refused_by_readers(run: Path) -> None:
    log = read_run(run)
    record = log.episodes()[0]
    (run / "trajectories" / "other").symlink_to(Path(TASK.split("/")[0]), target_is_directory=True)
    assert record.trajectory is not None
    moved = record.model_copy(update={"trajectory": record.trajectory.replace("smartplay/", "other/")})
    assert log.read_trajectory(record)  # the real folder reads
    with pytest.raises(PlaybenchError, match=f"{run / 'trajectories' / 'other'} {LINKED}"):
        log.read_trajectory(moved)


def test_atomic_writes_do_not_go_through_a_linked_folder(tmp_path: Path) -> None:
    config = RunConfig(tasks=[TaskSpec(id=TASK, episodes=1)], agent="random")
    store = RunStore.create(tmp_path / "runs", {"config": config, "config_hash": config.hash(), "versions": {}})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (store.path / "trajectories").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(StoreWriteError, match=LINKED):
        store.write_frame(TASK, 0, 0, [[[0, 0, 0]]])
    with pytest.raises(StoreWriteError, match=LINKED):
        store.write_trajectory(TASK, 0, [StepRecord(step=0, observation="o", executed="a", valid=True, reward=0.0,
                                                    score=0.0)])
    store.close()
    assert list(elsewhere.iterdir()) == []


# -- bounded decompression ----------------------------------------------------------------------------


def _bomb(tag: int, size: int = 256 << 20) -> bytes:
    """A chunk with a valid header and CRC whose payload inflates to ``size`` zero bytes (~250 KiB on disk)."""
    deflate = zlib.compressobj(9)
    block = bytes(1 << 20)
    payload = b"".join(deflate.compress(block) for _ in range(size // len(block))) + deflate.flush()
    return struct.pack("<3sBQII", b"PBT", 3, tag, len(payload), zlib.crc32(payload)) + payload


def test_a_bomb_chunk_is_damaged_steps_and_the_rest_of_the_run_reads(tmp_path: Path) -> None:
    path = _played(tmp_path / "runs")
    log = read_run(path)
    records = log.episodes()
    assert [r.trajectory for r in records] == [f"trajectories/{TASK}/steps.pbt#{i}" for i in range(3)]
    bomb = _bomb(shard.episode_tag(1, 0))
    assert len(bomb) < 1 << 20
    with open(_shard_of(path), "ab") as fh:  # a later, complete run of chunks for #1 wins over the real one
        fh.write(bomb)
    log = read_run(path)
    tracemalloc.start()
    try:
        baseline, _ = tracemalloc.get_traced_memory()
        with pytest.raises(PlaybenchError, match=rf"steps of {TASK} #1 cannot be read \(.*damaged: it inflates past"):
            log.read_trajectory(records[1])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak - baseline < 64 << 20
    assert log.read_trajectory(records[0]) and log.read_trajectory(records[2])


def test_a_chunk_claiming_a_huge_payload_is_damaged(tmp_path: Path) -> None:
    path = _played(tmp_path / "runs", episodes=1)
    payload = b"x" * 16
    with open(_shard_of(path), "ab") as fh:
        fh.write(struct.pack("<3sBQII", b"PBT", 3, shard.episode_tag(0, 0), shard.max_payload() + 1, 0) + payload)
        fh.truncate(fh.tell() + shard.max_payload())  # the file does hold that many bytes (a sparse hole)
    log = read_run(path)
    with pytest.raises(PlaybenchError, match="more than a chunk holds"):
        log.read_trajectory(log.episodes()[0])


def test_a_step_too_long_for_a_chunk_is_not_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shard, "MAX_STEP_BYTES", 1000)
    config = RunConfig(tasks=[TaskSpec(id=TASK, episodes=1)], agent="random")
    store = RunStore.create(tmp_path, {"config": config, "config_hash": config.hash(), "versions": {}})
    long_step = StepRecord(step=0, observation="o" * 2000, executed="a", valid=True, reward=0.0, score=0.0)
    with pytest.raises(StoreWriteError, match="more than the 1000 a trajectory shard keeps"):
        store.write_trajectory(TASK, 0, [long_step])
    store.close()


# -- records ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("field", "value"), [("score", b"NaN"), ("score", b"1e999"), ("reward", b"-Infinity"),
                                              ("metrics", b'{"moves": NaN}'), ("timing", b'{"duration_s": 1e999}')])
def test_a_non_finite_number_makes_a_corrupt_line(tmp_path: Path, field: str, value: bytes) -> None:
    path = _played(tmp_path / "runs", episodes=2)
    episodes = path / "episodes.jsonl"
    first, second = episodes.read_bytes().splitlines()
    row = json.loads(first)
    row[field] = "SENTINEL"
    edited = json.dumps(row).replace('"SENTINEL"', value.decode()).encode()
    episodes.write_bytes(second + b"\n" + edited + b"\n")
    before = episodes.read_bytes()
    with pytest.raises(PlaybenchError, match=r"episodes.jsonl: line 2 is corrupt .*nothing was changed"):
        read_run(path).episodes()
    with pytest.raises(PlaybenchError, match="line 2 is corrupt"):
        _resume(path)
    assert episodes.read_bytes() == before


def test_a_non_finite_number_in_run_json_is_refused(tmp_path: Path) -> None:
    path = _played(tmp_path / "runs", episodes=1)
    text = (path / "run.json").read_text()
    (path / "run.json").write_text(text.replace('"seed": 0', '"seed": 0, "agent_params": {"temperature": NaN}', 1))
    with pytest.raises(PlaybenchError, match="run.json is not a valid run file"):
        read_run(path)


def test_a_non_finite_number_is_never_written(tmp_path: Path) -> None:
    with pytest.raises(ValidationError):
        EpisodeRecord(task=TASK, index=0, seed=0, status="ok", agent="random", score=math.nan)
    with pytest.raises(ValidationError):
        EpisodeRecord(task=TASK, index=0, seed=0, status="ok", agent="random", metrics={"x": [math.inf]})
    config = RunConfig(tasks=[TaskSpec(id=TASK, episodes=1)], agent="random")
    store = RunStore.create(tmp_path, {"config": config, "config_hash": config.hash(), "versions": {}})
    record = EpisodeRecord(task=TASK, index=0, seed=0, status="ok", agent="random", score=0.5)
    record.score = math.nan  # assignment is not validated: the writer checks again
    with pytest.raises(StoreWriteError, match="score that is not a finite number"):
        store.append_episode(record)
    store.close()
    assert (store.path / "episodes.jsonl").read_bytes() == b""
    with pytest.raises(PlaybenchError, match="finite number"):
        RunStore.create(tmp_path, {"config": config, "config_hash": config.hash(), "versions": {},
                                   "settings": {"timeout": math.inf}}, name="never")
    assert not (tmp_path / "never").exists()


def test_a_newer_format_is_refused_naming_both_versions(tmp_path: Path) -> None:
    path = _played(tmp_path / "runs", episodes=1)
    meta = json.loads((path / "run.json").read_text())
    meta["format"] = 99
    meta["something_new"] = {"a": 1}  # a newer format may hold fields this version does not know
    (path / "run.json").write_text(json.dumps(meta))
    message = (f"{path} was written by a newer playbench (format 99); this version reads formats up to "
               f"{RUN_FORMAT}: upgrade playbench")
    for open_it in (read_run, _resume):
        with pytest.raises(PlaybenchError) as caught:
            open_it(path)
        assert str(caught.value) == message


# -- a run folder that disappears, a log folder that cannot be written --------------------------------


class _RemoveAfter:
    """A progress hook that deletes the run's folder once some episodes are recorded."""

    def __init__(self, log_dir: Path, after: int) -> None:
        self.log_dir, self.after, self.seen, self.on_disk = log_dir, after, 0, 0

    def start(self, plan: Any) -> None:
        pass

    def step(self, task_id: str) -> None:
        pass

    def episode(self, record: EpisodeRecord) -> None:
        self.seen += 1
        if self.seen == self.after:
            (run,) = self.log_dir.iterdir()
            self.on_disk = len((run / "episodes.jsonl").read_bytes().splitlines())
            shutil.rmtree(run)

    def stop(self) -> None:
        pass


def test_a_run_whose_folder_is_deleted_stops_at_the_next_commit(tmp_path: Path) -> None:
    log_dir = tmp_path / "runs"
    hook = _RemoveAfter(log_dir, after=3)
    result = playbench.eval(TASK, agent="random", episodes=200, task_params={"max_steps": 30}, log_dir=log_dir,
                            max_episodes=2, progress=hook)
    assert result.stopped == (f"the run folder {result.path} disappeared while the run was writing it "
                              "(deleted or moved); the run stops here")
    # episodes already committed when the folder went are still told; none committed after it
    assert hook.after <= hook.seen <= hook.on_disk < 200
    assert not log_dir.joinpath(result.path.name).exists()


@contextlib.contextmanager
def _read_only_folder(where: Path) -> Iterator[Path]:
    """A folder nobody may write in: a read-only tmpfs as root (chmod does not stop root), else mode 0o555."""
    where.mkdir()
    if os.geteuid() != 0:
        where.chmod(0o555)
        try:
            yield where
        finally:
            where.chmod(0o755)
        return
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", str(where)],
                             capture_output=True, text=True, check=False)
    if mounted.returncode != 0:
        pytest.skip(f"running as root and cannot mount a read-only tmpfs ({mounted.stderr.strip()})")
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=True)


def test_an_unwritable_log_folder_is_refused_before_the_run_exists(tmp_path: Path) -> None:
    with _read_only_folder(tmp_path / "ro") as folder:
        with pytest.raises(PlaybenchError, match=f"cannot create a run in {folder}"):
            playbench.eval(TASK, agent="random", episodes=1, log_dir=folder)
        with pytest.raises(PlaybenchError, match=f"cannot create a run in {folder / 'runs'}"):
            playbench.eval(TASK, agent="random", episodes=1, log_dir=folder / "runs")
        assert list(folder.iterdir()) == []


def test_a_run_failing_part_way_through_creation_leaves_no_folder(tmp_path: Path) -> None:
    config = RunConfig(tasks=[TaskSpec(id=TASK, episodes=1)], agent="random")
    fields = {"config": config, "config_hash": config.hash(), "versions": {}, "settings": {"label": "bad \udcff"}}
    with pytest.raises(PlaybenchError, match="cannot create a run"):
        RunStore.create(tmp_path, fields)
    assert list(tmp_path.iterdir()) == []

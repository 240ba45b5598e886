"""``--executor ray`` on a real two-node Ray cluster: the same records as one machine, whatever dies.

The headline: one config run by the local runner, on the cluster, and as shards (one on the cluster, one
local) merged, gives the same ``episodes.jsonl`` (sorted by task and index) and trajectories, timing aside.
"""

import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

import playbench
from helpers import PLAYBENCH, only_run_dir, run_cli, stable_lines, stable_trajectories, wait_for_episodes
from playbench.models.fakeserver import FakeServer

# a model agent (requests, answers and messages in the trajectories) and a reference agent
CONFIG = ["smartplay/hanoi-3", "smartplay/rps-basic", "--model", "mock/demo", "--episodes", "5", "--seed", "11",
          "-T", "max_steps=8", "--quiet"]


def _lines(run: Path) -> list[dict]:
    return [json.loads(x) for x in (run / "episodes.jsonl").read_text().splitlines() if x.strip()]


def _eval(log: Path, *extra: str, env: dict | None = None) -> Path:
    res = run_cli("eval", *CONFIG, "--log-dir", str(log), *extra, env=env)
    assert res.returncode == 0, res.stderr
    return only_run_dir(log)


def test_cluster_and_merged_shards_equal_one_machine(tmp_path, ray_cluster):
    local = _eval(tmp_path / "local")
    cluster = _eval(tmp_path / "ray", "--executor", "ray", "--ray-address", ray_cluster.address)
    assert json.loads((cluster / "run.json").read_text())["settings"]["executor"] == "ray"
    one = _eval(tmp_path / "s1", "--shard", "1/2", "--executor", "ray", "--ray-address", ray_cluster.address)
    two = _eval(tmp_path / "s2", "--shard", "2/2")
    assert 0 < len(_lines(one)) < 10 and len(_lines(one)) + len(_lines(two)) == 10
    merged = tmp_path / "merged"
    res = run_cli("merge", str(one), str(two), "--output", str(merged))
    assert res.returncode == 0, res.stderr
    reference = stable_lines(local)
    assert len(reference) == 10 and len(stable_trajectories(local)) == 10
    for run in (cluster, merged):
        assert stable_lines(run) == reference
        assert stable_trajectories(run) == stable_trajectories(local)
        checked = playbench.verify(run)  # re-played through fresh engines, every record holds
        assert (checked.verified, checked.differing, checked.not_verifiable) == (10, 0, 0)
    # the merged file is written in (task, index) order, one line per episode
    keys = [(r["task"], r["index"]) for r in _lines(merged)]
    assert keys == sorted(keys) and len(set(keys)) == 10
    # the commands that read runs take the merged one like any other
    report = run_cli("report", str(merged), "--json")
    assert report.returncode == 0, report.stderr
    merged_report, local_report = json.loads(report.stdout), json.loads(run_cli("report", str(local), "--json").stdout)
    merged_report.pop("run"), local_report.pop("run")  # where and when each run was written
    assert merged_report == local_report and merged_report["tasks"]
    compare = run_cli("compare", str(local), str(merged), "--json")
    assert compare.returncode == 0, compare.stderr
    export = run_cli("export", str(merged), "--format", "jsonl", "-o", str(tmp_path / "rows.jsonl"))
    assert export.returncode == 0 and len((tmp_path / "rows.jsonl").read_text().splitlines()) == 10
    view = run_cli("view", str(merged), "-o", str(tmp_path / "site"))
    assert view.returncode == 0, view.stderr


# slow enough to be caught mid-run: 30 episodes of 8 model steps, each answer 30 ms late, 2 per worker
SLOW = ["smartplay/hanoi-3", "--model", "mock/demo", "-M", "latency=0.03", "--episodes", "30", "--seed", "5",
        "-T", "max_steps=8", "--max-episodes", "4", "--quiet"]


@pytest.fixture(scope="module")
def slow_reference(tmp_path_factory):
    log = tmp_path_factory.mktemp("slowref")
    res = run_cli("eval", *SLOW, "--log-dir", str(log))
    assert res.returncode == 0, res.stderr
    return only_run_dir(log)


def test_worker_killed_mid_run_is_replayed_and_recorded_once(tmp_path, ray_cluster, slow_reference):
    log = tmp_path / "log"
    # Workers of earlier runs are still being shut down (under load, one may only now be taking its actor's
    # title): wait for them, so that the worker killed below is one of this run's.
    deadline = time.monotonic() + 60
    while ray_cluster.worker_pids() and time.monotonic() < deadline:
        time.sleep(0.2)
    stale = set(ray_cluster.worker_pids())
    proc = subprocess.Popen([*PLAYBENCH, "eval", *SLOW, "--log-dir", str(log), "--executor", "ray",
                             "--ray-address", ray_cluster.address], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        run = wait_for_episodes(log, 3, timeout=120)
        victims = [pid for pid in ray_cluster.worker_pids() if pid not in stale]
        assert victims, "no EpisodeWorker process found on the cluster"
        os.kill(victims[0], signal.SIGKILL)
        killed_at = len(_lines(run))
        out, err = proc.communicate(timeout=240)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert killed_at < 30, "the run ended before the worker was killed"
    # the killed worker had episodes in flight (2 per worker): they were played again elsewhere
    assert re.search(r"^[12] episode\(s\) were played again after the Ray worker playing them died$", err, re.M), err
    lines = _lines(run)
    assert len(lines) == 30 and len({(r["task"], r["index"]) for r in lines}) == 30  # each recorded once
    assert all(r["status"] == "ok" for r in lines)
    assert stable_lines(run) == stable_lines(slow_reference)
    assert stable_trajectories(run) == stable_trajectories(slow_reference)
    assert victims[0] not in ray_cluster.worker_pids()


def test_driver_killed_then_resumed_finishes_the_same_run(tmp_path, ray_cluster, slow_reference):
    log = tmp_path / "log"
    proc = subprocess.Popen([*PLAYBENCH, "eval", *SLOW, "--log-dir", str(log), "--executor", "ray",
                             "--ray-address", ray_cluster.address], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        run = wait_for_episodes(log, 3, timeout=120)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    assert len(_lines(run)) < 30, "the run ended before the driver was killed"
    # plain --resume: the recorded executor; a cluster address only run.json names is refused until given again
    res = run_cli("eval", "--resume", str(run), "--quiet")
    assert res.returncode == 2 and f"--ray-address {ray_cluster.address} again" in res.stderr, res.stderr
    res = run_cli("eval", "--resume", str(run), "--ray-address", ray_cluster.address, "--quiet")
    assert res.returncode == 0, res.stderr
    lines = _lines(run)
    assert len(lines) == 30 and len({(r["task"], r["index"]) for r in lines}) == 30
    assert stable_lines(run) == stable_lines(slow_reference)
    assert stable_trajectories(run) == stable_trajectories(slow_reference)
    assert playbench.verify(run).verified == 30
    # the run may come back to one machine: the change is logged, nothing is left to play
    res = run_cli("eval", "--resume", str(run), "--executor", "local", "--quiet")
    assert res.returncode == 0, res.stderr
    assert len(_lines(run)) == 30
    event = json.loads((run / "run.json").read_text())["resumes"][-1]
    assert event["changed"] == {"executor": ["ray", "local"]}


def test_unreachable_cluster_is_one_line_and_no_run(tmp_path):
    from raycluster import free_port

    started = time.monotonic()
    res = run_cli("eval", "smartplay/hanoi-3", "--episodes", "2", "--executor", "ray", "--ray-address",
                  f"127.0.0.1:{free_port()}", "--log-dir", str(tmp_path / "log"))
    assert res.returncode == 2
    assert res.stderr.startswith("error: cannot reach the Ray cluster at 127.0.0.1:")
    assert len(res.stderr.strip().splitlines()) == 1 and "Traceback" not in res.stderr
    assert not (tmp_path / "log").exists() or not any((tmp_path / "log").iterdir())
    assert time.monotonic() - started < 60


def test_several_base_urls_each_worker_takes_one(tmp_path, ray_cluster):
    # one episode in flight per worker, each answer 100 ms late: neither worker can play them all alone
    args = ["smartplay/hanoi-3", "--model", "openai/fake", "-T", "max_steps=4", "--episodes", "12", "--seed", "2",
            "--retry-backoff", "0", "--max-episodes", "2", "--quiet"]
    env = {"OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""}
    with FakeServer(latency=0.1) as one, FakeServer(latency=0.1) as two, FakeServer() as single:
        res = run_cli("eval", *args, "--base-url", single.url, "--log-dir", str(tmp_path / "one"), env=env)
        assert res.returncode == 0, res.stderr
        res = run_cli("eval", *args, "--base-url", f"{one.url},{two.url}", "--executor", "ray", "--ray-address",
                      ray_cluster.address, "--log-dir", str(tmp_path / "two"), env=env)
        assert res.returncode == 0, res.stderr
        assert one.stats.requests > 0 and two.stats.requests > 0
        assert one.stats.requests + two.stats.requests == single.stats.requests == 48
        local_list = run_cli("eval", *args, "--base-url", f"{one.url},{two.url}", "--log-dir", str(tmp_path / "x"),
                             env=env)
    assert local_list.returncode == 2 and "need --executor ray" in local_list.stderr
    run = only_run_dir(tmp_path / "two")
    assert stable_lines(run) == stable_lines(only_run_dir(tmp_path / "one"))
    assert json.loads((run / "run.json").read_text())["settings"]["base_url"] == f"{one.url},{two.url}"


def test_the_local_runner_never_imports_ray(tmp_path):
    code = ("import sys, playbench; r = playbench.eval('smartplay/hanoi-3', episodes=2, log_dir=sys.argv[1]); "
            "assert r.complete; print(sorted(m for m in sys.modules if m == 'ray' or m.startswith('ray.')))")
    res = subprocess.run([PLAYBENCH[0], "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "[]"


def _frames(run: Path) -> dict[str, bytes]:
    return {str(p.relative_to(run)): p.read_bytes() for p in sorted((run / "trajectories").rglob("*.png"))}


def test_frames_come_back_to_the_driver_and_through_a_merge(tmp_path, ray_cluster):
    args = ["smartplay/crafter", "-T", "images=true", "-T", "max_steps=3", "--episodes", "3", "--seed", "1"]
    local = _run(tmp_path / "local", args)
    cluster = _run(tmp_path / "ray", [*args, "--executor", "ray", "--ray-address", ray_cluster.address])
    shards = [_run(tmp_path / f"s{k}", [*args, "--shard", f"{k}/2"]) for k in (1, 2)]
    res = run_cli("merge", *map(str, shards), "--output", str(tmp_path / "merged"))
    assert res.returncode == 0, res.stderr
    frames = _frames(local)
    assert len(frames) == 9
    for run in (cluster, tmp_path / "merged"):
        assert _frames(run) == frames
        assert stable_lines(run) == stable_lines(local)
        assert stable_trajectories(run) == stable_trajectories(local)


def _run(log: Path, args: list[str]) -> Path:
    res = run_cli("eval", *args, "--quiet", "--log-dir", str(log))
    assert res.returncode == 0, res.stderr
    return only_run_dir(log)

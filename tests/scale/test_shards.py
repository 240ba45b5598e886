"""``--shard K/N`` and ``playbench merge``: shards together equal the whole run, and merge refuses, in one
line each and writing nothing, shards of another config, an episode given twice and a missing one."""

import json
import shutil

import pytest

import playbench
from helpers import only_run_dir, run_cli, stable_lines, stable_trajectories
from playbench.core.errors import PlaybenchError
from playbench.runner.shard import parse_shard, shard_of

CONFIG = ["smartplay/hanoi-3", "smartplay/bandit-highlow", "--agent", "random", "--episodes", "7", "--seed", "4",
          "--quiet"]


def test_the_rule_is_a_fixed_partition():
    keys = [(t, i) for t in ("smartplay/hanoi-3", "balrog/nle") for i in range(200)]
    shards = [shard_of(t, i, 4) for t, i in keys]
    assert set(shards) == {1, 2, 3, 4} and all(70 < shards.count(k) < 130 for k in range(1, 5))
    # documented rule: 1 + (first 8 bytes of sha256("task#index"), big-endian) mod N; never the seed or machine
    import hashlib

    digest = hashlib.sha256(b"smartplay/hanoi-3#5").digest()
    assert shard_of("smartplay/hanoi-3", 5, 7) == 1 + int.from_bytes(digest[:8], "big") % 7
    assert parse_shard("2/8").holds("smartplay/hanoi-3", 5) == (shard_of("smartplay/hanoi-3", 5, 8) == 2)
    for bad in ("0/2", "3/2", "2", "a/b", "1/0"):
        with pytest.raises(PlaybenchError):
            parse_shard(bad)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("shards")
    out = {}
    for name, extra in (("full", []), ("s1", ["--shard", "1/3"]), ("s2", ["--shard", "2/3"]),
                        ("s3", ["--shard", "3/3"]), ("other", ["--shard", "3/3", "--seed", "5"])):
        res = run_cli("eval", *CONFIG, *extra, "--log-dir", str(root / name))
        assert res.returncode == 0, res.stderr
        out[name] = only_run_dir(root / name)
    return out


def _count(run):
    return len((run / "episodes.jsonl").read_text().splitlines())


def test_shards_merged_equal_the_single_run(runs, tmp_path):
    sizes = [_count(runs[s]) for s in ("s1", "s2", "s3")]
    assert sum(sizes) == 14 and all(sizes)
    assert json.loads((runs["s2"] / "run.json").read_text())["settings"]["shard"] == "2/3"
    merged = tmp_path / "merged"
    res = run_cli("merge", str(runs["s3"]), str(runs["s1"]), str(runs["s2"]), "--output", str(merged))
    assert res.returncode == 0, res.stderr
    assert "merged 14 episodes from 3 shards" in res.stdout
    checked = playbench.verify(merged)  # re-played through fresh engines, every record holds
    assert (checked.verified, checked.differing, checked.not_verifiable) == (14, 0, 0)
    assert stable_lines(merged) == stable_lines(runs["full"])
    assert stable_trajectories(merged) == stable_trajectories(runs["full"])
    meta = json.loads((merged / "run.json").read_text())
    full = json.loads((runs["full"] / "run.json").read_text())
    assert meta["config_hash"] == full["config_hash"] and meta["config"] == full["config"]
    assert meta["settings"]["shard"] is None and len(meta["settings"]["merged_from"]) == 3
    # a merged run resumes like any run: nothing is left to play
    res = run_cli("eval", "--resume", str(merged), "--quiet")
    assert res.returncode == 0, res.stderr
    assert _count(merged) == 14


def _refused(args, output):
    before = sorted(output.rglob("*")) if output.exists() else None
    res = run_cli("merge", *map(str, args), "--output", str(output))
    assert res.returncode == 2, res.stdout
    assert len(res.stderr.strip().splitlines()) == 1 and res.stderr.startswith("error: ")
    assert (sorted(output.rglob("*")) if output.exists() else None) == before  # nothing written
    return res.stderr


def test_merge_refuses_another_config(runs, tmp_path):
    err = _refused([runs["s1"], runs["s2"], runs["other"]], tmp_path / "m")
    assert "config hash" in err and str(runs["other"]) in err


def test_merge_refuses_an_episode_given_twice(runs, tmp_path):
    err = _refused([runs["s1"], runs["s2"], runs["s3"], runs["s2"]], tmp_path / "m")
    assert "is in both" in err and str(runs["s2"]) in err


def test_merge_refuses_a_gap(runs, tmp_path):
    err = _refused([runs["s1"], runs["s3"]], tmp_path / "m")
    missing = _count(runs["s2"])
    assert f"{missing} episode(s) missing" in err


def test_merge_refuses_an_existing_output_and_a_resume_may_not_change_the_shard(runs, tmp_path):
    err = _refused([runs["s1"], runs["s2"], runs["s3"]], runs["full"].parent)
    assert "already exists" in err
    res = run_cli("eval", "--resume", str(runs["s1"]), "--shard", "2/3")
    assert res.returncode == 2 and "--shard would change the results" in res.stderr


def _with_versions(run, tmp_path, **changed):
    """A copy of a shard whose run.json records other package versions (None: not installed there)."""
    copy = tmp_path / run.name
    shutil.copytree(run, copy)
    meta = json.loads((copy / "run.json").read_text())
    for name, version in changed.items():
        if version is None:
            meta["versions"].pop(name, None)
        else:
            meta["versions"][name] = version
    (copy / "run.json").write_text(json.dumps(meta))
    return copy


def test_merge_compares_only_the_versions_that_decide_results(runs, tmp_path):
    # shards from two machines: another Python patch release and an httpx (older runs recorded it) are fine
    other = _with_versions(runs["s2"], tmp_path / "a", python="3.11.99", httpx="0.1")
    res = run_cli("merge", str(runs["s1"]), str(other), str(runs["s3"]), "--output", str(tmp_path / "ok"))
    assert res.returncode == 0, res.stderr
    # another numpy (or one missing) could change what a game does: refused, naming the package
    for version in ("0.0.1", None):
        other = _with_versions(runs["s2"], tmp_path / f"b{version}", numpy=version)
        err = _refused([runs["s1"], other, runs["s3"]], tmp_path / f"m{version}")
        assert "numpy" in err and "same versions" in err
    assert "httpx" not in json.loads((runs["s1"] / "run.json").read_text())["versions"]

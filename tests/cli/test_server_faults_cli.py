"""What a run does with a hostile or failing server, seen from the command line: real ``playbench``
processes against the loopback FakeServer. One test per item of issue 14 that the model layer decides:
the cache never merges samples (4), no answer breaks a run (5), the server's faults are the server's (7),
a dead server is admitted within seconds (9)."""

import json
import socket
import time
from pathlib import Path
from typing import Any

from helpers import only_run_dir, run_cli
from playbench.log import read_run
from playbench.models.fakeserver import FakeServer

NO_KEYS = {"OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""}
PLANTED = "sk-planted-secret-0123456789"
HANOI = ["smartplay/hanoi-3", "--model", "openai/fake", "-T", "max_steps=5", "--retry-backoff", "0", "--quiet"]


def _records(run: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (run / "episodes.jsonl").read_text().splitlines() if x.strip()]


def _all_bytes(run: Path) -> bytes:
    """Every file of the run as written, the compressed trajectory shards as the steps they hold."""
    files = b"".join(p.read_bytes() for p in run.rglob("*") if p.is_file() and p.suffix != ".pbt")
    log = read_run(run)
    steps = b"".join(step.model_dump_json().encode() for record in log.episodes()
                     for step in log.iter_trajectory(record))
    return files + steps


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# -- 4. the cache keeps every sample ------------------------------------------------------------------


def test_cached_run_sends_one_request_per_call_and_replays_whatever_the_concurrency(tmp_path: Path) -> None:
    env = {**NO_KEYS, "PLAYBENCH_CACHE_DIR": str(tmp_path / "cache")}
    args = [*HANOI, "--episodes", "3", "--cache", "-M", "temperature=1.0"]
    with FakeServer() as srv:
        first = run_cli("eval", *args, "--base-url", srv.url, "--log-dir", str(tmp_path / "a"), env=env)
        assert first.returncode == 0, first.stderr
        assert srv.stats.requests == 15  # 3 episodes x 5 steps: the same prompt never shares an answer
        replay = run_cli("eval", *args, "--base-url", srv.url, "--max-connections", "1",
                         "--log-dir", str(tmp_path / "b"), env=env)
        assert replay.returncode == 0, replay.stderr
        assert srv.stats.requests == 15  # all from the cache, at another concurrency
        other_seed = run_cli("eval", *args, "--seed", "9", "--base-url", srv.url, "--log-dir", str(tmp_path / "c"),
                             env=env)
        assert other_seed.returncode == 0 and srv.stats.requests == 30  # another seed: other samples
        # another server (started while the first still holds its port) is never answered from its cache
        with FakeServer() as other:
            moved = run_cli("eval", *args, "--base-url", other.url, "--log-dir", str(tmp_path / "d"), env=env)
            assert moved.returncode == 0 and other.stats.requests == 15
    a, b = _records(only_run_dir(tmp_path / "a")), _records(only_run_dir(tmp_path / "b"))
    assert [(r["index"], r["score"], r["steps"]) for r in sorted(a, key=lambda r: r["index"])] == \
        [(r["index"], r["score"], r["steps"]) for r in sorted(b, key=lambda r: r["index"])]
    for record in b:  # cached answers are marked and cost nothing
        assert record["usage"]["cache_hits"] == 5 and record["usage"]["input_tokens"] == 0
        assert record["usage"]["attempts"] == 0 and record["usage"]["cached_input_tokens"] > 0
    assert all(r["usage"]["input_tokens"] > 0 and r["usage"]["cache_hits"] == 0 for r in a)


# -- 5. no answer breaks a run --------------------------------------------------------------------------


def test_hostile_answers_are_recorded_safely(tmp_path: Path) -> None:
    faults = {"surrogate": 0.25, "invalid-utf8": 0.25, "odd": 0.25, "echo-key": 0.25}
    with FakeServer(faults=faults, seed=3) as srv:
        done = run_cli("eval", *HANOI, "--episodes", "3", "--base-url", srv.url, "--log-dir", str(tmp_path),
                       env={**NO_KEYS, "OPENAI_API_KEY": PLANTED})
        assert srv.stats.auth[f"Bearer {PLANTED}"] == 15 and all(srv.stats.faults[f] for f in faults)
    assert done.returncode == 0, done.stderr
    run = only_run_dir(tmp_path)
    assert [r["status"] for r in _records(run)] == ["ok"] * 3
    everything = _all_bytes(run)
    everything.decode("utf-8")  # every file is valid UTF-8
    assert PLANTED.encode() not in everything and b"\xef\xbf\xbd" in everything  # U+FFFD stands in
    shown = run_cli("report", str(run))
    assert shown.returncode == 0 and "\x1b[31m" not in shown.stdout and PLANTED not in shown.stdout


# -- 7. the server's faults are the server's --------------------------------------------------------------


def test_wrong_shaped_answers_are_retried_then_infra_errors(tmp_path: Path) -> None:
    shapes = ["message-string", "usage-list", "choices-empty", "content-object"]
    with FakeServer(faults={"shape": 1.0}, shapes=shapes) as srv:
        done = run_cli("eval", *HANOI, "--episodes", "2", "--max-retries", "1", "--max-connections", "1",
                       "--base-url", srv.url, "--log-dir", str(tmp_path), env=NO_KEYS)
        assert srv.stats.requests == 4 and srv.stats.shapes == {name: 1 for name in shapes}
    assert done.returncode == 1 and "--resume" in done.stderr and "Traceback" not in done.stderr
    records = _records(only_run_dir(tmp_path))
    assert [r["status"] for r in records] == ["infra-error"] * 2
    assert all("malformed" in r["error"] for r in records)


def test_refused_credentials_stop_the_run_at_once(tmp_path: Path) -> None:
    with FakeServer(reject_auth=True) as srv:
        done = run_cli("eval", *HANOI, "--episodes", "10", "--max-connections", "1", "--base-url", srv.url,
                       "--log-dir", str(tmp_path), env={**NO_KEYS, "OPENAI_API_KEY": PLANTED})
        assert srv.stats.requests == 1  # nothing more is sent once the key is refused
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "401" in done.stderr and "refused $OPENAI_API_KEY" in done.stderr and PLANTED not in done.stderr
    assert PLANTED.encode() not in _all_bytes(only_run_dir(tmp_path))


def test_url_credentials_beside_a_bearer_key_are_refused_before_the_run(tmp_path: Path) -> None:
    with FakeServer() as srv:
        url = srv.url.replace("http://", "http://user:pw@")
        done = run_cli("eval", *HANOI, "--base-url", url, "--log-dir", str(tmp_path),
                       env={**NO_KEYS, "OPENAI_API_KEY": PLANTED})
        assert srv.stats.requests == 0
    assert done.returncode == 2 and "user:password" in done.stderr and "pw" not in done.stderr.replace("password", "")
    assert not any(tmp_path.iterdir())


# -- 9. a dead server is admitted within seconds ----------------------------------------------------------


def test_a_closed_port_stops_a_ten_episode_run_after_a_few_requests(tmp_path: Path) -> None:
    # the wall time (goal: under 10 s) is measured by benchmarks/dead_server.py; here, what makes it short:
    # the run stops after --max-connect-failures requests in a row, not after every episode's retries
    started = time.monotonic()
    done = run_cli("eval", *HANOI, "--episodes", "10", "--max-connections", "1", "--max-connect-failures", "3",
                   "--base-url", f"http://127.0.0.1:{_closed_port()}/v1", "--log-dir", str(tmp_path), env=NO_KEYS,
                   timeout=120)
    assert time.monotonic() - started < 120  # a hang guard only
    assert done.returncode == 1 and "unreachable" in done.stderr and "--resume" in done.stderr
    assert "3 requests in a row failed to connect" in done.stderr
    assert "Traceback" not in done.stderr
    run = only_run_dir(tmp_path)
    assert all(r["status"] == "infra-error" for r in _records(run))

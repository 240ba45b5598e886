"""Helpers for tests that drive the real ``playbench`` command."""

import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

PLAYBENCH = [sys.executable, "-m", "playbench.cli.main"]


def run_cli(*args: str, cwd: Path | None = None, env: dict | None = None, timeout: float = 300):
    """Run ``playbench ARGS`` in a real subprocess and return the CompletedProcess."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run([*PLAYBENCH, *args], capture_output=True, text=True, cwd=cwd, env=full_env,
                          timeout=timeout)


def only_run_dir(log_dir: Path) -> Path:
    runs = [p for p in log_dir.iterdir() if p.is_dir()]
    assert len(runs) == 1, runs
    return runs[0]


def run_bytes(run: Path) -> bytes:
    """Every file of the run as written, plus the steps its compressed shards hold (to look for a leaked key)."""
    from playbench.log import read_run

    files = b"".join(p.read_bytes() for p in run.rglob("*") if p.is_file())
    log = read_run(run)
    steps = b"".join(step.model_dump_json().encode() for record in log.episodes()
                     for step in log.iter_trajectory(record))
    return files + steps


def requests_with_key(server: Any, key: str) -> int:
    """Requests the fake server got that carried ``key``, as a bearer token or an ``x-api-key``."""
    return sum(n for value, n in server.stats.auth.items() if key in value)


def stable_lines(run_dir: Path) -> list[str]:
    """episodes.jsonl lines without their volatile ``timing``, sorted by (task, index)."""
    rows = [json.loads(line) for line in (run_dir / "episodes.jsonl").read_text().splitlines() if line.strip()]
    for row in rows:
        row.pop("timing")
    rows.sort(key=lambda r: (r["task"], r["index"]))
    return [json.dumps(r, sort_keys=True) for r in rows]


def stable_trajectories(run_dir: Path) -> dict[str, list[dict]]:
    """The steps of each episode that counts (its last record), read through ``playbench.log``, as the
    JSON lines the first layout held, without their volatile ``timing``; keyed ``task/index``."""
    from playbench.log import read_run

    log = read_run(run_dir)
    out = {}
    for record in log.episodes():
        steps = [json.loads(step.json_line()) for step in log.iter_trajectory(record)]
        for s in steps:
            s.pop("timing")
        out[f"{record.task}/{record.index:06d}"] = steps
    return out


def wait_for_episodes(log_dir: Path, count: int, timeout: float = 60) -> Path:
    """Wait until the one run under ``log_dir`` has ``count`` episode lines; returns the run directory."""
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = list(log_dir.glob("*/episodes.jsonl")) if log_dir.exists() else []
        if found and found[0].read_bytes().count(b"\n") >= count:
            return found[0].parent
        time.sleep(0.05)
    raise AssertionError(f"no run under {log_dir} reached {count} episodes")


def open_page(browser: Any, url: str, viewport: dict[str, int] | None = None) -> tuple[Any, list[str], list[str]]:
    """A new browser page at ``url``, with the script errors it raises and every URL it requests."""
    page = browser.new_page(viewport=viewport) if viewport else browser.new_page()
    errors: list[str] = []
    requests: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("request", lambda req: requests.append(req.url))
    page.goto(url)
    return page, errors, requests


@contextmanager
def textworld_cache(root: Path) -> Iterator[Path]:
    """``PLAYBENCH_TEXTWORLD_DIR`` pointed at ``root`` while the block runs, then put back as it was."""
    old = os.environ.get("PLAYBENCH_TEXTWORLD_DIR")
    os.environ["PLAYBENCH_TEXTWORLD_DIR"] = str(root)
    try:
        yield root
    finally:
        if old is None:
            os.environ.pop("PLAYBENCH_TEXTWORLD_DIR", None)
        else:
            os.environ["PLAYBENCH_TEXTWORLD_DIR"] = old


@contextmanager
def serve_app(app: Any, log_level: str = "critical") -> Iterator[str]:
    """An ASGI ``app`` served by uvicorn in a thread on a free loopback port; yields its URL."""
    import socket
    import threading
    import time

    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level=log_level))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    server.should_exit = True
    thread.join(10)


@contextmanager
def serve_env_process(*args: str, announced: str = "") -> Iterator[tuple[subprocess.Popen[str], int]]:
    """``playbench serve-env ARGS`` in a process group of its own; yields it and the port its first line names.

    ``announced``: text that line must hold right after the URL. The group is stopped on the way out.
    """
    proc = subprocess.Popen([*PLAYBENCH, "serve-env", *args], stderr=subprocess.PIPE, text=True,
                            start_new_session=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)" + re.escape(announced), line)
        assert found, line
        yield proc, int(found.group(1))
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(30)


#: the client settings of a synthetic BALROG row's episodes
BALROG_CLIENT = {"client_name": "openai", "model_id": "gpt-4o-mini", "generate_kwargs": {"temperature": 0.0}}


def balrog_row(folder: Path, episodes: list[tuple[str, int, float]], num_steps: int = 5) -> Path:
    """A synthetic BALROG row folder: one episode file (and its CSV of one step) per ``(task, seed, progression)``."""
    from playbench.suites.balrog.submission import episode_path, original_name

    for index, (task_id, seed, progression) in enumerate(episodes):
        env, task = original_name(task_id)
        path = folder / episode_path(env, task, index)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"task": task, "input_tokens": 100, "output_tokens": 10, "num_steps": num_steps,
                                    "progression": progression, "seed": seed,
                                    "agent": {"type": "naive", "max_text_history": 16}, "client": BALROG_CLIENT}))
        path.with_suffix(".csv").write_text("Step,Action,Reasoning,Observation,Reward,Done\n0,up,,a wall,0,False\n")
        (folder / env / f"{env}_summary.json").write_text("{}")
    (folder / "summary.json").write_text("{}")
    return folder

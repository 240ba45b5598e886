"""A newcomer's first minutes (issue 28): ``eval --help`` names the agents, Ctrl-C quits ``play`` keeping what
was played, and a dry run of a whole group is quick and gives a typical cost beside the ceiling."""

import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import PLAYBENCH, only_run_dir, run_cli
from playbench.agents.registry import list_agents
from playbench.log import read_run


def test_eval_help_lists_every_registered_agent() -> None:
    done = run_cli("eval", "--help")
    assert done.returncode == 0, done.stderr
    flat = " ".join(done.stdout.split())
    names = [spec.name for spec in list_agents()]
    assert {"random", "naive", "two-stage", "few-shot", "human"} <= set(names)
    for name in names:
        assert f" {name}," in flat or f" {name} (" in flat, name


class Terminal:
    """``playbench ARGS`` on a pseudo-terminal: what a person at a keyboard does and sees."""

    def __init__(self, *args: str) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the terminal driver turns a typed ^C into SIGINT for it
            os.execv(sys.executable, [*PLAYBENCH, *args])
        self.seen = b""

    def expect(self, text: bytes, timeout: float = 60) -> None:
        """Read until ``text`` has been printed since the last expect."""
        deadline = time.monotonic() + timeout
        while text not in self.seen:
            assert time.monotonic() < deadline, f"{text!r} not printed; got {self.seen[-800:]!r}"
            if select.select([self.fd], [], [], 0.1)[0]:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:  # the child closed the terminal
                    chunk = b""
                assert chunk, f"{text!r} not printed before the end; got {self.seen[-800:]!r}"
                self.seen += chunk
        self.seen = self.seen[self.seen.index(text) + len(text):]

    def type(self, keys: bytes) -> None:
        os.write(self.fd, keys)

    def finish(self, timeout: float) -> tuple[int, bytes]:
        """(exit status, everything printed) once the child exits within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        out = self.seen
        while True:
            if select.select([self.fd], [], [], 0.1)[0]:
                try:
                    out += os.read(self.fd, 65536)
                except OSError:
                    pass
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                os.close(self.fd)
                return os.waitstatus_to_exitcode(status), out
            if time.monotonic() > deadline:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
                raise AssertionError(f"still running {timeout} s after the key; printed {out[-800:]!r}")


@pytest.mark.parametrize("key, name", [(b"\x03", "Ctrl-C"), (b"\x04", "Ctrl-D")])
def test_quitting_play_records_the_moves_played(tmp_path: Path, key: bytes, name: str) -> None:
    term = Terminal("play", "smartplay/hanoi-3", "--episodes", "2", "--log-dir", str(tmp_path))
    term.expect(b"action> ")
    term.type(b"2\n")  # A -> C
    term.expect(b"action> ")
    term.type(b"1\n")  # A -> B
    term.expect(b"action> ")
    term.type(key)
    code, out = term.finish(timeout=15)
    text = out.decode(errors="replace")
    assert code == 0, text
    assert "Traceback" not in text
    assert f"quit ({name})" in text and "1 episode(s) not played" in text and "--resume" in text
    log = read_run(only_run_dir(tmp_path))
    [record] = log.episodes()  # the second episode was never begun
    assert record.index == 0 and record.status == "agent-error" and record.error == f"PlayerQuit: the player quit ({name})"
    steps = log.read_trajectory(record)
    assert [s.raw_output for s in steps] == ["2", "1"]
    assert [s.executed for s in steps] == ["Move the top disk of rod A to the top of rod C",
                                           "Move the top disk of rod A to the top of rod B"]


PRICED = ("--model", "mock/x", "-M", "price_input=2.5", "-M", "price_output=10")


@pytest.mark.parametrize("group", ["balrog/all", "smartplay/benchmark-v0"])
def test_a_groups_dry_run_is_quick_and_gives_typical_and_ceiling(group: str) -> None:
    started = time.monotonic()
    done = run_cli("eval", group, *PRICED, "--dry-run", env={"COLUMNS": "80", "NO_COLOR": "1"})
    took = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    # a few seconds on an idle machine (measured: ~6 s for balrog/all); generous for 2 busy cores
    assert took < 30, took
    out = " ".join(done.stdout.split())  # notes wrap at 80 columns
    total = re.search(r"cost: typical ~\$([\d,.]+), at most \$([\d,.]+)", out)
    assert total, done.stdout
    typical, most = (float(x.replace(",", "")) for x in total.groups())
    assert 0 < typical < most
    crafter = "balrog/crafter/default" if group == "balrog/all" else "smartplay/crafter"
    assert re.search(rf"{crafter}: a typical episode is \d+ steps of at most \d+: typical ~\$", out), out


def test_a_game_slow_to_set_up_is_left_out_of_the_estimate_and_abandoned(tmp_path: Path, monkeypatch) -> None:
    """TextWorld games not made yet take longer than a dry run waits: left out (said so), not made, and
    abandoning the one still queued (one worker for three games) does not hang."""
    from concurrent.futures import ThreadPoolExecutor

    from playbench.api import estimate as estimate_module
    from playbench.suites.balrog.textworld import cache

    monkeypatch.setenv("PLAYBENCH_TEXTWORLD_DIR", str(tmp_path / "tw"))
    monkeypatch.setattr(estimate_module, "PREPARE_BUDGET", 0.5)
    monkeypatch.setattr(cache, "_pool", ThreadPoolExecutor(max_workers=1, thread_name_prefix="textworld"))
    tasks = ("balrog/textworld/treasure_hunter", "balrog/textworld/coin_collector",
             "balrog/textworld/the_cooking_game", "smartplay/hanoi-3")
    started = time.monotonic()
    est = estimate_module.estimate(tasks, model="mock/x", model_params=("price_input=1", "price_output=1"))
    assert time.monotonic() - started < 30
    assert est.unmeasured == list(tasks[:3])
    rows = {t.task: t for t in est.tasks}
    for tid in tasks[:3]:
        assert rows[tid].steps == 80 and rows[tid].input_tokens == 0 and "not measured" in (rows[tid].note or "")
    assert rows["smartplay/hanoi-3"].input_tokens > 0 and est.cost_usd() == est.cost_usd(rows["smartplay/hanoi-3"])
    assert not list((tmp_path / "tw").rglob("entry.json"))  # nothing was made behind the user's back


def test_a_local_ray_run_says_so_and_leaves_no_token_for_the_cluster_recipe(tmp_path: Path) -> None:
    """After a local ``--executor ray`` run, ``ray start --head`` + ``ray start --address`` (docs/scale.md)
    still work: the local cluster's token lived in the driver's environment, not in ``~/.ray/auth_token``."""
    from raycluster import LocalRayCluster

    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_AUTH") and k != "RAY_ADDRESS"}
    env.update(HOME=str(home), RAY_USAGE_STATS_ENABLED="0")
    done = subprocess.run([*PLAYBENCH, "eval", "smartplay/hanoi-3", "--agent", "random", "--episodes", "1",
                           "--executor", "ray", "--ray-address", "local", "--log-dir", str(tmp_path / "runs")],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "starting a local Ray cluster (about a minute the first time)" in done.stderr
    assert re.search(r"local Ray cluster started in \d+ s", done.stderr), done.stderr
    assert not (home / ".ray" / "auth_token").exists()
    with LocalRayCluster(nodes=2, cpus=1, env={"HOME": str(home)}) as cluster:  # raises if the worker is refused
        assert len(cluster.pids()) > 0

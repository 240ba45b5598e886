"""A newcomer's first minutes (issue 28): ``eval --help`` names the agents, Ctrl-C quits ``play`` keeping what
was played, and a dry run of a whole group is quick and gives a typical cost beside the ceiling."""

import os
import pty
import select
import signal
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

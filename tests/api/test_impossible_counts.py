"""Counts nobody can mean: a run of more than ``MAX_EPISODES`` episodes is refused in one line, before anything
is made, by every face that takes a count (``eval``, ``playbench.eval``/``eval_async``, ChatEnv's index) and by
every command that reads a run whose ``run.json`` claims one (``report``, ``view``, ``export``, ``verify``,
``compare``, ``eval --resume``). Each refusal runs in a real process under a memory and time limit, so a face
that would materialise the count fails the test instead of eating the machine.
"""

import resource
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from helpers import PLAYBENCH, only_run_dir, run_cli
from playbench.api.config import build_config
from playbench.core.bounds import MAX_EPISODES
from playbench.core.errors import PlaybenchError
from playbench.report.build import coverage

#: address space each process may take: a playbench process needs a few hundred MB; a range of 10^9 needs GBs
LIMIT = 1536 * 2**20
#: what no run can play (the bound is a million)
HUGE = 10**12
BOUND = f"at most {MAX_EPISODES:,}"


def _limited(args: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``args`` run under LIMIT bytes of address space and 60 s."""
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))

    return subprocess.run(args, capture_output=True, text=True, cwd=cwd, timeout=60, preexec_fn=cap)


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _one_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    [line] = done.stderr.strip().splitlines()
    assert BOUND in line
    return line


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small real run whose run.json was edited to schedule 10^9 episodes (two are recorded)."""
    root = tmp_path_factory.mktemp("hostile")
    made = run_cli("eval", "smartplay/hanoi-3", "-T", "max_steps=2", "--episodes", "2", "--quiet",
                   "--log-dir", str(root / "made"))
    assert made.returncode == 0, made.stderr
    run = root / "theirs"
    shutil.copytree(only_run_dir(root / "made"), run)
    meta = run / "run.json"
    text = meta.read_text()
    assert text.count('"episodes": 2\n') == 1
    meta.write_text(text.replace('"episodes": 2\n', '"episodes": 1000000000\n'))
    return run


@pytest.mark.parametrize("command", [["report"], ["view", "-o", "{out}/site"], ["export", "-o", "{out}/e.csv"],
                                     ["verify"], ["eval", "--resume"], ["compare", "{run}"]])
def test_a_run_claiming_a_billion_episodes_is_refused_in_one_line_and_left_as_it_was(
        hostile: Path, tmp_path: Path, command: list[str]) -> None:
    before = _files(hostile)
    args = [part.format(out=tmp_path, run=hostile) for part in command]
    line = _one_line(_limited([*PLAYBENCH, *args, str(hostile)], cwd=tmp_path))
    assert "run.json" in line and "1000000000 episodes" in line
    assert _files(hostile) == before  # a resume took no lock and wrote nothing
    assert list(tmp_path.iterdir()) == []  # nor did anything else make a file


@pytest.mark.parametrize(("episodes", "needle"), [(str(HUGE), BOUND), ("0", "at least 1"), ("-2", "at least 1")])
def test_eval_refuses_impossible_counts_before_making_a_run(tmp_path: Path, episodes: str, needle: str) -> None:
    done = _limited([*PLAYBENCH, "eval", "smartplay/hanoi-3", "--episodes", episodes, "--log-dir", str(tmp_path / "runs")])
    assert done.returncode == 2, done.stdout + done.stderr
    [line] = done.stderr.strip().splitlines()
    assert needle in line and episodes in line
    assert not (tmp_path / "runs").exists()


def test_the_library_and_chat_env_refuse_impossible_counts(hostile: Path, tmp_path: Path) -> None:
    script = textwrap.dedent("""
        import asyncio, sys
        import playbench
        from playbench.rl import ChatEnv

        calls = {
            "eval": lambda: playbench.eval("smartplay/hanoi-3", episodes=10**12, log_dir=sys.argv[1]),
            "eval_async": lambda: asyncio.run(playbench.eval_async("smartplay/hanoi-3", episodes=10**12,
                                                                    log_dir=sys.argv[1])),
            "two_tasks": lambda: playbench.eval(["smartplay/hanoi-3", "smartplay/hanoi-4"], episodes=600_000,
                                                log_dir=sys.argv[1]),
            "resume": lambda: playbench.eval(resume=sys.argv[2]),
            "chat_env": lambda: ChatEnv("smartplay/hanoi-3", index=10**12),
        }
        for name, call in calls.items():
            try:
                call()
            except playbench.PlaybenchError as exc:
                print(name, "refused:", exc)
            else:
                print(name, "ran")
    """)
    done = _limited([sys.executable, "-c", script, str(tmp_path / "runs"), str(hostile)])
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert [line.split()[0] for line in lines] == ["eval", "eval_async", "two_tasks", "resume", "chat_env"]
    assert all(" refused: " in line and BOUND in line for line in lines), lines
    assert not (tmp_path / "runs").exists()


def test_a_run_of_several_tasks_is_bounded_as_a_whole() -> None:
    half = MAX_EPISODES // 2 + 1
    with pytest.raises(PlaybenchError, match=f"a run of {2 * half} episodes"):
        build_config(("smartplay/hanoi-3", "smartplay/hanoi-4"), None, None, half, 0, (), (), ())
    config = build_config(("smartplay/hanoi-3",), None, None, MAX_EPISODES, 0, (), (), ())  # the bound itself runs
    assert config.tasks[0].episodes == MAX_EPISODES


def test_coverage_compares_counts_instead_of_listing_the_schedule() -> None:
    script = textwrap.dedent("""
        from playbench.report.build import coverage
        print(coverage({"a": 10**12, "b": 3}, {("a", 0), ("a", 10**12), ("b", 2), ("c", 0)}))
    """)
    done = _limited([sys.executable, "-c", script])
    assert done.returncode == 0, done.stderr
    assert "'recorded': 2, 'scheduled': 1000000000003, 'missing': 1000000000001, 'unscheduled': 2" in done.stdout
    assert coverage({"a": 2}, {("a", 0), ("a", 1), ("a", -1)}) == {
        "recorded": 2, "scheduled": 2, "missing": 0, "unscheduled": 1, "complete": True,
        "note": "2 episodes; 1 record(s) outside the run's schedule"}

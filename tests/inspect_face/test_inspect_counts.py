"""``-T episodes=N`` beyond what a run can play: refused in one line before a sample is made, by ``inspect eval``
(no traceback) and by ``inspect_ai.eval``, in a process under a memory and time limit (the dataset was built
eagerly: 10^12 samples ate the machine)."""

import resource
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from playbench.core.bounds import MAX_EPISODES

INSPECT = Path(sys.executable).with_name("inspect")
LIMIT = 1536 * 2**20
BOUND = f"at most {MAX_EPISODES:,}"


def _limited(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))

    return subprocess.run(args, capture_output=True, text=True, env=env, timeout=120, preexec_fn=cap)


@pytest.mark.parametrize("display", ["plain", "rich", "none"])
def test_inspect_cli_refuses_an_impossible_episode_count_in_one_line(inspect_env: dict[str, str], tmp_path: Path,
                                                                     display: str) -> None:
    done = _limited([str(INSPECT), "eval", "playbench/balrog", "-T", "task=balrog/babyai/goto", "-T",
                     "episodes=1000000000000", "--model", "mockllm/model", "--log-dir", str(tmp_path / "logs")],
                    {**inspect_env, "COLUMNS": "400", "INSPECT_DISPLAY": display})
    assert done.returncode == 1
    [line] = (done.stdout + done.stderr).strip().splitlines()  # the line alone, no traceback, whatever the display
    assert "a run of 1000000000000 episodes" in line and BOUND in line
    assert not (tmp_path / "logs").exists()


def test_inspect_eval_refuses_an_impossible_episode_count(inspect_env: dict[str, str], tmp_path: Path) -> None:
    script = textwrap.dedent("""
        import sys
        from inspect_ai import eval as inspect_eval
        from playbench.core.errors import PlaybenchError
        try:
            inspect_eval("playbench/group", task_args={"group": "smartplay/hanoi-3", "episodes": 10**12},
                         model="mockllm/model", display="none", log_dir=sys.argv[1])
        except PlaybenchError as exc:
            print("refused:", exc)
    """)
    done = _limited([sys.executable, "-c", script, str(tmp_path / "logs")], inspect_env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("refused: a run of 1000000000000 episodes") and BOUND in done.stdout
    assert not (tmp_path / "logs").exists()

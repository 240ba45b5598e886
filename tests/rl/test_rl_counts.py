"""The RL faces refuse counts no run can play, in one line: verifiers' ``load_environment(episodes=...)``, an
OpenEnv ``reset(index=...)`` and ``write_run`` of rollouts whose indices add up past ``MAX_EPISODES``."""

import resource
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from playbench.core.bounds import MAX_EPISODES
from playbench.core.errors import PlaybenchError
from playbench.rl import ChatEnv, write_run

BOUND = f"at most {MAX_EPISODES:,}"
LIMIT = 1536 * 2**20


def test_verifiers_environment_refuses_an_impossible_episode_count(tmp_path: Path) -> None:
    pytest.importorskip("verifiers.v1")
    script = textwrap.dedent("""
        from playbench.core.errors import PlaybenchError
        from playbench.rl.verifiers import load_environment
        try:
            env = load_environment("smartplay/hanoi-3", episodes=10**12)
            print("rows:", sum(1 for _ in env.taskset.load()))
        except PlaybenchError as exc:
            print("refused:", exc)
    """)

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))

    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, preexec_fn=cap)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("refused: a run of 1000000000000 episodes") and BOUND in done.stdout


def test_openenv_reset_refuses_an_index_no_run_reaches() -> None:
    pytest.importorskip("openenv.core")
    from starlette.testclient import TestClient

    from playbench.rl.openenv import make_app

    with TestClient(make_app("smartplay/hanoi-3")) as client:
        refused = client.post("/reset", json={"task": "smartplay/hanoi-3", "index": 10**12})
        assert refused.status_code == 400 and BOUND in refused.json()["detail"], refused.text
        assert client.post("/reset", json={"task": "smartplay/hanoi-3", "index": MAX_EPISODES - 1}).status_code == 200


def test_write_run_refuses_rollouts_adding_up_past_the_bound(tmp_path: Path) -> None:
    last = MAX_EPISODES - 1  # each index alone is one a run can reach; the two tasks together are not
    envs = [ChatEnv(task, index=last, task_params={"max_steps": 1}) for task in ("smartplay/hanoi-3", "smartplay/hanoi-4")]
    for env in envs:
        env.reset()
        env.step("no idea")
        assert env.done
    with pytest.raises(PlaybenchError, match=f"a run of {2 * MAX_EPISODES} episodes"):
        write_run(tmp_path / "runs", envs)
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())

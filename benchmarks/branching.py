"""What a branch from a recorded step costs: reading the run, and re-playing the prefix (``ChatEnv.from_record``).

Each task is first recorded by ``playbench eval`` with the mock model (one episode to its step limit). Then:

* ``read``: ``branch_point(run, task, 0, k)``: run.json, the record and the trajectory read (confined) and
  validated, the answers and what to check kept;
* ``branch@k``: ``ChatEnv.from_branch(branch).reset()`` then ``close()``, the branch read once before: a
  fresh game, the ``k`` recorded steps re-played through the runner with the run's answers and checked,
  the request at ``k`` handed out.

A branch re-plays its prefix, so its cost grows with ``k``: the figure to read is *ms per prefix step*,
``(branch@k - branch@0) / k``, beside *ms per step played* (``chatenv``: the same episode played from its
start with the same answers through ``ChatEnv.step``). No goal is set: nothing cheaper is exact for every
engine (NetHack's state lives in a C library inside a worker process; a deep copy of it is not a supported
operation), so the cost is stated. ``n`` branches of one state cost ``n`` times ``branch@k``. Wall time
(NetHack steps in a worker process, whose CPU this process does not see).

    .venv/bin/python benchmarks/branching.py [--steps 400] [--repeat 3]
"""

import argparse
import functools
import statistics
import tempfile
from collections.abc import Callable
from typing import Any

from common import interleaved, machine_note

import playbench
from playbench.rl import ChatEnv
from playbench.rl.branching import Branch, branch_point

#: task -> the base seed of its recorded run (Crafter's player dies early under the mock's answers with seed 0)
TASKS: dict[str, int] = {
    "balrog/nle/nethackchallenge": 0,
    "balrog/crafter/default": 1,
    "balrog/babyai/goto": 0,
}


def record(task: str, seed: int, params: dict[str, Any], log_dir: str) -> tuple[str, list[Any]]:
    result = playbench.eval(task, agent="naive", model="mock/demo", episodes=1, seed=seed, log_dir=log_dir,
                            task_params=params)
    log = playbench.read_run(result.path)
    (episode,) = log.episodes()
    return str(result.path), log.read_trajectory(episode)


def branch_at(branch: Branch) -> None:
    env = ChatEnv.from_branch(branch)
    env.reset()
    env.close()


def replay_whole(path: str, task: str, steps: list[Any]) -> None:
    env = ChatEnv.from_record(path, task, 0, step=0)
    env.reset()
    for step in steps:
        env.step(step.raw_output or "")


def measure(task: str, seed: int, params: dict[str, Any], log_dir: str, repeat: int) -> None:
    path, steps = record(task, seed, params, log_dir)
    n = len(steps)
    ks = sorted({0, n // 4, n // 2, n - 1})
    variants: dict[str, Callable[[], Any]] = {"read": functools.partial(branch_point, path, task, 0, n - 1)}
    variants |= {f"branch@{k}": functools.partial(branch_at, branch_point(path, task, 0, k)) for k in ks}
    variants["chatenv"] = functools.partial(replay_whole, path, task, steps)
    samples = interleaved(variants, repeat)
    wall = {name: statistics.median(s.wall) * 1e3 for name, s in samples.items()}
    per_prefix = (wall[f"branch@{ks[-1]}"] - wall["branch@0"]) / max(ks[-1], 1)
    print(f"\n{task}: {n} recorded steps; wall ms, median of {repeat}")
    print("  " + "  ".join(f"{name} {ms:.1f}" for name, ms in wall.items()))
    print(f"  ms per prefix step {per_prefix:.3f}  (ms per step played through ChatEnv {wall['chatenv'] / n:.3f}; "
          "goal: none, stated)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=400, help="the recorded episode's step limit")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(machine_note())
    with tempfile.TemporaryDirectory() as log_dir:
        for task, seed in TASKS.items():
            measure(task, seed, {"max_steps": args.steps}, log_dir, args.repeat)


if __name__ == "__main__":
    main()

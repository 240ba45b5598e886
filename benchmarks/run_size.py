"""Size of a run folder on disk, and memory while one long episode plays.

1. ``playbench eval smartplay/hanoi-3 --agent random --episodes N`` (10,000 by default) as a user types it:
   the run folder's size on disk (``du``: blocks, not only bytes) and its files. Goal: <= 40 MB for
   10,000 episodes.
2. A random agent plays one ``smartplay/crafter`` episode of ``--long-steps`` steps (10,000 by default; the
   game is made immortal for this, so the episode really lasts that long) through ``playbench.eval``; the
   peak of traced Python memory is printed at 1/10 and at the full length, and at the full length for a
   model-like agent that sends a growing prompt window each step. Steps stream to the run's shard as they are
   played, so the peak should not grow with the episode's length (ratio ~1).

Each measurement is repeated ``--repeat`` times (interleaved where there are variants); min / median / max.

    .venv/bin/python benchmarks/run_size.py [--episodes 10000] [--long-steps 10000] [--repeat 3]
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from common import children_cpu_since, interleaved, machine_note, spread

import playbench
from playbench.agents.base import Decision, EpisodeContext, Turn

GOAL_MB_PER_10K = 40.0


def folder_size(path: Path) -> tuple[int, int, int]:
    """(bytes on disk, bytes of content, files) below ``path``."""
    blocks = int(subprocess.run(["du", "-sk", str(path)], capture_output=True, text=True, check=True).stdout.split()[0])
    files = [f for f in path.rglob("*") if f.is_file()]
    return blocks * 1024, sum(f.stat().st_size for f in files), len(files)


def hanoi_run(episodes: int, root: Path) -> tuple[int, int, int, float]:
    log = root / f"hanoi-{time.monotonic_ns()}"
    before = os.times()
    done = subprocess.run([sys.executable, "-m", "playbench.cli.main", "eval", "smartplay/hanoi-3", "--agent", "random",
                           "--episodes", str(episodes), "--quiet", "--log-dir", str(log)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    cpu = children_cpu_since(before)
    return (*folder_size(next(log.iterdir())), cpu)


class RandomWithWindow:
    """Picks a random legal action, and records a prompt window like a model agent's: the manual, the last
    16 turns, the current observation (the messages a chat agent would send)."""

    name = "window"

    def __init__(self) -> None:
        self.history: list[dict] = []
        self.step = 0

    async def start(self, ctx: EpisodeContext) -> None:
        self.manual = {"role": "system", "content": ctx.manual or "manual"}

    async def act(self, turn: Turn) -> Decision:
        action = turn.legal_actions[self.step % len(turn.legal_actions)] if turn.legal_actions else "noop"
        self.step += 1
        current = {"role": "user", "content": turn.observation}
        messages = [self.manual, *self.history[-32:], current]
        self.history = [*self.history[-31:], current, {"role": "assistant", "content": action}]
        return Decision(raw=action, action=action, messages=messages)


def long_episode(steps: int, agent: object, root: Path) -> float:
    """Peak traced memory (MiB) while one immortal Crafter episode of ``steps`` steps plays."""
    from playbench.suites.crafter import engine

    immortal = engine.CrafterEngine.step

    def step(self, action):  # a death (lava, zombies) is undone: the episode lasts its full length
        obs, reward, done, info = immortal(self, action)
        if self._player.health <= 0:
            self._player.health, done = 9, False
        return obs, reward, done, info

    engine.CrafterEngine.step = step
    tracemalloc.start()
    try:
        result = playbench.eval("smartplay/crafter", agent=agent, episodes=1, log_dir=root / f"long-{time.monotonic_ns()}",
                                task_params={"max_steps": steps})
        # crafter's own length limit (10,000 of its ticks, the reset's included) may end it one step early
        assert result.steps >= steps - 1, (result.steps, steps)
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()
        engine.CrafterEngine.step = immortal


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=10000)
    parser.add_argument("--long-steps", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(machine_note())
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        sizes = interleaved({"hanoi": lambda: hanoi_run(args.episodes, root)}, args.repeat)["hanoi"]
        disk = [r[0] / 2**20 for r in sizes.results]
        content = [r[1] / 2**20 for r in sizes.results]
        goal = GOAL_MB_PER_10K * args.episodes / 10000
        print(f"run folder of {args.episodes} random Hanoi-3 episodes: {spread(disk, digits=1)} MiB on disk "
              f"(goal <= {goal:.0f} MB), {spread(content, digits=1)} MiB of content, {sizes.results[0][2]} files; "
              f"the command took {spread(sizes.wall, digits=1)} s wall, {spread([r[3] for r in sizes.results], digits=1)} s CPU")
        short = max(10, args.long_steps // 10)
        long_episode(10, "random", root)  # untimed: imports, a first world
        memory = interleaved({
            f"random {short}": lambda: long_episode(short, "random", root),
            f"random {args.long_steps}": lambda: long_episode(args.long_steps, "random", root),
            f"window {short}": lambda: long_episode(short, RandomWithWindow, root),
            f"window {args.long_steps}": lambda: long_episode(args.long_steps, RandomWithWindow, root),
        }, args.repeat)
        for name, samples in memory.items():
            print(f"one smartplay/crafter episode, agent {name} steps: peak traced memory "
                  f"{spread(samples.results, digits=1)} MiB; {spread(samples.wall, digits=1)} s wall")
        for agent in ("random", "window"):
            ratio = [b / a for a, b in zip(memory[f"{agent} {short}"].results,
                                           memory[f"{agent} {args.long_steps}"].results, strict=True)]
            print(f"{agent}: peak at {args.long_steps} steps / peak at {short} steps = {spread(ratio, digits=2)} "
                  "(goal ~1: memory flat in the episode's length)")


if __name__ == "__main__":
    main()

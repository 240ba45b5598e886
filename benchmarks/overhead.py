"""Harness overhead per step: runner + records + agent plumbing, with the game's own time subtracted.

Plays Hanoi-3 episodes with a zero-cost agent (always the first legal action, so every episode runs its
full 30 steps) at 1, 64 and 256 episodes in flight, then replays the same episodes on bare games to measure
the game's own stepping time. Also prints peak traced memory for N and 2N episodes: it should not grow with
the number of finished episodes.

    .venv/bin/python benchmarks/overhead.py [--episodes 2000]
"""

import argparse
import tempfile
import time
import tracemalloc
from pathlib import Path

import playbench
from playbench.agents.base import Decision, EpisodeContext, Turn
from playbench.core.records import RunConfig, TaskSpec
from playbench.runner import plan_jobs

TASK = "smartplay/hanoi-3"


class FirstAction:
    """A zero-cost agent."""

    name = "first-action"  # the agent name its records carry

    async def start(self, ctx: EpisodeContext) -> None:
        return None

    async def act(self, turn: Turn) -> Decision:
        action = turn.legal_actions[0]
        return Decision(raw=action, action=action)


def config(episodes: int) -> RunConfig:
    return RunConfig(tasks=[TaskSpec(id=TASK, params={}, episodes=episodes)], agent="first-action", seed=0)


def run_harness(episodes: int, concurrency: int, root: Path) -> tuple[float, int]:
    result = playbench.eval(TASK, agent=FirstAction, episodes=episodes, log_dir=root, max_episodes=concurrency)
    return result.elapsed_s, result.steps


def run_bare(episodes: int) -> tuple[float, int]:
    steps = 0
    start = time.perf_counter()
    for job in plan_jobs(config(episodes)):
        game = job.task.make_game(job.params, job.index)
        game.reset(seed=job.seed)
        done = False
        while not done:
            *_, term, trunc, _ = game.step(game.legal_actions()[0])
            done = term or trunc
            steps += 1
    return time.perf_counter() - start, steps


def peak_memory(episodes: int, root: Path) -> float:
    tracemalloc.start()
    run_harness(episodes, 64, root)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        bare_time, bare_steps = run_bare(args.episodes)
        game_per_step = bare_time / bare_steps
        print(f"game alone: {game_per_step * 1e3:.4f} ms/step over {bare_steps} steps")
        print(f"{'concurrency':>11} {'steps':>8} {'total ms/step':>14} {'overhead ms/step':>17}  goal <= 0.2")
        for concurrency in (1, 64, 256):
            elapsed, steps = run_harness(args.episodes, concurrency, root)
            per_step = elapsed / steps
            print(f"{concurrency:>11} {steps:>8} {per_step * 1e3:>14.4f} {(per_step - game_per_step) * 1e3:>17.4f}")
        small, large = peak_memory(args.episodes // 2, root), peak_memory(args.episodes, root)
        print(f"peak traced memory: {small:.1f} MiB for {args.episodes // 2} episodes, "
              f"{large:.1f} MiB for {args.episodes} (ratio {large / small:.2f}; ~1 means no growth)")


if __name__ == "__main__":
    main()

"""Harness overhead: the fixed cost of an episode and the cost of a step, with the game's own time taken out.

Plays Hanoi-3 episodes of 1, 5, 30 and 1,000 steps (``-T max_steps=N`` and a zero-cost agent that always
plays the first legal action, so every episode runs its full length) through ``playbench.eval`` with 64
episodes in flight, and the same episodes on bare games (reset, step; no runner, agent or records). The
overhead of one episode of N steps is (harness - bare) / episodes; the fixed cost per episode and the cost
per step come from the 1-step and 1,000-step rows (overhead(N) = fixed + N x step); the per-step share is
also printed for each length. Each variant is repeated (``--repeat``, interleaved) and min / median / max
are printed for CPU (this process, every thread) and wall time.

Goals (issue "Lean runs"): fixed cost per episode <= 0.2 ms, per-step overhead <= 0.05 ms, whatever the
episode length.

    .venv/bin/python benchmarks/overhead.py [--steps-total 30000] [--repeat 3] [--in-flight 64]
"""

import argparse
import statistics
import tempfile
from pathlib import Path

from common import interleaved, machine_note, spread

import playbench
from playbench.agents.base import Decision, EpisodeContext, Turn
from playbench.core.records import RunConfig, TaskSpec
from playbench.runner import plan_jobs

TASK = "smartplay/hanoi-3"
LENGTHS = (1, 5, 30, 1000)
GOAL_FIXED_MS, GOAL_STEP_MS = 0.2, 0.05


class FirstAction:
    """A zero-cost agent: the first legal action (never solves Hanoi, so episodes run to their limit)."""

    name = "first-action"  # the agent name its records carry

    async def start(self, ctx: EpisodeContext) -> None:
        return None

    async def act(self, turn: Turn) -> Decision:
        action = turn.legal_actions[0]
        return Decision(raw=action, action=action)


def harness(length: int, episodes: int, in_flight: int, root: Path) -> int:
    result = playbench.eval(TASK, agent=FirstAction, episodes=episodes, log_dir=root, max_episodes=in_flight,
                            task_params={"max_steps": length})
    assert result.played == {"ok": episodes}, result.played
    assert result.steps == episodes * length, (result.steps, episodes * length)
    return result.steps


def bare(length: int, episodes: int) -> int:
    config = RunConfig(tasks=[TaskSpec(id=TASK, params={"max_steps": length}, episodes=episodes)],
                       agent="first-action", seed=0)
    steps = 0
    for job in plan_jobs(config):
        game = job.task.make_game(job.params, job.index)
        game.reset(seed=job.seed)
        done = False
        while not done:
            *_, term, trunc, _ = game.step(game.legal_actions()[0])
            done = term or trunc
            steps += 1
    return steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps-total", type=int, default=30000, help="steps per sample for each length")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--in-flight", type=int, default=64)
    args = parser.parse_args()
    print(machine_note())
    episodes = {n: max(2, args.steps_total // n) for n in LENGTHS}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        playbench.eval(TASK, agent=FirstAction, episodes=2, log_dir=root / "warm-up")  # lazy imports, untimed
        variants = {}
        for n in LENGTHS:
            variants[f"harness {n}"] = lambda n=n: harness(n, episodes[n], args.in_flight, root)
            variants[f"bare {n}"] = lambda n=n: bare(n, episodes[n])
        samples = interleaved(variants, args.repeat)
    print(f"{args.in_flight} episodes in flight; overhead per episode = (harness - bare) / episodes, "
          f"{args.repeat} interleaved samples, min / median / max")
    per_episode: dict[int, dict[str, list[float]]] = {}
    print(f"{'steps':>6} {'episodes':>8} | {'CPU ms per episode':>26} | {'wall ms per episode':>26} | "
          f"{'CPU ms per step (share)':>26}")
    for n in LENGTHS:
        h, b = samples[f"harness {n}"], samples[f"bare {n}"]
        cpu = [(hc - bc) / episodes[n] for hc, bc in zip(h.cpu, b.cpu, strict=True)]
        wall = [(hw - bw) / episodes[n] for hw, bw in zip(h.wall, b.wall, strict=True)]
        per_episode[n] = {"cpu": cpu, "wall": wall}
        print(f"{n:>6} {episodes[n]:>8} | {spread(cpu, 1e3, 4):>26} | {spread(wall, 1e3, 4):>26} | "
              f"{spread([c / n for c in cpu], 1e3, 4):>26}")
    for kind in ("cpu", "wall"):
        one = statistics.median(per_episode[1][kind])
        long = statistics.median(per_episode[LENGTHS[-1]][kind])
        step = (long - one) / (LENGTHS[-1] - 1)
        fixed = one - step
        print(f"{kind.upper():>4} (medians): fixed cost per episode {fixed * 1e3:.4f} ms (goal <= {GOAL_FIXED_MS}), "
              f"per step {step * 1e3:.4f} ms (goal <= {GOAL_STEP_MS})")
    print(f"(the game's own step, for scale: {statistics.median(samples['bare 30'].cpu) / (episodes[30] * 30) * 1e3:.4f}"
          " ms CPU, median of the 30-step bare samples)")


if __name__ == "__main__":
    main()

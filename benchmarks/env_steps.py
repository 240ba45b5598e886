"""Steps per second through ``ChatEnv`` with a zero-cost policy, beside the bare game and the stock engine.

One task per suite, each played by ``naive`` with a fixed answer (the policy costs nothing; valid or not,
the game steps), episodes run to their step limit and start again (next index) when they end:

* ``chatenv``: ``ChatEnv.reset``/``step`` (synchronous API), the answer given back at each request;
* ``async``: the same through ``areset``/``astep`` in one event loop;
* ``agent``: the same registered agent and the runner's ``play_episode`` with a model answering the same
  text in process (no ChatEnv): the game, the prompt the agent must build, the parsing and the records;
* ``bare``: the task's game (``task.make_game``) stepped directly with the same action, no agent;
* ``stock``: the original engine, where it is installed (crafter, minigrid's BabyAI), stepped directly.

ChatEnv's own cost per step is ``chatenv - agent`` (what handing each request out and the answer in adds to
the episode it drives). Goal (issue 30): <= 0.1 ms per step beyond the prompt it must build. Each variant is
timed ``--repeat`` times, interleaved; min / median / max of CPU (this process) and wall per step.

    .venv/bin/python benchmarks/env_steps.py [--steps 600] [--repeat 5]
"""

import argparse
import asyncio
import functools
import statistics
from collections.abc import Callable
from typing import Any

from common import interleaved, machine_note, spread

from playbench.core.records import RunConfig, TaskSpec
from playbench.rl import ChatEnv, env_spec
from playbench.rl.channel import channel_model
from playbench.runner import plan_jobs
from playbench.runner.runner import play_episode

GOAL_MS = 0.1
#: task -> (task parameters, the fixed answer, the stock engine's maker or None)
TASKS: dict[str, tuple[dict[str, Any], str]] = {
    "smartplay/hanoi-3": ({"max_steps": 50}, "Move the top disk of rod A to the top of rod C"),
    "balrog/babyai/goto": ({"max_steps": 50}, "turn left"),
    "balrog/crafter/default": ({"max_steps": 50}, "Noop"),
    "mango/df": ({}, "[]"),
    "grasp/energy": ({}, "up"),
}


def chatenv(task: str, params: dict[str, Any], answer: str, steps: int) -> int:
    spec = env_spec(task, 0, "naive", params)
    done, index = 0, 0
    while done < steps:
        env = ChatEnv.from_spec(spec, index)
        messages = env.reset()
        while messages:
            messages, *_ = env.step(answer)
            done += 1
        index += 1
    return done


def chatenv_async(task: str, params: dict[str, Any], answer: str, steps: int) -> int:
    spec = env_spec(task, 0, "naive", params)

    async def play() -> int:
        done, index = 0, 0
        while done < steps:
            env = ChatEnv.from_spec(spec, index)
            messages = await env.areset()
            while messages:
                messages, *_ = await env.astep(answer)
                done += 1
            index += 1
        return done

    return asyncio.run(play())


def agent(task: str, params: dict[str, Any], answer: str, steps: int) -> int:
    spec = env_spec(task, 0, "naive", params)

    async def ask(_: Any) -> str:
        return answer

    jobs = plan(task, params, steps)

    async def play() -> int:
        done, index = 0, 0
        config = spec.config
        while done < steps:
            job = jobs[index]
            model = channel_model(config.model or "rl/policy", spec.generate, ask)
            played: list[Any] = []
            await play_episode(job, spec.agent.factory(spec.agent_params, model), config.agent, config.model,
                               record_step=played.append)
            done += len(played)
            index += 1
        return done

    return asyncio.run(play())


def plan(task: str, params: dict[str, Any], steps: int) -> list[Any]:
    """The episodes of a run of ``task`` (seed 0), enough for ``steps`` steps (each episode has one at least)."""
    config = RunConfig(tasks=[TaskSpec(id=task, params=params, episodes=steps)], agent="naive", seed=0)
    return list(plan_jobs(config))


def bare(task: str, params: dict[str, Any], answer: str, steps: int) -> int:
    done = 0
    for job in plan(task, params, steps):
        game = job.task.make_game(job.params, job.index)
        game.reset(seed=job.seed)
        legal = game.legal_actions()
        action = answer if not legal or answer in legal else legal[0]
        over = False
        while not over:
            *_, term, trunc, _ = game.step(action)
            over = term or trunc
            done += 1
        game.close()
        if done >= steps:
            return done
    return done


def stock_makers() -> dict[str, Callable[[int], int]]:
    """The original engines that are installed: steps of a fixed action, resetting at episode ends."""
    makers: dict[str, Callable[[int], int]] = {}
    try:
        import crafter

        def crafter_steps(steps: int) -> int:
            env = crafter.Env(length=50, seed=0)
            env.reset()
            for _ in range(steps):
                _, _, done, _ = env.step(0)
                if done:
                    env.reset()
            return steps

        makers["balrog/crafter/default"] = crafter_steps
    except ImportError:
        pass
    try:
        import warnings

        import gymnasium as gym
        import minigrid

        with warnings.catch_warnings():  # playbench registered them already
            warnings.simplefilter("ignore")
            minigrid.register_minigrid_envs()

        def babyai_steps(steps: int) -> int:
            env = gym.make("BabyAI-GoTo-v0", max_steps=50)
            env.reset(seed=0)
            for n in range(steps):
                _, _, term, trunc, _ = env.step(0)
                if term or trunc:
                    env.reset(seed=n)
            env.close()
            return steps

        makers["balrog/babyai/goto"] = babyai_steps
    except ImportError:
        pass
    return makers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=600, help="steps per sample (one-step tasks: episodes)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--tasks", nargs="*", default=list(TASKS))
    args = parser.parse_args()
    print(machine_note())
    stock = stock_makers()
    print(f"stock engines installed: {', '.join(sorted(stock)) or 'none'} (NetHack and TextWorld: not measured)")
    print(f"{'task':<20} {'variant':<8} | {'steps/s (median)':>16} | {'CPU ms per step':>24} | "
          f"{'wall ms per step':>24}")
    for task in args.tasks:
        params, answer = TASKS[task]
        variants: dict[str, Callable[[], int]] = {
            name: functools.partial(fn, task, params, answer, args.steps)
            for name, fn in (("chatenv", chatenv), ("async", chatenv_async), ("agent", agent), ("bare", bare))
        }
        if task in stock:
            variants["stock"] = functools.partial(stock[task], args.steps)
        for fn in variants.values():  # warm-up: lazy imports, data files, untimed
            fn()
        samples = interleaved(variants, args.repeat)
        per_step: dict[str, dict[str, list[float]]] = {}
        for name, s in samples.items():
            n = s.results
            per_step[name] = {"cpu": [c / k for c, k in zip(s.cpu, n, strict=True)],
                              "wall": [w / k for w, k in zip(s.wall, n, strict=True)]}
            rate = statistics.median(k / w for k, w in zip(n, s.wall, strict=True))
            print(f"{task:<20} {name:<8} | {rate:>16,.0f} | {spread(per_step[name]['cpu'], 1e3, 4):>24} | "
                  f"{spread(per_step[name]['wall'], 1e3, 4):>24}")
        own = [c - a for c, a in zip(per_step["chatenv"]["cpu"], per_step["agent"]["cpu"], strict=True)]
        own_async = [c - a for c, a in zip(per_step["async"]["cpu"], per_step["agent"]["cpu"], strict=True)]
        prompt = [a - b for a, b in zip(per_step["agent"]["cpu"], per_step["bare"]["cpu"], strict=True)]
        print(f"{task:<20} ChatEnv's own CPU ms per step (chatenv - agent): reset/step {spread(own, 1e3, 4)}, "
              f"areset/astep {spread(own_async, 1e3, 4)} (goal <= {GOAL_MS}); "
              f"agent, prompt and records (agent - bare): {spread(prompt, 1e3, 4)}")


if __name__ == "__main__":
    main()

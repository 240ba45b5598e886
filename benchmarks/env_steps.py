"""What ``ChatEnv`` costs beside the bare game, with a zero-cost policy; and 4,096 live episodes in one process.

One task per suite, each played by ``naive`` with a fixed answer (the policy costs nothing; valid or not,
the game steps), episodes run to their step limit. Each episode index is played ``--group`` times in a row,
as the copies of a GRPO group are (GRASP then makes the instance once for the group, in the bare game too):

* ``chatenv``: ``ChatEnv.reset``/``step`` (synchronous API), the answer given back at each request;
* ``async``: the same through ``areset``/``astep`` in one event loop;
* ``agent``: the same registered agent and the runner's ``play_episode`` with a model answering the same
  text in process (no ChatEnv): the game, the prompt the agent must build, the parsing and the records;
* ``bare``: the task's game (``task.make_game``) stepped directly with the same action, no agent;
* ``stock``: the original engine, where it is installed (crafter, minigrid's BabyAI), stepped directly.

What ChatEnv costs is ``chatenv - bare``: all that playbench does around the game (the hand-off, the
agent's prompt, the model's bookkeeping, the records). Goal (issue "RL at hub scale"): <= 0.1 ms per step,
per episode for the one-step tasks (GRASP, MANGO). ``chatenv - agent`` is the hand-off alone. Each
variant is timed ``--repeat`` times, interleaved; min / median / max of CPU (this process) and wall.

Live episodes (``--live 4096``): that many ChatEnvs (BabyAI, Hanoi and GRASP's one-action-per-turn game by
turns) reset, then stepped ``--live-steps`` (30) times each, round robin, as a trainer holds them. Printed:
the memory (RSS) each live episode adds, the slowest step, and apart from it the pauses of Python's cyclic
garbage collector, whose full collections walk every object the process tracks (so the count per live
episode beside). Goals: <= 32 KB per live episode, no step stalled over 100 ms by playbench itself.
Beside it, the highest RSS after a round and its round (the figure after the last round keeps that high-water
mark: the allocators hold what episodes that ended since freed), and the RSS once glibc gives its free pages back
(``malloc_trim(0)``, as a trainer could call it).
``--no-keep-steps``: the live episodes are ``ChatEnv(keep_steps=False)`` (no step records kept);
``--freeze``: ``gc.freeze()`` after each round of steps; ``--trim``: ``malloc_trim(0)`` after each (glibc);
``--live-tasks``: only these of the three (one task's share).

    .venv/bin/python benchmarks/env_steps.py [--steps 600] [--repeat 5] [--group 8] [--live 4096]
                                             [--no-keep-steps] [--freeze] [--trim] [--live-tasks TASK ...]
"""

import argparse
import asyncio
import ctypes
import functools
import gc
import os
import resource
import statistics
import time
from collections.abc import Callable
from typing import Any

from common import interleaved, machine_note, spread

from playbench.core.records import RunConfig, TaskSpec
from playbench.rl import ChatEnv, env_spec
from playbench.rl.channel import answered_by, channel_model
from playbench.runner import plan_jobs
from playbench.runner.runner import play_episode

GOAL_MS = 0.1
LIVE_GOAL_KB = 32
STALL_GOAL_MS = 100
#: task -> (task parameters, the fixed answer)
TASKS: dict[str, tuple[dict[str, Any], str]] = {
    "smartplay/hanoi-3": ({"max_steps": 50}, "Move the top disk of rod A to the top of rod C"),
    "balrog/babyai/goto": ({"max_steps": 50}, "turn left"),
    "balrog/crafter/default": ({"max_steps": 50}, "Noop"),
    "mango/df": ({}, "[]"),
    "grasp/energy": ({}, "up"),
}
#: tasks whose episode is one step: their figures per step are per episode
ONE_STEP = ("mango/df", "grasp/energy")
#: the live episodes' tasks, by turns (GRASP's game that takes one action a turn: an episode of many steps)
LIVE_TASKS: dict[str, tuple[dict[str, Any], str]] = {
    "balrog/babyai/goto": ({"max_steps": 50}, "turn left"),
    "smartplay/hanoi-3": ({"max_steps": 50}, "Move the top disk of rod A to the top of rod C"),
    "grasp/energy-interactive": ({}, "up"),
}


def indices(group: int) -> Any:
    """Episode indices, each ``group`` times in a row (the copies of a GRPO group)."""
    k = 0
    while True:
        yield k // group
        k += 1


def chatenv(task: str, params: dict[str, Any], answer: str, steps: int, group: int) -> int:
    spec = env_spec(task, 0, "naive", params)
    done = 0
    for index in indices(group):
        env = ChatEnv.from_spec(spec, index)
        messages = env.reset()
        while messages:
            messages, *_ = env.step(answer)
            done += 1
        if done >= steps:
            return done
    return done


def chatenv_async(task: str, params: dict[str, Any], answer: str, steps: int, group: int) -> int:
    spec = env_spec(task, 0, "naive", params)

    async def play() -> int:
        done = 0
        for index in indices(group):
            env = ChatEnv.from_spec(spec, index)
            messages = await env.areset()
            while messages:
                messages, *_ = await env.astep(answer)
                done += 1
            if done >= steps:
                return done
        return done

    return asyncio.run(play())


def agent(task: str, params: dict[str, Any], answer: str, steps: int, group: int) -> int:
    spec = env_spec(task, 0, "naive", params)
    jobs = plan(task, params, steps)

    async def ask(_: Any) -> str:
        return answer

    async def play() -> int:
        config = spec.config
        answered_by(ask)
        model = channel_model(config.model or "rl/policy", spec.generate)
        done = 0
        for index in indices(group):
            played: list[Any] = []
            await play_episode(jobs[index], spec.agent.factory(spec.agent_params, model), config.agent, config.model,
                               record_step=played.append)
            done += len(played)
            if done >= steps:
                return done
        return done

    return asyncio.run(play())


def plan(task: str, params: dict[str, Any], steps: int) -> list[Any]:
    """The episodes of a run of ``task`` (seed 0), enough for ``steps`` steps (each episode has one at least)."""
    config = RunConfig(tasks=[TaskSpec(id=task, params=params, episodes=steps)], agent="naive", seed=0)
    return list(plan_jobs(config))


def bare(task: str, params: dict[str, Any], answer: str, steps: int, group: int) -> int:
    jobs = plan(task, params, steps)
    done = 0
    for index in indices(group):
        job = jobs[index]
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


def difference(a: list[float], b: list[float], scale: float) -> str:
    """``spread`` of the pairwise differences of two variants' interleaved samples."""
    return spread([x - y for x, y in zip(a, b, strict=True)], scale, 4)


def per_step(task: str, args: argparse.Namespace, stock: dict[str, Callable[[int], int]]) -> None:
    params, answer = TASKS[task]
    variants: dict[str, Callable[[], int]] = {
        name: functools.partial(fn, task, params, answer, args.steps, args.group)
        for name, fn in (("chatenv", chatenv), ("async", chatenv_async), ("agent", agent), ("bare", bare))
    }
    if task in stock:
        variants["stock"] = functools.partial(stock[task], args.steps)
    for fn in variants.values():  # warm-up: lazy imports, data files, untimed
        fn()
    samples = interleaved(variants, args.repeat)
    cpu: dict[str, list[float]] = {}
    for name, s in samples.items():
        n = s.results
        cpu[name] = [c / k for c, k in zip(s.cpu, n, strict=True)]
        wall = [w / k for w, k in zip(s.wall, n, strict=True)]
        rate = statistics.median(k / w for k, w in zip(n, s.wall, strict=True))
        print(f"{task:<24} {name:<8} | {rate:>16,.0f} | {spread(cpu[name], 1e3, 4):>24} | {spread(wall, 1e3, 4):>24}")
    unit = "episode" if task in ONE_STEP else "step"
    print(f"{task:<24} ChatEnv - bare game, CPU ms per {unit}: reset/step {difference(cpu['chatenv'], cpu['bare'], 1e3)}, "
          f"areset/astep {difference(cpu['async'], cpu['bare'], 1e3)} (goal <= {GOAL_MS}); of which the hand-off "
          f"(ChatEnv - agent) {difference(cpu['chatenv'], cpu['agent'], 1e3)} / "
          f"{difference(cpu['async'], cpu['agent'], 1e3)}, agent, prompt and records (agent - bare) "
          f"{difference(cpu['agent'], cpu['bare'], 1e3)}")


def trimmed_rss() -> int | None:
    """RSS once glibc has handed its free pages back (``malloc_trim(0)``); None without glibc."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    trim(0)
    return rss()


def rss() -> int:
    """This process's resident memory in bytes (Linux's /proc; elsewhere the peak, which only grows)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


class Pauses:
    """The cyclic garbage collector's pauses (wall seconds) while installed, by generation."""

    def __init__(self) -> None:
        self.by_generation: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self.in_full = False  # a full collection ran since the flag was last cleared
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            return
        self.by_generation[info["generation"]].append(time.perf_counter() - self._started)
        self.in_full = self.in_full or info["generation"] == 2


def live(count: int, steps: int, freeze: bool, keep_steps: bool, tasks: list[str], trim: bool = False) -> None:
    """``count`` live episodes (``tasks`` of LIVE_TASKS by turns) in this process: memory per episode, slowest step, GC pauses.

    ``freeze``: ``gc.freeze()`` after the resets and after each round of steps, as a trainer may do after each
    batch (the collector then walks only what the last round made). ``keep_steps``: the live episodes keep their
    step records (``ChatEnv``'s default), or not (``keep_steps=False``). ``trim``: ``malloc_trim(0)`` after each
    round, as a trainer may do after each batch (glibc gives back the pages that episodes ended since freed).
    """
    specs = [(env_spec(task, 0, "naive", LIVE_TASKS[task][0]), LIVE_TASKS[task][1]) for task in tasks]
    for spec, answer in specs:  # warm-up: imports, data files
        env = ChatEnv.from_spec(spec, 0)
        messages = env.reset()
        while messages:
            messages, *_ = env.step(answer)
    gc.collect()
    trimmed_rss()  # the start's own free pages given back first: no episode's figure is made smaller by them
    memory, tracked = rss(), len(gc.get_objects())
    pauses = Pauses()
    gc.callbacks.append(pauses)
    slowest = slowest_own = slowest_cpu = 0.0
    over = 0
    highest = (0, 0)  # the highest RSS after a round of steps, and that round
    trims: list[float] = []  # the time each malloc_trim(0) took (``trim``)
    try:
        envs: list[tuple[ChatEnv, str, list[Any]]] = []
        for n in range(count):
            spec, answer = specs[n % len(specs)]
            env = ChatEnv.from_spec(spec, n // len(specs), keep_steps=keep_steps)
            envs.append((env, answer, env.reset()))
        for round_ in range(1, steps + 1):
            if freeze:
                gc.freeze()
            for k, (env, answer, messages) in enumerate(envs):
                if not messages:
                    continue  # ended (GRASP's game takes 20 actions at most): held, as a trainer holds it
                pauses.in_full = False
                t0, c0 = time.perf_counter(), time.process_time()
                messages, *_ = env.step(answer)
                took = time.perf_counter() - t0
                slowest_cpu = max(slowest_cpu, time.process_time() - c0)
                envs[k] = (env, answer, messages)
                slowest = max(slowest, took)
                over += took > STALL_GOAL_MS / 1e3
                if not pauses.in_full:
                    slowest_own = max(slowest_own, took)
            if trim:
                t0 = time.perf_counter()
                trimmed_rss()
                trims.append(time.perf_counter() - t0)
            now = rss()
            if now > highest[0]:  # the first round that reached it
                highest = (now, round_)
    finally:
        gc.callbacks.remove(pauses)
        gc.unfreeze()
    gc.collect()
    per_episode = (rss() - memory) / count / 1024
    objects = (len(gc.get_objects()) - tracked) / count
    full = pauses.by_generation[2]
    t0 = time.perf_counter()
    gc.collect()
    collect_ms = (time.perf_counter() - t0) * 1e3
    still = sum(1 for _, _, messages in envs if messages)
    print(f"{count} live episodes ({', '.join(tasks)} by turns; {still} not over; keep_steps={keep_steps}) "
          f"after {steps} steps each: "
          f"{per_episode:.1f} KB per live episode (RSS; goal <= {LIVE_GOAL_KB}), {objects:.0f} objects tracked by "
          f"the garbage collector per live episode")
    print(f"  {'gc.freeze() after each round; ' if freeze else ''}slowest step {slowest * 1e3:.1f} ms wall "
          f"({slowest_cpu * 1e3:.1f} ms CPU at most), {over} over {STALL_GOAL_MS} ms; slowest with no full collection "
          f"in it {slowest_own * 1e3:.1f} ms (goal: none over {STALL_GOAL_MS} ms); full collections: {len(full)}, "
          f"the longest {max(full, default=0.0) * 1e3:.0f} ms; one now, all episodes live: {collect_ms:.0f} ms")
    if trims:
        print(f"  malloc_trim(0) after each round: the longest took {max(trims) * 1e3:.0f} ms")
    trimmed = trimmed_rss()
    print(f"  RSS highest, first after step {highest[1]}: {(highest[0] - memory) / count / 1024:.1f} KB per live episode "
          "(the allocators keep what ended episodes freed since)"
          + ("" if trimmed is None else f"; after malloc_trim(0), which hands glibc's free pages back: "
             f"{(trimmed - memory) / count / 1024:.1f} KB"))
    for env, _, _ in envs:
        env.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=600, help="steps per sample (one-step tasks: episodes)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--group", type=int, default=8, help="copies of each episode played in a row (GRPO group)")
    parser.add_argument("--tasks", nargs="*", default=list(TASKS))
    parser.add_argument("--live", type=int, default=4096, help="live episodes held at once (0: not measured)")
    parser.add_argument("--live-steps", type=int, default=30)
    parser.add_argument("--live-tasks", nargs="+", default=list(LIVE_TASKS), choices=list(LIVE_TASKS),
                        help="live episodes: these tasks only (each task's share of the memory)")
    parser.add_argument("--freeze", action="store_true", help="live episodes: gc.freeze() after each round of steps")
    parser.add_argument("--trim", action="store_true", help="live episodes: malloc_trim(0) after each round (glibc)")
    parser.add_argument("--no-keep-steps", dest="keep_steps", action="store_false",
                        help="live episodes: ChatEnv(keep_steps=False), no step records kept")
    args = parser.parse_args()
    print(machine_note())
    stock = stock_makers()
    print(f"stock engines installed: {', '.join(sorted(stock)) or 'none'} (NetHack and TextWorld: not measured)")
    print(f"each episode played {args.group} times in a row (a GRPO group's copies)")
    print(f"{'task':<24} {'variant':<8} | {'steps/s (median)':>16} | {'CPU ms per step':>24} | "
          f"{'wall ms per step':>24}")
    for task in args.tasks:
        per_step(task, args, stock)
    if args.live > 0:
        live(args.live, args.live_steps, args.freeze, args.keep_steps, args.live_tasks, args.trim)


if __name__ == "__main__":
    main()

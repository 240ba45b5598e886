"""NetHack/MiniHack at hub scale: memory per live episode and the time to start many, beside stock NLE.

Each sample is a fresh Python process (no engine worker left from an earlier sample) that builds the
``ChatEnv`` spec of a task, then starts ``episodes`` live episodes at once, the way an RL trainer does
(``asyncio.gather`` of ``areset()``: every game built, seeded and reset, every first request made), and
measures:

- start: wall seconds from the spec to the last first request. Goal: <= 5 s for 64 episodes.
- memory: the PSS (proportional set size: shared pages split among the processes that map them) of the
  engine workers plus what this process grew by, divided by the live episodes. Goal: <= 10 MB.

The reference is stock NLE, its engines in one process with the clock unfixed (``engine.Engine``, built
and reset one after another), measured the same way. Samples of the variants are interleaved; each
figure is printed as min / median / max.

Run: .venv/bin/python benchmarks/nle_scale.py [episodes] [repeat]
"""

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from common import machine_note, spread

GOAL_START_S = 5.0
GOAL_PSS_MB = 10.0
TASKS = {"NetHack": ("balrog/nle/nethackchallenge", "NetHackChallenge-v0"),
         "MiniHack": ("balrog/minihack/corridor-r3", "MiniHack-Corridor-R3-v0")}


def pss_mb(pid: int | str = "self") -> float:
    """The process's PSS in MB (0 if it has gone)."""
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return 0.0
    return next(int(line.split()[1]) for line in text.splitlines() if line.startswith("Pss:")) / 1024


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (the engine workers and anything they started)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        kids = children.get(todo.pop(), [])
        out += kids
        todo += kids
    return out


def sample_playbench(task_id: str, episodes: int) -> dict[str, float]:
    """Start ``episodes`` live ChatEnv episodes at once; their start time and memory."""
    from playbench.rl import ChatEnv, env_spec

    spec = env_spec(task_id, seed=0, agent="naive")
    before = pss_mb()

    async def run() -> dict[str, float]:
        t0 = time.perf_counter()
        envs = [ChatEnv.from_spec(spec, index) for index in range(episodes)]
        firsts = await asyncio.gather(*(env.areset() for env in envs))
        started = time.perf_counter() - t0
        assert all(firsts), "an episode failed to start"
        workers = descendants(os.getpid())
        memory = pss_mb() - before + sum(pss_mb(pid) for pid in workers)
        await asyncio.gather(*(env.aclose() for env in envs))
        return {"start_s": started, "pss_mb": memory / episodes, "processes": len(workers)}

    return asyncio.run(run())


def sample_stock(env_id: str, episodes: int) -> dict[str, float]:
    """Stock NLE in this process: ``episodes`` engines built and reset one after another."""
    from playbench.suites.balrog.nle.engine import Engine, modules

    modules()  # imported before the clock starts, as a long-lived stock NLE process has them
    before = pss_mb()
    t0 = time.perf_counter()
    engines = []
    for index in range(episodes):
        engine = Engine(env_id)
        engine.seed(index)
        engine.reset()
        engines.append(engine)
    started = time.perf_counter() - t0
    memory = pss_mb() - before
    for engine in engines:
        engine.close()
    return {"start_s": started, "pss_mb": memory / episodes, "processes": 0}


def one_sample(kind: str, suite: str, episodes: int) -> dict[str, float]:
    """One sample in a fresh process (this script, called with ``--sample``)."""
    out = subprocess.run([sys.executable, __file__, "--sample", kind, suite, str(episodes)], capture_output=True,
                         text=True, timeout=900)
    if out.returncode != 0:
        raise SystemExit(f"a {kind} {suite} sample failed:\n{out.stderr[-2000:]}")
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def main() -> None:
    """Print start time and PSS per live episode for NetHack and MiniHack, playbench and stock NLE."""
    episodes = int(sys.argv[1]) if len(sys.argv) > 1 else 64
    repeat = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    print(machine_note())
    print(f"{episodes} live episodes at once; each sample a fresh process")
    variants = [(kind, suite) for suite in TASKS for kind in ("playbench", "stock NLE")]
    samples: dict[tuple[str, str], list[dict[str, float]]] = {v: [] for v in variants}
    for _ in range(repeat):
        for kind, suite in variants:
            samples[(kind, suite)].append(one_sample(kind, suite, episodes))
    for (kind, suite), rows in samples.items():
        goal_start = f"goal <= {GOAL_START_S:g} s" if kind == "playbench" else "reference"
        goal_pss = f"goal <= {GOAL_PSS_MB:g} MB" if kind == "playbench" else "reference"
        procs = f"   engine processes {spread([r['processes'] for r in rows], digits=0)}" if kind == "playbench" else ""
        print(f"{suite:9s} {kind:10s} start {spread([r['start_s'] for r in rows], digits=2)} s ({goal_start})   "
              f"PSS per live episode {spread([r['pss_mb'] for r in rows], digits=1)} MB ({goal_pss}){procs}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--sample"]:
        kind, suite, count = sys.argv[2], sys.argv[3], int(sys.argv[4])
        task_id, env_id = TASKS[suite]
        row = sample_playbench(task_id, count) if kind == "playbench" else sample_stock(env_id, count)
        print(json.dumps(row))
    else:
        main()

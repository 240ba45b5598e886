"""Start-up: ``playbench --help``, ``playbench list`` and one random Hanoi episode, as a user types them.

Each command runs in a new process (the installed ``playbench`` script next to this Python, else
``python -m playbench.cli.main``), timed from start to exit; CPU is that process's user + system time.
The three commands are interleaved, ``--repeat`` times each.

Goals (quiet machine, bytecode cached): ``--help`` <= 0.15 s CPU and ``list`` <= 0.3 s CPU (issue "The run
request is a row too"), ``eval`` of one Hanoi episode with the random agent <= 0.6 s wall (issue "Lean runs").
Each line ends with the goal and whether the median meets it.

    .venv/bin/python benchmarks/startup.py [--repeat 5]
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import children_cpu_since, machine_note, spread, user_env

#: command -> (the figure the goal is about, its bound in seconds)
GOALS = {"--help": ("CPU", 0.15), "list": ("CPU", 0.3), "eval hanoi-3 (1 episode, random)": ("wall", 0.6)}


def playbench_command() -> list[str]:
    """The ``playbench`` script of this environment, else the module."""
    script = Path(sys.executable).with_name("playbench")
    return [str(script)] if script.exists() else [sys.executable, "-m", "playbench.cli.main"]


def timed(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one process run to its end; refuses a failing command."""
    before = os.times()
    start = time.perf_counter()
    done = subprocess.run(args, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    cpu = children_cpu_since(before)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed: {done.stderr.strip()[-500:]}")
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(machine_note())
    print("bytecode cached in a temporary folder (as after a first run); each command is run once untimed first")
    base = playbench_command()
    with tempfile.TemporaryDirectory() as tmp:
        logs = Path(tmp) / "runs"
        env = user_env(Path(tmp) / "bytecode")
        runs = iter(range(1_000_000))
        commands = {
            "--help": lambda: base + ["--help"],
            "list": lambda: base + ["list"],
            "eval hanoi-3 (1 episode, random)": lambda: base + [
                "eval", "smartplay/hanoi-3", "--agent", "random", "--episodes", "1", "--quiet",
                "--log-dir", str(logs / str(next(runs)))],
        }
        for command in commands.values():  # untimed: the first start reads and compiles every module
            timed(command(), env)
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        for _ in range(args.repeat):
            for name, command in commands.items():
                samples[name].append(timed(command(), env))
        shutil.rmtree(logs, ignore_errors=True)
    for name, rows in samples.items():
        figures = {"wall": [w for w, _ in rows], "CPU": [c for _, c in rows]}
        kind, bound = GOALS[name]
        verdict = "met" if statistics.median(figures[kind]) <= bound else "NOT met"
        print(f"{name:<34} wall {spread(figures['wall'])} s, CPU {spread(figures['CPU'])} s "
              f"(goal: {kind} <= {bound} s, {verdict})")


if __name__ == "__main__":
    main()

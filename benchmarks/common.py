"""Shared pieces of the benchmark scripts.

Every script times its variants ``repeats`` times, interleaved (A B C, A B C, …: a burst of load from
other processes hits every variant alike), keeps CPU (``process_time``, every thread of this process)
and wall time of each sample, and prints min / median / max of both with the goal beside the figure.
A script that cannot find a data set says so on its first line.
"""

import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from playbench.core.game import Game


@dataclass
class Samples:
    """The samples of one variant: wall and CPU seconds, and whatever each call returned."""

    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    results: list[Any] = field(default_factory=list)


def interleaved(variants: dict[str, Callable[[], Any]], repeats: int) -> dict[str, Samples]:
    """Call every variant ``repeats`` times, round-robin; wall and CPU seconds of each call."""
    out = {name: Samples() for name in variants}
    for _ in range(repeats):
        for name, fn in variants.items():
            w0, c0 = time.perf_counter(), time.process_time()
            result = fn()
            out[name].cpu.append(time.process_time() - c0)
            out[name].wall.append(time.perf_counter() - w0)
            out[name].results.append(result)
    return out


def spread(values: list[float], scale: float = 1.0, digits: int = 3) -> str:
    """``min / median / max`` of ``values`` times ``scale``."""
    v = [x * scale for x in values]
    return f"{min(v):.{digits}f} / {statistics.median(v):.{digits}f} / {max(v):.{digits}f}"


def machine_note() -> str:
    """One line on where the figures were measured (CPU count and load), for the docs' "measured on …"."""
    import platform

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (f"measured on {platform.node()} ({os.cpu_count()} CPUs, load average {load:.1f}), Python "
            f"{platform.python_version()}; figures are min / median / max over interleaved repetitions")


def children_cpu_since(before: os.times_result) -> float:
    """CPU seconds (user + system) of the child processes that ended since ``before = os.times()``."""
    after = os.times()
    return (after.children_user - before.children_user) + (after.children_system - before.children_system)


def user_env(bytecode: Path) -> dict[str, str]:
    """This environment as a user's machine has it for a command typed in a new process.

    Python's bytecode is cached (pip compiles it at install, Python writes it on first import), here in
    ``bytecode``, even where the shell sets PYTHONDONTWRITEBYTECODE: otherwise every start compiles the
    modules again, about 50 ms that no user pays twice.
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(bytecode)
    return env


def game_steps_per_second(game: Game, steps: int) -> float:
    """Steps/s of ``game`` under its seeded random policy, resetting (next seed) whenever an episode ends."""
    rng = np.random.default_rng(0)
    episode = 0
    game.reset(seed=episode)
    t0 = time.perf_counter()
    for _ in range(steps):
        _, _, term, trunc, _ = game.step(game.reference_action("random", rng))
        if term or trunc:
            episode += 1
            game.reset(seed=episode)
    return steps / (time.perf_counter() - t0)

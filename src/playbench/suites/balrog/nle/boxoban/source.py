"""Where a Boxoban episode's level comes from: playbench's generator (default) or official level files."""

from functools import lru_cache
from typing import Any

from playbench.core.seeding import derive_seed
from playbench.suites.balrog.nle.boxoban.generator import generate
from playbench.suites.balrog.nle.boxoban.level import Level, read_levels


@lru_cache(maxsize=256)
def generated(seed: int, preset: str) -> tuple[Level, tuple[str, ...]]:
    """The generated level of (seed, preset) and its solver solution (cached in-process)."""
    gen = generate(seed, preset)
    return gen.level, gen.solution.moves


@lru_cache(maxsize=8)
def official(path: str, preset: str) -> tuple[Level, ...]:
    """Every level of the task's difficulty under a user-given path, read and checked once (cached in-process)."""
    return tuple(read_levels(path, preset))


def check_levels(params: Any, preset: str) -> None:
    """``Task.check_inputs`` of the Boxoban tasks: read and check every level file of ``-T levels=``."""
    if params.levels is not None:
        official(params.levels, preset)


def pick(episode_seed: int, preset: str, levels_path: str | None) -> tuple[Level, tuple[str, ...] | None]:
    """The level of an episode: generated from the seed, or ``levels[H(seed) mod n]`` from official files."""
    if levels_path is None:
        return generated(derive_seed("boxoban-level", episode_seed) % 1_000_000, preset)
    levels = official(levels_path, preset)
    return levels[derive_seed("boxoban-level", episode_seed) % len(levels)], None

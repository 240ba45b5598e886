"""Where a Boxoban episode's level comes from: playbench's generator (default) or official level files."""

import random
from functools import lru_cache
from pathlib import Path
from typing import Any

from playbench.core.datafiles import read_data_text
from playbench.core.errors import PlaybenchError
from playbench.core.seeding import derive_seed
from playbench.suites.balrog.nle.boxoban.generator import generate
from playbench.suites.balrog.nle.boxoban.level import Level, level_files, parse_file, read_levels


@lru_cache(maxsize=256)
def generated(seed: int, preset: str) -> tuple[Level, tuple[str, ...]]:
    """The generated level of (seed, preset) and its solver solution (cached in-process)."""
    gen = generate(seed, preset)
    return gen.level, gen.solution.moves


@lru_cache(maxsize=8)
def official(path: str, preset: str, as_minihack: bool) -> tuple[Level, ...]:
    """Every level of the task's difficulty under a user-given path, read and checked once (cached in-process).

    ``as_minihack``: compat's reading, which also refuses files MiniHack would read otherwise (``read_levels``).
    """
    return tuple(read_levels(path, preset, as_minihack))


def official_level(path: str, preset: str, level_id: str) -> Level:
    """The level ``level_id`` (``FILE;N``, as ``read_levels`` names it) of the levels under ``path``.

    Its file alone is read (a leaderboard row's Boxoban episode played again: ``--instances``); PlaybenchError
    if there is no such level.
    """
    name = level_id.rpartition(";")[0]
    base, files = level_files(path, preset)
    found = next((file for file in files if file.relative_to(base).as_posix() == name), None)
    if found is not None:
        for level in _file_levels(str(found), name):
            if level.level_id == level_id:
                return level
    raise PlaybenchError(f"Boxoban level {level_id[:80]!r}: no such level under {path} ({preset})")


@lru_cache(maxsize=16)
def _file_levels(file: str, name: str) -> tuple[Level, ...]:
    return tuple(parse_file(read_data_text(Path(file), empty=None), name, file))


def check_levels(params: Any, preset: str) -> None:
    """``Task.check_inputs`` of the Boxoban tasks: read and check every level file of ``-T levels=``."""
    if params.levels is not None:
        official(params.levels, preset, bool(params.compat))


def balrog_draw(levels: tuple[Level, ...], seed: int) -> Level:
    """The level BALROG's episode with ``seed`` plays, given the levels in MiniHack's reading order.

    After making the env, BALROG's ``Evaluator.run_episode`` calls ``random.seed(seed)``, then
    ``env.reset(seed=seed)``; the first use of Python's ``random`` after that is MiniHack's
    ``BoxoHack.reset`` → ``get_lvl_gen`` → ``random.choice(self._levels)`` (NLE's ``seed`` draws from its
    own ``SystemRandom``). Facts: ``tests/balrog/data/boxoban_draw.json``.
    """
    return random.Random(seed).choice(levels)


def pick(
    episode_seed: int, preset: str, levels_path: str | None, balrog_seed: int | None = None
) -> tuple[Level, tuple[str, ...] | None]:
    """The level of an episode: generated from the seed, or one of the official files' levels.

    By default ``levels[H(seed) mod n]``. With ``balrog_seed`` (compat: the episode's NetHack seed, which
    BALROG seeds with the same number) BALROG's own draw over the levels as MiniHack lists them, the files
    taken in name order (MiniHack takes ``os.listdir``'s, which depends on the machine).
    """
    if levels_path is None:
        return generated(derive_seed("boxoban-level", episode_seed) % 1_000_000, preset)
    if balrog_seed is not None:
        return balrog_draw(official(levels_path, preset, True), balrog_seed), None
    levels = official(levels_path, preset, False)
    return levels[derive_seed("boxoban-level", episode_seed) % len(levels)], None

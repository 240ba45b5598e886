"""Make all of BALROG's TextWorld games (25 per task) and check each against the published facts.

    PYTHONPATH=src .venv/bin/python benchmarks/textworld_games.py [--tasks coin_collector ...] [--first N]
                                                                  [--cache DIR]

Games are made into a temporary cache (or ``--cache DIR``, kept), as many at once as there are cores,
exactly as ``eval`` makes them. For each game: the time to make it (child process, Inform 7 compile
included) and whether uuid, rooms, walkthrough (length and text), max score and objective equal the
published game's (``published.py``). Each game is one sample: prints min/median/max of its wall time
per task, and the CPU the task's games took in all (the child processes); goal: under 60 s per game on a
quiet core, and every game equal. No data set is read: the games are made from their published specs.
"""

import argparse
import os
import tempfile
import time
from pathlib import Path

from common import children_cpu_since, machine_note, spread

from playbench.suites.balrog.textworld.cache import ensure
from playbench.suites.balrog.textworld.game import check_published
from playbench.suites.balrog.textworld.published import GAMES
from playbench.suites.balrog.textworld.sets import game_set


def check(task: str, first: int, root: Path) -> tuple[int, list[float], float]:
    """(games equal to the published ones, seconds each game took to make, CPU seconds of all of them)."""
    refs = game_set(task, first, "balrog", first).games
    t0, before = time.perf_counter(), os.times()
    entries = ensure([ref.spec for ref in refs], root, show_progress=True)
    cpu = children_cpu_since(before)
    print(f"{task}: {len(refs)} games in {time.perf_counter() - t0:.0f} s wall, {cpu:.0f} s CPU")
    equal = 0
    for ref, entry in zip(refs, entries, strict=True):
        try:
            check_published(entry, ref)
            equal += 1
        except RuntimeError as exc:
            print(f"  DIFFERENT {exc}")
    return equal, [float(e.get("made_in_s", 0.0)) for e in entries], cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", nargs="*", default=list(GAMES))
    parser.add_argument("--first", type=int, default=25)
    parser.add_argument("--cache", type=Path)
    args = parser.parse_args()
    print(machine_note())
    with tempfile.TemporaryDirectory() as tmp:
        root = args.cache or Path(tmp)
        rows = []
        for task in args.tasks:
            equal, times, cpu = check(task, args.first, root)
            rows.append((task, equal, times, cpu))
        for task, equal, times, cpu in rows:
            print(f"{task:<18} equal {equal}/{len(times)} (goal: all); seconds to make a game, wall "
                  f"{spread(times, digits=1)} (goal < 60); CPU of all {len(times)}: {cpu:.0f} s")


if __name__ == "__main__":
    main()

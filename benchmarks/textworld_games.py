"""Make all of BALROG's TextWorld games (25 per task) and check each against the published facts.

    PYTHONPATH=src .venv/bin/python benchmarks/textworld_games.py [--tasks coin_collector ...] [--first N]
                                                                  [--cache DIR]

Games are made into a temporary cache (or ``--cache DIR``, kept), as many at once as there are cores,
exactly as ``eval`` makes them. For each game: the time to make it (child process, Inform 7 compile
included) and whether uuid, rooms, walkthrough (length and text), max score and objective equal the
published game's (``published.py``). Prints min/median/max per task; goal: under 60 s per game on a
quiet core, and every game equal.
"""

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from playbench.suites.balrog.textworld.cache import ensure
from playbench.suites.balrog.textworld.game import check_published
from playbench.suites.balrog.textworld.published import GAMES
from playbench.suites.balrog.textworld.sets import game_set


def check(task: str, first: int, root: Path) -> tuple[int, list[float]]:
    refs = game_set(task, first, "balrog", first).games
    t0 = time.perf_counter()
    entries = ensure([ref.spec for ref in refs], root, show_progress=True)
    print(f"{task}: {len(refs)} games in {time.perf_counter() - t0:.0f} s wall")
    equal = 0
    for ref, entry in zip(refs, entries, strict=True):
        try:
            check_published(entry, ref)
            equal += 1
        except RuntimeError as exc:
            print(f"  DIFFERENT {exc}")
    return equal, [float(e.get("made_in_s", 0.0)) for e in entries]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", nargs="*", default=list(GAMES))
    parser.add_argument("--first", type=int, default=25)
    parser.add_argument("--cache", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.cache or Path(tmp)
        rows = []
        for task in args.tasks:
            equal, times = check(task, args.first, root)
            rows.append((task, equal, len(times), times))
        print(f"\n{'task':<18}{'equal':>8}{'min s':>8}{'median s':>10}{'max s':>8}   goal: all equal, < 60 s/game")
        for task, equal, n, times in rows:
            print(f"{task:<18}{equal:>5}/{n:<2}{min(times):>8.1f}{statistics.median(times):>10.1f}{max(times):>8.1f}")


if __name__ == "__main__":
    main()

"""Re-play the Crafter episodes of the public BALROG leaderboard rows: the search over crafter's despawn choices.

Usage: ``python benchmarks/leaderboard_crafter.py SUBMISSIONS [ROW ...] [--jobs N]`` where SUBMISSIONS is the
``submissions`` folder of a checkout of github.com/balrog-ai/experiments and ROW names rows (``LLM/…``; all
rows with episode files when none). Each row is copied with every episode file (the workers' recorded seeds)
but only Crafter's steps, then verified, N rows at a time in their own processes (default 2: the goal's cores).
Prints per row verified / differing / not verifiable, the seconds and the seconds per Crafter episode (in the
rows' order), then the totals beside the goals: the whole leaderboard re-play (every environment of the 18
rows) in at most 30 minutes on 2 cores, of which Crafter's 180 episodes take at most a third (``GOAL_S``, one
core: the rows' seconds summed).
"""

import shutil
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from playbench.api.verify import verify
from playbench.suites.balrog.leaderboard import env_counts

GOAL_S = 10 * 60


def rows(submissions: Path, named: list[str]) -> list[Path]:
    """The named rows, else every row folder whose Crafter episodes are published."""
    if named:
        return [submissions / name for name in named]
    return [row for side in ("LLM", "VLM") for row in sorted((submissions / side).iterdir())
            if next(row.glob("crafter/*/*_run_*.csv"), None) is not None]


def crafter_only(row: Path, target: Path) -> Path:
    """The row's files without its summaries and with no steps table but Crafter's."""
    shutil.copytree(row, target, ignore=shutil.ignore_patterns("*.csv", "summary.json"))
    for table in row.glob("crafter/*/*_run_*.csv"):
        shutil.copy(table, target / table.relative_to(row))
    return target


def replay_row(row: Path) -> tuple[str, tuple[int, int, int], float, list[tuple[str, str]]]:
    """One row's Crafter episodes verified in a scratch copy: its line, counts, seconds and non-verified reasons."""
    with tempfile.TemporaryDirectory() as scratch:
        copied = crafter_only(row, Path(scratch) / row.name)
        began = time.perf_counter()
        result = verify(str(copied))
        seconds = time.perf_counter() - began
    counts = env_counts(result.findings).get("crafter", (0, 0, 0))
    reasons = []
    for finding in result.findings:
        if finding.name.startswith("balrog/crafter/") and finding.verdict != "verified":
            reason = finding.reason or (finding.difference.describe() if finding.difference else "")
            reasons.append((finding.verdict, f"{finding.name}: {reason}"))
    return f"{row.parent.name}/{row.name}", counts, seconds, reasons


def main() -> None:
    """Verify each row's Crafter episodes; print the table line and reasons, then the totals and the time."""
    args = sys.argv[1:]
    jobs = int(args.pop(args.index("--jobs") + 1)) if "--jobs" in args else 2
    args = [arg for arg in args if arg != "--jobs"]
    total: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    episodes, row_seconds = 0, 0.0
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for name, (verified, differing, unverifiable), seconds, notes in pool.map(replay_row,
                                                                                 rows(Path(args[0]), args[1:])):
            count = verified + differing + unverifiable
            episodes += count
            row_seconds += seconds
            total.update(verified=verified, differing=differing, unverifiable=unverifiable)
            for verdict, note in notes:
                reasons[note.split(": ", 1)[1].split(":")[0][:60]] += 1
                if verdict == "differs":
                    print(f"  differs: {note[:200]}")
            print(f"| {name} | {verified}/{differing}/{unverifiable} | {seconds:.0f} | {seconds / max(count, 1):.1f} |",
                  flush=True)
    elapsed = time.perf_counter() - start
    print(f"all: {total['verified']}/{total['differing']}/{total['unverifiable']} of {episodes} Crafter episodes "
          f"in {elapsed:.0f} s on {jobs} processes, the rows' {row_seconds:.0f} s summed "
          f"({row_seconds / max(episodes, 1):.1f} s an episode; goal: 180 in {GOAL_S} s, one core)")
    for reason, count in reasons.most_common():
        print(f"  {count:4d}  {reason}")


if __name__ == "__main__":
    main()

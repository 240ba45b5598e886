"""Re-play every public BALROG leaderboard row whose episodes are published, with ``playbench verify``.

Usage: ``python benchmarks/leaderboard_replay.py SUBMISSIONS [--without ENV ...] [--jobs N] [-T KEY=VALUE ...]``
where SUBMISSIONS is the ``submissions`` folder of a checkout of github.com/balrog-ai/experiments (commit
989931c: 18 rows publish their episodes, 16 LLM and 2 VLM). Prints, per row and environment, verified /
differing / not verifiable, the time per row and in all, beside the goal (all rows on 2 cores in at most 30
minutes). Rows are verified N at a time in their own processes (default 2: the goal's cores); the table keeps
the rows' order. TextWorld games are made on first use and cached (``python -m
playbench.suites.balrog.textworld.cache TASK N`` makes them beforehand). ``--without ENV`` re-plays each row
from a hard-linked copy that leaves that environment's folder out (its column reads —). ``-T`` is given to
``verify`` as on the command line: ``levels=PATH`` (the official Boxoban levels), ``nethack=PATH`` (a clang
build of ``libnethack.so``; see docs/reproduce.md).
"""

import os
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path

from playbench.api.verify import VerifyResult, verify
from playbench.suites.balrog.leaderboard import env_counts

GOAL_S = 30 * 60
ENVS = ("babyai", "crafter", "textworld", "babaisai", "minihack", "nle")


def rows(submissions: Path) -> list[Path]:
    """The row folders that hold episode files."""
    found = []
    for side in ("LLM", "VLM"):
        for row in sorted((submissions / side).iterdir()):
            if row.is_dir() and next(row.glob("*/**/*_run_*.json"), None) is not None:
                found.append(row)
    return found


def without(row: Path, envs: list[str], scratch: Path) -> Path:
    """The row itself, or a hard-linked copy of it without the ``envs`` folders."""
    if not envs:
        return row
    copy = scratch / row.parent.name / row.name
    shutil.copytree(row, copy, copy_function=os.link, ignore=lambda folder, names: envs if Path(folder) == row else [])
    return copy


def replay(row: Path, left_out: list[str], scratch: Path, settings: dict[str, str]) -> tuple[VerifyResult, float]:
    """One row verified (in a worker process), with the seconds it took."""
    began = time.perf_counter()
    result = verify(str(without(row, left_out, scratch)), settings)
    return result, time.perf_counter() - began


def options(args: list[str]) -> tuple[list[str], int, dict[str, str]]:
    """``--without`` environments, ``--jobs`` and the ``-T`` settings of the command line."""
    def values(flag: str) -> list[str]:
        return [args[i + 1] for i, arg in enumerate(args[:-1]) if arg == flag]

    jobs = values("--jobs")
    return values("--without"), int(jobs[-1]) if jobs else 2, dict(item.split("=", 1) for item in values("-T"))


def pass_row(row: Path, result: VerifyResult, took: float, per_env: dict[str, Counter[str]], total: Counter[str],
             reasons: Counter[str], differing: list[str]) -> None:
    """Print a row's table line and add its counts, reasons and differing episodes to the totals."""
    found = env_counts(result.findings)
    cells = []
    for env in ENVS:
        if env in found:
            v, d, n = found[env]
            per_env[env].update(verified=v, differing=d, unverifiable=n)
            cells.append(f"{v}/{d}/{n}")
        else:
            cells.append("—")
    total.update(verified=result.verified, differing=result.differing, unverifiable=result.not_verifiable)
    for finding in result.findings:
        if finding.verdict == "not-verifiable":
            reasons[re.sub(r"\d+", "N", finding.reason or "")[:110]] += 1
        elif finding.verdict == "differs" and finding.difference is not None:
            reasons["DIFFERS " + finding.task + " " + finding.difference.field] += 1
            at = "" if finding.difference.step is None else f" step {finding.difference.step}"
            differing.append(f"{row.parent.name}/{row.name} {finding.name}{at} {finding.difference.field}")
    line = f"{result.verified}/{result.differing}/{result.not_verifiable}"
    print(f"| {row.parent.name}/{row.name} | " + " | ".join(cells) + f" | {line} | {took:.0f} |", flush=True)


def main() -> None:
    """Verify each row; print its table line and the reasons, then the totals and the time."""
    submissions = Path(sys.argv[1])
    left_out, jobs, settings = options(sys.argv[2:])
    scratch = Path(tempfile.mkdtemp(prefix="leaderboard-replay-"))
    total: Counter[str] = Counter()
    per_env: dict[str, Counter[str]] = {env: Counter() for env in ENVS}
    reasons: Counter[str] = Counter()
    differing: list[str] = []
    start = time.perf_counter()
    print("| row | " + " | ".join(ENVS) + " | all | seconds |")
    print("| --- |" + " --- |" * (len(ENVS) + 2))
    found_rows = rows(submissions)
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        played = pool.map(partial(replay, left_out=left_out, scratch=scratch, settings=settings), found_rows)
        for row, (result, took) in zip(found_rows, played, strict=True):
            pass_row(row, result, took, per_env, total, reasons, differing)
    elapsed = time.perf_counter() - start
    shutil.rmtree(scratch)
    print("| all rows | " + " | ".join("—" if env in left_out else f"{c['verified']}/{c['differing']}/{c['unverifiable']}"
                                       for env, c in per_env.items())
          + f" | {total['verified']}/{total['differing']}/{total['unverifiable']} | {elapsed:.0f} |")
    print(f"\ncells: verified/differing/not verifiable; time {elapsed:.0f} s on {jobs} processes "
          f"(goal <= {GOAL_S} s on 2 cores)")
    print("\nreasons (not verifiable) and differences, by count:")
    for reason, n in reasons.most_common():
        print(f"  {n:5d}  {reason}")
    print("\ndiffering episodes (first differing step):")
    for line in differing:
        print("  " + line)


if __name__ == "__main__":
    main()

"""``playbench board`` on a leaderboard-sized board: 36 synthetic BALROG submission folders, and the real rows.

Each synthetic folder is shaped like a published LLM row: 255 episodes over BALROG's 58 tasks (BabyAI 5 x 10,
Baba Is AI 40 x 3, Crafter 10, TextWorld 3 x 10, MiniHack 8 x 5, NLE 5), each episode a JSON file with its
token counts and a CSV of steps. Rows draw their own seeds, except that ``--sharing`` rows play row 0's
instances (as ``eval --instances`` would), so every two of those pair (``compare``'s overall row for each): by
default all 36, 630 pairs, the worst case. With ``--submissions DIR`` (a checkout of BALROG's leaderboard
``submissions/``) the real rows are boarded too, as the documented command boards them: its first row as
yours and ``--with DIR`` (all 36 rows, the 18 that publish a summary alone among them).
Timed, ``--repeat`` times, CPU and wall: the whole command (``playbench board ROW0 --with ... -o SITE``,
interpreter start included) and ``write_board`` alone in this process.

Goal (issue "The published record", item 4): the board of 36 rows builds in <= 10 s.

    .venv/bin/python benchmarks/board_speed.py [--rows 36] [--sharing 36] [--repeat 3] [--submissions DIR]
"""

import argparse
import json
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from playbench.suites.balrog.facts import TASKS
from playbench.suites.balrog.submission import episode_path, original_name

CLI = [sys.executable, "-m", "playbench.cli.main"]
EPISODES = {"babyai": 10, "babaisai": 3, "crafter": 10, "textworld": 10, "minihack": 5, "nle": 5}
GOAL_S = 10.0


def write_row(folder: Path, k: int, seeds: dict[str, list[int]]) -> None:
    """One synthetic submission folder: row ``k``'s episodes of every task, played on ``seeds``."""
    rng = random.Random(k)
    skill = rng.random()
    for row in TASKS:
        env, task = original_name(row.id)
        for index, seed in enumerate(seeds[row.id]):
            steps = rng.randint(5, 100)
            log = {"task": task, "action_frequency": {"up": steps}, "input_tokens": steps * rng.randint(800, 3000),
                   "output_tokens": steps * 5, "done": True, "episode_return": 0.0, "num_steps": steps,
                   "failed_candidates": ["I think the best action is up.\nAction: up"] * 3,
                   "progression": round(min(1.0, max(0.0, rng.gauss(skill, 0.3))), 2), "process_num": None,
                   "seed": seed, "agent": {"type": "naive", "max_text_history": 16, "max_image_history": 0},
                   "client": {"client_name": "vllm" if k % 2 else "openai", "model_id": f"model-{k}",
                              "generate_kwargs": {"temperature": 0.0, "max_tokens": 1024}}}
            path = folder / episode_path(env, task, index)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(log))
            path.with_suffix(".csv").write_text("Step,Action,Reasoning,Observation,Reward,Done\n"
                                                + "".join(f"{i},up,,a wall,0,False\n" for i in range(steps)))
    for env in EPISODES:
        (folder / env / f"{env}_summary.json").write_text("{}")


def make_rows(root: Path, rows: int, sharing: int) -> list[Path]:
    """``rows`` folders under ``root/rows``; rows 1..sharing-1 reuse row 0's seeds."""
    rng = random.Random(0)
    shared = {t.id: [rng.randrange(2**31) for _ in range(EPISODES[t.env])] for t in TASKS}
    out = []
    for k in range(rows):
        seeds = shared if k < sharing else {t.id: [rng.randrange(2**31) for _ in range(EPISODES[t.env])]
                                            for t in TASKS}
        folder = root / "rows" / f"2025{k:04d}_row-{k}"
        write_row(folder, k, seeds)
        out.append(folder)
    return out


def real_board(submissions: Path, root: Path, repeat: int) -> None:
    """Time ``playbench board ROW0 --with SUBMISSIONS -o SITE`` on the real rows (ROW0: the first with episodes)."""
    from playbench.cli.board_cmd import _expand, open_rows
    from playbench.report.board import read_rows, write_rows

    first = next(p for p in sorted(submissions.glob("*/*")) if any(p.rglob("*_run_*.json")))

    def whole(i: int) -> None:
        subprocess.run([*CLI, "board", str(first), "--with", str(submissions), "-o", str(root / f"site-{i}")],
                       check=True, capture_output=True)

    def inside(i: int) -> None:
        left: list = []
        paths = [(first, False), *_expand((str(submissions),), [first], left)]
        given, _ = open_rows(paths, {}, 1)
        rows, notes, unread = read_rows(given)
        write_rows(rows, notes, [*left, *unread], root / f"inside-{i}")

    timed("playbench board (whole command)", whole, repeat)
    timed("write_board (reading included)", inside, repeat)
    data = json.loads((root / "site-0" / "board.json").read_text())
    print(f"  {len(data['rows'])} rows ({sum(r['published'] for r in data['rows'])} a published summary alone, "
          f"{sum(bool(r['unpaired']) for r in data['rows'])} not paired), {len(data['pairs'])} pairs, "
          f"{len(data['rows_left_out'])} left out")


def timed(name: str, run: Callable[[int], None], repeat: int) -> None:
    """``run(i)`` ``repeat`` times; its wall and CPU time (its own process and its children), with the goal."""
    wall, cpu = [], []
    for i in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0, c0 = time.perf_counter(), time.process_time()
        run(i)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0 + after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    print(f"  {name}: wall min {min(wall):.2f} s, median {statistics.median(wall):.2f} s (goal <= {GOAL_S:.0f} s); "
          f"CPU min {min(cpu):.2f} s, median {statistics.median(cpu):.2f} s (goal <= {GOAL_S:.0f} s)")


def board(folders: list[Path], root: Path, repeat: int, pairs: int | None) -> None:
    """Time the board of ``folders`` (the first one as yours) and check its rows (and pairs, when known)."""
    from playbench.api import formats
    from playbench.report.board import Given, write_board
    from playbench.report.compare import Folder

    def whole(i: int) -> None:
        subprocess.run([*CLI, "board", str(folders[0]), *(a for f in folders[1:] for a in ("--with", str(f))),
                        "-o", str(root / f"site-{i}")], check=True, capture_output=True)

    def inside(i: int) -> None:
        read = formats.compared(tuple(folders), {})
        given = [Given(Folder(path, *found), k == 0) for k, (path, found) in enumerate(zip(folders, read, strict=True))
                 if found is not None]
        write_board(given, root / f"inside-{i}")

    timed("playbench board (whole command)", whole, repeat)
    timed("write_board (reading included)", inside, repeat)
    data = json.loads((root / "site-0" / "board.json").read_text())
    assert len(data["rows"]) == len(folders) and (pairs is None or len(data["pairs"]) == pairs)
    print(f"  {len(data['rows'])} rows, {len(data['pairs'])} pairs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=36)
    parser.add_argument("--sharing", type=int, default=36)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--submissions", type=Path, help="BALROG's leaderboard submissions/ folder: its rows too")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        folders = make_rows(root, args.rows, args.sharing)
        episodes = sum(1 for f in folders for p in f.rglob("*_run_*.json"))
        pairs = args.sharing * (args.sharing - 1) // 2
        print(f"{args.rows} synthetic rows, {episodes} episodes ({episodes // args.rows} a row), {args.sharing} rows "
              f"on shared instances ({pairs} pairs): written in {time.perf_counter() - t0:.1f} s")
        board(folders, root / "synthetic", args.repeat, pairs)
        if args.submissions:
            print(f"the real rows of {args.submissions}:")
            real_board(args.submissions, root / "real", args.repeat)


if __name__ == "__main__":
    main()

"""``playbench board`` on a leaderboard-sized board: 36 synthetic BALROG submission folders.

Each folder is shaped like a published LLM row: 255 episodes over BALROG's 58 tasks (BabyAI 5 x 10,
Baba Is AI 40 x 3, Crafter 10, TextWorld 3 x 10, MiniHack 8 x 5, NLE 5), each episode a JSON file with its
token counts and a CSV of steps. Rows draw their own seeds, except that ``--sharing`` rows play row 0's
instances (as ``eval --instances`` would), so every two of those pair (``compare`` runs for each such pair).
Timed, ``--repeat`` times: the whole command (``playbench board ROW0 --with DIR -o SITE``, interpreter start
included) and ``write_board`` alone in this process.

Goal (issue "The published record", item 4): the board of 36 rows builds in <= 10 s.

    .venv/bin/python benchmarks/board_speed.py [--rows 36] [--sharing 6] [--repeat 3]
"""

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=36)
    parser.add_argument("--sharing", type=int, default=6)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        folders = make_rows(root, args.rows, args.sharing)
        episodes = sum(1 for f in folders for p in f.rglob("*_run_*.json"))
        print(f"{args.rows} rows, {episodes} episodes ({episodes // args.rows} a row), {args.sharing} rows on "
              f"shared instances ({args.sharing * (args.sharing - 1) // 2} pairs): written in "
              f"{time.perf_counter() - t0:.1f} s")
        from playbench.api import formats
        from playbench.report.board import write_board
        from playbench.report.compare import Folder

        whole, inside = [], []
        for i in range(args.repeat):
            site = root / f"site-{i}"
            t0 = time.perf_counter()
            subprocess.run([*CLI, "board", str(folders[0]), "--with", str(root / "rows"), "-o", str(site)],
                           check=True, capture_output=True)
            whole.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            read = formats.compared(tuple(folders), {})
            sources = [(Folder(path, *found), k == 0) for k, (path, found) in enumerate(zip(folders, read,
                                                                                            strict=True))
                       if found is not None]
            write_board(sources, root / f"inside-{i}")
            inside.append(time.perf_counter() - t0)
        board = json.loads((root / "site-0" / "board.json").read_text())
        assert len(board["rows"]) == args.rows and len(board["pairs"]) == args.sharing * (args.sharing - 1) // 2
        for name, samples in (("playbench board (whole command)", whole), ("write_board (reading included)",
                                                                          inside)):
            print(f"{name}: min {min(samples):.2f} s, median {statistics.median(samples):.2f} s, "
                  f"max {max(samples):.2f} s   (goal <= {GOAL_S:.0f} s)")


if __name__ == "__main__":
    main()

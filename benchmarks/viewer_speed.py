"""The viewer on big runs: CPU to write the site, its size beside the run's, and page times in Chromium.

Two runs, played first (or reused from ``--cache DIR``):
  - wide: 10,000 Bandit episodes of 5 steps with the random agent (many episodes);
  - long: one Bandit episode of 5,000 steps with the naive agent on the mock model (every step carries its
    prompt window, so the record is as heavy as a real model run's).
Then, ``--repeat`` times and interleaved: ``playbench view`` on each (CPU of the whole command, and of
``write_site`` alone in this process), and in Debian's Chromium the time until the wide run's overview shows
its first episode rows, until the long episode's page shows its first step, and until its last step shows.

Goals (issue 18 and 20): site written in ≤ 5 s CPU for 10,000 episodes; site ≤ 1× the run folder;
overview of 10,000 episodes < 1 s; a 5,000-step episode < 1 s.

    .venv/bin/python benchmarks/viewer_speed.py [--episodes 10000] [--steps 5000] [--repeat 3] [--cache DIR]
"""

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

CLI = [sys.executable, "-m", "playbench.cli.main"]


def play(log: Path, args: list[str]) -> Path:
    """Play a run into ``log`` unless one is there already; returns the run folder."""
    runs = sorted(p for p in log.glob("*") if (p / "run.json").exists()) if log.exists() else []
    if runs:
        return runs[0]
    t0 = time.perf_counter()
    subprocess.run([*CLI, "eval", *args, "--log-dir", str(log), "--quiet"], check=True)
    run = next(p for p in log.iterdir() if (p / "run.json").exists())
    print(f"  played {run.name} in {time.perf_counter() - t0:.0f} s")
    return run


def size(path: Path) -> tuple[int, int]:
    """(bytes of content, bytes on disk) of every file below ``path``."""
    content = disk = 0
    for root, _, files in os.walk(path):
        for name in files:
            st = os.stat(os.path.join(root, name))
            content += st.st_size
            disk += st.st_blocks * 512
    return content, disk


def child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def view_command(run: Path, site: Path) -> tuple[float, float]:
    """(CPU, wall) of ``playbench view RUN -o SITE`` as a user types it."""
    c0, t0 = child_cpu(), time.perf_counter()
    subprocess.run([*CLI, "view", str(run), "-o", str(site)], check=True, capture_output=True)
    return child_cpu() - c0, time.perf_counter() - t0


def write_in_process(run: Path, site: Path) -> tuple[float, float]:
    """(CPU, wall) of ``write_site`` alone (no interpreter start-up, no imports)."""
    from playbench.log import read_run
    from playbench.report.viewer import write_site

    c0, t0 = time.process_time(), time.perf_counter()
    write_site([read_run(run)], site)
    return time.process_time() - c0, time.perf_counter() - t0


def line(name: str, values: list[float], unit: str, goal: str) -> None:
    print(f"  {name:<62} min {min(values):8.3f}  median {statistics.median(values):8.3f}  "
          f"max {max(values):8.3f} {unit:<3} goal {goal}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--episodes", type=int, default=10_000)
    parser.add_argument("--steps", type=int, default=5_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cache", type=Path, default=None, help="keep the played runs here and reuse them")
    args = parser.parse_args()
    if args.repeat < 3:
        parser.error("--repeat must be at least 3 (min/median/max of interleaved repetitions)")
    print(f"data: two runs played here (no data set needed): {args.episodes} Bandit episodes of 5 steps; "
          f"one Bandit episode of {args.steps} steps (naive agent, mock model)")
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        cache = args.cache or tmp
        wide = play(cache / f"wide-{args.episodes}", ["smartplay/bandit-highlow", "-T", "max_steps=5", "--episodes",
                                                      str(args.episodes), "--max-episodes", "64"])
        long = play(cache / f"long-{args.steps}", ["smartplay/bandit-highlow", "-T", f"max_steps={args.steps}",
                                                   "--agent", "naive", "--model", "mock/demo", "--episodes", "1"])
        sites = {"wide": tmp / "site-wide", "long": tmp / "site-long"}
        runs = {"wide": wide, "long": long}
        cpu: dict[str, list[float]] = {}
        for _ in range(args.repeat):  # interleaved: each variant once per round
            for name in ("wide", "long"):
                c, w = view_command(runs[name], sites[name])
                cpu.setdefault(f"{name}: view command CPU", []).append(c)
                cpu.setdefault(f"{name}: view command wall", []).append(w)
                c, w = write_in_process(runs[name], sites[name])
                cpu.setdefault(f"{name}: write_site CPU (in process)", []).append(c)
        print("writing the site (s)")
        for key, values in cpu.items():
            goal = "≤ 5 s CPU" if key.startswith("wide") and "CPU" in key else "-"
            line(key, values, "s", goal)
        print("size (site / run folder)")
        for name in ("wide", "long"):
            (sc, sd), (rc, rd) = size(sites[name]), size(runs[name])
            print(f"  {name}: site {sc / 1e6:.2f} MB content, {sd / 1e6:.2f} MB on disk; run {rc / 1e6:.2f} MB "
                  f"content, {rd / 1e6:.2f} MB on disk; ratio {sc / rc:.3f} (content) {sd / rd:.3f} (disk)"
                  f"   goal ≤ 1×")
        browser_times(sites, args)


def browser_times(sites: dict[str, Path], args: argparse.Namespace) -> None:
    from playwright.sync_api import sync_playwright

    episode = (sites["long"] / "episode.html").as_uri() + "#r=0&t=smartplay%2Fbandit-highlow&i=0"
    times: dict[str, list[float]] = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])

        same = browser.new_page()  # one tab reused, as when following links

        def timed(key: str, url: str, ready: Callable[[Any], None], fresh: bool) -> None:
            page = browser.new_page() if fresh else same
            if not fresh:
                page.goto("about:blank")
            t0 = time.perf_counter()
            page.goto(url)
            ready(page)
            tab = "new tab" if fresh else "same tab"
            times.setdefault(f"{key} ({tab})", []).append((time.perf_counter() - t0) * 1e3)
            if key.startswith("long"):
                t0 = time.perf_counter()
                page.keyboard.press("End")
                page.wait_for_selector(f".nav .where:text-is('{args.steps} of {args.steps}')")
                times.setdefault(f"long: jump to the last step ({tab})", []).append((time.perf_counter() - t0) * 1e3)
            if fresh:
                page.close()

        overview = sites["wide"].joinpath("index.html").as_uri()
        timed("warm-up", overview, lambda p: p.wait_for_selector("#episodes-0 tbody tr"), True)
        times.clear()
        for _ in range(args.repeat):
            for fresh in (True, False):
                timed(f"wide: overview of {args.episodes} episodes, first rows drawn", overview,
                      lambda p: p.wait_for_selector("#episodes-0 tbody tr"), fresh)
                timed(f"long: {args.steps}-step episode, first step drawn", episode,
                      lambda p: p.wait_for_selector(".step"), fresh)
                timed("anchor: overview of a 1-episode run", sites["long"].joinpath("index.html").as_uri(),
                      lambda p: p.wait_for_selector("#episodes-0 tbody tr"), fresh)
        browser.close()
    print("in Chromium (ms; the anchor is the floor of opening any page on this machine)")
    for key, values in times.items():
        line(key, values, "ms", "-" if key.startswith("anchor") else "< 1000 ms")


if __name__ == "__main__":
    main()

"""How fast the viewer opens a large run: site-writing time and page-load time in headless Chromium.

Plays 10,000 short episodes (bandit with 5 steps, random agent), writes the site, then measures in
Debian's Chromium how long the run overview takes until the first page of the episode list is drawn,
and how long one episode page takes.

    .venv/bin/python benchmarks/viewer_speed.py [--episodes 10000]
"""

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--episodes", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "runs"
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "playbench.cli.main", "eval", "smartplay/bandit-highlow", "-T",
                        "max_steps=5", "--episodes", str(args.episodes), "--max-episodes", "64", "--log-dir", str(log),
                        "--quiet"], check=True)
        print(f"run of {args.episodes} episodes: {time.perf_counter() - t0:.1f} s")
        run_dir = next(log.iterdir())
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, "-m", "playbench.cli.main", "view", str(run_dir), "-o",
                              str(Path(tmp) / "site")], check=True, capture_output=True, text=True)
        print(f"writing the site: {time.perf_counter() - t0:.1f} s")
        index = Path(out.stdout.strip())
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            page = browser.new_page()
            t0 = time.perf_counter()
            page.goto(index.as_uri())
            page.wait_for_selector("#episodes-0 table tr td a")
            print(f"overview with the first page of {args.episodes} episodes drawn: "
                  f"{(time.perf_counter() - t0) * 1e3:.0f} ms (rows on the page: "
                  f"{page.locator('#episodes-0 table tr').count() - 1})")
            t0 = time.perf_counter()
            page.goto(index.with_name("episode.html").as_uri() + "#r=0&t=smartplay%2Fbandit-highlow&i=9999")
            page.wait_for_selector(".step")
            print(f"one episode page: {(time.perf_counter() - t0) * 1e3:.0f} ms")
            browser.close()


if __name__ == "__main__":
    main()

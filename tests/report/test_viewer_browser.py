"""The viewer in a real headless Chromium: pages render, episodes open, hostile text never runs."""

import json
import shutil
from pathlib import Path

import pytest

from helpers import only_run_dir, run_cli
from playbench.log import read_run

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
HOSTILE = [
    "<script>window.__pwned = 'script'</script>",
    "<img src=x onerror=\"window.__pwned = 'img'\">",
    "<a href=\"javascript:window.__pwned='link'\">click me</a>",
    "</script><script>window.__pwned='breakout'</script>",
]


def plant_hostile_outputs(run_dir: Path) -> None:
    """Rewrite the first episode's raw outputs as a hostile model would have written them."""
    lines = (run_dir / "episodes.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    log_run = read_run(run_dir)
    record = next(r for r in log_run.read_episodes() if (r.task, r.index) == (first["task"], first["index"]))
    steps = [json.loads(s.json_line()) for s in log_run.read_trajectory(record)]
    for i, step in enumerate(steps):
        step["raw_output"] = HOSTILE[i % len(HOSTILE)]
        step["observation"] = HOSTILE[(i + 1) % len(HOSTILE)] + "\n" + step["observation"]
    # the edited steps go to a file of their own (the first layout, still read) that the record names
    first["trajectory"] = f"trajectories/edited/{first['index']:06d}.jsonl"
    (run_dir / first["trajectory"]).parent.mkdir(parents=True, exist_ok=True)
    (run_dir / first["trajectory"]).write_text("".join(json.dumps(s) + "\n" for s in steps))
    (run_dir / "episodes.jsonl").write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    log = tmp_path_factory.mktemp("runs")
    res = run_cli("eval", "smartplay/hanoi-3", "smartplay/bandit-highlow", "--episodes", "5", "--log-dir", str(log),
                  "--quiet")
    assert res.returncode == 0, res.stderr
    run_dir = only_run_dir(log)
    plant_hostile_outputs(run_dir)
    out = tmp_path_factory.mktemp("site")
    res = run_cli("view", str(run_dir), "--output", str(out))
    assert res.returncode == 0, res.stderr
    return Path(res.stdout.strip())


def test_viewer_renders_and_never_runs_model_text(site):
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).exists(), "Debian's chromium must be installed (scripts/setup.sh does it)"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page()
        errors = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(site.as_uri())
        page.wait_for_selector("#episodes-0 table tr td a")
        assert page.locator("#run-0 table.tasks").inner_text().count("smartplay/") >= 2
        # filters: only hanoi episodes
        page.select_option("#episodes-0 select >> nth=0", "smartplay/hanoi-3")
        assert page.locator("#episodes-0 table tr").count() == 1 + 5
        # open the hostile episode by an ordinary link
        page.locator("#episodes-0 table a", has_text="#0").first.click()
        page.wait_for_selector(".step")
        assert "episode.html#r=0&t=smartplay%2Fhanoi-3&i=0" in page.url
        assert page.locator(".step").count() >= 1
        text = page.locator("#episode").inner_text()
        assert "<script>window.__pwned = 'script'</script>" in text
        assert page.locator(".step svg.hanoi rect.disk").count() == 3  # the Hanoi rods, drawn from the text
        assert page.locator("#episode a").count() == 0  # the hostile link is text, not a link
        page.wait_for_timeout(300)
        assert page.evaluate("typeof window.__pwned") == "undefined"
        # the address is stable: opening it directly shows the same episode
        again = browser.new_page()
        again.goto(page.url)
        again.wait_for_selector(".step")
        assert again.locator("h2").first.inner_text() == "smartplay/hanoi-3 — episode 0"
        assert again.evaluate("typeof window.__pwned") == "undefined"
        assert not errors, errors
        browser.close()


def test_viewer_shows_the_frames_a_vlm_saw(tmp_path):
    from playwright.sync_api import sync_playwright

    log = tmp_path / "runs"
    res = run_cli("eval", "balrog/babaisai/goto_win", "-T", "images=true", "--episodes", "1", "--log-dir", str(log),
                  "--quiet")
    assert res.returncode == 0, res.stderr
    run_dir = only_run_dir(log)
    log_run = read_run(run_dir)
    first = log_run.read_trajectory(log_run.episodes()[0])[0].model_dump()
    assert first["frame"] == "trajectories/balrog/babaisai/goto_win/000000/00000.png"
    index = Path(run_cli("view", str(run_dir), "--output", str(tmp_path / "site")).stdout.strip())
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page()
        page.goto(index.with_name("episode.html").as_uri() + "#r=0&t=balrog%2Fbabaisai%2Fgoto_win&i=0")
        widths = []
        for _ in range(3):  # the frame of each step, one step at a time
            page.wait_for_selector(".step img.picture")
            page.wait_for_function("Array.from(document.images).every(i => i.complete)")
            widths += page.evaluate("Array.from(document.querySelectorAll('.step img.picture')).map(i => i.naturalWidth)")
            page.keyboard.press("ArrowRight")
        assert len(widths) == 3 and all(w == 256 for w in widths)
        browser.close()

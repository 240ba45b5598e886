"""Every page kind of the viewer in Debian's Chromium, checked by what it shows.

Two real runs of the same tasks and seed (the naive agent on the mock model, and the random agent): the
overview (run facts, error bars, sorting), search, the transcript's step navigator, the side-by-side page,
``view --live`` on a run that grows, and the pictures drawn from each game's observation text.
"""

import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest

import helpers
from helpers import PLAYBENCH, only_run_dir, run_cli
from playbench.core.registry import get_task

TASKS = ["smartplay/hanoi-3", "smartplay/bandit-highlow"]
STEPS = 12


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    out = {}
    for name, agent in (("model", ["--agent", "naive", "--model", "mock/demo"]), ("random", ["--agent", "random"])):
        log = tmp_path_factory.mktemp(name)
        res = run_cli("eval", *TASKS, *agent, "-T", f"max_steps={STEPS}", "--episodes", "3", "--log-dir", str(log),
                      "--quiet")
        assert res.returncode == 0, res.stderr
        out[name] = only_run_dir(log)
    site = tmp_path_factory.mktemp("site")
    res = run_cli("view", str(out["model"]), str(out["random"]), "--output", str(site))
    assert res.returncode == 0, res.stderr
    out["site"] = site
    return out


def open_page(browser, url: str):
    return helpers.open_page(browser, url, viewport={"width": 1280, "height": 900})


def column(page, table: str, n: int) -> list[str]:
    return page.eval_on_selector_all(f"{table} tbody tr", f"rows => rows.map(r => r.cells[{n}].textContent)")


def test_overview_facts_error_bars_and_sorting(runs, browser, tmp_path):
    page, errors, requests = open_page(browser, (runs["site"] / "index.html").as_uri())
    page.wait_for_selector("#episodes-1 tbody tr")
    page.screenshot(path=str(tmp_path / "overview.png"), full_page=True)
    assert (tmp_path / "overview.png").stat().st_size > 20_000
    model = page.locator("#run-0 table.facts").inner_text()
    assert "mock/demo" in model and "naive" in model and "6 of 6 scheduled episodes recorded (complete)" in model
    assert " in · " in model and "calls" in model and "playbench" in model  # tokens and versions in words
    listed = page.locator("table.runs tbody tr").all_inner_texts()  # one line per run, at the top
    assert len(listed) == 2 and "mock/demo\tnaive\t0\t6 of 6" in listed[0] and "-\trandom\t0\t6 of 6" in listed[1]
    reference = page.locator("#run-1 table.facts").inner_text()
    assert "none: the reference agent random plays without one" in reference
    text = page.locator("main").inner_text()
    assert "model None" not in text and "None" not in text and '{"' not in text  # no raw JSON, no Python None
    # per-task tables: mean ± SE with an error bar for score and completion
    assert page.locator("#run-0 table.tasks tbody tr").count() == 2
    assert page.locator("#run-0 table.tasks .eb .ebi").count() == 4
    assert all("±" in cell for cell in column(page, "#run-0 table.tasks", 4))
    # sorting the task table by score: Bandit's (about 5 per 12 pulls) sorts above Hanoi's (0 to 3)
    page.locator("#run-0 table.tasks th", has_text="score").click()
    assert [t.startswith("smartplay/hanoi") for t in column(page, "#run-0 table.tasks", 0)] == [True, False]
    page.locator("#run-0 table.tasks th", has_text="score").click()
    assert [t.startswith("smartplay/hanoi") for t in column(page, "#run-0 table.tasks", 0)] == [False, True]
    # sorting the episode list by score, both ways
    page.locator("#episodes-0 th", has_text="score").click()
    scores = [float(x) for x in column(page, "#episodes-0 table", 4)]
    assert scores == sorted(scores) and scores[0] < scores[-1]
    page.locator("#episodes-0 th", has_text="score").click()
    assert [float(x) for x in column(page, "#episodes-0 table", 4)] == sorted(scores, reverse=True)
    assert all(url.startswith("file://") for url in requests)  # no network
    assert not errors, errors


def test_search_finds_text_in_episodes(runs, browser):
    page, errors, _ = open_page(browser, (runs["site"] / "index.html").as_uri())
    page.wait_for_selector("#episodes-1 tbody tr")
    page.fill("#search-q", "slot machine")
    page.press("#search-q", "Enter")
    page.wait_for_selector("#search-out .hits")
    hits = page.locator("#search-out .hits").inner_text()
    assert hits.endswith("in 12 episodes") and not hits.startswith("0 ")
    tasks = set(column(page, "#search-out table", 1))
    assert tasks == {"smartplay/bandit-highlow"}
    page.locator("#search-out tbody a").first.click()
    page.wait_for_selector(".step")
    assert "slot machine" in page.locator(".step").inner_text()
    page.goto((runs["site"] / "index.html").as_uri())
    page.fill("#search-q", "no episode says this")
    page.press("#search-q", "Enter")
    page.wait_for_selector("#search-out .hits")
    assert page.locator("#search-out .hits").inner_text().startswith("0 matches in 12 episodes")
    assert not errors, errors


def test_transcript_step_navigator(runs, browser, tmp_path):
    url = (runs["site"] / "episode.html").as_uri() + "#r=0&t=smartplay%2Fhanoi-3&i=0"
    page, errors, _ = open_page(browser, url)
    page.wait_for_selector(".step")
    where = page.locator(".nav .where")
    assert where.inner_text() == f"1 of {STEPS}"
    assert page.locator(".step").count() == 1  # one step on the page at a time
    page.screenshot(path=str(tmp_path / "episode.png"), full_page=True)
    # role-styled messages; the manual, sent first at every step, folded away
    manual = page.locator("#episode > details.role-system")
    assert "system prompt and manual" in manual.locator("summary").inner_text()
    assert manual.get_attribute("open") is None and "three rods" in manual.locator("pre").text_content()
    assert page.locator(".step .msg.role-user").count() >= 1 and page.locator(".step .role-assistant").count() == 1
    facts = page.locator(".step .facts").inner_text()
    assert facts.startswith("reward ") and " in · " in facts  # reward and tokens of the step
    assert page.locator(".step h3 .good, .step h3 .bad").count() == 1  # valid or invalid, said
    assert page.locator(".step svg.hanoi rect.disk").count() == 3
    page.keyboard.press("ArrowRight")
    assert where.inner_text() == f"2 of {STEPS}"
    assert page.locator(".step h3").inner_text().startswith("step 1")
    assert page.locator(".step details.earlier").count() == 1  # what the previous step sent, folded
    page.keyboard.press("End")
    assert where.inner_text() == f"{STEPS} of {STEPS}"
    page.locator(".nav .slider").fill("5")
    assert where.inner_text() == f"6 of {STEPS}"
    assert "s=5" in page.url
    again, _, _ = open_page(browser, page.url)  # the address keeps the step
    again.wait_for_selector(".step")
    assert again.locator(".nav .where").inner_text() == f"6 of {STEPS}"
    assert page.evaluate("document.documentElement.scrollHeight") < 4000
    # find in this episode: the next step whose text holds the words
    page.keyboard.press("Home")
    page.fill(".finder input", "[2, 1, 0]")  # all three disks on one rod: the first observation
    page.press(".finder input", "Enter")
    assert page.locator(".finder span").inner_text().strip().endswith("step(s) hold it")
    assert "[2, 1, 0]" in page.locator(".step .observation pre").text_content()
    page.fill(".finder input", "no step says this")
    page.press(".finder input", "Enter")
    assert page.locator(".finder span").inner_text().strip() == "no step holds it"
    assert not errors, errors


def test_side_by_side(runs, browser, tmp_path):
    page, errors, _ = open_page(browser, (runs["site"] / "index.html").as_uri())
    page.wait_for_selector("#shared table")
    assert page.locator("#shared h2").inner_text() == "Side by side: 6 episodes recorded in two or more runs"
    page.locator("#shared a", has_text="smartplay/hanoi-3").first.click()
    page.wait_for_selector(".side .column .step")
    assert "compare.html#t=smartplay%2Fhanoi-3&i=0" in page.url
    page.screenshot(path=str(tmp_path / "compare.png"), full_page=True)
    heads = page.locator(".side .column > h3").all_inner_texts()
    assert heads == ["run 0: mock/demo", "run 1: random"]
    assert [h.split(" ")[1] for h in page.locator(".side .step h3").all_inner_texts()] == ["0", "0"]
    page.keyboard.press("ArrowRight")
    assert [h.split(" ")[1] for h in page.locator(".side .step h3").all_inner_texts()] == ["1", "1"]
    # where the two agents part ways, and a button that goes there
    parted = page.locator(".divergence").inner_text()
    step = int(parted.split("at step ")[1].split()[0])
    page.locator(".divergence button").click()
    assert [h.split(" ")[1] for h in page.locator(".side .step h3").all_inner_texts()] == [str(step)] * 2
    executed = page.locator(".side .step .action").all_inner_texts()
    assert executed[0].split("executed: ")[1] != executed[1].split("executed: ")[1]
    # the same episode: the same first observation in both runs
    page.keyboard.press("Home")
    first = page.locator(".side .column").nth(0).locator(".observation pre").text_content()
    assert first == page.locator(".side .column").nth(1).locator(".observation pre").text_content()
    assert not errors, errors


def test_live_view_follows_a_growing_run(runs, browser, tmp_path):
    from playwright.sync_api import expect

    run = tmp_path / "run"
    shutil.copytree(runs["random"], run)
    lines = (run / "episodes.jsonl").read_text().splitlines(keepends=True)
    (run / "episodes.jsonl").write_text("".join(lines[:2]))
    site = tmp_path / "site"
    proc = subprocess.Popen([*PLAYBENCH, "view", str(run), "--live", "--interval", "0.3", "-o", str(site)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not (site / "data" / "live.js").exists() or "PB.setLive(1" not in (site / "data" / "live.js").read_text():
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read() if proc.stderr else ""
            time.sleep(0.1)
        page, errors, _ = open_page(browser, (site / "index.html").as_uri())
        page.wait_for_selector("#episodes-0 tbody tr")
        assert page.locator("#run-0 .coverage").inner_text().startswith("2 of 6 scheduled")
        assert "live" in page.locator("#live").inner_text()
        (run / "episodes.jsonl").write_text("".join(lines))  # the run goes on and ends
        expect(page.locator("#run-0 .coverage")).to_have_text("6 episodes", timeout=20_000)  # reloaded itself
        page.wait_for_selector("#episodes-0 tbody tr")
        assert page.locator("#episodes-0 tbody tr").count() == 6
        assert proc.wait(timeout=30) == 0  # every episode recorded: the watcher stops by itself
        assert "run finished" in page.locator("#live").inner_text()
        assert not errors, errors
    finally:
        if proc.poll() is None:
            proc.kill()


# Observation texts as the games write them (recorded from real episodes, shortened), and what each picture holds.
OBSERVATIONS = {
    "balrog/babyai/goto": ("a wall 5 steps forward\na wall 1 step left\na grey key 3 steps right and 4 steps forward",
                           3),
    "balrog/babaisai/goto_win": ("Active rules:\ndoor is win\nbaba is you\n\nObjects on the map:\n"
                                 "rule `door` 1 step to the left and 1 step up\nrule `is` 1 step up\n"
                                 "door 4 steps to the right\nrule `you` 1 step to the right and 4 steps down", 4),
    "smartplay/messenger-1": ("You (agent) don't have the message.\n\nYou see:\n- scientist 2 steps to your south\n"
                              "- thief 2 steps to your west\n- sword 3 steps to your north-east", 3),
    "smartplay/crafter": ("You see:\n- grass 1 steps to your west\n- tree 7 steps to your south-east\n\n"
                          "You face grass at your front.\n\nYour status:\n- health: 9/9", 2),
    "balrog/crafter/default": ("You see:\n- grass 1 step to your west\n- cow 4 steps to your south-east\n\n"
                               "You face grass at your front.", 2),
    "smartplay/minecraft-plains": ("Coordinate (-186.50,69.00,190.50). Facing south.\n\nYou're not aiming at any "
                                   "block.\nAround you:\n - grass block, 1.04 blocks away, below you to south-west\n"
                                   " - wood, 3.00 blocks away, above you to south-west\n - flower, 2.24 blocks away, "
                                   "to north-east\n\nYou see:\n - wood, 2.49 blocks away, below you to south-west, "
                                   "taking 0% of screen", 3),
}
TTY = ("message:\nwelcome to NetHack!\n\ncursor:\nYourself a samurai\n(x=37, y=15)\n\nmap:\n" + " " * 80 + "\n"
       + "  ##########\n  #.#####..#\n  #{{`.`{{.#\n  #.`@###..#\n  ##########\n" + " " * 80
       + "\nAgent the Hatamoto   St:17 Dx:16\n\n")


def _kind(task: str) -> str | None:
    """The picture kind a task names: what the page draws from its observations."""
    return get_task(task).picture


def test_pictures_for_every_game(runs, browser):
    page, errors, _ = open_page(browser, (runs["site"] / "episode.html").as_uri() + "#r=0&t=smartplay%2Fhanoi-3&i=0")
    page.wait_for_selector(".step")
    draw = "([kind, text]) => { const n = PBPictures.draw(kind, text); return n ? n.outerHTML : null; }"
    for task, (text, marks) in OBSERVATIONS.items():
        svg = page.evaluate(draw, [_kind(task), text])
        assert svg is not None and svg.startswith("<figure class=\"localmap\""), task
        assert svg.count('class="mark') == marks, (task, svg)
    # exact places are solid, places from a direction and a distance only are dashed
    babyai = page.evaluate(draw, [_kind("balrog/babyai/goto"), OBSERVATIONS["balrog/babyai/goto"][0]])
    assert "approx" not in babyai
    assert page.evaluate(draw, [_kind("smartplay/messenger-1"), OBSERVATIONS["smartplay/messenger-1"][0]]).count(
        'class="mark approx"') == 1
    for task in ("balrog/minihack/boxoban-medium", "balrog/nle/nethackchallenge"):
        tty = page.evaluate(draw, [_kind(task), TTY])
        assert tty.startswith('<pre class="drawn tty"') and '<span class="hero">@</span>' in tty
        assert "Agent the Hatamoto" in tty and "welcome" not in tty
    hanoi = "Current configuration:\n- A: |bottom, [2, 1], top|\n- B: |bottom, [], top|\n- C: |bottom, [0], top|"
    assert page.evaluate(draw, [_kind("smartplay/hanoi-4"), hanoi]).count('class="disk"') == 3
    assert page.evaluate(draw, [_kind("smartplay/bandit-highlow"), "You pulled slot machine 1"]) is None
    # object names are record text: drawn as text, never as markup
    hostile = "a <img src=x onerror=\"window.pwned=1\"> 2 steps forward"
    svg = page.evaluate(draw, [_kind("balrog/babyai/goto"), hostile])
    assert "<img" not in svg and "&lt;img" in svg
    page.wait_for_timeout(100)
    assert page.evaluate("typeof window.pwned") == "undefined"
    assert not errors, errors


def test_site_is_smaller_than_the_runs(runs):
    def size(path: Path) -> int:
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())

    data = size(runs["site"] / "data")
    assert data < size(runs["model"]) + size(runs["random"])
    names = [p.name for p in (runs["site"] / "data" / "r0").iterdir()]
    assert sorted(names) == ["episodes.js", "s0.js"]  # six episodes in one shard, named by numbers only
    tasks, rows = json.loads("[" + (runs["site"] / "data" / "r0" / "episodes.js").read_text()[len("PB.setEpisodes(0, "):-3]
                             + "]")
    assert tasks == ["smartplay/bandit-highlow", "smartplay/hanoi-3"]
    assert len(rows) == 6 and rows[0][:2] == [0, 0] and rows[5][:2] == [1, 2]

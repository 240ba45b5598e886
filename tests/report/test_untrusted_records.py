"""Records are untrusted data: report, compare, plot, export and the viewer show them inertly, never write
outside their output, never read outside the run, and say "N of M scheduled" when episodes are missing.

Every run here is a real run written by ``playbench eval`` and then edited the way a hostile model, a
corrupt disk or a hand edit would leave it; every command is a real subprocess, every page a real Chromium.
"""

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from helpers import only_run_dir, open_page, run_cli
from playbench.core.records import EpisodeRecord
from playbench.log import read_run
from playbench.report.inert import inert_text

ESC_TASK = "smartplay/\x1b[31mred\x1b[0m[/x][bold]<script>window.pwned='task'</script>\x00$\\frac{$\u202e\ufffd"
ESC_MODEL = "mock/\x1b]0;pwned\x07[/x]<script>document.title='pwned'</script>\x00:smile:"
HOSTILE_OUTPUTS = [
    "\x1b[2J\x1b[31mred alert\x1b[0m [/x] [bold]bold?[/bold]",
    "<script>window.pwned = 'raw'</script><img src=x onerror=\"window.pwned='img'\">",
    "NUL\x00byte, bell\x07, CSI\x9b, U+FFFD \ufffd, </script><script>document.title='pwned'</script>",
]
BIG = 10_000_000  # a 10 MB answer, one unbroken word


def rows(run: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (run / "episodes.jsonl").read_text().splitlines() if x.strip()]


def write_rows(run: Path, records: list[dict[str, Any]]) -> None:
    (run / "episodes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))


def steps_of(run: Path, record: dict[str, Any]) -> list[dict[str, Any]]:
    """The record's steps, read through ``playbench.log`` (shards or files), as JSON objects."""
    log = read_run(run)
    return [json.loads(s.json_line()) for s in log.read_trajectory(EpisodeRecord.model_validate(record))]


def put_steps(run: Path, record: dict[str, Any], steps: list[dict[str, Any]]) -> None:
    """Write edited steps as a file of their own (the first layout, still read) and point the record at it."""
    relative = f"trajectories/edited/{record['index']:06d}.jsonl"
    (run / relative).parent.mkdir(parents=True, exist_ok=True)
    (run / relative).write_text("".join(json.dumps(s) + "\n" for s in steps))
    record["trajectory"] = relative


def files_under(root: Path, skip: Path | None = None) -> set[Path]:
    return {p for p in root.rglob("*") if skip is None or not p.is_relative_to(skip)}


@pytest.fixture(scope="module")
def base_run(tmp_path_factory) -> Path:
    """A real five-episode Hanoi run, copied by each test before it is edited."""
    log = tmp_path_factory.mktemp("base")
    res = run_cli("eval", "smartplay/hanoi-3", "--agent", "random", "--episodes", "5", "--log-dir", str(log),
                  "--quiet")
    assert res.returncode == 0, res.stderr
    return only_run_dir(log)


def test_inert_text_shows_controls_and_keeps_the_rest():
    assert inert_text("a\x1b[31mb\x00\r\n\tc") == "a\u241b[31mb\u2400\u240d\n\tc"
    assert inert_text("x\ny", one_line=True) == "x\u2424y"
    assert inert_text("\x9b\u202e\ud800 é \ufffd") == "\\x9b\\u202e\\ud800 é \ufffd"
    assert inert_text("a" * 10, limit=4) == "aaaa… (+6 characters)"
    assert inert_text(None) == ""


# -- records naming paths outside the run -------------------------------------------------------------


@pytest.fixture
def escaping_run(base_run, tmp_path) -> dict[str, Path]:
    """A run whose records name a task id and trajectory and frame files that lie outside it."""
    box = tmp_path / "box"
    run = box / "runs" / "run"
    shutil.copytree(base_run, run)
    records = rows(run)
    secret = box / "secret.jsonl"  # a valid trajectory outside the run: reading it would show its text
    step = steps_of(run, records[0])[0]
    secret.write_text(json.dumps({**step, "observation": "TOP-SECRET-OBSERVATION"}) + "\n")
    picture = box / "secret.png"
    Image.new("RGB", (4, 4)).save(picture)
    (run / "trajectories" / "link.jsonl").symlink_to(secret)
    records[0]["task"] = "../../../../escaped"
    records[1]["trajectory"] = "../../secret.jsonl"
    records[2]["trajectory"] = str(secret)
    records[3]["trajectory"] = "trajectories/link.jsonl"
    framed = steps_of(run, records[4])
    framed[0]["frame"] = "../../secret.png"
    framed[1]["frame"] = str(picture)
    put_steps(run, records[4], framed)
    write_rows(run, records)
    return {"box": box, "run": run, "site": box / "site"}


def test_view_writes_only_its_folder_and_reads_only_the_run(escaping_run, browser):
    box, run, site = escaping_run["box"], escaping_run["run"], escaping_run["site"]
    before = files_under(box)
    res = run_cli("view", str(run), "--output", str(site))
    assert res.returncode == 0, res.stderr
    assert files_under(box, skip=site) == before  # nothing new anywhere but the site folder
    written = files_under(site)
    assert all(p.resolve().is_relative_to(site.resolve()) for p in written)
    assert not any("TOP-SECRET" in p.read_text(errors="replace") for p in written if p.is_file())
    overview = (site / "index.html").read_text()
    assert overview.count("outside the run: refused") == 5  # 3 trajectories, 2 frames

    page, errors, _ = open_page(browser, (site / "index.html").as_uri())
    page.wait_for_selector("#episodes-0 table tr td a")
    assert "../../../../escaped" in page.locator("#run-0 table.tasks").inner_text()
    assert page.locator("#run-0 .problems li").count() == 5
    # the episodes whose trajectory lies outside: an error line, no steps, no secret
    for index in (1, 2, 3):
        page, errors, requests = open_page(
            browser, (site / "episode.html").as_uri() + f"#r=0&t=smartplay%2Fhanoi-3&i={index}")
        page.wait_for_selector("#episode p.error")
        text = page.locator("#episode").inner_text()
        assert "outside the run: refused, nothing was read" in text and "TOP-SECRET" not in text
        assert page.locator(".step").count() == 0
        assert not any("secret" in url for url in requests), requests
        assert not errors, errors
    # frames outside the run are refused: error lines, and the browser never asks for them
    page, errors, requests = open_page(browser, (site / "episode.html").as_uri() + "#r=0&t=smartplay%2Fhanoi-3&i=4")
    page.wait_for_selector(".step")
    assert page.locator("#episode p.error").count() == 2
    assert "frame '../../secret.png' is outside the run" in page.locator("#episode").inner_text()
    page.wait_for_timeout(200)
    assert not any("secret" in url for url in requests), requests
    assert not any(src and "secret" in src for src in page.evaluate(
        "Array.from(document.images).map(i => i.getAttribute('src'))"))
    # the escaping task id is an ordinary episode of the site
    page, errors, _ = open_page(browser, (site / "episode.html").as_uri() + "#r=0&t=..%2F..%2F..%2F..%2Fescaped&i=0")
    page.wait_for_selector(".step")
    assert page.locator("h2").first.inner_text() == "../../../../escaped — episode 0"
    assert not errors, errors


def test_report_and_export_of_escaping_records(escaping_run):
    box, run = escaping_run["box"], escaping_run["run"]
    before = files_under(box)
    res = run_cli("report", str(run))
    assert res.returncode == 0, res.stderr
    assert "../../../../escaped" in res.stdout and "TOP-SECRET" not in res.stdout
    assert "1 record(s) outside the run's schedule" in res.stdout
    data = json.loads(run_cli("report", str(run), "--json").stdout)
    assert data["tasks"]["../../../../escaped"]["scheduled"] == 0
    assert data["run"]["episodes"] == {"recorded": 4, "scheduled": 5, "missing": 1, "unscheduled": 1,
                                       "complete": False, "note": data["run"]["episodes"]["note"]}
    assert "4 of 5 scheduled" in data["run"]["episodes"]["note"]
    target = box / "out.csv"
    res = run_cli("export", str(run), "--output", str(target))
    assert res.returncode == 0, res.stderr
    assert files_under(box) == before | {target}
    assert "../../../../escaped" in target.read_text()


# -- hostile text in records ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def hostile_run(base_run, tmp_path_factory) -> Path:
    """A run whose model name, one task id and the model outputs hold escapes, markup, NUL, HTML and 10 MB."""
    run = tmp_path_factory.mktemp("hostile") / "run"
    shutil.copytree(base_run, run)
    meta = json.loads((run / "run.json").read_text())
    meta["config"]["model"] = ESC_MODEL
    (run / "run.json").write_text(json.dumps(meta))
    records = rows(run)
    for r in records:
        r["model"] = ESC_MODEL
    records[0]["task"] = ESC_TASK
    records[0]["error"] = HOSTILE_OUTPUTS[0]
    steps = steps_of(run, records[0])
    for i, s in enumerate(steps):
        s["raw_output"] = HOSTILE_OUTPUTS[i % len(HOSTILE_OUTPUTS)]
        s["observation"] = HOSTILE_OUTPUTS[(i + 1) % len(HOSTILE_OUTPUTS)] + "\n" + s["observation"]
    steps[-1]["raw_output"] = "W" * BIG
    put_steps(run, records[0], steps)
    write_rows(run, records)
    return run


def assert_inert(output: str) -> None:
    for byte in ("\x1b", "\x00", "\x07", "\x9b"):
        assert byte not in output, f"{byte!r} reached the terminal"


def test_hostile_text_is_inert_in_the_terminal(hostile_run, tmp_path):
    res = run_cli("report", str(hostile_run))
    assert res.returncode == 0, res.stderr
    assert_inert(res.stdout + res.stderr)
    # shown literally: the escape as ␛, the markup and HTML as typed
    # (an id with control characters is shown whole, never split into a suite header and a name)
    assert "smartplay/\u241b[31mred\u241b[0m[/x][bold]<script>" in res.stdout
    assert "mock/\u241b]0;pwned\u2407[/x]" in res.stdout and ":smile:" in res.stdout
    data = json.loads(run_cli("report", str(hostile_run), "--json").stdout)
    assert ESC_TASK in data["tasks"] and data["run"]["model"] == ESC_MODEL  # JSON keeps the data exact
    for args in (("report", str(hostile_run), str(hostile_run)), ("compare", str(hostile_run), str(hostile_run)),
                 ("compare", str(hostile_run), str(hostile_run), "--json"), ("report", str(hostile_run), "--json")):
        res = run_cli(*args)
        assert res.returncode == 0, (args, res.stderr)
        assert_inert(res.stdout + res.stderr)
    res = run_cli("plot", str(hostile_run), "--output", str(tmp_path / "plots"))  # "$\frac{$" is not mathtext
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "plots" / "task_scores.svg").stat().st_size > 2000


def test_hostile_text_is_inert_in_the_viewer(hostile_run, tmp_path, browser):
    res = run_cli("view", str(hostile_run), "--output", str(tmp_path / "site"))
    assert res.returncode == 0, res.stderr
    index = Path(res.stdout.strip())
    page, errors, _ = open_page(browser, index.as_uri())
    page.wait_for_selector("#episodes-0 table tr td a")
    overview = page.locator("main").inner_text()
    assert "<script>window.pwned='task'</script>" in overview and "\u241b[31mred" in overview
    assert "<script>document.title='pwned'</script>" in overview
    page.locator("#episodes-0 table a", has_text="#0").first.click()
    page.wait_for_selector(".step")
    assert "episode.html#r=0&t=smartplay%2F%1B%5B31m" in page.url
    heading = page.locator("h2").first.inner_text()
    assert heading.startswith("smartplay/\u241b[31mred\u241b[0m[/x][bold]<script>window.pwned='task'</script>\u2400")
    text = ""
    for _ in range(3):  # the step navigator shows one step at a time: walk through the first three
        text += page.locator("#episode").inner_text()
        page.keyboard.press("ArrowRight")
    for shown in ("\u241b[2J\u241b[31mred alert\u241b[0m [/x] [bold]bold?[/bold]",
                  "<script>window.pwned = 'raw'</script><img src=x onerror=",
                  "NUL\u2400byte, bell\u2407, CSI\\x9b, U+FFFD \ufffd, </script><script>document.title='pwned'</script>"):
        assert shown in text
    page.keyboard.press("End")  # the last step's answer is the 10 MB one
    sizes = page.evaluate("Array.from(document.querySelectorAll('pre')).map(p => p.textContent.length)")
    assert max(sizes) == BIG  # the whole answer is there, in a scrolling box
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")  # and the page keeps its width
    assert page.locator("#episode img:not(.picture), #episode a, #episode script").count() == 0
    page.wait_for_timeout(300)
    assert page.evaluate("typeof window.pwned") == "undefined"
    assert page.title() == "playbench episode"
    assert not errors, errors


def test_suite_tables_show_record_text_inertly(tmp_path):
    """GRASP's table heads each column with the scoring rule its records name: record text, in a suite's table."""
    res = run_cli("eval", "grasp/energy", "--agent", "greedy", "--episodes", "2", "--log-dir", str(tmp_path),
                  "--quiet")
    assert res.returncode == 0, res.stderr
    run = only_run_dir(tmp_path)
    records = rows(run)
    for r in records:
        r["metrics"]["scoring"] = "[/x]\x1b[31mfixed"
    write_rows(run, records)
    res = run_cli("report", str(run))
    assert res.returncode == 0, res.stderr
    assert_inert(res.stdout + res.stderr)
    assert "grasp/energy ([/x]\u241b[31mfixed)" in res.stdout


def test_model_and_log_dir_with_markup(tmp_path):
    log = tmp_path / "[/]" / "[bold]"
    res = run_cli("eval", "smartplay/hanoi-3", "--model", "mock/[/x]", "--episodes", "1", "--log-dir", str(log))
    assert res.returncode == 0, res.stderr
    assert "Traceback" not in res.stderr and "mock/[/x]" in res.stdout
    res = run_cli("report", str(only_run_dir(log)))
    assert res.returncode == 0 and "mock/[/x]" in res.stdout, res.stderr


# -- interrupted runs and error statuses -------------------------------------------------------------------


@pytest.fixture
def partial_run(base_run, tmp_path) -> Path:
    """Three of the five scheduled episodes recorded, one of them a game-error."""
    run = tmp_path / "run"
    shutil.copytree(base_run, run)
    records = rows(run)[:3]
    records[1].update(status="game-error", score=None, completion=None, progress=None, error="the game crashed")
    write_rows(run, records)
    return run


def test_partial_run_says_n_of_m_scheduled(partial_run, base_run, tmp_path, browser):
    text = run_cli("report", str(partial_run)).stdout
    assert "3 of 5 scheduled" in text
    assert "1 (1 game)" in text  # the errors column counts game-error episodes
    data = json.loads(run_cli("report", str(partial_run), "--json").stdout)
    coverage = data["run"]["episodes"]
    assert (coverage["recorded"], coverage["scheduled"], coverage["missing"]) == (3, 5, 2)
    assert coverage["note"].startswith("3 of 5 scheduled")
    task = data["tasks"]["smartplay/hanoi-3"]
    assert task["scheduled"] == 5 and task["episodes"] == 3
    assert task["status"]["game-error"] == 1 and task["errors"] == 1 and task["score"]["n"] == 2
    board = run_cli("report", str(base_run), str(partial_run)).stdout
    assert "3 of 5 scheduled" in board
    compared = json.loads(run_cli("compare", str(base_run), str(partial_run), "--json").stdout)
    assert compared["tasks"]["smartplay/hanoi-3"]["errors"]["b"] == {"game-error": 1}
    assert compared["b"]["episodes"]["note"].startswith("3 of 5 scheduled")
    assert "3 of 5 scheduled" in run_cli("compare", str(base_run), str(partial_run)).stdout
    # a whole run says nothing of the kind
    assert "scheduled" not in run_cli("report", str(base_run)).stdout
    assert json.loads(run_cli("report", str(base_run), "--json").stdout)["run"]["episodes"]["complete"]

    site = tmp_path / "site"
    assert run_cli("view", str(partial_run), "--output", str(site)).returncode == 0
    page, errors, _ = open_page(browser, (site / "index.html").as_uri())
    page.wait_for_selector("#episodes-0 table tr td a")
    assert "3 of 5 scheduled" in page.locator("#run-0 .coverage").inner_text()
    assert "3 of 5" in page.locator("#run-0 table.tasks").inner_text()
    page.select_option("#episodes-0 select >> nth=1", "game-error")
    assert page.locator("#episodes-0 table tr").count() == 1 + 1
    assert not errors, errors

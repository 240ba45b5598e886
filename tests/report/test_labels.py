"""A run's ``--label`` names it wherever a run is named (report, compare, plots, the viewer), always as text.

Labels are user text: markup in them (HTML, rich's ``[bold]``) is shown as typed, never interpreted.
"""

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import helpers
from helpers import only_run_dir, run_cli

TEAM = "Team's <b>model</b>"
MARKUP = "[bold]other[/bold] & co"
TASKS = ["smartplay/hanoi-3", "smartplay/bandit-highlow"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    out = {}
    for name, label, agent in (("team", TEAM, "random"), ("other", MARKUP, "oracle")):
        log = tmp_path_factory.mktemp(name)
        res = run_cli("eval", *TASKS, "--agent", agent, "--episodes", "2", "-T", "max_steps=8", "--label", label,
                      "--log-dir", str(log), "--quiet")
        assert res.returncode == 0, res.stderr
        out[name] = only_run_dir(log)
    site = tmp_path_factory.mktemp("site")
    res = run_cli("view", str(out["team"]), str(out["other"]), "--output", str(site))
    assert res.returncode == 0, res.stderr
    out["site"] = site
    return out


def test_report_and_compare_name_runs_by_their_labels(runs):
    report = run_cli("report", str(runs["team"]), str(runs["other"]), env={"COLUMNS": "100"})
    assert report.returncode == 0, report.stderr
    heading = next(line for line in report.stdout.splitlines() if runs["team"].name in line)
    assert f"— {TEAM} (seed" in heading  # the task table's title
    assert f"run 1: {TEAM} ({runs['team'].name})" in report.stdout  # the leaderboard's key
    assert f"run 2: {MARKUP} ({runs['other'].name})" in report.stdout  # rich markup shown, not applied
    compare = run_cli("compare", str(runs["team"]), str(runs["other"]), env={"COLUMNS": "100"})
    assert compare.returncode == 0, compare.stderr
    assert f"{MARKUP} (B) − {TEAM} (A): score" in compare.stdout


def test_plot_legends_hold_the_labels_as_text(runs, tmp_path):
    res = run_cli("plot", str(runs["team"]), str(runs["other"]), "--output", str(tmp_path))
    assert res.returncode == 0, res.stderr
    for name in ("task_scores", "smartplay_games"):
        root = ET.parse(tmp_path / f"{name}.svg").getroot()
        texts = ["".join(node.itertext()) for node in root.iter() if node.tag.endswith("}text")]
        assert TEAM in texts and MARKUP in texts, (name, texts)
        assert not [node for node in root.iter() if node.tag.split("}")[-1] == "b"]  # no element from the label


def test_the_viewer_shows_the_label_as_typed(runs, browser):
    page, errors, _ = helpers.open_page(browser, (runs["site"] / "index.html").as_uri())
    page.wait_for_selector("#episodes-0 table tr td a")
    for k, label in enumerate((TEAM, MARKUP)):
        assert page.locator(f"#run-{k} h2 span.label").text_content() == label  # the run's heading
        assert page.locator("table.runs tbody tr").nth(k).locator("span.label").text_content() == label
        assert page.locator(f"#run-{k} h2").inner_text().endswith(label)
    assert page.locator("main b").count() == 0  # "<b>" stayed text: no element was made of it
    headers = page.locator("#shared th").all_inner_texts()
    assert f"score: run 0 ({TEAM})" in headers and f"score: run 1 ({MARKUP})" in headers
    # an episode names its run by the label too, and so does the side-by-side page
    page.locator("#episodes-0 table a", has_text="#0").first.click()
    page.wait_for_selector(".step")
    assert page.locator("#episode p.meta").first.text_content().startswith(f"run 0: {TEAM} · ")
    assert page.locator("#episode b").count() == 0
    side, side_errors, _ = helpers.open_page(browser, (runs["site"] / "compare.html").as_uri() +
                                             "#t=smartplay%2Fhanoi-3&i=0")
    side.wait_for_selector(".side .column .step")
    assert side.locator(".side .column > h3").all_text_contents() == [f"run 0: {TEAM}", f"run 1: {MARKUP}"]
    assert side.locator("main b").count() == 0
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert not errors and not side_errors, errors + side_errors

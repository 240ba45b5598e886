"""``playbench board`` with the two official leaderboard rows beside a playbench run (PLAYBENCH_TEST_DATA).

Each row's own figure is its published number; Gemini's files are priced from their token counts, Llama's
(served by vLLM: no listed price) are unknown; every episode link resolves; nothing of the rows runs.
"""

import json
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from helpers import only_run_dir, run_cli

LEADERBOARD = ("balrog-leaderboard/LLM/20241030_naive-Llama-3.2-1B-Instruct",
               "balrog-leaderboard/VLM/20250425_naive_Gemini-2.5-Pro-Exp-03-25")


@pytest.fixture(scope="module")
def board(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("board")
    done = run_cli("eval", "balrog/babyai/goto", "balrog/babaisai/goto_win", "--model", "mock/demo", "--agent",
                   "naive", "-T", "max_steps=5", "--episodes", "2", "--log-dir", str(tmp / "runs"), "--quiet")
    assert done.returncode == 0, done.stderr
    run = only_run_dir(tmp / "runs")
    done = run_cli("board", str(run), "--with", str(shared_data / "balrog-leaderboard"), "-o", str(tmp / "site"))
    assert done.returncode == 0, done.stderr
    return Path(done.stdout.strip())


def test_published_rows_keep_their_figures_and_are_priced_when_listed(board: Path, shared_data: Path) -> None:
    data = json.loads((board.parent / "board.json").read_text())
    assert [r["path"] for r in data["rows"][1:]] == [str(shared_data / row) for row in LEADERBOARD]
    for k, row in ((1, LEADERBOARD[0]), (2, LEADERBOARD[1])):
        published = json.loads((shared_data / row / "summary.json").read_text())
        overall = data["overall"][str(k)]
        assert overall["own"] == pytest.approx(published["average_progress"] / 100, abs=1e-12)
        assert overall["own_environments"] == len(published["environments"])
    # ranked over what every row holds: the run's two environments, each over the run's one task of it
    assert data["common"] == ["balrog/babaisai", "balrog/babyai"]
    assert data["environments"]["balrog/babyai"]["tasks"] == ["balrog/babyai/goto"]
    assert data["environments"]["balrog/babyai"]["rows"]["1"]["partial"] is True
    assert data["environments"]["balrog/textworld"]["rows"].keys() == {"1"}
    assert data["pairs"] == []  # each row drew its own seeds
    llm, vlm = data["costs"]["1"], data["costs"]["2"]
    assert llm["usd"] is None and "vllm/meta-llama/Llama-3.2-1B-Instruct" in llm["how"]
    assert vlm["usd"] > 0 and vlm["episodes"] == 225 and "google/gemini-2.5-pro" in vlm["how"]
    assert data["rows"][2]["model"] == "google/gemini-2.5-pro-exp-03-25"
    assert data["settings"]["rows"]["2"]["images"] == 1 and data["settings"]["rows"]["1"]["date"] == "2024-11-11"


def test_the_leaderboard_board_in_chromium(board: Path, browser) -> None:
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(board.as_uri())
    assert page.locator("table.ranking tbody tr").count() == 3
    costs = page.locator("table.cost tbody tr")
    assert "unknown" in costs.nth(1).inner_text() and "$" in costs.nth(2).inner_text()
    for k, episodes in ((1, 255), (2, 225)):
        page.goto(board.with_name(f"row-{k}.html").as_uri())
        hrefs = page.eval_on_selector_all("a.episode", "links => links.map(a => a.href)")
        assert len(hrefs) == episodes
        assert all(Path(unquote(urlparse(h).path)).is_file() for h in hrefs)
    page.goto(board.with_name("row-0.html").as_uri())
    page.locator("a.episode").first.click()
    page.wait_for_selector(".step")
    assert not errors, errors
    page.close()

"""``playbench board`` over a leaderboard's rows as they are: small synthetic BALROG folders of every kind.

A folder of rows (as ``submissions/``) holds: two rows with episodes on the same instances (they pair), a row
that publishes its ``summary.json`` alone (shown with its published figures, as published), a row holding two
episodes of a task under one seed (ranked from all its episodes, paired with none) and a row that cannot be
read (left out with one line on stderr and a note on the page). The same unreadable row named by ``--with``
stops the board in one line.
"""

import json
from pathlib import Path
from typing import Any

import pytest

from helpers import BALROG_CLIENT as CLIENT
from helpers import balrog_row, run_cli
from playbench.models.pricing import price_for
from playbench.models.types import GenerateConfig

GOTO, PICKUP = "balrog/babyai/goto", "balrog/babyai/pickup"
SUMMARY = {"average_progress": 32.34, "standard_error": 1.49,
           "environments": {"babyai": {"progression_percentage": 77.6, "standard_error": 3.73, "episodes_played": 125},
                            "textworld": {"progression_percentage": 39.31, "standard_error": 5.24,
                                          "episodes_played": 60},
                            "atari": {"progression_percentage": 1.0, "standard_error": 0.5, "episodes_played": 5}},
           "total_input_tokens": 2_000_000, "total_output_tokens": 10_000,
           "client": CLIENT, "agent": {"type": "naive", "max_history": 16, "max_image_history": 0}}


@pytest.fixture(scope="module")
def rows(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("rows")
    subs = tmp / "submissions"
    played = [(GOTO, 1, 1.0), (GOTO, 2, 0.0), (PICKUP, 1, 0.5), (PICKUP, 2, 0.0)]
    mine = balrog_row(tmp / "mine", played)
    other = balrog_row(subs / "LLM" / "20250101_a", [(t, s, 1 - p) for t, s, p in played])
    twice = balrog_row(subs / "LLM" / "20250102_twice", [*played, (GOTO, 1, 0.0)])
    summary = subs / "LLM" / "20240924_summary"
    summary.mkdir(parents=True)
    (summary / "summary.json").write_text(json.dumps(SUMMARY))
    broken = balrog_row(subs / "VLM" / "20250103_broken", played)
    next(broken.rglob("*_run_00.json")).write_text("{not json")
    done = run_cli("board", str(mine), "--with", str(subs), "-o", str(tmp / "site"))
    assert done.returncode == 0, done.stderr
    return {"mine": mine, "other": other, "twice": twice, "summary": summary, "broken": broken, "tmp": tmp,
            "index": Path(done.stdout.strip()), "stderr": done.stderr}


def _data(rows: dict[str, Any]) -> dict:
    return json.loads((rows["index"].parent / "board.json").read_text())


def test_a_summary_only_row_shows_its_published_figures(rows: dict[str, Any]) -> None:
    data = _data(rows)
    paths = [r["path"] for r in data["rows"]]
    assert len(paths) == 4 and str(rows["broken"]) not in paths
    k = paths.index(str(rows["summary"]))
    row = data["rows"][k]
    assert row["published"] is True and row["label"] == "openai/gpt-4o-mini + naive"
    figures = data["published"][str(k)]
    assert figures["overall"] == {"mean": 0.3234, "se": 0.0149, "episodes": 190}
    assert figures["environments"] == {"balrog/babyai": {"mean": 0.776, "se": 0.0373, "episodes": 125},
                                       "balrog/textworld": {"mean": 0.3931, "se": 0.0524, "episodes": 60}}
    assert any("atari" in note for note in row["notes"])  # an environment playbench does not have: said
    # not ranked with the episode rows, not paired, not in the common environments
    assert str(k) not in data["overall"] and all(k not in (p["a"], p["b"]) for p in data["pairs"])
    # its cost from the token totals it states, at gpt-4o-mini's list price
    price = price_for("openai/gpt-4o-mini", GenerateConfig())
    assert price is not None and not price.tiers
    usd = (2_000_000 * price.input + 10_000 * price.output) / 1e6
    cost = data["costs"][str(k)]
    assert cost["usd"] == pytest.approx(usd) and cost["per_point"] == pytest.approx(usd / 32.34)
    assert data["settings"]["rows"][str(k)]["history"] == 16 and data["settings"]["rows"][str(k)]["episodes"] is None
    page = rows["index"].with_name(f"row-{k}.html").read_text()
    assert "published summary, no episodes" in page and "77.60 ± 3.73" in page and "32.34 ± 1.49" in page


def test_a_row_whose_episodes_share_a_seed_is_ranked_but_not_paired(rows: dict[str, Any]) -> None:
    data = _data(rows)
    paths = [r["path"] for r in data["rows"]]
    k = paths.index(str(rows["twice"]))
    assert "two episodes of balrog/babyai/goto share seed 1" in data["rows"][k]["unpaired"]
    # ranked from all its episodes, the repeated one included (BabyAI's mean over its 5 episodes)
    assert data["overall"][str(k)]["n"] == 5 and data["overall"][str(k)]["mean"] == pytest.approx(1.5 / 5)
    assert "rank" in data["overall"][str(k)]
    # the two other rows with episodes hold the same instances and pair; the repeated one pairs with none
    assert [(p["a"], p["b"]) for p in data["pairs"]] == [(paths.index(str(rows["mine"])),
                                                          paths.index(str(rows["other"])))]
    assert data["pairs"][0]["overall"]["n"] == 4


def test_a_found_row_that_cannot_be_read_is_left_out_and_named(rows: dict[str, Any]) -> None:
    lines = rows["stderr"].splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"left out: {rows['broken']}") and "episode file" in lines[0]
    assert _data(rows)["rows_left_out"][0]["path"] == str(rows["broken"])
    assert f"left out: {rows['broken']}" in rows["index"].read_text()


def test_a_named_row_that_cannot_be_read_stops_the_board(rows: dict[str, Any]) -> None:
    site = rows["tmp"] / "refused"
    done = run_cli("board", str(rows["mine"]), "--with", str(rows["broken"]), "-o", str(site))
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and str(rows["broken"]) in done.stderr
    assert not site.exists()


def test_the_rows_in_chromium(rows: dict[str, Any], browser) -> None:
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(rows["index"].as_uri())
    assert page.locator("table.ranking tbody tr").count() == 3
    published = page.locator("table.published tbody tr")
    assert published.count() == 1
    assert "published summary, no episodes" in published.first.inner_text()
    assert "32.34 ± 1.49" in published.first.inner_text() and "77.60 ± 3.73" in published.first.inner_text()
    assert "share seed 1" in page.locator("ul.unpaired").inner_text()
    assert page.locator("table.pairs tbody tr").count() == 1
    assert page.locator("table.cost tbody tr").count() == 4
    assert "20250103_broken" in page.locator("ul.notes").inner_text()
    published.first.locator("a").click()
    page.wait_for_selector("table.published")
    assert "39.31 ± 5.24" in page.locator("table.published").inner_text()
    assert not errors, errors
    page.close()

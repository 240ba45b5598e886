"""``playbench board``: a run ranked among BALROG folders in a static site, in a real headless Chromium.

The rows: a mock run labelled with a script, the folder ``export --format balrog`` wrote of it (its folder name
and model id hostile too), and a copy of that folder answered, as its files say, by a priced model at another
temperature. All three hold the same instances, so every two of them pair.
"""

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from helpers import only_run_dir, run_cli
from playbench.models.pricing import price_for
from playbench.models.types import GenerateConfig

LABEL = "<script>window.__pwned='label'</script>"
MODEL = "<img src=x onerror=\"window.__pwned='model'\">"
FOLDER = "sub<img src=x onerror=\"window.__pwned='folder'\">"
TASKS = ("balrog/babyai/goto", "balrog/babaisai/goto_win", "balrog/crafter/default")


def _episode_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.json") if not p.name.endswith("summary.json"))


def _set_client(folder: Path, client: dict) -> None:
    for path in _episode_files(folder):
        data = json.loads(path.read_text())
        data["client"] = client
        path.write_text(json.dumps(data))


def _board(*args: str) -> Path:
    done = run_cli("board", *args)
    assert done.returncode == 0, done.stderr
    return Path(done.stdout.strip())


@pytest.fixture(scope="module")
def rows(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("board")
    done = run_cli("eval", *TASKS, "--model", "mock/demo", "-M", "temperature=0", "--agent", "naive",
                   "-T", "max_steps=5", "--episodes", "3", "--label", LABEL, "--log-dir", str(tmp / "runs"), "--quiet")
    assert done.returncode == 0, done.stderr
    run = only_run_dir(tmp / "runs")
    hostile = tmp / FOLDER
    done = run_cli("export", str(run), "--format", "balrog", "-o", str(hostile))
    assert done.returncode == 0, done.stderr
    priced = tmp / "priced"
    shutil.copytree(hostile, priced)
    _set_client(hostile, {"client_name": "mock", "model_id": MODEL, "generate_kwargs": {"temperature": "0"}})
    _set_client(priced, {"client_name": "openai", "model_id": "gpt-4o-mini", "generate_kwargs": {"temperature": 1.0}})
    index = _board(str(run), "--with", str(hostile), "--with", str(priced), "-o", str(tmp / "site"))
    return {"run": run, "hostile": hostile, "priced": priced, "index": index, "tmp": tmp}


def test_figures_pairs_and_costs(rows: dict[str, Path]) -> None:
    from playbench.log import read_run

    data = json.loads((rows["index"].parent / "board.json").read_text())
    assert [r["yours"] for r in data["rows"]] == [True, False, False]
    assert data["rows"][0]["label"] == LABEL and data["rows"][0]["kind"] == "run"
    assert data["common"] == ["balrog/babaisai", "balrog/babyai", "balrog/crafter"]
    # BALROG's aggregate: each environment's mean over its episodes, then the mean of the environments
    records = read_run(rows["run"]).episodes()
    by_env = {env: [r.score for r in records if r.task.rpartition("/")[0] == env] for env in data["common"]}
    expected = float(np.mean([np.mean(v) for v in by_env.values()]))
    for k in ("0", "1", "2"):
        overall = data["overall"][k]
        assert overall["mean"] == pytest.approx(expected) and overall["n"] == 9
        assert overall["ci95"][0] <= overall["mean"] <= overall["ci95"][1]
        assert 1 <= overall["rank"]["low"] <= overall["rank"]["rank"] <= overall["rank"]["high"] <= 3
    # every two rows share the 9 instances: compare's paired overall row, a difference of 0
    assert [(p["a"], p["b"]) for p in data["pairs"]] == [(0, 1), (0, 2), (1, 2)]
    for pair in data["pairs"]:
        assert pair["overall"]["paired"] and pair["overall"]["n"] == 9 and pair["overall"]["mean_diff"] == 0
    temperature = next(r for r in data["pairs"][2]["protocol"] if r["setting"] == "temperature")
    assert (temperature["a"], temperature["b"], temperature["changes_meaning"]) == ("0", 1.0, True)
    assert data["settings"]["differs"] == {"0": [], "1": [], "2": ["temperature"]}
    # cost: the mock model has no price (unknown, never $0); gpt-4o-mini's files are priced from their counts
    assert data["costs"]["0"]["usd"] is None and "no price for mock/demo" in data["costs"]["0"]["how"]
    assert data["costs"]["1"]["usd"] is None and data["costs"]["1"]["at_least"] is None
    price = price_for("openai/gpt-4o-mini", GenerateConfig())
    assert price is not None
    files = [json.loads(p.read_text()) for p in _episode_files(rows["priced"])]
    usd = sum(f["input_tokens"] * price.input + f["output_tokens"] * price.output for f in files) / 1e6
    cost = data["costs"]["2"]
    assert usd > 0 and cost["usd"] == pytest.approx(usd) and cost["episodes"] == 9
    assert cost["per_episode"] == pytest.approx(usd / 9)
    assert cost["per_point"] == pytest.approx(usd / (100 * expected))


def test_pages_escape_every_row_string(rows: dict[str, Path]) -> None:
    site = rows["index"].parent
    pages = {p.name: p.read_text() for p in site.glob("*.html")}
    assert set(pages) == {"index.html", "row-0.html", "row-1.html", "row-2.html"}
    for text in pages.values():
        assert "<script" not in text and "<img" not in text and "script-src 'none'" in text
    assert "&lt;script&gt;window.__pwned=&#x27;label&#x27;&lt;/script&gt;" in pages["index.html"]
    assert "&lt;img src=x onerror=" in pages["row-1.html"]


def test_the_board_in_chromium(rows: dict[str, Path], browser) -> None:
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(rows["index"].as_uri())
    table = page.locator("table.ranking tbody tr")
    assert table.count() == 3
    assert LABEL in table.first.inner_text() and "your run" in table.first.inner_text()
    assert MODEL in page.locator("table.cost").inner_text()
    run_cost = page.locator("table.cost tbody tr").first.inner_text()
    assert "unknown" in run_cost and "$0" not in run_cost
    assert "$" in page.locator("table.cost tbody tr").nth(2).inner_text()
    assert page.locator("table.pairs tbody tr").count() == 3
    assert page.locator("table.protocol td.differs").count() == 1
    # the run's episodes open in its viewer
    page.locator("table.ranking tbody tr").first.locator("a").click()
    page.wait_for_selector("a.episode")
    assert page.locator("a.episode").count() == 9
    page.locator("a.episode").first.click()
    page.wait_for_selector(".step")
    assert "view/episode.html#r=0&t=balrog%2Fbabaisai%2Fgoto_win&i=0" in page.url
    # a folder's episodes link to its CSV of steps, which exists
    page.goto(rows["index"].with_name("row-1.html").as_uri())
    hrefs = page.eval_on_selector_all("a.episode", "links => links.map(a => a.href)")
    assert len(hrefs) == 9
    from urllib.parse import unquote, urlparse

    files = [Path(unquote(urlparse(h).path)) for h in hrefs]
    assert all(f.suffix == ".csv" and f.is_file() and rows["hostile"] in f.parents for f in files)
    page.wait_for_timeout(200)
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert not errors, errors
    page.close()


def test_refusals_and_a_board_written_again(rows: dict[str, Path], tmp_path: Path) -> None:
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "notes.txt").write_text("mine")
    for args, words in (((str(rows["run"]), "-o", str(theirs)), "not empty"),
                        ((str(rows["run"]), "--with", str(tmp_path / "nothing"), "-o", str(tmp_path / "s")),
                         "neither a run"),
                        ((str(rows["run"]), "--with", str(rows["run"]), "-o", str(tmp_path / "s")), "given twice")):
        done = run_cli("board", *args)
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and words in done.stderr, done.stderr
    assert (theirs / "notes.txt").read_text() == "mine" and not (tmp_path / "s").exists()
    # a board written again over fewer rows: the row pages past them go; a link in place of view/ is not followed
    site = tmp_path / "site"
    _board(str(rows["run"]), "--with", str(rows["tmp"]), "-o", str(site))  # the folder of both folders
    found = [r["path"] for r in json.loads((site / "board.json").read_text())["rows"]]
    assert found == [str(rows["run"]), str(rows["priced"]), str(rows["hostile"])]
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep")
    shutil.rmtree(site / "view")
    os.symlink(outside, site / "view")
    _board(str(rows["run"]), "-o", str(site))
    assert (outside / "keep.txt").read_text() == "keep" and not (site / "view").is_symlink()
    assert sorted(p.name for p in site.glob("row-*.html")) == ["row-0.html"]


def test_a_run_no_model_played_costs_nothing_not_unknown(rows: dict[str, Path], tmp_path: Path) -> None:
    done = run_cli("eval", "balrog/babyai/goto", "--episodes", "2", "--log-dir", str(tmp_path / "runs"), "--quiet")
    assert done.returncode == 0, done.stderr
    index = _board(str(only_run_dir(tmp_path / "runs")), "--with", str(rows["priced"]), "-o", str(tmp_path / "site"))
    data = json.loads((index.parent / "board.json").read_text())
    assert data["costs"]["0"]["none"] is True and data["costs"]["0"]["usd"] is None
    assert "<td class='l' title='no model played'>none</td>" in index.read_text()
    # the reference agent played the first two goto seeds of the mock run the folder was exported from: they pair
    assert [(p["a"], p["b"], p["overall"]["n"]) for p in data["pairs"]] == [(0, 1, 2)]


def test_pairs_are_compares_figures(rows: dict[str, Path], tmp_path: Path) -> None:
    """The board's pairs, resampled together, are ``compare``'s overall row and protocol of each two rows."""
    from playbench.cli.board_cmd import open_rows
    from playbench.report.board import write_board
    from playbench.report.compare import compare

    rng = np.random.default_rng(3)
    copies = []
    for k in range(3):  # the priced folder's instances, other progressions: differences to resample
        copy = tmp_path / f"copy-{k}"
        shutil.copytree(rows["priced"], copy)
        for path in _episode_files(copy):
            data = json.loads(path.read_text())
            data["progression"] = float(rng.choice([0.0, 0.25, 1.0])) if k else round(float(rng.uniform()), 2)
            path.write_text(json.dumps(data))
        copies.append(copy)
    given, left = open_rows([(rows["run"], False), (rows["hostile"], False), *((c, False) for c in copies)], {}, 1)
    assert not left
    write_board(given, tmp_path / "site")
    pairs = json.loads((tmp_path / "site" / "board.json").read_text())["pairs"]
    assert len(pairs) == 10 and len({p["overall"]["mean_diff"] for p in pairs}) >= 6
    for pair in pairs:
        expected = compare(given[pair["a"]].source, given[pair["b"]].source)
        shown = {k: v for k, v in expected["overall"].items() if k in pair["overall"]}
        assert len(shown) >= 11 and pair["overall"] == json.loads(json.dumps(shown)), pair
        assert pair["protocol"] == json.loads(json.dumps(expected["protocol"]))

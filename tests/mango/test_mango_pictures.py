"""Viewer pictures of MANGO episodes: valid SVG, the asked route highlighted, hostile text escaped, end to end."""

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from playbench.core.records import EpisodeRecord, StepRecord
from playbench.report.viewer_data import read_shard
from playbench.suites.mango.formats import open_data
from playbench.suites.mango.game import MangoGame, MangoParams
from playbench.suites.mango.maze import edge_record
from playbench.suites.mango.pictures import episode_picture, maze_svg

SVG = "{http://www.w3.org/2000/svg}"
RED = "#d62728"


def _texts(svg: str) -> list[str]:
    root = ET.fromstring(svg)  # raises on invalid XML
    assert root.tag == f"{SVG}svg"
    return ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]


def _red_paths(svg: str) -> int:
    root = ET.fromstring(svg)
    return sum(1 for p in root.iter(f"{SVG}path") if p.get("stroke") == RED and p.get("stroke-width") == "3")


def _episode(task: str, params: MangoParams, seed: int = 0, index: int = 0) -> tuple[EpisodeRecord, list[StepRecord], dict]:
    """Play one oracle episode in-process and record it like the runner does."""
    game = MangoGame(task, params, index)  # type: ignore[arg-type]
    obs, _ = game.reset(seed=seed)
    answer = game.reference_action("oracle", np.random.default_rng(0))
    _, reward, _, _, info = game.step(answer)
    record = EpisodeRecord(
        task=f"mango/{task}", index=index, seed=seed, status="ok", agent="oracle", score=reward,
        metrics=info["metrics"], instance=game.instance(), steps=1,
    )
    step = StepRecord(step=0, observation=obs, raw_output=answer, executed=answer, valid=True, reward=reward,
                      score=reward, done=True)
    return record, [step], game.skeleton


def test_procedural_rf_picture_highlights_the_shortest_route():
    for seed in range(4):
        record, steps, skeleton = _episode("rf", MangoParams(), seed=seed, index=seed)
        svg = episode_picture(record, steps)
        assert svg is not None
        texts = _texts(svg)
        from playbench.suites.mango.sources import procedural_game

        game = procedural_game(record.instance["maze_seed"], record.instance["locations"], "release")
        route = game.shortest[(skeleton["src_node"], skeleton["dst_node"])]["path_details"]
        for loc in {skeleton["src_node"], skeleton["dst_node"]} | {s["node"] for s in route}:
            assert loc in texts  # every location of the route is a labelled node
        assert set(game.data.locations) <= set(texts)  # and so is the rest of the map
        assert _red_paths(svg) == len({(s["prev_node"], s["node"]) for s in route})
        assert any(skeleton["src_node"] in t and t.startswith("RF:") for t in texts)  # the caption
        assert episode_picture(record, steps) == svg  # deterministic


def test_data_df_picture(shared_data: Path):
    params = MangoParams(data=str(shared_data / "mango"), games="night")
    record, steps, skeleton = _episode("df", params, index=5)
    assert record.instance["source"] == "data"
    svg = episode_picture(record, steps)
    assert svg is not None
    texts = _texts(svg)
    for s in skeleton["path_details"]:
        assert s["prev_node"] in texts and s["node"] in texts
        assert any(s["action"] in t for t in texts)  # the hop's action labels its edge
    assert _red_paths(svg) == len({(s["prev_node"], s["node"]) for s in skeleton["path_details"]})
    night = open_data(shared_data / "mango", ["night"])[0]
    assert set(night.locations) <= set(texts)


def test_no_picture_without_a_rebuildable_map(tmp_path: Path):
    record, steps, _ = _episode("rf", MangoParams())
    gone = record.model_copy(update={"instance": {**record.instance, "source": "data", "data": str(tmp_path / "x"),
                                                  "game": "night"}})
    assert episode_picture(gone, steps) is None
    assert episode_picture(record.model_copy(update={"instance": {}}), steps) is None
    assert episode_picture(record.model_copy(update={"task": "mango/minigame"}), steps) is None


def test_hostile_names_are_escaped():
    evil = '<script>alert("x")</script> & \'q\''
    trap = ']]></text><text>"pwned"'
    edges = [
        edge_record(evil, "north", "plain room", 1, 1, 9999, 9999),
        edge_record("plain room", trap, evil, 2, 2, 9999, 9999),
        edge_record("plain room", "south", "a&b <c>", 3, 3, 9999, 9999),
    ]
    route = (evil, "plain room", [{"prev_node": evil, "action": "north", "node": "plain room"}])
    answer = [(evil, "<b>north</b>", "plain room"), ("plain room", trap, "a&b <c>")]
    svg = maze_svg(edges, route, answer, caption=f"DF: from {evil!r} via [{trap}]")
    assert "<script>" not in svg and "</text><text>" not in svg
    root = ET.fromstring(svg)
    texts = ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]
    assert evil in texts and "a&b <c>" in texts  # the names survive, as text
    assert any(trap in t for t in texts)
    titles = ["".join(t.itertext()) for t in root.iter(f"{SVG}title")]
    assert any("<b>north</b>" in t for t in titles)  # the agent's action, escaped in the overlay's tooltip
    assert {el.tag for el in root.iter()} <= {f"{SVG}{t}" for t in
                                              ("svg", "defs", "marker", "path", "rect", "text", "tspan", "title")}


def test_eval_then_view_writes_svg_pictures(tmp_path: Path):
    runs = tmp_path / "runs"
    cmd = [sys.executable, "-m", "playbench.cli.main"]
    proc = subprocess.run([*cmd, "eval", "mango/rf", "--agent", "oracle", "--episodes", "2", "--log-dir", str(runs),
                           "--quiet"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    (run,) = list(runs.iterdir())
    site = tmp_path / "site"
    proc = subprocess.run([*cmd, "view", str(run), "-o", str(site)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    episodes = [e for f in sorted(site.glob("data/r0/s*.js")) for e in read_shard(f)]
    assert [e["record"]["task"] for e in episodes] == ["mango/rf"] * 2
    for e in episodes:
        assert e["picture"] and e["picture"].startswith("<svg")
        texts = _texts(e["picture"])
        assert any(t.startswith("RF: from ") for t in texts)

"""Skeletons rebuilt from edges.json equal the official files (spec §4, checklist 1)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from playbench.suites.mango.formats import json_file_text, open_data
from playbench.suites.mango.maze import file_order, insertion_order
from playbench.suites.mango.skeletons import df_id, rf_id, skeleton_texts

GAMES = ["905", "lostpig", "night", "omniquest", "partyfoul", "plundered", "snacktime", "spirit", "temple", "zork1"]


def test_id_vectors():
    assert df_id([{"action": "south", "node": "bathroom", "prev_node": "bedroom"}]) == (
        "294beb47c5ff764ce0bde567f7cf8f8b40de61550724b201cda3df0dc1dc7317"
    )
    assert rf_id("bedroom", "bathroom") == "25263dd09aab39cd4bdb45c07057aa09fa6b6fab216e3f954034e052ecd05293"


def test_ids_escape_non_ascii():
    # compact or unescaped JSON would give another id (spec §4.6)
    steps = [{"prev_node": "a\uff08", "node": "b", "action": "north"}]
    assert df_id(steps) != df_id([{"prev_node": "a(", "node": "b", "action": "north"}])


@pytest.fixture(scope="module")
def games(shared_data: Path):
    found = open_data(shared_data / "mango")
    assert [g.name for g in found] == GAMES
    return found


@pytest.mark.parametrize("name", GAMES)
def test_rebuilt_skeletons_match_official(games, name):
    game = next(g for g in games if g.name == name)
    all2all, all_pairs = skeleton_texts(game.edges)
    assert all_pairs == game.path("all_pairs.jsonl").read_text(encoding="utf-8")  # byte-identical
    ours = {json.loads(line)["id"]: line for line in all2all.splitlines()}
    official = {json.loads(line)["id"]: line for line in game.path("all2all.jsonl").read_text().splitlines()}
    assert ours == official  # same records, each line byte-identical, keyed by id
    assert len(ours) == len(all2all.splitlines())


@pytest.mark.parametrize("name", GAMES)
def test_edge_order_and_json_serialisation(games, name):
    game = next(g for g in games if g.name == name)
    assert file_order(insertion_order(game.edges)) == game.edges
    for suffix, obj in (("edges.json", game.edges), ("locations.json", game.locations), ("actions.json", game.actions)):
        assert json_file_text(obj) == game.path(suffix).read_text(encoding="utf-8")
    assert set(game.locations) == {e["src_node"] for e in game.edges} | {e["dst_node"] for e in game.edges}
    assert set(game.actions) == {e["action"] for e in game.edges}


def test_skeletons_command(shared_data: Path, tmp_path: Path):
    game_dir = shared_data / "mango" / "night"
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "playbench.cli.main", "mango", "skeletons", str(game_dir), "--output", str(out)],
        capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert (out / "night.all_pairs.jsonl").read_bytes() == (game_dir / "night.all_pairs.jsonl").read_bytes()
    ours = sorted((out / "night.all2all.jsonl").read_text().splitlines())
    assert ours == sorted((game_dir / "night.all2all.jsonl").read_text().splitlines())


def test_skeletons_command_rejects_non_game(tmp_path: Path):
    proc = subprocess.run(
        [sys.executable, "-m", "playbench.cli.main", "mango", "skeletons", str(tmp_path), "--output", str(tmp_path / "o")],
        capture_output=True, text=True,
    )
    assert proc.returncode == 2
    assert "not a MANGO game folder" in proc.stderr

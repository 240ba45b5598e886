"""Procedural mazes: determinism, reachability, the six files, and the pipeline running on them unchanged."""

import json
from collections import deque
from pathlib import Path

from playbench.suites.mango.evaluate import GameEvaluator
from playbench.suites.mango.formats import SUFFIXES, open_data, write_game
from playbench.suites.mango.maze import OPPOSITE
from playbench.suites.mango.procedural import MazeParams, generate
from playbench.suites.mango.prompts import format_trajectory
from playbench.suites.mango.skeletons import skeleton_texts
from playbench.suites.mango.walkthrough import parse_walkthrough, walkthrough_prefix


def test_seeded_determinism(tmp_path: Path):
    a, b = generate(7), generate(7)
    write_game(tmp_path / "a", a.name, a.files())
    write_game(tmp_path / "b", b.name, b.files())
    for suffix in SUFFIXES:
        assert (tmp_path / "a" / a.name / f"{a.name}.{suffix}").read_bytes() == (
            tmp_path / "b" / b.name / f"{b.name}.{suffix}"
        ).read_bytes()
    assert generate(8).walkthrough_text != a.walkthrough_text


def test_every_location_reachable_and_visited():
    for seed in range(40):
        g = generate(seed, MazeParams(locations=10))
        assert len(g.locations) == 10  # the walkthrough visited every place (within the annotated steps)
        succ: dict[str, set[str]] = {}
        for s, _, d in g.true_map:
            succ.setdefault(s, set()).add(d)
        start = g.moves[0].before
        seen, queue = {start}, deque([start])
        while queue:
            for d in succ.get(queue.popleft(), ()):
                if d not in seen:
                    seen.add(d)
                    queue.append(d)
        assert seen == set(g.locations)
        truth = set(g.true_map)
        for e in g.edges:  # every edge is true, and imputed reverses are only those that work
            assert (e["src_node"], e["action"], e["dst_node"]) in truth
            if e["seen_in_forward"] == 9999:
                assert e["action"] in OPPOSITE


def test_features_appear_across_seeds():
    kinds = {"one_way": 0, "non_directional": 0, "multi": 0, "late_answerable": 0}
    for seed in range(200):
        g = generate(seed)
        truth = set(g.true_map)
        kinds["one_way"] += any(a in OPPOSITE and (d, OPPOSITE[a], s) not in truth for s, a, d in truth)
        kinds["non_directional"] += any(e["action"] not in OPPOSITE for e in g.edges)
        dests: dict[tuple, set] = {}
        for e in g.edges:
            dests.setdefault((e["src_node"], e["action"]), set()).add(e["dst_node"])
        kinds["multi"] += any(len(v) > 1 for v in dests.values())
        kinds["late_answerable"] += any(e["seen_in_forward_answerable"] > e["seen_in_forward"] for e in g.edges)
    assert all(v > 0 for v in kinds.values()), kinds


def test_official_pipeline_runs_unchanged(tmp_path: Path):
    g = generate(3)
    write_game(tmp_path, g.name, g.files())
    (game,) = open_data(tmp_path)
    all2all, all_pairs = skeleton_texts(game.edges)
    assert all2all == game.path("all2all.jsonl").read_text()
    assert all_pairs == game.path("all_pairs.jsonl").read_text()
    assert [s.num for s in parse_walkthrough(game.walkthrough_text)] == list(range(len(parse_walkthrough(game.walkthrough_text))))
    prefix = walkthrough_prefix(game.walkthrough_text)
    assert prefix.cutoff == 70 and prefix.text.startswith("\n==>STEP NUM: 0\n")
    ev = GameEvaluator(game.edges, game.actions, game.all2all, game.all_pairs)
    for rec in game.all2all:
        steps = [(x["prev_node"], x["action"], x["node"]) for x in rec["path_details"]]
        s = ev.score("df", rec["id"], 70, format_trajectory(steps))
        assert (s.status, s.strict, s.reasoning) == ("scored", 1.0, 1.0)
    assert json.loads(game.path("locations.json").read_text()) == g.locations

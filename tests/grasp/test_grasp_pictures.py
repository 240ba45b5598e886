"""Viewer pictures of GRASP episodes: valid SVG, the executed path drawn, deterministic, hostile text escaped."""

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from playbench.core.records import EpisodeRecord, StepRecord
from playbench.report.viewer_data import read_shard
from playbench.suites.grasp.game import GraspGame, GraspInteractiveGame
from playbench.suites.grasp.grid import Constraints, Grid
from playbench.suites.grasp.official import FILE_NAMES
from playbench.suites.grasp.params import GraspParams
from playbench.suites.grasp.pictures import CELL, LEFT, TOP, episode_picture, step_picture, trace
from playbench.suites.grasp.render import parse_cells, parse_state, render_grid, render_state

SVG = "{http://www.w3.org/2000/svg}"


def _root(svg: str) -> ET.Element:
    root = ET.fromstring(svg)  # raises on invalid XML
    assert root.tag == f"{SVG}svg"
    return root


def _texts(root: ET.Element) -> list[str]:
    return ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]


def _cell_of(x: float, y: float) -> tuple[int, int]:
    return int((y - TOP) // CELL), int((x - LEFT) // CELL)


def _one_step(policy: str = "greedy", seed: int = 3, index: int = 5, **params) -> tuple[EpisodeRecord, list[StepRecord]]:
    """Play one one-step episode in-process and record it like the runner does."""
    game = GraspGame(GraspParams(**params), index)
    obs, _ = game.reset(seed=seed)
    answer = game.reference_action(policy, np.random.default_rng(0))
    _, reward, _, _, info = game.step(answer)
    record = EpisodeRecord(task="grasp/energy", index=index, seed=seed, status="ok", agent=policy, score=reward,
                           metrics=info["metrics"], instance=game.instance(), steps=1)
    step = StepRecord(step=0, observation=obs, raw_output=answer, executed=answer, valid=True, reward=reward,
                      score=reward, done=True)
    return record, [step]


def _interactive(seed: int = 4, index: int = 2) -> tuple[EpisodeRecord, list[StepRecord]]:
    game = GraspInteractiveGame(GraspParams(), index)
    obs, _ = game.reset(seed=seed)
    rng = np.random.default_rng(0)
    steps, done, info = [], False, {}
    while not done:
        action = game.reference_action("greedy", rng)
        new_obs, reward, done, _, info = game.step(action)
        steps.append(StepRecord(step=len(steps), observation=obs, raw_output=action, action=action, executed=action,
                                valid=True, reward=reward, score=info["score"], done=done))
        obs = new_obs
    record = EpisodeRecord(task="grasp/energy-interactive", index=index, seed=seed, status="ok", agent="greedy",
                           score=info["score"], metrics=info["metrics"], instance=game.instance(), steps=len(steps))
    return record, steps


def test_parse_cells_inverts_the_rendering_of_every_official_grid(shared_data: Path):
    count = 0
    for name in FILE_NAMES:
        for line in (shared_data / "grasp" / name).read_text().splitlines():
            d = json.loads(line)
            chars = parse_cells(d["grid"])
            assert len(chars) == 11 and all(len(row) == 11 for row in chars)
            grid = Grid.from_text(d["grid"])
            assert render_grid(grid) == d["grid"]
            assert chars[grid.start[0]][grid.start[1]] == "A"
            assert {(r, c) for r in range(11) for c in range(11) if chars[r][c] == "O"} == grid.obstacles
            count += 1
    assert count == 2000


def test_parse_state_inverts_the_interactive_view():
    grid = Grid.build({(0, 1), (2, 2)}, {(1, 1)}, (0, 0), rows=3, cols=4)
    energy = [[2, 1, 0, 0], [0, 0, 12, 0], [0, 0, 1, 5]]
    view = parse_state(render_state(grid, energy, (2, 3), 1, 7, 20))
    assert view.pos == (2, 3) and view.start == (0, 0) and view.carried == 1 and view.used == 7
    assert view.budget == 20 and view.obstacles == {(1, 1)}
    assert [list(r) for r in view.energy] == [[2, 1, 0, 0], [0, 0, 10, 0], [0, 0, 1, 5]]  # '*' reads as 10


def test_episode_picture_draws_the_executed_path():
    record, steps = _one_step()
    svg = episode_picture(record, steps)
    assert svg is not None
    root = _root(svg)
    grid = Grid.from_text(record.instance["grid"])
    c = record.instance["constraints"]
    events = trace(grid, Constraints(c["movement"], c["carry"], c["cost"]), record.metrics["plan"])
    moves = [e for e in events if e.kind == "move"]
    assert moves, "greedy should move"
    lines = [ln for ln in root.iter(f"{SVG}line") if ln.get("class") == "move"]
    assert len(lines) == len(moves)
    for ln, e in zip(lines, moves, strict=True):  # each arrow runs from the cell left to the cell entered
        assert _cell_of(float(ln.get("x1")), float(ln.get("y1"))) == e.before
        assert _cell_of(float(ln.get("x2")), float(ln.get("y2"))) == e.after
    takes = [r for r in root.iter(f"{SVG}rect") if r.get("class") == "taken"]
    assert len(takes) == len({e.before for e in events if e.kind == "take"}) > 0
    drops = [r for r in root.iter(f"{SVG}rect") if r.get("class") == "dropped"]
    assert len(drops) == len({e.before for e in events if e.kind == "drop"})
    (end,) = [e for e in root.iter(f"{SVG}circle") if e.get("class") == "end"]
    assert _cell_of(float(end.get("cx")), float(end.get("cy"))) == tuple(record.metrics["final"])
    texts = _texts(root)
    assert any(f"executed {record.metrics['length']} action(s)" in t for t in texts)
    assert any(f"energy {record.metrics['energy']:g} (fixed" in t for t in texts)
    # every energy cell and obstacle of the grid is drawn
    assert sum(1 for _ in root.iter(f"{SVG}circle")) == len(grid.energy_cells()) + 1
    assert sum(1 for r in root.iter(f"{SVG}rect") if r.get("fill") == "#444444") == len(grid.obstacles)


def test_compat_scoring_is_named_and_the_picture_is_deterministic():
    record, steps = _one_step(policy="random", seed=9, index=17, scoring="compat")
    a, b = episode_picture(record, steps), episode_picture(record, steps)
    assert a == b and a is not None
    assert any("compat: units on the final cell" in t for t in _texts(_root(a)))
    again, again_steps = _one_step(policy="random", seed=9, index=17, scoring="compat")
    assert episode_picture(again, again_steps) == a


def test_grid_is_rebuilt_from_the_prompt_without_instance_text():
    record, steps = _one_step()
    bare = record.model_copy(update={"instance": {}, "metrics": {}})
    svg = episode_picture(bare, steps)  # grid from the prompt, plan re-parsed from the answer
    assert svg is not None
    full = episode_picture(record, steps)
    moves = lambda s: [ln.attrib for ln in _root(s).iter(f"{SVG}line")]  # noqa: E731
    assert moves(svg) == moves(full)


def test_hostile_text_is_escaped_and_never_executed():
    record, steps = _one_step()
    trap = "<script>alert('x')</script>&\"__import__('os').system('touch /tmp/pwned_grasp')"
    inst = {**record.instance, "source": "official", "file": trap, "index": trap}
    hostile = record.model_copy(update={"instance": inst, "metrics": {}})
    answer = f"[UP, {trap}, LEFT, TAKE, DROP] " + trap * 50
    step = steps[0].model_copy(update={"raw_output": answer, "executed": answer})
    svg = episode_picture(hostile, [step])
    assert svg is not None and "<script>" not in svg
    root = _root(svg)
    assert any(trap[:40] in t for t in _texts(root))
    assert {el.tag for el in root.iter()} <= {f"{SVG}{t}" for t in
                                              ("svg", "defs", "marker", "path", "rect", "text", "tspan", "title",
                                               "line", "circle")}
    assert not Path("/tmp/pwned_grasp").exists()


def test_interactive_episode_and_step_pictures():
    record, steps = _interactive()
    svg = episode_picture(record, steps)
    assert svg is not None
    root = _root(svg)
    grid = Grid.from_text(record.instance["grid"])
    events = trace(grid, Constraints(), record.metrics["plan"])
    assert len([ln for ln in root.iter(f"{SVG}line")]) == sum(e.kind == "move" for e in events) > 0
    pictures = [step_picture(record, s) for s in steps]
    assert all(p is not None for p in pictures)
    for s, p in zip(steps, pictures, strict=True):
        r = _root(p)
        (ring,) = [c for c in r.iter(f"{SVG}circle") if c.get("class") == "end"]
        assert _cell_of(float(ring.get("cx")), float(ring.get("cy"))) == parse_state(s.observation).pos
        assert any(t.startswith(f"step {s.step + 1}: ") for t in _texts(r))
    hostile = steps[0].model_copy(update={"executed": "<b>&'\""})
    assert "<b>" not in step_picture(record, hostile)
    _root(step_picture(record, hostile))
    one, one_steps = _one_step()
    assert step_picture(one, one_steps[0]) is None  # one-step episodes have the episode picture only


def test_eval_then_view_writes_svg_pictures(tmp_path: Path):
    runs = tmp_path / "runs"
    cmd = [sys.executable, "-m", "playbench.cli.main"]
    proc = subprocess.run([*cmd, "eval", "grasp/energy", "--agent", "greedy", "--episodes", "2", "--log-dir",
                           str(runs), "--quiet"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    (run,) = list(runs.iterdir())
    site = tmp_path / "site"
    proc = subprocess.run([*cmd, "view", str(run), "-o", str(site)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    episodes = [e for f in sorted(site.glob("data/r0/s*.js")) for e in read_shard(f)]
    assert [e["record"]["task"] for e in episodes] == ["grasp/energy"] * 2
    for e in episodes:
        assert e["picture"] and e["picture"].startswith("<svg")
        texts = _texts(_root(e["picture"]))
        assert any(t.startswith("GRASP generated (seed ") for t in texts)
        assert any(t.startswith("executed ") for t in texts)

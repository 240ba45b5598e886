"""Same seed, same BabyAI level as BALROG (issue 16): grid, objects, agent, mission and first text.

The facts in ``tests/data/balrog/babyai_instances.json`` were recorded by running BALROG's own
``make_babyai_env`` (balrog-ai/BALROG af7d1f1) on the Minigrid fork it pins (BartekCupial/Minigrid
cf73dd1) and resetting each env as ``balrog/evaluator.py`` does: ``env.reset(seed=seed)``. Seeds:
0-29 and the first 20 episode seeds of a playbench run with ``--seed 0``.
"""

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from playbench.core.registry import get_task
from playbench.core.seeding import episode_seed
from playbench.suites.balrog.babyai.game import BabyAIGame
from playbench.suites.balrog.facts import BABYAI_LEVELS


def _row(name: str):  # noqa: ANN202
    """The facts row of ``balrog/babyai/NAME``: the row its task hands the game."""
    return get_task(f"balrog/babyai/{name}").facts


FACTS = json.loads((Path(__file__).parents[1] / "data" / "balrog" / "babyai_instances.json").read_text())


def level_facts(env):
    """The same facts the recorder took from the original env."""
    objects = []
    for y in range(env.grid.height):
        for x in range(env.grid.width):
            cell = env.grid.get(x, y)
            if cell is None or cell.type == "wall":
                continue
            row = [cell.type, cell.color, x, y]
            if cell.type == "door":
                row.append("locked" if cell.is_locked else "open" if cell.is_open else "closed")
            objects.append(row)
    return {
        "size": [env.grid.width, env.grid.height],
        "agent": [int(env.agent_pos[0]), int(env.agent_pos[1]), int(env.agent_dir)],
        "objects": objects,
        "mission": env.mission,
        "max_steps": env.max_steps,
        "grid_sha256": hashlib.sha256(np.ascontiguousarray(env.grid.encode()).tobytes()).hexdigest()[:16],
    }


@pytest.mark.parametrize("kind", BABYAI_LEVELS)
def test_every_recorded_seed_gives_the_originals_level(kind):
    records = FACTS["tasks"][kind]
    assert len(records) == 50
    game = BabyAIGame(_row(kind))  # one game reused across seeds: nothing leaks from one level to the next
    mismatches = []
    for record in records:
        text, _ = game.reset(seed=record["seed"])
        got = level_facts(game.env) | {"text": text}
        want = {key: record[key] for key in got}
        if got != want:
            mismatches.append((record["seed"], {k: (got[k], want[k]) for k in got if got[k] != want[k]}))
    assert not mismatches, mismatches[:3]


@pytest.mark.parametrize("kind", BABYAI_LEVELS)
def test_recorded_seeds_include_a_default_runs_episodes(kind):
    """Episode i of ``playbench eval balrog/babyai/KIND --seed 0`` is the original's level for that seed."""
    seeds = [record["seed"] for record in FACTS["tasks"][kind]]
    assert seeds[30:] == [episode_seed(0, f"balrog/babyai/{kind}", i) for i in range(20)]


def test_the_original_allows_one_description_on_both_sides_of_a_sequence():
    """With two yellow keys the original asks to pick one up and go to one; playbench keeps that level."""
    seed_1 = FACTS["tasks"]["pick_up_seq_go_to"][1]
    assert seed_1["mission"] == "go to a yellow key after you pick up a yellow key"
    game = BabyAIGame(_row("pick_up_seq_go_to"))
    game.reset(seed=1)
    assert game.env.mission == seed_1["mission"]
    rng = np.random.default_rng(0)
    while True:
        *_, terminated, truncated, info = game.step(game.reference_action("oracle", rng))
        if terminated or truncated:
            break
    assert info["completed"] == 1

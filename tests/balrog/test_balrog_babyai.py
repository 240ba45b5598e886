"""BabyAI-Text on PyPI Minigrid (§6.1, §11.6): levels, text, images, progression, oracle."""

import asyncio

import numpy as np
import pytest
from minigrid.core.constants import COLOR_TO_IDX, OBJECT_TO_IDX
from minigrid.core.world_object import Wall

from playbench.agents.reference import ReferenceAgent
from playbench.core.registry import get_task
from playbench.core.seeding import episode_seed
from playbench.runner.plan import EpisodeJob
from playbench.runner.runner import play_episode
from playbench.suites.balrog.babyai import game as babyai_game
from playbench.suites.balrog.babyai.game import BabyAIGame
from playbench.suites.balrog.babyai.levels import HELD_OUT
from playbench.suites.balrog.babyai.text import balrog_text, describe_view
from playbench.suites.balrog.facts import BABYAI_LEVELS


def _row(name: str):  # noqa: ANN202
    """The facts row of ``balrog/babyai/NAME``: the row its task hands the game."""
    return get_task(f"balrog/babyai/{name}").facts


EMPTY, WALL = OBJECT_TO_IDX["empty"], OBJECT_TO_IDX["wall"]


def view(cells):
    image = np.zeros((7, 7, 3), dtype=np.uint8)
    image[:, :, 0] = EMPTY
    for (x, y), value in cells.items():
        image[x][y] = value
    return image


def test_verified_example_layout():
    """The spec's verified text (open task, seed 11) from the view that produces it."""
    image = view({(3, 0): (WALL, 0, 0), (2, 6): (WALL, 0, 0),
                  (5, 1): (OBJECT_TO_IDX["key"], COLOR_TO_IDX["purple"], 0)})
    assert balrog_text(describe_view(image)) == (
        "a wall 6 steps forward\na wall 1 step left\na purple key 2 steps right and 5 steps forward"
    )


def test_text_rules():
    image = view({
        (3, 4): (OBJECT_TO_IDX["door"], COLOR_TO_IDX["red"], 0),  # open door in front: blocks the wall scan
        (3, 1): (WALL, 0, 0),
        (0, 6): (WALL, 0, 0),  # wall three steps left
        (5, 6): (OBJECT_TO_IDX["ball"], COLOR_TO_IDX["blue"], 0),  # object before the right wall
        (6, 6): (WALL, 0, 0),
        (1, 2): (OBJECT_TO_IDX["box"], COLOR_TO_IDX["grey"], 0),
        (1, 5): (OBJECT_TO_IDX["door"], COLOR_TO_IDX["green"], 2),
    })
    lines = describe_view(image, carrying=("yellow", "key"))
    assert lines == [
        "You carry a yellow key",
        "You see a wall 3 steps left",
        "You see a grey box 2 steps left and 4 steps forward",
        "You see a locked green door 2 steps left and 1 step forward",
        "You see a open red door 2 steps forward",
        "You see a blue ball 2 steps right",
    ]
    assert balrog_text(lines).splitlines()[0] == "You carry a yellow key"
    assert "You see" not in balrog_text(lines)


def test_unseen_cells_are_skipped_in_wall_scan():
    image = view({(3, 5): (0, 0, 0), (3, 3): (WALL, 0, 0)})
    assert describe_view(image) == ["You see a wall 3 steps forward"]


@pytest.mark.parametrize("kind,limit", [("goto", 64), ("pickup", 64), ("open", 128), ("putnext", 128),
                                        ("pick_up_seq_go_to", 128)])
def test_max_steps_and_mission(kind, limit):
    for seed in range(5):
        game = BabyAIGame(_row(kind))
        obs, info = game.reset(seed=seed)
        assert game.max_steps == limit
        assert "You see" not in obs and obs
        assert info["short_term_context"] == "" and info["score"] == 0.0 and info["completed"] == 0
        mission = game.env.mission
        assert not any(p in mission for p in HELD_OUT)
        prefix = {"goto": "go to ", "pickup": "pick up ", "open": "open ", "putnext": "put "}.get(kind)
        if prefix:
            assert mission.startswith(prefix)
        else:
            assert ", then go to " in mission or " after you pick up " in mission


def test_same_seed_same_level_and_image_size():
    a, b = BabyAIGame(_row("putnext"), images=True), BabyAIGame(_row("putnext"), images=True)
    oa, ia = a.reset(seed=1234)
    ob, ib = b.reset(seed=1234)
    assert oa == ob and a.env.mission == b.env.mission
    assert ia["image"].shape == (112, 112, 3) and np.array_equal(ia["image"], ib["image"])
    for action in ("turn left", "go forward", "go forward", "turn right"):
        assert a.step(action)[0] == b.step(action)[0]
    assert "image" not in BabyAIGame(_row("goto")).reset(seed=0)[1]
    missions = {BabyAIGame(_row("goto")).reset(seed=s)[0] for s in range(8)}
    assert len(missions) > 4


def play_oracle(kind, seed):
    game = BabyAIGame(_row(kind))
    game.reset(seed=seed)
    rng = np.random.default_rng(0)
    while True:
        obs, reward, term, trunc, info = game.step(game.reference_action("oracle", rng))
        if reward > 0:
            assert info["score"] == 1.0 and game.progress == 1.0
        if term or trunc:
            return info


@pytest.mark.parametrize("kind", BABYAI_LEVELS)
def test_oracle_solves_95_percent(kind):
    wins = sum(play_oracle(kind, episode_seed(0, f"balrog/babyai/{kind}", i))["completed"] for i in range(25))
    assert wins >= 24  # >= 95%


def test_success_reward_and_random_policy():
    info = play_oracle("goto", 5)
    assert info["completed"] == 1 and info["metrics"]["episode_return"] > 0
    assert info["metrics"]["mission"].startswith("go to")
    game = BabyAIGame(_row("goto"))
    game.reset(seed=5)
    rng = np.random.default_rng(1)
    assert all(game.reference_action("random", rng) in game.legal_actions() for _ in range(20))


def test_through_the_runner():
    task = get_task("balrog/babyai/pickup")
    params = task.params({})
    job = EpisodeJob(task, params, 0, episode_seed(0, task.id, 0))
    record, steps = asyncio.run(play_episode(job, ReferenceAgent("oracle"), "oracle", None))
    assert record.status == "ok" and record.score == 1.0 and record.completion == 1.0
    assert record.instance["task"] == "BabyAI-MixedTrainLocal-v0/pickup"
    assert record.metrics["progression"] == 1.0 and steps[-1].done


@pytest.mark.parametrize("kind", BABYAI_LEVELS)
@pytest.mark.parametrize("policy", ["oracle", "random"])
def test_a_level_holds_one_wall_object_and_plays_as_with_one_a_cell(kind, policy, monkeypatch):
    def walls(game: BabyAIGame) -> int:
        return len({id(o) for o in game.env.grid.grid if type(o) is Wall})

    shared = BabyAIGame(_row(kind), images=True)
    first = shared.reset(seed=7)
    monkeypatch.setattr(babyai_game, "share_walls", lambda grid: None)
    own = BabyAIGame(_row(kind), images=True)  # minigrid's own: an object a wall cell
    assert own.reset(seed=7)[0] == first[0] and walls(shared) == 1 and walls(own) > 20
    rng = np.random.default_rng(0)
    for step in range(40):
        action = shared.reference_action(policy, rng)  # the oracle (minigrid's bot) reads the shared walls
        a, b = shared.step(action), own.step(action)
        assert a[:4] == b[:4] and np.array_equal(a[4]["image"], b[4]["image"]), step
        if a[2] or a[3]:
            break


def test_every_level_shares_minigrids_spaces():
    a, b = BabyAIGame(_row("goto")), BabyAIGame(_row("open"))
    assert a.env.observation_space is b.env.observation_space and a.env.action_space is b.env.action_space
    assert a.env.observation_space["image"].shape == (7, 7, 3) and a.env.action_space.n == 7

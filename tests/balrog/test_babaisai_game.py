"""Baba Is AI as a BALROG game: prompt, text view (B14), ruleset flag (B13), no-YOU handling (B15), images."""

import hashlib

import numpy as np
import pytest

from playbench.core.registry import get_task
from playbench.suites.balrog.babaisai.engine import World, make_block, make_obj
from playbench.suites.balrog.babaisai.game import BabaGame
from playbench.suites.balrog.babaisai.tasks import TASK_IDS
from playbench.suites.balrog.babaisai.text import INSTRUCTION_PROMPT, observation_text


def _row(name: str):  # noqa: ANN202
    """The facts row of ``balrog/babaisai/NAME``: the row its task hands the game."""
    return get_task(f"balrog/babaisai/{name}").facts


VERIFIED = """Active rules:
door is win
baba is you

Objects on the map:
rule `door` 3 step to the left and 3 step up
rule `is` 2 step to the left and 3 step up
rule `win` 1 step to the left and 3 step up
door 2 step up
rule `baba` 3 step to the left and 2 steps down
rule `is` 2 step to the left and 2 steps down
rule `you` 1 step to the left and 2 steps down"""


def verified_world() -> World:
    """The layout of the spec's verified goto_win example (np seed 2 in the original)."""
    w = World(8, 8)
    w.border_rect()
    for x, word in enumerate(("door", "is", "win"), 1):
        w.put(x, 1, make_block(word))
    for x, word in enumerate(("baba", "is", "you"), 1):
        w.put(x, 6, make_block(word))
    w.put(4, 4, make_obj("baba"))
    w.put(4, 2, make_obj("door", "red"))
    w.refresh_rules()
    return w


def test_instruction_prompt_fingerprint():
    assert len(INSTRUCTION_PROMPT) == 1132
    assert hashlib.sha256(INSTRUCTION_PROMPT.encode()).hexdigest()[:16] == "6b95a390ab4b2fe2"


def test_text_matches_the_verified_example_with_compat_wording():
    assert observation_text(verified_world()) == VERIFIED
    assert "3 step to the left" in VERIFIED


def test_corrected_wording_pluralises_left_and_up():
    text = observation_text(verified_world(), corrected=True)
    assert "rule `door` 3 steps to the left and 3 steps up" in text
    assert "rule `win` 1 step to the left and 3 steps up" in text
    assert "door 2 steps up" in text


def test_add_ruleset_is_honoured_except_in_compat():
    game = BabaGame(_row("goto_win"), add_ruleset=False)
    obs, _ = game.reset(seed=1)
    assert obs.startswith("Objects on the map:\n")
    game = BabaGame(_row("goto_win"), add_ruleset=False, compat=True)
    obs, _ = game.reset(seed=1)
    assert obs.startswith("Active rules:\n")


def _break_baba_is_you(game: BabaGame) -> None:
    """Remove the 'you' block from the grid: nothing is YOU any more."""
    w = game.world
    for stack in w.cells:
        if stack and stack[-1][1] == "you":
            stack.pop()
    w.refresh_rules()


def test_no_you_fixed_continues_without_reset():
    game = BabaGame(_row("goto_win"))
    game.reset(seed=4)
    layout = game.world.render_rows()
    _break_baba_is_you(game)
    obs, reward, term, trunc, info = game.step("up")
    assert "No object is YOU." in obs and "environment reset" not in obs
    assert game.world.render_rows() != layout  # the 'you' block is gone, nothing was regenerated
    for _ in range(98):
        obs, reward, term, trunc, info = game.step("left")
        assert not (term or trunc)
    obs, reward, term, trunc, info = game.step("left")
    assert trunc and not term and info["score"] == 0.0 and info["completed"] == 0


def test_no_you_compat_resets_the_level_mid_episode():
    game = BabaGame(_row("goto_win"), compat=True)
    game.reset(seed=4)
    _break_baba_is_you(game)
    obs, reward, term, trunc, info = game.step("up")
    assert obs.startswith("[...] IS YOU rule was broken, environment resetActive rules:\n")
    assert "Objects on the map:\ndefaultdict(<function BabaIsAIWrapper" in obs
    assert "'long_term_context': 'Active rules:\\n" in obs
    assert "size=256x256" in obs
    assert game.world.rules.you_noun() == "baba" and game.world.step_count == 0
    assert info["metrics"]["level_resets"] == 1
    assert not (term or trunc)


def test_invalid_action_feedback_and_default_idle():
    game = BabaGame(_row("goto_win"))
    game.reset(seed=0)
    obs, *_ = game.step("jump")
    assert obs.startswith("\n\nYour previous output did not contain a valid action. Defaulted to action: idle\n\n")
    assert game.failed_candidates == ["jump"] and game.world.step_count == 1


@pytest.mark.parametrize("level,shape", [("goto_win", (256, 256, 3)), ("two_room-make_win", (288, 416, 3))])
def test_images_have_the_spec_size(level, shape):
    game = BabaGame(_row(level), images=True)
    _, info = game.reset(seed=0)
    img = info["image"]
    assert img.shape == shape and img.dtype == np.uint8
    assert (img[:32, :32] == img[0, 0]).all()  # a border tile is uniform grey
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 10
    _, info = BabaGame(_row(level)).reset(seed=0)
    assert "image" not in info


def test_same_seed_same_level_and_observation():
    a, _ = BabaGame(_row("two_room-make_you")).reset(seed=123)
    b, _ = BabaGame(_row("two_room-make_you")).reset(seed=123)
    c, _ = BabaGame(_row("two_room-make_you")).reset(seed=124)
    assert a == b and a != c


def test_forty_tasks_registered_with_presets_and_aliases():
    assert len(TASK_IDS) == 40
    task = get_task("balrog/babaisai/two_room-break_stop-make_win-distr_obj_rule")
    assert get_task("env/goto_win").id == "balrog/babaisai/goto_win"
    assert task.episodes(task.params({})) == 3
    assert task.episodes(task.params({"preset": "paper"})) == 5
    game = task.make_game(task.params({"baba_text": "corrected", "images": "true"}), 0)
    obs, info = game.reset(seed=7)
    assert info["manual"] == INSTRUCTION_PROMPT and "image" in info
    assert game.legal_actions() == ["idle", "up", "right", "down", "left"]
    assert game.default_action == "idle"
    inst = game.instance()
    assert inst["task"] == "env/two_room-break_stop-make_win-distr_obj_rule" and inst["seed"] == 7


def test_random_policy_plays_to_the_step_limit():
    game = BabaGame(_row("two_room-make_wall_win"))
    game.reset(seed=3)
    rng = np.random.default_rng(0)
    steps, done = 0, False
    while not done:
        _, _, term, trunc, info = game.step(game.reference_action("random", rng))
        steps += 1
        done = term or trunc
    assert steps <= 100 and info["score"] in (0.0, 1.0)

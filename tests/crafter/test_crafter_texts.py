"""Exact texts of Crafter in both suites: manual and prompt fingerprints, the seed-0 golden frame, history,
the status/echo layout (B13), the out-of-map edge (B14) and BALROG's descriptor variant."""

import os
import tempfile

# generated worlds are cached on disk: keep the tests' cache out of the user's cache directory
os.environ.setdefault("PLAYBENCH_CRAFTER_WORLDS", tempfile.mkdtemp(prefix="playbench-crafter-worlds-"))


import math

import pytest
from crafter import constants

from playbench.core.registry import get_task
from playbench.suites.balrog.crafter.game import BalrogCrafter
from playbench.suites.balrog.crafter.params import BalrogCrafterParams
from playbench.suites.crafter import describe
from playbench.suites.crafter.engine import CrafterEngine
from playbench.suites.crafter.names import ACHIEVEMENTS
from playbench.suites.crafter.prompts import ACTIONS, balrog_instruction_prompt, sha16, smartplay_manual
from playbench.suites.crafter.scores import crafter_score, success_rates
from playbench.suites.smartplay.crafter.game import SmartPlayCrafter
from playbench.suites.smartplay.crafter.params import SmartPlayCrafterParams

#: The facts rows the games are handed (as their tasks hand them).
SMARTPLAY_ROW = get_task("smartplay/crafter").facts
BALROG_ROW = get_task("balrog/crafter/default").facts

GOLDEN = """You see:
- grass 1 steps to your west
- tree 7 steps to your north-west
- cow 5 steps to your north-east

You face grass at your front.

Your status:
- health: 9/9
- food: 9/9
- drink: 9/9
- energy: 9/9

You have nothing in your inventory."""


def test_smartplay_manual_fingerprint():
    text = smartplay_manual()
    assert (len(text), text.count("\n") + 1, sha16(text)) == (4603, 104, "2ece2c1256a11a3e")
    assert text.startswith("Write all information helpful for the game in a numbered list. \n1. Collect resources")
    assert "DO NOT answer in LaTeX" not in text and "Move Up" not in text
    assert "3. Move North: Flat ground north of the agent." in text
    assert "4. Collect Sampling: No requirements" in text
    assert text.endswith("17. Noop: Always applicable.")


def test_balrog_instruction_prompt_fingerprint():
    prompt = balrog_instruction_prompt()
    assert (len(prompt), sha16(prompt)) == (1732, "96b71528bcc33d33")
    assert prompt.endswith("PLAY!")


def test_names_match_the_engine():
    assert ACHIEVEMENTS == tuple(constants.achievements)
    assert len(ACTIONS) == len(constants.actions) == 17
    assert ACTIONS[0] == "Noop" and ACTIONS[1] == "Move West" and ACTIONS[16] == "Make Iron Sword"


@pytest.mark.parametrize("compat", [True, False])
def test_seed0_golden_frame(compat):
    game = SmartPlayCrafter(SmartPlayCrafterParams(compat=compat), SMARTPLAY_ROW)
    obs, info = game.reset(seed=0)
    assert obs == GOLDEN == info["obs"]
    assert info["manual"] == smartplay_manual()
    assert info["score"] == 0 and info["completed"] == 0


def test_history_keeps_the_hidden_tick_only_in_compat():
    compat = SmartPlayCrafter(SmartPlayCrafterParams(compat=True), SMARTPLAY_ROW)
    _, info = compat.reset(seed=0)
    assert info["history"] == (
        "Most recent 1 steps of the player's in-game observation:\n\nPlayer Observation Step 0:\n"
        "You took action noop.\n\n" + GOLDEN
    )
    obs, _, _, _, info = compat.step("Move West")
    assert obs.startswith("You took action move_west.\n\nYou see:")
    assert info["history"].startswith("Most recent 2 steps of the player's in-game observation:\n\n"
                                      "Player Observation Step 0:\nYou took action noop.")
    assert "Player Observation Step 1:\n" + GOLDEN in info["history"]
    fixed = SmartPlayCrafter(SmartPlayCrafterParams(), SMARTPLAY_ROW)
    _, info = fixed.reset(seed=0)
    assert info["history"] == ""
    _, _, _, _, info = fixed.step("Noop")
    assert info["history"] == "Most recent 1 steps of the player's in-game observation:\n\nPlayer Observation Step 0:\n" + GOLDEN


def _window(**changes):
    engine = CrafterEngine(seed=0, render_images=False)
    engine.reset()
    win = describe.window(engine)
    return describe.Window(**{**win.__dict__, **changes})


def test_sleeping_status_glued_in_compat_separated_in_fixed():
    win = _window(sleeping=True)
    compat = describe.smartplay_frame(win, "sleep", compat=True)
    assert compat.startswith(
        "You took action sleep.You are sleeping, and will not be able take actions until energy is full.\n\n\n\nYou see:"
    )
    fixed = describe.smartplay_frame(win, "sleep", compat=False)
    assert fixed.startswith(
        "You took action sleep.\n\nYou are sleeping, and will not be able take actions until energy is full.\n\nYou see:"
    )
    dead = describe.smartplay_frame(_window(dead=True), "noop", compat=True)
    assert dead.startswith("You took action noop.You died.\n\n\n\nYou see:")


def test_action_echo_names():
    assert describe.action_echo("move_left") == "You took action move_west."
    assert describe.action_echo("move_up") == "You took action move_north."
    assert describe.action_echo("do") == "You took action do."
    assert describe.action_echo("make_wood_pickaxe") == "You took action make_wood_pickaxe."


def test_out_of_map_near_the_low_edge():
    engine = CrafterEngine(seed=0, render_images=False)
    engine.reset()
    world, player = engine.world, engine.player
    spot = next((1, y) for y in range(3, 60) if world[(1, y)][1] is None)
    world[spot] = "grass"
    world.move(player, spot)
    engine._sem_view.forget()
    win = describe.window(engine)
    assert win.low_edge
    assert describe.smartplay_frame(win, None, compat=True) == describe.OUT_OF_MAP
    fixed = describe.smartplay_frame(win, None, compat=False)
    assert describe.OUT_OF_MAP not in fixed and fixed.startswith("You see:")
    assert all(spot[0] + dx >= 0 for dx, _, _ in win.cells)  # nothing outside the world is described
    # BALROG's slice of the map comes out empty there (no error): it sees and faces nothing
    assert describe.balrog_long_term(win) == "You see nothing away from you.\n\nYou face nothing at your front."


def test_balrog_texts():
    game = BalrogCrafter(BalrogCrafterParams(), BALROG_ROW)
    obs, info = game.reset(seed=0)
    long_term, short_term = info["long_term_context"], info["short_term_context"]
    assert long_term.startswith(("You see:", "You see nothing away from you."))
    assert short_term.startswith("Your status:\n- health: 9/9")
    assert short_term.endswith("You have nothing in your inventory.")
    assert obs == long_term == info["obs"]
    assert "You took action" not in long_term
    # the same seed-0 view as the golden frame, in BALROG's order (names as first met scanning west to east)
    # and with the singular "step"
    assert long_term == (
        "You see:\n- tree 7 steps to your north-west\n- grass 1 step to your west\n- cow 5 steps to your north-east"
        "\n\nYou face grass at your front."
    )
    assert info["manual"] == balrog_instruction_prompt()
    assert game.default_action == "Noop" and game.legal_actions() == list(ACTIONS)
    sleeping = describe.balrog_long_term(_window(sleeping=True))
    assert sleeping.startswith(describe.SLEEPING + "\n\n\n\nYou see:")


def test_native_crafter_score():
    assert crafter_score([]) is None
    assert crafter_score([[]]) == pytest.approx(0.0)
    assert crafter_score([list(ACHIEVEMENTS)]) == pytest.approx(100.0)
    assert crafter_score([["collect_wood"], []]) == pytest.approx(math.exp(math.log(51) / 22) - 1)
    rates = success_rates([["collect_wood", "place_table"], ["collect_wood"]])
    assert rates["collect_wood"] == 100.0 and rates["place_table"] == 50.0 and rates["wake_up"] == 0.0

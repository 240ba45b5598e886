"""SmartPlay's answer matching on natural answers for every game, beside the original's result.

``data/smartplay_matching.json`` holds facts: each answer's result under SmartPlay's own ``match_act``
(``examples/experiment.py``, run unchanged on these answers), where no match means action 0.
"""

import json
from pathlib import Path

import pytest

from playbench.agents.prompts.matching import smartplay_compat, smartplay_fixed
from playbench.core.registry import get_task

DATA = json.loads((Path(__file__).parent / "data" / "smartplay_matching.json").read_text())
ROWS = DATA["rows"]


def _id(row: dict) -> str:
    return f"{row['game']}:{row['answer']}"


def test_action_lists_are_the_games_own() -> None:
    for game, actions in DATA["actions"].items():
        task = get_task(next(r["task"] for r in ROWS if r["game"] == game))
        env = task.make_game(task.params({}), 0)
        env.reset(seed=0)
        assert env.legal_actions() == actions, game
        env.close()


@pytest.mark.parametrize("row", ROWS, ids=_id)
def test_compat_is_the_original_matcher(row: dict) -> None:
    legal = DATA["actions"][row["game"]]
    found = smartplay_compat(row["answer"], legal)
    assert (found is not None) == row["original_matched"]
    assert (found or legal[0]) == row["original"]  # no match: SmartPlay runs action 0


@pytest.mark.parametrize("row", ROWS, ids=_id)
def test_default_never_behind_the_original(row: dict) -> None:
    legal = DATA["actions"][row["game"]]
    found = smartplay_fixed(row["answer"], legal)
    executed = found or legal[0]  # an unmatched answer is recorded invalid and runs action 0
    if row["original"] == row["intended"]:
        assert executed == row["intended"]
    if row["original_matched"]:  # whatever the original understood, the default understands too
        assert found is not None
    if found is not None and row["intended"] is not None:
        assert found == row["intended"]


def test_default_fixes_the_named_bugs() -> None:
    rps, bandit = DATA["actions"]["rps"], DATA["actions"]["bandit"]
    assert smartplay_fixed("Scissors", rps) == "Scissor" and smartplay_fixed("rocky", rps) == "Rock"
    assert smartplay_fixed("Move Northwest", DATA["actions"]["minecraft"]) == "Move North"
    assert smartplay_fixed("Pull slot machine 2", bandit) == "Pull slot machine 2."  # original: machine 1
    assert smartplay_fixed("3", rps) == "Scissor"  # a bare list number
    assert smartplay_fixed("Paper covers rock", rps) == "Paper"
    assert smartplay_fixed("I am not sure.", bandit) is None  # recorded invalid, not silently machine 1
    wins = sum(smartplay_fixed(r["answer"], DATA["actions"][r["game"]]) == r["intended"] for r in ROWS)
    original = sum(r["original_matched"] and r["original"] == r["intended"] for r in ROWS)
    assert wins > original

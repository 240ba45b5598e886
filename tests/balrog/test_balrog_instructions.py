"""Every BALROG task's instruction prompt is BALROG's own, byte for byte (``data/instructions.json``).

With ``test_balrog_requests.py`` (which shows, for one task per environment, that the whole request of
every strategy, step by step, is BALROG's once the instruction prompt is), this covers every task.
NetHack's single task is covered there (its default prompt differs by the B9 fix only).
"""

import json
from pathlib import Path

import pytest

from playbench.core.registry import get_task
from playbench.suites.balrog.facts import TASKS
from playbench.suites.balrog.protocol import textworld_prompt
from playbench.suites.balrog.submission import original_name

FACTS = json.loads((Path(__file__).parent / "data" / "instructions.json").read_text())


def _manual(task_id: str, seed: int = 0) -> str:
    task = get_task(task_id)
    game = task.make_game(task.params({}), 0)
    try:
        _, info = game.reset(seed=seed)
        return str(info["manual"])
    finally:
        game.close()


def test_facts_cover_every_task() -> None:
    covered = {("minihack", t) for t in FACTS["minihack"]} | {("textworld", t) for t in FACTS["textworld"]}
    covered |= {("crafter", t) for t in FACTS["crafter"]} | {("babaisai", t) for t in FACTS["babaisai"]["tasks"]}
    ours = {original_name(row.id) for row in TASKS if row.env not in ("babyai", "nle")}
    assert ours == covered


@pytest.mark.parametrize("task_id", [row.id for row in TASKS if row.env == "minihack"])
def test_minihack(task_id: str) -> None:
    manual = _manual(task_id)
    assert manual == FACTS["minihack"][original_name(task_id)[1]]


@pytest.mark.parametrize("name", ["treasure_hunter", "the_cooking_game", "coin_collector"])
def test_textworld(name: str) -> None:
    """The game's manual is ``textworld_prompt`` (test_balrog_textworld.py); it is BALROG's text."""
    assert textworld_prompt(name) == FACTS["textworld"][name]


def test_babaisai_and_crafter() -> None:
    for row in TASKS:
        if row.env == "babaisai":
            assert _manual(row.id) == FACTS["babaisai"]["prompt"], row.id
    assert _manual("balrog/crafter/default") == FACTS["crafter"]["default"]


@pytest.mark.parametrize("kind", ["goto", "pickup", "open", "putnext", "pick_up_seq_go_to"])
def test_babyai(kind: str) -> None:
    for seed in (0, 1):
        task = get_task(f"balrog/babyai/{kind}")
        game = task.make_game(task.params({}), 0)
        _, info = game.reset(seed=seed)
        assert info["manual"] == FACTS["babyai_template"].replace("{mission}", game.env.mission)
        game.close()

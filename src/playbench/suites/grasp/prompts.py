"""The official GRASP prompts (§5): system message with four optional fragments, and the user message."""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

from playbench.suites.grasp.grid import Constraints

PromptVariant = Literal["official", "paper"]

_SYSTEM = (
    "You are an agent in a grid world. The grid world consists of cells. Each cell may have one unit of energy "
    "or no energy at all.{obstacle} The goal for you is to collect as much energy as possible and put the "
    "collected energy back in the cell where you started. You have 20 steps.{movement} You can collect energy "
    "from a cell by being in the cell and TAKE the energy from the cell. If there is no energy in the cell, you "
    "cannot take any energy from it.{carry} You can not move across the boundary of the grid world. You can drop "
    "all your energy by DROP.{cost} You can use less than 20 steps. Any invalid step will not cause any change in "
    "the grid world."
)
FRAGMENTS = {
    "obstacle": " Some cells are blocked by obstacles. You cannot move to or through these cells.",
    "movement4": (
        " For each step, you can choose UP, DOWN, LEFT, RIGHT, TAKE, and DROP. UP allows you to move one cell up "
        "in one step. The other movements are similar."
    ),
    "movement8": (
        " For each step, you can choose UP, DOWN, LEFT, RIGHT, UPLEFT, UPRIGHT, DOWNLEFT, DOWNRIGHT, TAKE, and "
        "DROP. UPLEFT allows you to move diagonally one cell up and left in one step. The other movements are "
        "similar."
    ),
    "carry": " You can only carry two unit of energy at a time.",
    # The official requests have no space before this sentence ("...by DROP.Each step..."); the paper has one.
    "cost": "Each step costs you 0.3 unit of energy.",
}
_USER = (
    "You are given the following as the representation of the grid world, where A is you, E is energy{obstacle}:\n"
    "{grid}Give your sequence of steps as a list. For example: [STEP, STEP, ...]"
)


@lru_cache(maxsize=64)  # one string for all the episodes of a setting (every live episode holds its 1.1 KB)
def system_message(blocked: bool, constraints: Constraints, variant: PromptVariant = "official") -> str:
    """The system message; ``blocked`` is the grid file's obstacle flag (not a count of obstacles)."""
    cost = ""
    if constraints.cost > 0:
        cost = FRAGMENTS["cost"] if variant == "official" else " " + FRAGMENTS["cost"]
    return _SYSTEM.format(
        obstacle=FRAGMENTS["obstacle"] if blocked else "",
        movement=FRAGMENTS["movement8" if constraints.movement == 8 else "movement4"],
        carry=FRAGMENTS["carry"] if constraints.carry is not None else "",
        cost=cost,
    )


def user_message(grid_text: str, blocked: bool) -> str:
    """The user message around the §3 grid text."""
    return _USER.format(obstacle=", O is an obstacle" if blocked else "", grid=grid_text)


def messages(grid_text: str, blocked: bool, constraints: Constraints, variant: PromptVariant = "official") -> list[dict[str, str]]:
    """The chat messages of a GPT-3.5/GPT-4o request: system then user."""
    return [
        {"role": "system", "content": system_message(blocked, constraints, variant)},
        {"role": "user", "content": user_message(grid_text, blocked)},
    ]


def single_message(grid_text: str, blocked: bool, constraints: Constraints, variant: PromptVariant = "official") -> str:
    """The o1-mini form: one user message = system text, a blank line, user text."""
    return system_message(blocked, constraints, variant) + "\n\n" + user_message(grid_text, blocked)

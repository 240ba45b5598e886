"""Tower of Hanoi with 3 or 4 disks (SmartPlay §5.3)."""

from functools import cache
from typing import Any

import numpy as np

from playbench.suites.smartplay.base import SmartPlayGame, action_list_text
from playbench.suites.smartplay.facts import SmartPlayTask
from playbench.suites.smartplay.params import SmartPlayParams

RODS = "ABC"
MOVES = [(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)]
ACTIONS = [f"Move the top disk of rod {RODS[a]} to the top of rod {RODS[b]}" for a, b in MOVES]

# The first two lines end in a space, as in the original manual.
MANUAL_TEMPLATE = (
    "The game consists of three rods (A,B,C) and a number of disks of various sizes, which can go onto any rod. \n"
    "The game begins with the disks stacked on rod A in order of decreasing size, "
    "the smallest at the top (righthand side). \n"
    """The objective is to move the entire stack to rod C, obeying the following rules:

 - Only one disk may be moved at a time.
 - Each move consists of taking the top disk from one of the stacks and placing it on top of another stack or on an empty rod.
 - You cannot place a bigger disk on top of a smaller disk.

For example, considering movements from B under the following setting:
- A: |bottom, [0], top|
- B: |bottom, [1], top|
- C: |bottom, [2], top|
You are only allowed to move from B to C but not A, since the top of B (1) is smaller than the top of C (2) but bigger than the top of A (0).

Finally, the starting configuration is:
{start}

and the goal configuration is:
{goal}
with top on the right and bottom on the left

"""
)


def rods_text(rods: list[list[int]]) -> str:
    """The three ``- X: |bottom, [...], top|`` lines."""
    return "\n".join(f"- {RODS[i]}: |bottom, {rods[i]}, top|" for i in range(3))


def next_optimal_move(rods: list[list[int]]) -> tuple[int, int] | None:
    """The first move of a shortest solution from any legal state (None when solved)."""
    pos = {disk: r for r in range(3) for disk in rods[r]}

    def solve(k: int, target: int) -> tuple[int, int] | None:
        # bring disks 0..k onto ``target``: the largest first, clearing the smaller ones out of its way
        if k < 0:
            return None
        if pos[k] == target:
            return solve(k - 1, target)
        spare = 3 - pos[k] - target
        return solve(k - 1, spare) or (pos[k], target)

    return solve(len(pos) - 1, 2)


@cache
def hanoi_manual(disks: int) -> str:
    """The manual of a game of ``disks`` disks: one string shared by all its games (1.5 KB each, every live one held)."""
    start = [list(range(disks - 1, -1, -1)), [], []]
    goal = [[], [], list(range(disks - 1, -1, -1))]
    return MANUAL_TEMPLATE.format(start=rods_text(start), goal=rods_text(goal)) + action_list_text(ACTIONS)


class HanoiGame(SmartPlayGame):
    """Move the stack from rod A to rod C. Score = disks on rod C; illegal moves cost -1."""

    actions = ACTIONS
    reference_policies = ("random", "oracle")

    def __init__(self, params: SmartPlayParams, row: SmartPlayTask) -> None:
        super().__init__(params, row)
        self.disks = disks = int(row.variant or 0)
        self.manual = hanoi_manual(disks)
        self.rods: list[list[int]] = [list(range(disks - 1, -1, -1)), [], []]

    def _reset(self) -> str:
        self.rods = [list(range(self.disks - 1, -1, -1)), [], []]
        self.illegal_moves = 0
        return "Current configuration:\n" + rods_text(self.rods)

    def _step(self, index: int) -> tuple[str, float, bool, dict[str, Any]]:
        src, dst = MOVES[index]
        legal = bool(self.rods[src]) and (not self.rods[dst] or self.rods[dst][-1] > self.rods[src][-1])
        reward, done = 0.0, False
        if legal:
            self.rods[dst].append(self.rods[src].pop())
            if len(self.rods[2]) == self.disks:
                reward, done, self.completed = 100.0, True, 1
        else:
            reward = -1.0
            self.illegal_moves += 1
        self.score = float(len(self.rods[2]))
        said = ACTIONS[index].lower() if self.compat else ACTIONS[index][0].lower() + ACTIONS[index][1:]
        obs = f"You tried to {said}. Current configuration:\n" + rods_text(self.rods)
        return obs, reward, done, {"invalid_action": not legal}

    def _metrics(self) -> dict[str, Any]:
        return {"illegal_moves": getattr(self, "illegal_moves", 0), "disks_on_c": len(self.rods[2])}

    @property
    def progress(self) -> float:
        """Share of the disks on rod C."""
        return len(self.rods[2]) / self.disks

    def instance(self) -> dict[str, Any]:
        """Hanoi has one instance per disk count."""
        return {"disks": self.disks}

    def reference_action(self, policy: str, rng: np.random.Generator) -> str:
        """``oracle`` follows a shortest solution from the current state."""
        if policy == "oracle":
            move = next_optimal_move(self.rods)
            return ACTIONS[MOVES.index(move)] if move else ACTIONS[0]
        return super().reference_action(policy, rng)

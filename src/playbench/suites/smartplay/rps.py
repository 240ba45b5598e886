"""Rock Paper Scissors against a biased opponent (SmartPlay §5.2)."""

from typing import Any

import numpy as np

from playbench.suites.smartplay.base import SmartPlayGame, action_list_text
from playbench.suites.smartplay.facts import SmartPlayTask
from playbench.suites.smartplay.params import SmartPlayParams

ACTIONS = ["Rock", "Paper", "Scissor"]
VARIANTS: dict[str, tuple[tuple[float, float, float], tuple[int, int, int]]] = {
    "basic": ((0.2, 0.2, 0.6), (1, 1, 1)),
    "different-score": ((0.3, 0.3, 0.4), (1, 2, 1)),
}
# BEATS[a] is the action that a beats: Rock beats Scissor, Paper beats Rock, Scissor beats Paper.
BEATS = {0: 2, 1: 0, 2: 1}

MANUAL_TEMPLATE = """For the game Rock Paper Scissors, you and the opponent choose one of three options: rock, paper, or scissors.
After both players have chosen, the winner is determined as follows:
Rock crushes scissors (Rock wins, score {rock})
Scissors cut paper (Scissors win, score {scissors})
Paper covers rock (Paper wins, score {paper})
If you lose, your score is the negative of the winner's score.
If both players choose the same option, it's a draw (score 0).
Your goal is to maximize your score.

"""


def outcome(a: int, o: int) -> int:
    """+1 if ``a`` beats ``o``, -1 if it loses, 0 on a tie."""
    if a == o:
        return 0
    return 1 if BEATS[a] == o else -1


class RPSGame(SmartPlayGame):
    """Each round the opponent samples from a hidden distribution. Score = rounds played optimally."""

    actions = ACTIONS
    reference_policies = ("random", "oracle")

    def __init__(self, params: SmartPlayParams, row: SmartPlayTask) -> None:
        super().__init__(params, row)
        self.variant = str(row.variant)
        self.base_p, self.base_s = VARIANTS[self.variant]
        self.p = np.array(self.base_p)
        self.s = list(self.base_s)
        self.optimal = 0

    def _reset(self) -> str:
        order = self.rng.permutation(3)
        self.p = np.array([self.base_p[i] for i in order])
        self.s = [self.base_s[i] for i in order]
        values = [sum(self.p[o] * (self.s[a] if outcome(a, o) > 0 else -self.s[o] if outcome(a, o) < 0 else 0)
                      for o in range(3)) for a in range(3)]
        self.optimal = int(np.argmax(values))
        # compat prints s[1] (Paper's score) on the Scissors line and s[2] on the Paper line (bug B2)
        scissors, paper = (self.s[1], self.s[2]) if self.compat else (self.s[2], self.s[1])
        self.manual = MANUAL_TEMPLATE.format(rock=self.s[0], scissors=scissors, paper=paper) + action_list_text(ACTIONS)
        return "New round begins."

    def _step(self, index: int) -> tuple[str, float, bool, dict[str, Any]]:
        opp = int(self.rng.choice(3, p=self.p))
        result = outcome(index, opp)
        reward = self.s[index] if result > 0 else -self.s[opp] if result < 0 else 0
        word = {1: "won", -1: "lost", 0: "tied"}[result]
        if index == self.optimal:
            self.score += 1
        obs = (f"You chose {ACTIONS[index]}, and the opponent chose {ACTIONS[opp]}. "
               f"You {word} and received score {reward}.\nNew round begins.")
        return obs, reward, False, {"result": word}

    @property
    def progress(self) -> float:
        """Share of the rollout played optimally so far."""
        return self.score / self.max_steps

    def instance(self) -> dict[str, Any]:
        """The opponent's distribution and scores as assigned to the actions this episode."""
        return {"variant": self.variant, "p": [float(x) for x in self.p], "s": list(self.s),
                "optimal_action": ACTIONS[self.optimal]}

    def reference_action(self, policy: str, rng: np.random.Generator) -> str:
        """``oracle`` plays the best response to the true opponent distribution."""
        if policy == "oracle":
            return ACTIONS[self.optimal]
        return super().reference_action(policy, rng)

"""The downstream next-move task of paper §3.5 — a reconstruction, not the unreleased original set.

A minigame is a walkthrough prefix ending at step t whose next walkthrough step t+1 is the first
forward walk of a map edge; the model must name that move. Optionally a small local map lists the
exits of the current place known by step t. The valid list is the place's exits plus the
non-movement actions of the prefix (spec §9).
"""

import random
from functools import lru_cache
from typing import Any, TypedDict

import numpy as np

from playbench.core.game import Game
from playbench.suites.mango.datacheck import check_game
from playbench.suites.mango.formats import game_names, open_data
from playbench.suites.mango.params import MinigameParams
from playbench.suites.mango.procedural import MazeParams, generate
from playbench.suites.mango.walkthrough import Step, count_tokens, parse_walkthrough

MAX_NON_MOVES = 6


class Minigame(TypedDict, total=False):
    """One minigame (total=False only because a game holds an empty one until its reset)."""

    game: str
    step: int  # the prefix ends here; the answer is the move of step + 1
    location: str
    target: str  # that move
    exits: list[str]
    non_moves: list[str]
    hint: list[tuple[str, str]]  # (destination, action) of the exits known by ``step``


def _prefix_text(steps: list[Step], budget: int) -> str:
    blocks = [f"==>STEP NUM: {s.num}\n==>ACT: {s.action}\n==>OBSERVATION: {s.observation}\n" for s in steps]
    while len(blocks) > 1 and count_tokens("\n".join(blocks)) > budget:
        blocks.pop(0)  # the oldest steps go first
    return "\n".join(blocks)


def minigames(data: Any, max_step: int) -> list[Minigame]:
    """Every minigame of a game: one per edge first walked forward at a step ≤ ``max_step``."""
    steps = parse_walkthrough(data.walkthrough_text)
    by_num = {s.num: s for s in steps}
    map_actions = {e["action"] for e in data.edges}
    out: list[Minigame] = []
    for e in sorted(data.edges, key=lambda e: e["seen_in_forward"]):
        t1 = e["seen_in_forward"]
        if t1 > max_step or t1 - 1 not in by_num:
            continue
        exits = list(dict.fromkeys(x["action"] for x in data.edges if x["src_node"] == e["src_node"]))
        non_moves = [s.action.lower() for s in steps if 0 < s.num < t1 and s.action.lower() not in map_actions]
        non_moves = list(dict.fromkeys(reversed(non_moves)))[:MAX_NON_MOVES]
        hint = [(x["dst_node"], x["action"]) for x in data.edges if x["src_node"] == e["src_node"] and x["edge_min_step"] < t1]
        out.append({"game": data.name, "step": t1 - 1, "location": e["src_node"], "target": e["action"],
                    "exits": exits, "non_moves": non_moves, "hint": hint})
    return out


@lru_cache(maxsize=4)
def _data_minigames(path: str, games: str | None, max_step: int) -> tuple[tuple[Any, Minigame], ...]:
    found = open_data(path, game_names(games))
    for game in found:
        check_game(game, skeletons=False)  # minigames read the walkthrough and the map, not the skeletons
    return tuple((g, m) for g in found for m in minigames(g, max_step))


def check_data(params: MinigameParams) -> None:
    """``Task.check_inputs`` of ``mango/minigame``: read and check the files of ``-T data=`` it uses."""
    if params.data:
        _data_minigames(params.data, params.games, params.max_step)


def data_minigame_count(path: str, games: str | None, max_step: int) -> int:
    """How many minigames a data folder gives."""
    return len(_data_minigames(path, games, max_step))


class MinigameGame(Game):
    """Choose the walkthrough's next move from a valid-action list."""

    reference_policies = ("random", "oracle")

    def __init__(self, params: MinigameParams, index: int) -> None:
        super().__init__()
        self.params = params
        self.index = index
        self.item: Minigame = {}
        self.valid: list[str] = []
        self.answer: str | None = None
        self.maze_seed: int | None = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """Pick the minigame and show its prompt."""
        super().reset(seed=seed)
        p = self.params
        seed = self.next_seed(seed)
        rng = random.Random(seed)
        if p.data:
            data, self.item = _data_minigames(p.data, p.games, p.max_step)[self.index]
        else:
            self.maze_seed = seed
            data = generate(self.maze_seed, MazeParams(locations=p.locations))
            self.item = rng.choice(minigames(data, p.max_step))
        steps = [s for s in parse_walkthrough(data.walkthrough_text) if s.num <= self.item["step"]]
        self.valid = list(dict.fromkeys(self.item["exits"] + self.item["non_moves"]))
        rng.shuffle(self.valid)
        parts = [_prefix_text(steps, p.budget)]
        if p.hint and self.item["hint"]:
            ways = "; ".join(f"if you want to go to {d}, you should go {a}" for d, a in self.item["hint"])
            parts.append(f"Small local map info: {ways}.")
        parts.append(
            "Consider what you should do next, and choose one appropriate action from the valid actions list: "
            f"[{', '.join(self.valid)}]\nPlease just tell me the selected action without any extra words."
        )
        self.manual = "You are playing a text game."
        self._last_obs = "\n".join(parts)
        self.answer = None
        self.invalid_actions = 0
        return self._last_obs, self._info()

    def legal_actions(self) -> list[str] | None:
        """The valid-action list of the prompt."""
        return list(self.valid)

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Success iff the action is the walkthrough's next move (an unlisted one plays the first listed)."""
        self.answer = self.legal_or_default(action)
        ok = float(action.strip().lower() == self.item["target"])
        return self._last_obs, ok, True, False, self._info()

    def _success(self) -> float:
        return float(self.answer is not None and self.answer.strip().lower() == self.item["target"])

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"manual": self.manual, "obs": self._last_obs, "history": "", "score": self._success(),
                                "invalid_actions": self.invalid_actions}
        info["completed"] = int(self._success())
        if self.answer is not None:
            info["metrics"] = {"game": self.item["game"], "step": self.item["step"], "hint": self.params.hint,
                               "success": self._success(), "options": len(self.valid)}
        return info

    @property
    def progress(self) -> float:
        """1 once solved."""
        return self._success()

    def instance(self) -> dict[str, Any]:
        """The game and step of this minigame."""
        out = {"game": self.item.get("game"), "step": self.item.get("step")}
        if self.maze_seed is not None:
            out.update(source="procedural", maze_seed=self.maze_seed, locations=self.params.locations)
        return out

    def reference_action(self, policy: str, rng: np.random.Generator) -> str:
        """``oracle``: the walkthrough's next move; ``random``: uniform over the valid list."""
        if policy == "oracle":
            return self.item["target"]
        return super().reference_action(policy, rng)

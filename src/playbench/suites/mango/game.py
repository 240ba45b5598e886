"""The one-step MANGO game: the observation is the release prompt, the action is the model's whole answer."""

import random
from typing import Any

import numpy as np

from playbench.core.game import Game
from playbench.suites.mango.evaluate import Score, TaskKind
from playbench.suites.mango.formats import JsonObject
from playbench.suites.mango.params import MangoParams
from playbench.suites.mango.prompts import SYSTEM_MESSAGE, build_prompt, df_question, format_trajectory, rf_question
from playbench.suites.mango.sources import PreparedGame, data_question, procedural_game


class MangoGame(Game):
    """One DF or RF question."""

    reference_policies = ("random", "oracle")

    def __init__(self, task: TaskKind, params: MangoParams, index: int) -> None:
        super().__init__()
        self.task = task
        self.params = params
        self.index = index
        self.manual = SYSTEM_MESSAGE
        self.game: PreparedGame | None = None
        self.skeleton: JsonObject = {}
        self.result: Score | None = None
        self.maze_seed: int | None = None

    # -- gymnasium face ---------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """Pick the question (from the data, or a procedural maze seeded by ``seed``) and show its prompt."""
        super().reset(seed=seed)
        p = self.params
        if p.data:
            self.game, self.skeleton = data_question(p.data, p.games, p.cutoff, self.task, self.index)
        else:
            self.maze_seed = self.next_seed(seed)
            self.game = procedural_game(self.maze_seed, p.locations, p.cutoff)
            self.skeleton = self._pick(random.Random(self.maze_seed))
        self.result = None
        self.invalid_actions = 0
        self._last_obs = self.prompt()
        return self._last_obs, self._info()

    def _pick(self, rng: random.Random) -> JsonObject:
        """A procedural question: even episodes ask easy ones, odd episodes hard ones when the maze has any."""
        assert self.game is not None  # set by reset()
        qs = self.game.questions[self.task]
        want = "easy" if self.index % 2 == 0 else "hard"
        cut = self.game.prefix.cutoff
        pool = [q for q in qs if (q["min_step_forward_answerable"] <= cut) == (want == "easy")] or qs
        return rng.choice(pool)

    def prompt(self) -> str:
        """The exact release (or paper) prompt of the question."""
        assert self.game is not None  # set by reset()
        s, style, d = self.skeleton, self.params.prompt, self.game.data
        if self.task == "df":
            question = df_question(s["src_node"], [x["action"] for x in s["path_details"]], style)
        else:
            question = rf_question(s["src_node"], s["dst_node"], style)
        return build_prompt(self.game.prefix.text, d.actions, d.locations, question, style)

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Score the answer; the episode ends."""
        assert self.game is not None  # set by reset()
        evaluator = self.game.evaluator(self.params.mode, self.params.prompt)
        answer = self.legal_or_default(action)
        self.result = evaluator.score(self.task, self.skeleton["id"], self.game.prefix.cutoff, answer)
        return self._last_obs, self.result.strict, True, False, self._info()

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"manual": self.manual, "obs": self._last_obs, "history": "",
                                "invalid_actions": self.invalid_actions,
                                # the release's request: its system message, then the prompt as the user turn
                                "messages": [{"role": "system", "content": self.manual},
                                             {"role": "user", "content": self._last_obs}]}
        r = self.result
        info["score"] = r.strict if r else 0.0
        info["completed"] = int(bool(r and r.strict == 1.0))
        if r is not None:
            info["metrics"] = self.metrics()
        return info

    def metrics(self) -> dict[str, Any]:
        """What the MANGO report needs for this episode."""
        r = self.result
        assert self.game is not None  # set by reset()
        return {
            "task": self.task,
            "game": self.game.name,
            "id": self.skeleton["id"],
            "cutoff": self.game.prefix.cutoff,
            "difficulty": r.difficulty if r else None,
            "status": r.status if r else None,
            "valid": bool(r and r.valid),
            "strict": r.strict if r else 0.0,
            "loose": r.loose if r else 0.0,
            "reasoning": r.reasoning if r else 0.0,
            "path_len": r.path_len if r else 0,
            "parse_error": r.parse_error if r else None,
            "mode": self.params.mode,
            "prompt": self.params.prompt,
            "source": "data" if self.params.data else "procedural",
        }

    @property
    def progress(self) -> float:
        """1 once answered correctly (strict)."""
        return float(self.result.strict) if self.result else 0.0

    def instance(self) -> dict[str, Any]:
        """The game, the question id and, for procedural mazes, the seed and size that rebuild the maze."""
        out: dict[str, Any] = {"task": self.task, "game": self.game.name if self.game else None}
        out["id"] = self.skeleton.get("id")
        if self.params.data:
            out.update(source="data", data=self.params.data)
        else:
            out.update(source="procedural", maze_seed=self.maze_seed, locations=self.params.locations)
        out["cutoff_rule"] = self.params.cutoff
        return out

    # -- reference policies ------------------------------------------------------------------

    def reference_action(self, policy: str, rng: np.random.Generator) -> str:
        """``oracle``: a correct trajectory from the map; ``random``: a plausible but blind one."""
        assert self.game is not None  # set by reset()
        s, style, edges = self.skeleton, self.params.prompt, self.game.data.edges
        if policy == "oracle":
            path = s["path_details"] if self.task == "df" else self.game.shortest[(s["src_node"], s["dst_node"])]["path_details"]
            return format_trajectory([(x["prev_node"], x["action"], x["node"]) for x in path], style)
        if policy != "random":
            return super().reference_action(policy, rng)
        locations = self.game.data.locations
        steps: list[tuple[str, str, str]] = []
        here = s["src_node"]
        if self.task == "df":
            for x in s["path_details"]:
                there = locations[int(rng.integers(len(locations)))]
                steps.append((here, x["action"], there))
                here = there
        else:
            length = len(self.game.shortest[(s["src_node"], s["dst_node"])]["path_details"])
            for _ in range(length):
                exits = [e for e in edges if e["src_node"] == here]
                if not exits:
                    break
                e = exits[int(rng.integers(len(exits)))]
                steps.append((here, e["action"], e["dst_node"]))
                here = e["dst_node"]
        return format_trajectory(steps, style) if steps else "[]"

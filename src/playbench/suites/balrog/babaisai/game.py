"""Baba Is AI as a BALROG game (spec §6.4): a native engine, BALROG's text view, images, oracle."""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from playbench.suites.balrog.babaisai import solver
from playbench.suites.balrog.babaisai.data import ACTIONS, MOVES
from playbench.suites.balrog.babaisai.engine import LayoutKey, World
from playbench.suites.balrog.babaisai.levels import Level, generate, level_rng
from playbench.suites.balrog.babaisai.params import BabaParams
from playbench.suites.balrog.babaisai.text import (
    INSTRUCTION_PROMPT,
    broken_you_text,
    no_you_text,
    observation_text,
    rules_text,
)
from playbench.suites.balrog.facts import BalrogTask
from playbench.suites.balrog.game import BalrogGame, Frame

TILE = 32


class BabaGame(BalrogGame):
    """One ``env/<level>`` episode of Baba Is AI; the level is drawn from the reset seed."""

    env_name = "babaisai"

    def __init__(
        self,
        row: BalrogTask,
        *,
        compat: bool = False,
        baba_text: str = "compat",
        add_ruleset: bool = True,
        images: bool = False,
        feedback: bool = True,
        max_steps: int | None = None,
    ) -> None:
        super().__init__(row, images=images, feedback=feedback, max_steps=max_steps)
        if images:
            from playbench.suites.balrog.babaisai.render import check_opencv

            check_opencv()  # the rule words are drawn with OpenCV 4, as the original draws them
        self.level_id = row.level
        self.compat = compat
        self.corrected = baba_text == "corrected"
        self.add_ruleset = True if compat else add_ruleset
        self.rng = level_rng(0)
        self.level: Level | None = None
        self.world: World | None = None
        self._seed: int | None = None
        self._won = False
        self._progression = 0.0
        self._resets = 0
        self._plan: list[tuple[str, LayoutKey]] = []
        self._initial_layout = ""

    @classmethod
    def from_params(cls, row: BalrogTask, params: BabaParams) -> BabaGame:
        """Build the game of the task's facts row from task parameters."""
        return cls(row, compat=params.compat, baba_text=params.baba_text, add_ruleset=params.add_ruleset,
                   images=params.images, feedback=params.feedback, max_steps=params.max_steps)

    # -- actions ----------------------------------------------------------------------------------

    def legal_actions(self) -> list[str]:
        """``idle``, ``up``, ``right``, ``down``, ``left``."""
        return list(ACTIONS)

    @property
    def default_action(self) -> str:
        """``idle``."""
        return "idle"

    # -- engine -----------------------------------------------------------------------------------

    def _new_level(self) -> None:
        self.level = generate(self.level_id, self.rng, self.row.max_steps)  # the engine keeps the row's limit
        self.world = self.level.world
        self._plan = []

    def _make_frame(self, text: str) -> Frame:
        image = None
        if self.images:
            from playbench.suites.balrog.babaisai.render import render

            assert self.world is not None  # set by reset()
            image = render(self.world)
        return Frame(text, "", image)

    def _text(self) -> str:
        """The observation text; when nothing is YOU: compat resets the level (B15), fixed says so."""
        assert self.world is not None  # set by reset()
        text = observation_text(self.world, self.add_ruleset, self.corrected)
        if text is not None:
            return text
        if not self.compat:
            return no_you_text(self.world, self.add_ruleset)
        old_rules = rules_text(self.world)
        self._resets += 1
        self._new_level()
        assert self.world is not None
        new_text = observation_text(self.world, self.add_ruleset, self.corrected) or ""
        size = (self.world.width * TILE, self.world.height * TILE)
        return broken_you_text(old_rules, new_text, size)

    def _engine_reset(self, seed: int) -> tuple[Frame, str]:
        self._seed = seed
        self.rng = level_rng(seed)  # BALROG: np.random.seed(seed) before reset
        self._won = False
        self._progression = 0.0
        self._resets = 0
        self._new_level()
        assert self.world is not None
        self._initial_layout = "\n".join(self.world.render_rows())
        return self._make_frame(self._text()), INSTRUCTION_PROMPT

    def _engine_step(self, action: str) -> tuple[Frame, float, bool, bool]:
        assert self.world is not None  # set by reset()
        reward, done, won, lost = self.world.step(action)
        if done:
            self._progression = 1.0 if reward > 0 else 0.0
            self._won = won and reward > 0
        frame = self._make_frame(self._text())
        return frame, float(reward), bool(done and (won or lost)), bool(done and not (won or lost))

    # -- results ------------------------------------------------------------------------------------

    def progression(self) -> float:
        """1.0 if the episode ended with a positive reward (a win), else 0.0."""
        return self._progression

    def won(self) -> bool:
        """Whether a YOU object reached a WIN object."""
        return self._won

    def stats(self) -> dict[str, Any]:
        """BALROG's ``get_stats()`` also carries the level's ``target_plan``; plus mid-episode resets (B15)."""
        out: dict[str, Any] = {"target_plan": self.level.target_plan if self.level else None}
        if self.compat:
            out["level_resets"] = self._resets
        return out

    def instance(self) -> dict[str, Any]:
        """Level id, seed, sampled objects and a fingerprint of the initial layout."""
        if self.level is None:
            return {"env": "babaisai", "task": f"env/{self.level_id}"}
        return {
            "env": "babaisai",
            "task": f"env/{self.level_id}",
            "seed": self._seed,
            "target_plan": self.level.target_plan,
            "objects": [f"{c} {n}" for c, n in self.level.objects],
            "layout_sha256": hashlib.sha256(self._initial_layout.encode()).hexdigest()[:16],
        }

    def render(self) -> str:
        """An ASCII picture of the grid (``ansi`` mode)."""
        return "\n".join(self.world.render_rows()) if self.world else ""

    # -- reference policies -------------------------------------------------------------------------

    def reference_action(self, policy: str, rng: np.random.Generator) -> str:
        """``oracle``: follow a plan found by search over exact states, replanning if the state drifts."""
        if policy != "oracle":
            return super().reference_action(policy, rng)
        assert self.world is not None  # set by reset()
        key = self.world.key()
        if not self._plan or self._plan[0][1] != key:
            self._plan = self._search()
        if not self._plan:
            return self._greedy()
        action, _ = self._plan.pop(0)
        return action

    def _search(self) -> list[tuple[str, LayoutKey]]:
        assert self.world is not None  # set by reset()
        remaining = max(1, self.max_steps - self.steps)
        moves = solver.solve(self.world, max_len=min(remaining, self.world.max_steps - self.world.step_count))
        if not moves:
            return []
        plan, w = [], self.world.copy()
        for m in moves:
            plan.append((m, w.key()))
            w.step(m)
        return plan

    def _greedy(self) -> str:
        """No plan found: the move with the best heuristic value (or ``idle`` if none moves anything)."""
        best, best_h = "idle", solver.INF
        assert self.world is not None  # set by reset()
        for move in MOVES:
            w = self.world.copy()
            w.step(move)
            h = solver.heuristic(w)
            if h < best_h:
                best, best_h = move, h
        return best

"""The GRASP games: the one-step plan game (``grasp/energy``) and the one-action-per-turn variant."""

from __future__ import annotations

import sys
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np

from playbench.core.game import Game
from playbench.suites.grasp.baselines import greedy, random_walk
from playbench.suites.grasp.grid import BUDGET
from playbench.suites.grasp.instances import Instance, make_instance
from playbench.suites.grasp.optimal import solve
from playbench.suites.grasp.params import GraspParams
from playbench.suites.grasp.parse import ParserOptions, parse_plan
from playbench.suites.grasp.prompts import system_message, user_message
from playbench.suites.grasp.render import render_state
from playbench.suites.grasp.simulate import Outcome, State, execute

MAX_PLAN_STORED = 200  # a hostile answer may hold thousands of actions; only 20 are ever executed


def plan_text(plan: list[str]) -> str:
    """A plan written the way the official prompt asks for it: ``[UP, TAKE, ...]``."""
    return "[" + ", ".join(plan) + "]"


def outcome_metrics(outcome: Outcome, scoring: str) -> dict[str, Any]:
    """The per-episode native metrics shared by both games."""
    return {
        "scoring": scoring,
        "length": outcome.length,
        "energy": outcome.energy(scoring),  # type: ignore[arg-type]
        "energy_fixed": outcome.fixed,
        "energy_compat": outcome.compat,
        "at_start": outcome.at_start,
        "at_final": outcome.at_final,
        "final": list(outcome.final),
        "carried_at_end": outcome.carried,
    }


class _GraspBase(Game):
    reference_policies: ClassVar[tuple[str, ...]] = ("random", "greedy", "optimal")

    def __init__(self, params: GraspParams, index: int) -> None:
        super().__init__()
        self.params = params
        self.index = index
        self.inst: Instance | None = None
        self._score = 0.0
        self._done = False
        self._completed = False

    def _setup(self, seed: int | None) -> Instance:
        super().reset(seed=seed)
        self.inst = make_instance(self.params, self.index, self.next_seed(seed))
        self.invalid_actions = 0
        self._score = 0.0
        self._done = False
        self._completed = False
        self.manual = system_message(self.inst.blocked, self.inst.constraints, self.params.prompt)
        return self.inst

    def instance(self) -> dict[str, Any]:
        """File/index/custom_id (official) or seed and generator options, plus settings and constraints."""
        return self.inst.describe() if self.inst else {}

    def _reference_plan(self, policy: str, rng: np.random.Generator) -> list[str]:
        assert self.inst is not None, "reset() first"
        if policy == "random":
            return random_walk(self.inst.constraints, rng)
        if policy == "greedy":
            return greedy(self.inst.grid, self.inst.constraints, rng, self.params.planner)
        if policy == "optimal":
            return solve(self.inst.grid, self.inst.constraints, self.params.scoring).plan
        raise NotImplementedError(f"GRASP has no {policy!r} policy")

    @property
    def progress(self) -> float:
        """1 once the scoring cell holds energy at the end, else 0."""
        return float(self._done and self._completed)


class GraspGame(_GraspBase):
    """One episode = one instance; the action is the whole answer, parsed into a plan and simulated."""

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """Build the instance and its official prompt.

        The observation is the whole prompt as one message (the official o1-mini form: system text, a blank
        line, user text), since one-step agents send the observation alone. ``info["messages"]`` holds the
        GPT-3.5/GPT-4o form (system + user messages) for agents that send messages as given.
        """
        inst = self._setup(seed)
        user = user_message(inst.text, inst.blocked)
        obs = self.manual + "\n\n" + user
        self._last_obs = obs
        info = {
            "manual": self.manual, "obs": obs, "history": "", "score": 0.0, "completed": 0, "progress": 0.0,
            "invalid_actions": 0, "messages": [{"role": "system", "content": self.manual}, {"role": "user", "content": user}],
        }
        return obs, info

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Parse the answer, execute the first 20 actions and score them."""
        assert self.inst is not None, "reset() first"
        p = self.params
        action = self.legal_or_default(action)
        parsed = parse_plan(action, ParserOptions(p.parser, p.parser_list, p.parser_comments))
        outcome = execute(self.inst.grid, self.inst.constraints, parsed.plan)
        self._score = outcome.energy(p.scoring)
        cell = outcome.at_start if p.scoring == "fixed" else outcome.at_final
        self._completed = cell > 0
        self._done = True
        metrics = {
            "plan": parsed.plan[:MAX_PLAN_STORED],
            "plan_actions": len(parsed.plan),
            "parser": ParserOptions(p.parser, p.parser_list, p.parser_comments).name,
            "parser_rule": parsed.rule,
            "parse_failed": parsed.failed,
            **outcome_metrics(outcome, p.scoring),
        }
        info = {
            "manual": self.manual, "obs": "", "history": "", "score": self._score,
            "completed": int(self._completed), "progress": self.progress, "metrics": metrics,
            "invalid_actions": self.invalid_actions,
        }
        return "", self._score, True, False, info

    def reference_action(self, policy: str, rng: np.random.Generator) -> str:
        """The whole plan of ``random`` (§8.1), ``greedy`` (§8.2, ``planner``) or ``optimal``, as list text."""
        return plan_text(self._reference_plan(policy, rng))


INTERACTIVE_NOTE = (
    "\n\nYou act one step at a time: after each step you see the grid again, with A at your current position, "
    "E for one unit of energy and a digit for several units on a cell. Answer with exactly one step. "
    "Answer STOP to finish before the 20 steps are used."
)


@lru_cache(maxsize=64)
def interactive_manual(manual: str) -> str:
    """The interactive game's manual: one string for all the episodes of a setting (1.2 KB each live one held)."""
    return manual + INTERACTIVE_NOTE


class GraspInteractiveGame(_GraspBase):
    """The same instances played one action per turn, seeing the grid after every action."""

    STOP = "STOP"
    NOOP = "NOOP"  # what an unrecognised answer executes: it uses a step and changes nothing (§7)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """Build the instance and show the grid."""
        inst = self._setup(seed)
        self.manual = interactive_manual(self.manual)
        self.state = State(inst.grid, inst.constraints)
        self.actions: list[str] = []
        self._plan: list[str] | None = None
        obs = self._view()
        return obs, self._info(obs)

    def _view(self) -> str:
        s = self.state
        assert self.inst is not None  # set by reset()
        return render_state(self.inst.grid, s.energy_matrix(), s.pos, s.carried, s.used, BUDGET)

    def _current_score(self) -> float:
        s = self.state
        assert self.inst is not None  # set by reset()
        cell = self.inst.grid.start if self.params.scoring == "fixed" else s.pos
        return round(s.energy_at(cell) - self.inst.constraints.cost * s.used, 10)

    def _info(self, obs: str) -> dict[str, Any]:
        return {
            "manual": self.manual, "obs": obs, "history": "", "score": self._score,
            "completed": int(self._completed), "progress": self.progress, "invalid_actions": self.invalid_actions,
        }

    def legal_actions(self) -> list[str]:
        """The moves of the movement set, TAKE, DROP and STOP."""
        assert self.inst is not None, "reset() first"
        return [*self.inst.constraints.moves, "TAKE", "DROP", self.STOP]

    @property
    def default_action(self) -> str:
        """An answer naming no action uses a step and does nothing (like an unknown word in a plan)."""
        return self.NOOP

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Execute one action; the episode ends after 20 actions or STOP."""
        assert self.inst is not None, "reset() first"
        before = self._score
        # interned: the episode keeps each action (and its record the plan), one shared string per name
        name = sys.intern(self.legal_or_default(action).strip().upper())
        if name != self.STOP:
            self.state.apply(name)
            self.actions.append(name)
        self._score = self._current_score()
        done = name == self.STOP or self.state.used >= BUDGET
        obs = self._view()
        self._last_obs = obs
        info = self._info(obs)
        if done:
            self._done = True
            outcome = execute(self.inst.grid, self.inst.constraints, self.actions)
            cell = outcome.at_start if self.params.scoring == "fixed" else outcome.at_final
            self._completed = cell > 0
            info.update(completed=int(self._completed), progress=self.progress)
            info["metrics"] = {"plan": list(self.actions), "parser_rule": "interactive",
                               **outcome_metrics(outcome, self.params.scoring)}
        return obs, self._score - before, done, False, info

    def reference_action(self, policy: str, rng: np.random.Generator) -> str:
        """The next action of the policy's whole plan (computed once per episode), then STOP."""
        if self._plan is None:
            self._plan = self._reference_plan(policy, rng)
        used = len(self.actions)
        return self._plan[used] if used < len(self._plan) else self.STOP

"""The SmartPlay Messenger game (MessengerL1/L2/L3) on playbench's engine."""

from typing import Any

import numpy as np

from playbench.suites.smartplay.base import SmartPlayGame
from playbench.suites.smartplay.facts import SmartPlayTask
from playbench.suites.smartplay.messenger import manual as manuals
from playbench.suites.smartplay.messenger.data import (
    ACTIONS,
    ENTITY_IDS,
    GRID,
    IMMOVABLE,
    L1_SPOTS,
    L2_SPOTS,
    L2_VARIANTS,
    L3_SPOTS,
    L3_VARIANTS,
    LAYOUT_CHARS,
    ROLES,
    TEST_TRIPLES,
)
from playbench.suites.smartplay.messenger.engine import Avatar, Engine, Sprite
from playbench.suites.smartplay.messenger.text import observation


class MessengerGame(SmartPlayGame):
    """Messenger stage ``level``: fetch the message, avoid enemies (and decoys), deliver it to the goal.

    compat reproduces SmartPlay: score = the last step's reward (B7), ``Environment Error.`` after death
    (B3), only the nearest sprite per name in L3 (B4). fixed scores the outcome (+1/-1/0), renders the
    last frame with ``You (agent) died.`` and lists every sprite.
    """

    actions = ACTIONS
    reference_policies = ("random", "oracle")

    def __init__(self, params: Any, row: SmartPlayTask) -> None:
        super().__init__(params, row)
        self.level = int(row.variant or 0)
        self.source = manuals.make_source(getattr(params, "messenger_text", None))
        self.engine: Engine | None = None
        self._instance: dict[str, Any] = {}
        self.last_reward = 0.0

    # -- episode set-up -------------------------------------------------------------------------

    def _draw(self) -> tuple[tuple[str, str, str], tuple[str, ...], list[tuple[int, int]], list[str], bool]:
        rng = self.rng
        triple = TEST_TRIPLES[int(rng.integers(len(TEST_TRIPLES)))]
        if self.level == 1:
            variant: tuple[str, ...] = (IMMOVABLE,) * 3
            spots = [L1_SPOTS[i] for i in rng.permutation(4)]
            places = [(5, 5), *spots[:3]]  # avatar, enemy, message, goal
            has_message = bool(rng.random() < 0.2)
        elif self.level == 2:
            variant = L2_VARIANTS[int(rng.integers(len(L2_VARIANTS)))]
            places = [L2_SPOTS[i] for i in rng.permutation(4)]
            has_message = False
        else:
            variant = L3_VARIANTS[int(rng.integers(len(L3_VARIANTS)))]
            places = [L3_SPOTS[i] for i in rng.permutation(6)]
            has_message = False
        sentences = manuals.draw_sentences(rng, self.source, self.level, triple, variant)
        return triple, variant, places, sentences, has_message

    def _reset(self) -> str:
        triple, variant, places, sentences, has_message = self._draw()
        (ar, ac), *others = places
        ids = {"enemy": triple[0], "message": triple[1], "goal": triple[2],
               "decoy_message": triple[1], "decoy_goal": triple[2]}
        sprites = [
            Sprite(role, ENTITY_IDS[ids[role]], 2 * r, 2 * c, mtype)
            for role, (r, c), mtype in zip(ROLES, others, variant, strict=False)
        ]
        self.engine = Engine(self.level, Avatar(2 * ar, 2 * ac, has_message), sprites)
        self.manual = manuals.assemble(sentences)
        self.last_reward = 0.0
        grid = [["."] * GRID for _ in range(GRID)]
        grid[ar][ac] = "Y" if has_message else "X"
        for s in sprites:
            grid[s.r // 2][s.c // 2] = LAYOUT_CHARS[s.role]
        self._instance = {
            "level": self.level,
            "triple": dict(zip(("enemy", "message", "goal"), triple, strict=True)),
            "variant": dict(zip(ROLES, variant, strict=False)),
            # L2: the original's dom_{index} file; L3: the index in data.L3_VARIANTS.
            "variant_index": (L2_VARIANTS.index(variant) if self.level == 2
                              else L3_VARIANTS.index(variant) if self.level == 3 else None),
            "layout": ["".join(row) for row in grid],
            "avatar_starts_with_message": has_message,
            "manual_sentences": sentences,
            **manuals.describe_source(self.source),
        }
        return self._frame()

    def _frame(self) -> str:
        assert self.engine is not None
        return observation(self.engine, compat=self.compat)

    # -- steps ---------------------------------------------------------------------------------------

    def _step(self, index: int) -> tuple[str, float, bool, dict[str, Any]]:
        assert self.engine is not None
        reward = self.engine.tick(index, self.rng)
        self.last_reward = reward
        done = self.engine.done
        self.completed = int(done and reward == 1)
        if self.compat:
            self.score = reward  # B7: the score is the latest step's reward
        else:
            self.score = 1.0 if self.completed else -1.0 if done else 0.0
        frame = self._frame()
        obs = frame if frame == "Environment Error." else f"You took action {ACTIONS[index]}.\n\n{frame}"
        return obs, reward, done, {}

    def _metrics(self) -> dict[str, Any]:
        engine = self.engine
        if engine is None:
            return {}
        outcome = "win" if self.completed else "loss" if engine.done else "running"
        if not engine.done and self.t >= self.max_steps:
            outcome = "timeout"
        return {
            "picked_message": engine.picked_message,
            "outcome": outcome,
            "last_reward": self.last_reward,
            "return": float(sum(engine.rewards)),
        }

    @property
    def progress(self) -> float:
        """0 at the start, 0.5 holding the message, 1 when it is delivered."""
        if self.engine is None:
            return 0.0
        if self.completed:
            return 1.0
        return 0.5 if self.engine.picked_message or self.engine.avatar.has_message else 0.0

    def instance(self) -> dict[str, Any]:
        """Triple, variant, layout, manual draw and manual source of this episode."""
        return dict(self._instance)

    def reference_action(self, policy: str, rng: np.random.Generator) -> str:
        """``oracle``: the scripted full-state planner; ``random``: uniform over the five actions."""
        if policy == "oracle":
            from playbench.suites.smartplay.messenger.oracle import plan

            assert self.engine is not None
            return ACTIONS[plan(self.engine, rng)]
        return super().reference_action(policy, rng)

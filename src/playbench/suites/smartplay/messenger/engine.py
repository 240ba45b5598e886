"""Messenger dynamics: stage one without an engine, stages two and three on half-cells (§5.4.4-5.4.5).

Positions are half-cells ``h = 2 × cell`` in 0..18 on each axis; the displayed cell is ``h // 2``. The
avatar moves 2 half-cells per step, Chaser and Fleeing NPCs 1 half-cell per tick, and two sprites touch
iff both half-cell offsets are below 2 (sprites are 2×2 half-cells). In stage one everything sits on
whole cells, so touching means sharing a cell.
"""

from dataclasses import dataclass, field

import numpy as np

from playbench.suites.smartplay.messenger.data import CHASER, FLEEING, MOVES

H_MAX = 18
#: NPC candidate moves, tested in this order (UP, LEFT, DOWN, RIGHT).
NPC_MOVES = ((-1, 0), (0, -1), (1, 0), (0, 1))


@dataclass
class Sprite:
    """A non-avatar sprite. Decoys carry the id (and name) of the entity they imitate."""

    role: str  # enemy, message, goal, decoy_message, decoy_goal
    eid: int
    r: int
    c: int
    mtype: str
    alive: bool = True


@dataclass
class Avatar:
    """The agent's sprite."""

    r: int
    c: int
    has_message: bool = False
    alive: bool = True


def touching(ar: int, ac: int, br: int, bc: int) -> bool:
    """Two 2×2-half-cell sprites overlap."""
    return abs(ar - br) < 2 and abs(ac - bc) < 2


def npc_options(s: Sprite, ar: int, ac: int) -> list[tuple[int, int]]:
    """The moves a Chaser/Fleeing NPC chooses among, measured against the avatar at (ar, ac)."""
    d0 = abs(s.r - ar) + abs(s.c - ac)
    opts = []
    for dr, dc in NPC_MOVES:
        d = abs(s.r + dr - ar) + abs(s.c + dc - ac)
        if (s.mtype == CHASER and d < d0) or (s.mtype == FLEEING and d > d0):
            opts.append((dr, dc))
    return opts or list(NPC_MOVES)


@dataclass
class Engine:
    """One Messenger episode's state and its tick function."""

    level: int
    avatar: Avatar
    sprites: list[Sprite]
    done: bool = False
    picked_message: bool = False
    ticks: int = 0
    rewards: list[float] = field(default_factory=list)

    def sprite(self, role: str) -> Sprite | None:
        """The sprite with this role (or None)."""
        return next((s for s in self.sprites if s.role == role), None)

    def tick(self, action: int, rng: np.random.Generator) -> float:
        """Advance one step with action index ``action``; returns the step's reward."""
        if self.done:
            raise RuntimeError("the Messenger episode is over")
        reward = self._tick_l1(action) if self.level == 1 else self._tick_engine(action, rng)
        self.ticks += 1
        self.rewards.append(reward)
        return reward

    def _move_avatar(self, action: int) -> None:
        dr, dc = MOVES[action]
        r, c = self.avatar.r + 2 * dr, self.avatar.c + 2 * dc
        if 0 <= r <= H_MAX and 0 <= c <= H_MAX:  # a move off the grid leaves the avatar where it is
            self.avatar.r, self.avatar.c = r, c

    def _tick_l1(self, action: int) -> float:
        """Stage one: nothing moves but the avatar; the first entity touched decides the game."""
        self._move_avatar(action)
        a = self.avatar
        for role in ("enemy", "message", "goal"):
            s = self.sprite(role)
            if s is None or not touching(a.r, a.c, s.r, s.c):
                continue
            self.done = True
            if role == "enemy":
                return -1.0
            if role == "message":
                self.picked_message = not a.has_message
                return -1.0 if a.has_message else 1.0
            return 1.0 if a.has_message else -1.0
        return 0.0

    def _tick_engine(self, action: int, rng: np.random.Generator) -> float:
        """Stages two and three: NPCs move, then the avatar, then the VGDL interaction rules in order."""
        a = self.avatar
        for s in self.sprites:  # sprites are kept in move order: enemy, message, goal, decoys
            if not s.alive or s.mtype not in (CHASER, FLEEING):
                continue
            opts = npc_options(s, a.r, a.c)
            dr, dc = opts[int(rng.integers(len(opts)))]
            if 0 <= s.r + dr <= H_MAX and 0 <= s.c + dc <= H_MAX:  # a move off the grid is undone
                s.r, s.c = s.r + dr, s.c + dc
        self._move_avatar(action)
        hit = {s.role: s for s in self.sprites if s.alive and touching(a.r, a.c, s.r, s.c)}
        reward = 0.0
        dead = False
        if "enemy" in hit:
            reward -= 1
            dead = True
        # The decoy rules see the avatar list as it stood at the enemy rule: a double hit scores -2.
        for role in ("decoy_message", "decoy_goal"):
            if role in hit:
                reward -= 1
                dead = True
        if not dead and not a.has_message and "goal" in hit:
            reward -= 1
            dead = True
        if not dead and not a.has_message and "message" in hit:
            reward += 0.5
            a.has_message = True
            self.picked_message = True
        if "message" in hit:  # the message vanishes on contact with the avatar, alive or killed this tick
            hit["message"].alive = False
        if not dead and a.has_message and "goal" in hit:
            reward += 1
            hit["goal"].alive = False
        if dead:
            a.alive = False
            self.done = True
        elif (goal := self.sprite("goal")) is not None and not goal.alive:
            self.done = True
        return reward

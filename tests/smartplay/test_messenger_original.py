"""Messenger L1-L3 against the original, step for step (data: tests/smartplay/data/messenger_original.json).

The data file holds episodes played by SmartPlay's own MessengerEnv on py-vgdl (how they were made is in its
``source``). Each episode is rebuilt in playbench from the recorded triple, variant and layout; the
non-player moves are coupled: before each step the engine is handed, for every Chaser/Fleeing NPC, the one
option of its own that leads where the original's sprite went (a move the engine does not offer fails the
test). compat must then reproduce every observation, reward, done flag, score and completion; fixed (the
default) may differ only where the spec's B3/B4/B7 say.
"""

import collections
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from playbench.core.registry import get_task
from playbench.suites.smartplay.messenger import manual as manuals
from playbench.suites.smartplay.messenger.data import CHASER, ENTITY_IDS, FLEEING, IMMOVABLE, TYPES
from playbench.suites.smartplay.messenger.engine import H_MAX, Avatar, Engine, Sprite, npc_options
from playbench.suites.smartplay.messenger.game import MessengerGame
from playbench.suites.smartplay.messenger.text import ENV_ERROR, observation
from playbench.suites.smartplay.params import MessengerParams

DATA = json.loads((Path(__file__).parent / "data" / "messenger_original.json").read_text(encoding="utf-8"))
ROLES: list[str] = DATA["roles"]
CHARS = dict(zip("EMGNH", ROLES, strict=True))
CASES = [(int(level), i) for level, episodes in DATA["levels"].items() for i in range(len(episodes))]


def episode(level: int, index: int) -> dict[str, Any]:
    return DATA["levels"][str(level)][index]


def rebuild(level: int, ep: dict[str, Any]) -> Engine:
    """The recorded start state as a playbench engine (positions in half-cells)."""
    enemy, message, goal = ep["triple"]
    names = {"enemy": enemy, "message": message, "goal": goal, "decoy_message": message, "decoy_goal": goal}
    types = dict(zip(ROLES, ep.get("types", [IMMOVABLE] * 3), strict=False))
    avatar, sprites = None, {}
    for r, row in enumerate(ep["layout"]):
        for c, ch in enumerate(row):
            if ch in "XY":
                avatar = Avatar(2 * r, 2 * c, has_message=ch == "Y")
            elif ch in CHARS:
                role = CHARS[ch]
                sprites[role] = Sprite(role, ENTITY_IDS[names[role]], 2 * r, 2 * c, types[role])
    assert avatar is not None
    return Engine(level, avatar, [sprites[role] for role in ROLES if role in sprites])


class CoupledMoves:
    """Stands in for the game's generator: returns the queued option indices, one per NPC move."""

    def __init__(self) -> None:
        self.queue: list[int] = []

    def integers(self, n: int) -> int:
        index = self.queue.pop(0)
        assert index < n
        return index


def couple(engine: Engine, after: list[list[int]], moves: CoupledMoves) -> None:
    """Queue, per moving NPC in the engine's order, its option that lands where the original's went."""
    a = engine.avatar
    for sprite, (r, c) in zip(engine.sprites, after, strict=True):
        if not sprite.alive or sprite.mtype not in (CHASER, FLEEING):
            continue
        options = npc_options(sprite, a.r, a.c)
        landing = [(sprite.r + dr, sprite.c + dc) for dr, dc in options]
        landing = [(y, x) if 0 <= y <= H_MAX and 0 <= x <= H_MAX else (sprite.r, sprite.c) for y, x in landing]
        assert (r, c) in landing, f"the original moved {sprite.role} {(sprite.r, sprite.c)}->{(r, c)}; options {options}"
        moves.queue.append(landing.index((r, c)))


def nearest_per_name(frame: str) -> str:
    """A fixed frame reduced to the first (nearest) line per entity name, as compat shows it (B4)."""
    kept, seen = [], set()
    for line in frame.split("\n"):
        name = line[2:].split(" ")[0] if line.startswith("- ") else None
        if name is None or name not in seen:
            kept.append(line)
        if name:
            seen.add(name)
    return "\n".join(kept)


def replay(level: int, ep: dict[str, Any], compat: bool) -> list[tuple[Any, ...]]:
    """Play the episode's actions in playbench with coupled NPC moves; per step what the original recorded."""
    game = MessengerGame(MessengerParams(compat=compat), get_task(f"smartplay/messenger-{level}").facts)
    game.reset(seed=0)
    game.engine = rebuild(level, ep)
    moves = CoupledMoves()
    game.rng = moves  # type: ignore[assignment]
    out: list[tuple[Any, ...]] = [(observation(game.engine, compat=compat),)]
    for t, step in enumerate(ep["steps"]):
        if "npcs" in step:
            couple(game.engine, step["npcs"], moves)
        obs, reward, terminated, truncated, info = game.step(game.actions[step["action"]])
        assert not moves.queue, "the engine moved fewer NPCs than the original"
        if "npcs" in step:
            assert [[s.r, s.c] for s in game.engine.sprites] == step["npcs"]
        assert truncated == (not terminated and t + 1 == game.max_steps)
        out.append((obs, reward, terminated, info["score"], info["completed"], info["metrics"]))
    return out


def recorded(ep: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [(ep["obs0"],)] + [(s["obs"], s["reward"], s["done"], s["score"], s["completed"]) for s in ep["steps"]]


@pytest.mark.parametrize("level,index", CASES)
def test_compat_reproduces_the_original_step_for_step(level: int, index: int) -> None:
    ep = episode(level, index)
    ours = [row[:5] for row in replay(level, ep, compat=True)]
    assert ours == recorded(ep)


@pytest.mark.parametrize("level,index", CASES)
def test_fixed_differs_only_where_the_spec_says(level: int, index: int) -> None:
    ep = episode(level, index)
    ours, theirs = replay(level, ep, compat=False), recorded(ep)
    assert nearest_per_name(ours[0][0]) == theirs[0][0]
    for (obs, reward, done, score, completed, metrics), (o_obs, o_reward, o_done, _o_score, o_completed) in zip(
        ours[1:], theirs[1:], strict=True
    ):
        assert (reward, done, completed) == (o_reward, o_done, o_completed)
        if o_obs == ENV_ERROR:  # B3: fixed renders the last frame instead
            assert obs.split("\n\n")[1] == "You (agent) died."
        else:
            assert nearest_per_name(obs) == o_obs  # B4: fixed adds the hidden same-named sprite
        assert score == (1.0 if completed else -1.0 if done else 0.0)  # B7: the outcome, not the last reward
        if done and not completed:
            assert metrics["outcome"] == "loss"


def test_the_data_covers_the_corners() -> None:
    """The recorded episodes include a -2 double hit, deaths holding the message, wins and timeouts."""
    finals = collections.Counter(
        (int(level), ep["steps"][-1]["reward"] if ep["steps"][-1]["done"] else "timeout")
        for level, episodes in DATA["levels"].items() for ep in episodes
    )
    assert finals[(3, -2)] >= 2 and finals[(3, 1)] >= 1 and finals[(3, "timeout")] >= 1
    assert finals[(2, 1)] >= 1 and finals[(2, "timeout")] >= 1 and finals[(1, 1)] >= 1
    l3 = DATA["levels"]["3"]
    assert sum(len(ep["steps"]) for ep in l3) >= 200
    assert any(s["obs"] == ENV_ERROR for ep in l3 for s in ep["steps"])
    assert {(role, t) for ep in l3 for role, t in zip(ROLES, ep["types"], strict=True)} == {
        (role, t) for role in ROLES for t in TYPES
    }


@pytest.mark.parametrize("level", [1, 2, 3])
def test_manual_frame_matches_the_original(level: int) -> None:
    n = 6 if level == 3 else 3
    assert manuals.assemble(["<sentence>"] * n) == DATA["manual_skeleton"][str(level)]


def allowed(level: int, triple: list[str], types: list[str]) -> list[set[tuple[str, str, str]]]:
    """Per manual slot, the (entity, role, movement type) descriptions the spec's draw rule allows."""
    enemy, message, goal = triple
    if level == 1:
        return [{(e, r, t) for t in (IMMOVABLE, "unknown")} for e, r in zip(triple, ("enemy", "message", "goal"),
                                                                           strict=True)]
    if level == 2:
        return [{(e, r, t), (e, r, "unknown")} for e, r, t in zip(triple, ("enemy", "message", "goal"), types,
                                                                  strict=True)]
    e_t, m_t, g_t, dm_t, dg_t = types
    exact = [(enemy, "enemy", e_t), (message, "message", m_t), (goal, "goal", g_t), (message, "enemy", dm_t),
             (goal, "enemy", dg_t)]
    herring = {(enemy, role, t) for role in ("message", "goal") for t in TYPES if t != e_t}
    return [{d} for d in exact] + [herring]


def fits(descriptions: list[tuple[str, str, str]], slots: list[set[tuple[str, str, str]]]) -> bool:
    """Whether the (shuffled) descriptions fill the slots one to one."""
    if not slots:
        return not descriptions
    return any(d in slots[0] and fits(descriptions[:i] + descriptions[i + 1:], slots[1:])
               for i, d in enumerate(descriptions))


class DescribingSource(manuals.SentenceSource):
    """A full sentence source whose sentences are their own (entity, role, type) description."""

    def draw(self, rng: np.random.Generator, entity: str, role: str, types: tuple[str, ...]) -> str:
        return f"{entity}|{role}|{types[int(rng.integers(len(types)))]}"


def described(sentence: str) -> tuple[str, str, str]:
    """The (entity, role, type) a DescribingSource sentence stands for."""
    entity, role, mtype = sentence.split("|")
    return entity, role, mtype


@pytest.mark.parametrize("level,index", CASES)
def test_manual_draw_follows_the_original_rule(level: int, index: int) -> None:
    ep = episode(level, index)
    types = ep.get("types", [IMMOVABLE] * 3)
    slots = allowed(level, ep["triple"], types)
    assert fits([tuple(d) for d in ep["manual_sentences"]], slots)  # the original's draw obeys the rule ...
    enemy, message, goal = ep["triple"]
    for seed in range(20):  # ... and so does every playbench draw for the same game
        drawn = manuals.draw_sentences(np.random.default_rng(seed), DescribingSource(), level,
                                       (enemy, message, goal), tuple(types))
        assert fits([described(s) for s in drawn], slots)

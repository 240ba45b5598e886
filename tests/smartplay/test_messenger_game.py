"""Messenger through the SmartPlay game: seeded instances, manuals, scores (B7), random-policy statistics."""

import collections
import hashlib
import json
import math

import numpy as np
import pytest

from playbench.core.errors import PlaybenchError
from playbench.core.registry import get_task
from playbench.suites.smartplay.messenger.data import ACTIONS, ADVICE, CONTEXT
from playbench.suites.smartplay.messenger.game import MessengerGame
from playbench.suites.smartplay.params import MessengerParams


def _row(level: int):  # noqa: ANN202
    """The facts row of ``smartplay/messenger-LEVEL``."""
    return get_task(f"smartplay/messenger-{level}").facts


def play(game: MessengerGame, seed: int, policy: str = "random"):
    obs, info = game.reset(seed=seed)
    rng = np.random.default_rng(seed + 99)
    trajectory = [obs]
    done = False
    while not done:
        obs, reward, term, trunc, info = game.step(game.reference_action(policy, rng))
        trajectory.append(obs)
        done = term or trunc
    return trajectory, info


def test_task_registration_and_aliases():
    for level, steps in ((1, 4), (2, 64), (3, 128)):
        task = get_task(f"MessengerL{level}-v0")
        assert task.id == f"smartplay/messenger-{level}"
        assert task.episodes(task.params({})) == 100
        game = task.make_game(task.params({}), 0)
        assert game.max_steps == steps and game.tracker.history == 2
        assert "oracle" in task.reference_agents


@pytest.mark.parametrize("level", [1, 2, 3])
def test_same_seed_same_episode_and_instance_recorded(level):
    a, b = MessengerGame(MessengerParams(), _row(level)), MessengerGame(MessengerParams(), _row(level))
    ta, ia = play(a, 5)
    tb, ib = play(b, 5)
    assert ta == tb and a.instance() == b.instance() and a.manual == b.manual
    inst = a.instance()
    assert set(inst["triple"]) == {"enemy", "message", "goal"}
    assert len(inst["layout"]) == 10 and all(len(row) == 10 for row in inst["layout"])
    assert len(inst["manual_sentences"]) == (6 if level == 3 else 3)
    assert inst["manual_source"] == "templated"
    json.dumps(inst)
    others = {json.dumps(MessengerGame(MessengerParams(), _row(level)).reset(seed=s)[1]["manual"]) for s in range(8)}
    assert len(others) > 1


def test_manual_structure():
    game = MessengerGame(MessengerParams(), _row(3))
    _, info = game.reset(seed=3)
    manual = info["manual"]
    assert manual.startswith(CONTEXT + "\n\n")
    body = manual[len(CONTEXT) + 2:]
    sentences, rest = body.split("\n\n", 1)
    assert len(sentences.split("\n")) == 6
    assert rest == ADVICE + "\n\nList of all actions:\n" + "\n".join(f"{i + 1}. {a}" for i, a in enumerate(ACTIONS))


def test_layout_and_variant_drawn_per_level():
    l2 = MessengerGame(MessengerParams(), _row(2))
    l2.reset(seed=1)
    rows = l2.instance()["layout"]
    corners = {rows[r][c] for r, c in ((2, 2), (2, 7), (7, 2), (7, 7))}
    assert corners == {"X", "E", "M", "G"}
    l3 = MessengerGame(MessengerParams(), _row(3))
    l3.reset(seed=1)
    assert set("".join(l3.instance()["layout"])) == {".", "X", "E", "M", "G", "N", "H"}
    assert set(l3.instance()["variant"]) == {"enemy", "message", "goal", "decoy_message", "decoy_goal"}


def test_step_text_and_history():
    game = MessengerGame(MessengerParams(), _row(2))
    obs0, info0 = game.reset(seed=2)
    assert info0["history"] == "" and obs0.startswith("You (agent) don't have the message.\n\nYou see:\n- ")
    obs1, *_, info1 = game.step("Move North")
    assert obs1.startswith("You took action Move North.\n\n")
    assert info1["history"].startswith("Most recent 1 steps of the player's in-game observation:\n\n"
                                       "Player Observation Step 0:\n" + obs0)


def test_score_compat_is_last_reward_fixed_is_outcome():
    # Find an episode where the random policy picks the message up and then times out.
    for seed in range(400):
        compat = MessengerGame(MessengerParams(compat=True), _row(2))
        fixed = MessengerGame(MessengerParams(compat=False), _row(2))
        tc, ic = play(compat, seed)
        tf, i_f = play(fixed, seed)
        assert len(tc) == len(tf)
        assert ic["metrics"]["picked_message"] == i_f["metrics"]["picked_message"]
        if ic["metrics"]["outcome"] == "loss":
            assert ic["score"] <= -1 and i_f["score"] == -1
            assert tc[-1] == "Environment Error." and tf[-1].split("\n\n")[1] == "You (agent) died."
        if ic["metrics"]["outcome"] == "win":
            assert ic["score"] == i_f["score"] == 1 and ic["completed"] == 1
        if ic["metrics"]["outcome"] == "timeout" and ic["metrics"]["picked_message"]:
            assert ic["score"] in (0, 0.5) and i_f["score"] == 0
            return
    pytest.fail("no pickup-then-timeout episode found")


def test_official_text_file(tmp_path):
    names = ["airplane", "mage", "dog", "bird", "fish", "scientist", "thief", "ship", "ball", "robot", "queen", "sword"]
    data = {n: {r: {t: [f"{n} {r} {t} sentence."] for t in ("chaser", "fleeing", "immovable", "unknown")}
                for r in ("enemy", "message", "goal")} for n in names}
    path = tmp_path / "text_test.json"
    path.write_text(json.dumps(data))
    game = MessengerGame(MessengerParams(messenger_text=str(path)), _row(2))
    game.reset(seed=0)
    inst = game.instance()
    assert inst["manual_source"] == "official"
    assert inst["manual_sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert all(s.endswith("sentence.") for s in inst["manual_sentences"])
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"airplane": {}}))
    with pytest.raises(PlaybenchError):
        MessengerGame(MessengerParams(messenger_text=str(bad)), _row(2))


REFERENCE = {  # §5.4.8: final-score shares, message picked up, mean length (2,000 original episodes)
    2: ({-1.0: 0.559, 0.0: 0.396, 1.0: 0.046}, 0.249, 36.2),
    3: ({-2.0: 0.011, -1.0: 0.922, 0.0: 0.053, 1.0: 0.015}, 0.217, 23.8),
}


@pytest.mark.parametrize("level", [2, 3])
def test_random_policy_matches_the_original_statistics(level):
    n = 2000
    game = MessengerGame(MessengerParams(compat=True), _row(level))
    scores, picked, lengths = collections.Counter(), 0, []
    for seed in range(n):
        traj, info = play(game, seed)
        scores[info["score"]] += 1
        picked += info["metrics"]["picked_message"]
        lengths.append(len(traj) - 1)
    shares, ref_picked, ref_len = REFERENCE[level]

    def within(p_ours: float, p_ref: float) -> bool:
        # Two-sample 99% interval for proportions from 2,000 episodes each.
        pooled = (p_ours + p_ref) / 2
        return abs(p_ours - p_ref) <= 2.576 * math.sqrt(2 * pooled * (1 - pooled) / n) + 1e-9

    for score, p_ref in shares.items():
        assert within(scores[score] / n, p_ref), (score, scores[score] / n, p_ref)
    assert within(picked / n, ref_picked)
    assert abs(np.mean(lengths) - ref_len) < 2.0


@pytest.mark.parametrize("level,minimum", [(1, 1.0), (2, 0.95), (3, 0.9)])
def test_oracle_wins(level, minimum):
    game = MessengerGame(MessengerParams(), _row(level))
    wins = sum(play(game, seed, "oracle")[1]["completed"] for seed in range(40))
    assert wins / 40 >= minimum

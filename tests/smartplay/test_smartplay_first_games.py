"""Bandit, RPS and Hanoi against the exact texts and rules of specs/smartplay.md §2, §5.1–5.3."""

import hashlib

import numpy as np
import pytest

from playbench.core.registry import get_task
from playbench.suites.smartplay.hanoi import ACTIONS as HANOI_ACTIONS
from playbench.suites.smartplay.hanoi import next_optimal_move


def h16(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def make(task_id: str, seed: int = 0, **params):
    task = get_task(task_id)
    game = task.make_game(task.params(params), 0)
    obs, info = game.reset(seed=seed)
    return game, obs, info


@pytest.mark.parametrize("compat", [False, True])
@pytest.mark.parametrize(
    ("task_id", "length", "digest"),
    [
        ("smartplay/bandit-highlow", 192, "ab604065e2adefe4"),
        ("smartplay/rps-basic", 517, "b26302945848535b"),
        ("smartplay/hanoi-3", 1415, "3cc5f29957531c20"),
        ("smartplay/hanoi-4", 1421, "be34d34b2faa5fbc"),
    ],
)
def test_manual_hashes(task_id, length, digest, compat):
    _, _, info = make(task_id, compat=compat)
    assert len(info["manual"]) == length
    assert h16(info["manual"]) == digest


def test_all_bandit_variants_share_the_manual():
    for variant in ("deterministic", "highhigh", "highlow", "lowlow"):
        _, obs, info = make(f"smartplay/bandit-{variant}")
        assert h16(info["manual"]) == "ab604065e2adefe4"
        assert obs == "A new round begins."
        assert info["history"] == ""


def test_bandit_step_text_reward_and_score():
    game, _, _ = make("smartplay/bandit-deterministic", seed=3)
    best = game.optimal
    obs, reward, term, trunc, info = game.step(game.actions[best])
    assert obs == f"You pulled slot machine {best + 1}, you received reward 1."
    assert reward == 1 and not term and not trunc
    assert info["score"] == 1 and info["completed"] == 0 and info["optimal"] == best
    obs, reward, *_ , info = game.step(game.actions[1 - best])
    assert obs == f"You pulled slot machine {2 - best}, you received reward -1."
    assert info["score"] == 1


def test_bandit_arm_order_is_random_per_seed():
    optimal = {make("smartplay/bandit-highlow", seed=s)[0].optimal for s in range(20)}
    assert optimal == {0, 1}


def test_bandit_runs_fifty_steps_then_truncates():
    game, _, _ = make("smartplay/bandit-highlow")
    for i in range(50):
        *_, term, trunc, info = game.step(game.actions[0])
        assert not term
        assert trunc == (i == 49)
    with pytest.raises(RuntimeError):
        game.step(game.actions[0])


def test_rps_texts_and_outcomes():
    game, obs, _ = make("smartplay/rps-basic", seed=5)
    assert obs == "New round begins."
    for _ in range(30):
        obs, reward, _, _, info = game.step("Rock")
        first, second = obs.split("\n")
        assert second == "New round begins."
        assert first.startswith("You chose Rock, and the opponent chose ")
        opp = first.split("opponent chose ")[1].split(".")[0]
        expected = {"Rock": ("tied", 0), "Scissor": ("won", 1), "Paper": ("lost", -1)}[opp]
        assert first.endswith(f"You {expected[0]} and received score {expected[1]}.")
        assert reward == expected[1] and info["result"] == expected[0]


def test_rps_optimal_action_beats_the_likeliest_opponent_move():
    for seed in range(10):
        game, _, _ = make("smartplay/rps-basic", seed=seed)
        likeliest = int(np.argmax(game.p))
        beats = {0: 1, 1: 2, 2: 0}  # the action that beats Rock is Paper, ...
        assert game.optimal == beats[likeliest]


def test_rps_different_score_manual_fixed_vs_compat():
    # find a seed where Paper and Scissor have different scores
    for seed in range(50):
        fixed, _, info_fixed = make("smartplay/rps-different-score", seed=seed)
        if fixed.s[1] != fixed.s[2]:
            break
    _, _, info_compat = make("smartplay/rps-different-score", seed=seed, compat=True)
    s = fixed.s
    assert f"Scissors cut paper (Scissors win, score {s[2]})" in info_fixed["manual"]
    assert f"Paper covers rock (Paper wins, score {s[1]})" in info_fixed["manual"]
    assert f"Scissors cut paper (Scissors win, score {s[1]})" in info_compat["manual"]
    assert f"Paper covers rock (Paper wins, score {s[2]})" in info_compat["manual"]


def test_hanoi_observations_fixed_and_compat():
    game, obs, _ = make("smartplay/hanoi-3")
    assert obs == "Current configuration:\n- A: |bottom, [2, 1, 0], top|\n- B: |bottom, [], top|\n- C: |bottom, [], top|"
    obs, reward, *_ = game.step(HANOI_ACTIONS[0])
    assert obs.split("\n")[0] == "You tried to move the top disk of rod A to the top of rod B. Current configuration:"
    assert obs.split("\n")[2] == "- B: |bottom, [0], top|" and reward == 0
    compat, _, _ = make("smartplay/hanoi-3", compat=True)
    obs, *_ = compat.step(HANOI_ACTIONS[0])
    assert obs.split("\n")[0] == "You tried to move the top disk of rod a to the top of rod b. Current configuration:"


def test_hanoi_illegal_move_is_silent_minus_one():
    game, obs0, _ = make("smartplay/hanoi-3")
    obs, reward, term, _, info = game.step(HANOI_ACTIONS[2])  # B -> A from an empty rod
    assert reward == -1 and not term and info["invalid_action"]
    assert obs.endswith(obs0.split("\n", 1)[1])


def test_hanoi_history_text_and_window():
    game, obs0, _ = make("smartplay/hanoi-3")
    obs1, *_, info1 = game.step(HANOI_ACTIONS[1])
    assert info1["history"] == f"Most recent 1 steps of the player's in-game observation:\n\nPlayer Observation Step 0:\n{obs0}"
    observations = [obs0, obs1]
    info = info1
    for _ in range(6):
        obs, *_, info = game.step(HANOI_ACTIONS[2])
        observations.append(obs)
    # the history holds the last 5 observations before the current one
    assert info["history"].startswith("Most recent 5 steps of the player's in-game observation:\n\nPlayer Observation Step 2:\n")
    assert info["history"].endswith(observations[-2])
    assert "Player Observation Step 7" not in info["history"]


def test_history_parameter_changes_the_window():
    game, *_ = make("smartplay/hanoi-3", history=30)
    for _ in range(10):
        *_, info = game.step(HANOI_ACTIONS[2])
    assert info["history"].startswith("Most recent 10 steps")


@pytest.mark.parametrize("disks", [3, 4])
def test_hanoi_oracle_from_every_reachable_state(disks):
    # breadth-first distances to the goal over all 3**disks states; the oracle's move must reduce them by one
    from itertools import product

    def rods_of(assign):
        rods = [[], [], []]
        for disk in range(disks - 1, -1, -1):
            rods[assign[disk]].append(disk)
        return rods

    states = list(product(range(3), repeat=disks))
    goal = (2,) * disks
    dist = {goal: 0}
    frontier = [goal]
    while frontier:
        nxt = []
        for s in frontier:
            rods = rods_of(s)
            for a in range(3):
                for b in range(3):
                    if a != b and rods[a] and (not rods[b] or rods[b][-1] > rods[a][-1]):
                        t = list(s)
                        t[rods[a][-1]] = b
                        t = tuple(t)
                        if t not in dist:
                            dist[t] = dist[s] + 1
                            nxt.append(t)
        frontier = nxt
    assert len(dist) == len(states)
    for s in states:
        if s == goal:
            continue
        a, b = next_optimal_move(rods_of(s))
        t = list(s)
        t[rods_of(s)[a][-1]] = b
        assert dist[tuple(t)] == dist[s] - 1

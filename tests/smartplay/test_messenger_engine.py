"""Messenger: rules as data, the half-cell engine (§7.3), observation text, compat/fixed differences."""

import hashlib
from fractions import Fraction
from itertools import permutations, product

import numpy as np
import pytest

from playbench.suites.smartplay.messenger.data import (
    ADVICE,
    CHASER,
    CONTEXT,
    FLEEING,
    IMMOVABLE,
    L1_SPOTS,
    L2_VARIANTS,
    L3_VARIANTS,
    TEST_TRIPLES,
)
from playbench.suites.smartplay.messenger.engine import Avatar, Engine, Sprite, npc_options
from playbench.suites.smartplay.messenger.text import observation

NORTH, SOUTH, WEST, EAST, STAY = range(5)


def h16(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def engine(level: int, avatar: tuple[int, int], *sprites: tuple[str, int, int, int, str], has: bool = False) -> Engine:
    """Sprites as (role, id, h_row, h_col, type); avatar in half-cells."""
    return Engine(level, Avatar(avatar[0], avatar[1], has), [Sprite(*s) for s in sprites])


def test_manual_texts_match_the_spec_hashes():
    assert len(CONTEXT) == 335 and h16(CONTEXT) == "0c5f53911dd9d89f"
    assert len(ADVICE) == 308 and h16(ADVICE) == "18040da996b207b8"


def test_test_triples_follow_the_rule():
    assert len(TEST_TRIPLES) == len(set(TEST_TRIPLES)) == 32
    for enemy, message, goal in TEST_TRIPLES:
        assert enemy in {"airplane", "scientist", "bird", "mage"}
        assert message in {"robot", "queen", "dog", "sword"} and goal in {"ship", "fish", "thief", "ball"}
    assert ("airplane", "robot", "ship") in TEST_TRIPLES and ("bird", "robot", "ship") not in TEST_TRIPLES
    assert ("mage", "sword", "fish") in TEST_TRIPLES and ("scientist", "sword", "fish") not in TEST_TRIPLES


def test_variant_sets():
    assert len(set(L2_VARIANTS)) == 27
    assert L2_VARIANTS[9 * 0 + 3 * 1 + 2] == (CHASER, FLEEING, IMMOVABLE)  # dom_5
    assert len(set(L3_VARIANTS)) == 18
    for e, m, g, dm, dg in L3_VARIANTS:
        assert {e, m, g} == {CHASER, FLEEING, IMMOVABLE}
        assert dm != m and dg != g and not (dm == e and dg == e)


def test_half_cell_contact_picks_up_a_message_shown_one_step_away():
    eng = engine(2, (4, 4), ("enemy", 2, 18, 18, IMMOVABLE), ("message", 11, 4, 6, CHASER),
                 ("goal", 9, 0, 18, IMMOVABLE))
    assert "- robot 1 steps to your east" in observation(eng, compat=True)
    reward = eng.tick(STAY, np.random.default_rng(0))
    assert reward == 0.5 and eng.avatar.has_message and eng.picked_message
    assert not eng.sprite("message").alive and not eng.done


def test_message_and_goal_in_the_same_tick_without_the_message_is_a_loss():
    eng = engine(2, (4, 4), ("enemy", 2, 18, 18, IMMOVABLE), ("message", 11, 4, 5, IMMOVABLE),
                 ("goal", 9, 5, 4, IMMOVABLE))
    assert eng.tick(STAY, np.random.default_rng(0)) == -1
    assert eng.done and not eng.avatar.alive
    assert not eng.sprite("message").alive  # removed on contact even though the avatar died


def test_double_decoy_hit_scores_minus_two_and_triple_minus_three():
    two = engine(3, (4, 4), ("enemy", 2, 18, 18, IMMOVABLE), ("message", 11, 0, 18, IMMOVABLE),
                 ("goal", 9, 18, 0, IMMOVABLE), ("decoy_message", 11, 4, 5, IMMOVABLE),
                 ("decoy_goal", 9, 5, 4, IMMOVABLE))
    assert two.tick(STAY, np.random.default_rng(0)) == -2 and two.done
    three = engine(3, (4, 4), ("enemy", 2, 3, 4, IMMOVABLE), ("message", 11, 0, 18, IMMOVABLE),
                   ("goal", 9, 18, 0, IMMOVABLE), ("decoy_message", 11, 4, 5, IMMOVABLE),
                   ("decoy_goal", 9, 5, 4, IMMOVABLE))
    assert three.tick(STAY, np.random.default_rng(0)) == -3


def test_delivery_wins_and_removes_the_goal():
    eng = engine(2, (4, 4), ("enemy", 2, 18, 18, IMMOVABLE), ("message", 11, 0, 18, IMMOVABLE),
                 ("goal", 9, 4, 6, IMMOVABLE), has=True)
    assert eng.tick(EAST, np.random.default_rng(0)) == 1
    assert eng.done and eng.avatar.alive and not eng.sprite("goal").alive


def test_fleeing_options_when_aligned_and_chaser_on_the_avatar():
    flee = Sprite("message", 11, 4, 8, FLEEING)
    assert npc_options(flee, 4, 4) == [(-1, 0), (1, 0), (0, 1)]  # aligned on the row: three ways away
    assert len(npc_options(Sprite("message", 11, 2, 8, FLEEING), 4, 4)) == 2
    assert npc_options(Sprite("enemy", 2, 4, 4, CHASER), 4, 4) == [(-1, 0), (0, -1), (1, 0), (0, 1)]
    assert npc_options(Sprite("enemy", 2, 4, 8, CHASER), 4, 4) == [(0, -1)]


def test_fleeing_npc_stalls_in_a_corner():
    eng = engine(2, (10, 10), ("enemy", 2, 18, 18, IMMOVABLE), ("message", 11, 0, 0, FLEEING),
                 ("goal", 9, 18, 0, IMMOVABLE))
    rng = np.random.default_rng(1)
    for _ in range(10):
        eng.tick(STAY, rng)
        assert (eng.sprite("message").r, eng.sprite("message").c) == (0, 0)


def test_npcs_move_one_half_cell_per_tick():
    eng = engine(2, (0, 0), ("enemy", 2, 18, 10, CHASER), ("message", 11, 10, 10, IMMOVABLE),
                 ("goal", 9, 18, 0, IMMOVABLE))
    eng.tick(STAY, np.random.default_rng(0))
    e = eng.sprite("enemy")
    assert abs(e.r - 18) + abs(e.c - 10) == 1


def test_l1_exact_random_distribution():
    """Uniform random actions over 4 steps: P(-1, 0, +1) = 0.16 / 0.76 / 0.08 exactly (§5.4.4)."""
    dist: dict[float, Fraction] = {}
    for perm in permutations(range(4)):
        spots = [L1_SPOTS[i] for i in perm]
        for has, p_has in ((True, Fraction(1, 5)), (False, Fraction(4, 5))):
            for actions in product(range(5), repeat=4):
                eng = Engine(1, Avatar(10, 10, has), [Sprite(role, 2, 2 * r, 2 * c, IMMOVABLE) for role, (r, c)
                                                      in zip(("enemy", "message", "goal"), spots, strict=False)])
                last = 0.0
                for a in actions:
                    last = eng.tick(a, None)
                    if eng.done:
                        break
                dist[last] = dist.get(last, Fraction(0)) + p_has / 24 / 625
    assert dist == {-1.0: Fraction(16, 100), 0.0: Fraction(76, 100), 1.0: Fraction(8, 100)}


def test_l1_rules():
    spots = dict(enemy=(3, 5), message=(5, 3), goal=(5, 7))

    def fresh(has: bool) -> Engine:
        return Engine(1, Avatar(10, 10, has), [Sprite(r, 2, 2 * a, 2 * b, IMMOVABLE) for r, (a, b) in spots.items()])

    assert fresh(False).tick(WEST, None) == 0 and fresh(False).tick(NORTH, None) == 0
    e = fresh(False)
    e.tick(WEST, None)
    assert e.tick(WEST, None) == 1 and e.done  # picking up the message wins stage one
    e = fresh(True)
    e.tick(WEST, None)
    assert e.tick(WEST, None) == -1  # touching it again while holding it loses
    e = fresh(True)
    e.tick(EAST, None)
    assert e.tick(EAST, None) == 1
    e = fresh(False)
    e.tick(NORTH, None)
    assert e.tick(NORTH, None) == -1 and e.avatar.alive  # the avatar is still drawn in L1


def test_observation_text_forms():
    eng = engine(2, (8, 8), ("enemy", 3, 0, 0, IMMOVABLE), ("message", 13, 14, 4, IMMOVABLE),
                 ("goal", 6, 2, 14, IMMOVABLE))
    assert observation(eng, compat=True) == (
        "You (agent) don't have the message.\n\nYou see:\n- mage 8 steps to your north-west\n"
        "- fish 6 steps to your north-east\n- sword 5 steps to your south-west"
    )
    eng.sprites[0].r, eng.sprites[0].c = 9, 9  # the enemy straddles the avatar's cell
    assert "- mage 0 steps with you" in observation(eng, compat=True)
    empty = engine(2, (8, 8))
    assert observation(empty, compat=True).endswith("You see nothing away from you.")


def test_nearest_instance_ties_go_to_smaller_row_then_column():
    eng = engine(3, (8, 8), ("enemy", 2, 18, 18, IMMOVABLE), ("message", 11, 8, 12, IMMOVABLE),
                 ("goal", 9, 18, 0, IMMOVABLE), ("decoy_message", 11, 4, 8, IMMOVABLE),
                 ("decoy_goal", 9, 0, 0, IMMOVABLE))
    compat = observation(eng, compat=True)
    assert "- robot 2 steps to your north" in compat and "robot 2 steps to your east" not in compat
    fixed = observation(eng, compat=False)  # B4: every sprite gets its line, ordered by id then distance
    assert "- robot 2 steps to your north\n- robot 2 steps to your east" in fixed
    assert fixed.count("- ship") == 2


def test_dead_avatar_frame_compat_and_fixed():
    eng = engine(2, (4, 4), ("enemy", 2, 4, 5, IMMOVABLE), ("message", 11, 18, 18, IMMOVABLE),
                 ("goal", 9, 18, 0, IMMOVABLE))
    eng.tick(STAY, np.random.default_rng(0))
    assert observation(eng, compat=True) == "Environment Error."
    assert observation(eng, compat=False).startswith("You (agent) died.\n\nYou see:\n- airplane 0 steps with you")


@pytest.mark.parametrize("level", [1, 2, 3])
def test_npc_tick_never_leaves_the_grid(level):
    rng = np.random.default_rng(level)
    for _ in range(50):
        eng = engine(2, (int(rng.integers(10)) * 2, int(rng.integers(10)) * 2),
                     ("enemy", 2, 0, 18, FLEEING), ("message", 11, 18, 0, CHASER), ("goal", 9, 18, 18, FLEEING))
        for _t in range(30):
            if eng.done:
                break
            eng.tick(int(rng.integers(5)), rng)
            for s in eng.sprites:
                assert 0 <= s.r <= 18 and 0 <= s.c <= 18
            assert 0 <= eng.avatar.r <= 18 and eng.avatar.r % 2 == 0

"""BALROG MiniHack/NetHack on balrog-nle: action sets, prompts, "12", image size, texts, determinism (§11.11)."""

import hashlib
import subprocess
import sys

import numpy as np
import pytest

from playbench.core.registry import get_task
from playbench.suites.balrog.nle import render
from playbench.suites.balrog.nle.engine import Engine, modules
from playbench.suites.balrog.nle.game import NLEGame
from playbench.suites.balrog.nle.tasks import TASK_IDS
from playbench.suites.balrog.nle.worker import ClockedEngine

MOVES8 = ["north", "east", "south", "west", "northeast", "southeast", "southwest", "northwest"]


def _fp(text: str) -> tuple[int, str]:
    return len(text), hashlib.sha256(text.encode()).hexdigest()[:16]


def _game(task_id: str, **params: object) -> NLEGame:
    task = get_task(task_id)
    return task.make_game(task.params(params), 0)


def test_tasks_registered_with_aliases() -> None:
    assert len(TASK_IDS) == 9
    assert get_task("MiniHack-Corridor-R3-v0").id == "balrog/minihack/corridor-r3"
    assert get_task("NetHackChallenge-v0").id == "balrog/nle/nethackchallenge"


@pytest.mark.parametrize(
    ("task_id", "expected", "fingerprint"),
    [
        ("balrog/minihack/mazewalk-9x9", MOVES8, (557, "8dd9ac49ba1f2c02")),
        ("balrog/minihack/corridor-r3", [*MOVES8, "open", "kick", "search"], (687, "3867d08abb7f201f")),
        ("balrog/minihack/corridorbattle-dark", MOVES8, (565, "17bc94f3c175804f")),
        (
            "balrog/minihack/quest-easy",
            [*MOVES8, *(f"far {d}" for d in MOVES8), "down", "wait", "more", "apply", "close", "eat", "force",
             "kick", "loot", "open", "pickup", "pray", "puton", "quaff", "search", "zap"],
            (1395, "e0d2b7accb6aa98c"),
        ),
    ],
)
def test_minihack_action_sets_and_prompts(task_id: str, expected: list[str], fingerprint: tuple) -> None:
    game = _game(task_id)
    _, info = game.reset(seed=1)
    assert game.legal_actions() == expected
    assert game.default_action == "north"
    assert _fp(info["manual"]) == fingerprint
    game.close()


def test_boxoban_actions_are_the_four_moves() -> None:
    game = _game("balrog/minihack/boxoban-medium")
    game.reset(seed=0)
    assert game.legal_actions() == ["north", "east", "south", "west"]
    game.close()


def test_nethack_action_space_prompt_and_the_12_case() -> None:
    compat = _game("balrog/nle/nethackchallenge", compat="true")
    compat.reset(seed=3)
    acts = compat.legal_actions()
    assert len(acts) == 248 and acts[-100:] == [f"{i:02d}" for i in range(100)] and "12" in acts
    assert _fp(compat.manual) == (4051, "30144d352b55c9ef")
    with pytest.raises(ValueError, match="not recognized"):
        compat.step("12")  # B4: compat crashes the episode as BALROG does
    compat.close()

    fixed = _game("balrog/nle/nethackchallenge")
    fixed.reset(seed=3)
    acts = fixed.legal_actions()
    assert len(acts) == 148 and "12" not in acts and "a" in acts and "9" in acts
    assert fixed.default_action == "esc"
    for bad in ("annotate", "overview", "teleport", "travel", "minus", "apos"):  # B9
        assert bad not in acts and f"\n{bad}: " not in fixed.manual
    obs, _, terminated, truncated, info = fixed.step("12")  # invalid: executes esc, with BALROG's feedback
    assert not terminated and not truncated
    assert info["metrics"]["failed_candidates"] == ["12"] and info["metrics"]["action_frequency"] == {"esc": 1}
    assert obs.startswith("\n\nYour previous output did not contain a valid action. Defaulted to action: esc\n\n")
    fixed.close()


def test_vlm_image_size_and_language_layout() -> None:
    game = _game("balrog/nle/nethackchallenge", images="true")
    obs, info = game.reset(seed=3)
    assert info["image"].shape == (336, 1264, 3) and info["image"].dtype == np.uint8
    assert info["long_term_context"].startswith("message:\n") and "map:" not in info["long_term_context"]
    assert info["short_term_context"].startswith("statistics:\nStrength: ")
    assert "\n\ninventory:\n" in info["short_term_context"]
    game.close()


def test_hybrid_text_matches_the_verified_mazewalk_example() -> None:
    engine = ClockedEngine("MiniHack-MazeWalk-9x9-v0")
    engine.seed_raw(5, 5)
    obs = engine.reset()
    lang = engine.language_obs(obs)
    long_term, short_term = render.contexts(lang, engine.message(obs), obs, "text")
    head = (
        "message:\nKonnichi wa Agent, welcome to NetHack!  You are a lawful male human Samurai.\n\n"
        "language observation:\ndark area far west\ndark area very near east and southeast\n"
        "dark area adjacent north, northeast, south, southwest, and northwest\n\n"
        "cursor:\nYourself a samurai\n(x=41, y=8)\n\nmap:\n"
    )
    assert long_term.startswith(head)
    rows = long_term[len(head):].split("\n")
    assert len(rows) == 25 and rows[-2:] == ["", ""] and all(len(r) == 80 for r in rows[:23])
    assert rows[21] == "Agent the Hatamoto             St:13 Dx:16 Co:18 In:11 Wi:8 Ch:7 Lawful S:0     "
    assert short_term.startswith("inventory:\na: a blessed +0 katana (weapon in hand)\n")
    engine.close()


def test_hybrid_text_matches_the_verified_nethack_example() -> None:
    engine = ClockedEngine("NetHackChallenge-v0")
    engine.seed_raw(3, 3)
    obs = engine.reset()
    long_term, short_term = render.contexts(engine.language_obs(obs), engine.message(obs), obs, "text")
    assert long_term.startswith(
        "message:\nHello Agent, welcome to NetHack!  You are a neutral female human Monk.\n\n"
        "language observation:\nhorizontal wall near north and south\nnortheast room corner near northeast\n"
        "vertical wall near east\nsoutheast corner near southeast\ndark area near west and northwest\n"
        "vertical wall very near southwest\ndoorway very near west and northwest\ntame kitten adjacent northeast\n\n"
        "cursor:\nYourself a monk\n(x=58, y=6)\n\nmap:\n"
    )
    assert long_term.endswith(
        "Agent the Candidate            St:18 Dx:12 Co:12 In:9 Wi:13 Ch:15 Neutral S:0   \n"
        "Dlvl:1 $:0 HP:14(14) Pw:5(5) AC:4 Xp:1/0 T:1                                    \n\n"
    )
    assert short_term.startswith(
        "inventory:\na: an uncursed +2 pair of leather gloves (being worn)\nb: an uncursed +1 robe (being worn)\n"
    )
    engine.close()


@pytest.mark.parametrize("env_id", ["MiniHack-Quest-Easy-v0", "NetHackChallenge-v0"])
def test_language_text_equals_the_wrappers_own_output(env_id: str) -> None:
    gym = modules()["gym"]
    wrapper_cls = modules()["wrapper"].NLELanguageWrapper
    ours = Engine(env_id)
    if env_id.startswith("NetHack"):
        raw = gym.make(env_id, character="@", savedir=None, save_ttyrec_every=0)
    else:
        raw = gym.make(env_id, character="@", savedir=None, save_ttyrec_every=0, autopickup=False,
                       observation_keys=("glyphs", "blstats", "tty_chars", "inv_letters", "inv_strs", "tty_cursor"))
    theirs = wrapper_cls(raw)
    for seed in (0, 7):
        ours.seed(seed)
        theirs.unwrapped.seed(seed & 0x7FFF_FFFF_FFFF_FFFF, seed ^ 0x5EED, reseed=False)
        assert ours.language_obs(ours.reset()) == theirs.reset()
        for action in ("west", "south", "east", "search"):
            obs, _, done, _ = ours.step(action)
            expected, _, _, _ = theirs.step(action)
            if "--More--" in expected["text_message"]:
                break  # AutoMore diverges from the bare wrapper from here on
            assert ours.language_obs(obs) == expected
            if done:
                break
    ours.close()


_SCRIPT = """
import hashlib, numpy as np
import playbench.suites.balrog.nle.tasks
from playbench.core.registry import get_task
h = hashlib.sha256()
for tid in ("balrog/minihack/corridor-r3", "balrog/nle/nethackchallenge", "balrog/minihack/boxoban-hard"):
    task = get_task(tid)
    game = task.make_game(task.params({}), 0)
    obs, info = game.reset(seed=2024)
    rng = np.random.default_rng(1)
    h.update(obs.encode())
    for _ in range(25):
        obs, reward, term, trunc, info = game.step(game.reference_action("random", rng))
        h.update(obs.encode() + repr(reward).encode())
        if term or trunc:
            break
    game.close()
print(h.hexdigest())
"""


def test_same_seed_same_game_across_processes() -> None:
    outs = [
        subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True, check=True).stdout.strip()
        for _ in range(2)
    ]
    assert len(outs[0]) == 64 and outs[0] == outs[1]


_NO_ENGINE = """
import sys
sys.modules["minihack"] = None  # as if the nethack extra were not installed
import playbench.suites.balrog.nle.tasks
from playbench.core.errors import PlaybenchError
from playbench.core.registry import get_task
task = get_task("balrog/minihack/mazewalk-9x9")
game = task.make_game(task.params({}), 0)
try:
    game.reset(seed=0)
except PlaybenchError as exc:
    print("ERR", exc)
"""


def test_missing_engine_is_one_clear_error() -> None:
    out = subprocess.run([sys.executable, "-c", _NO_ENGINE], capture_output=True, text=True, check=True).stdout
    assert out.startswith("ERR the NetHack/MiniHack engine is not installed") and "minihack==0.1.6" in out

"""BALROG protocol (game side): prompt fingerprints, invalid-action feedback, presets, registry."""

import pytest

from playbench.core.registry import get_task, list_groups
from playbench.suites.balrog import protocol
from playbench.suites.balrog.babyai.game import BabyAIGame


def _row(name: str):  # noqa: ANN202
    """The facts row of ``balrog/babyai/NAME``: the row its task hands the game."""
    return get_task(f"balrog/babyai/{name}").facts


@pytest.mark.parametrize("key", sorted(protocol.FINGERPRINTS))
def test_prompt_fingerprints(key):
    env, arg = key.split(":", 1)
    text = protocol.babyai_prompt(arg) if env == "babyai" else protocol.textworld_prompt(arg)
    length, digest = protocol.FINGERPRINTS[key]
    assert len(text) == length
    assert protocol.fingerprint(text) == digest


def test_textworld_prompt_quirks_kept():
    coin = protocol.textworld_prompt("coin_collector")
    assert "take coin:\n    2in the game by \u2018take coin\u2019" in coin
    assert all(line.startswith("    ") for line in protocol.textworld_prompt("treasure_hunter").splitlines()[1:])


def test_babyai_manual_is_mission_prompt():
    game = BabyAIGame(_row("goto"))
    _, info = game.reset(seed=3)
    assert info["manual"] == protocol.babyai_prompt(game.env.mission)
    assert f"Your goal is to {game.env.mission}. " in info["manual"]


def test_invalid_action_feedback_through_step():
    """§11.3: 'jump around' executes 'go forward' and the next observation carries the note."""
    game = BabyAIGame(_row("goto"))
    game.reset(seed=11)
    twin = BabyAIGame(_row("goto"))
    twin.reset(seed=11)
    obs, _, _, _, info = game.step("jump around")
    plain, *_ = twin.step("go forward")
    prefix = "\n\nYour previous output did not contain a valid action. Defaulted to action: go forward\n\nObservation:\n"
    assert obs == prefix + plain
    assert info["long_term_context"] == obs
    assert game.failed_candidates == ["jump around"]
    assert info["metrics"]["failed_candidates"] == ["jump around"]
    assert info["metrics"]["action_frequency"] == {"go forward": 1}
    # the note is only on the observation right after the invalid output
    obs2, *_ = game.step("turn left")
    assert not obs2.startswith("\n\nYour previous output")


def test_feedback_can_be_disabled_and_runner_hook():
    game = BabyAIGame(_row("goto"), feedback=False)
    game.reset(seed=11)
    obs, *_ = game.step("jump")
    assert "Defaulted" not in obs and game.failed_candidates == ["jump"]
    hooked = BabyAIGame(_row("goto"))
    hooked.reset(seed=11)
    hooked.note_invalid_action("nonsense")  # what a runner calls before stepping with the default
    obs, *_ = hooked.step(hooked.default_action)
    assert obs.startswith("\n\nYour previous output did not contain a valid action. Defaulted to action: go forward")


def test_invalid_feedback_text():
    assert protocol.invalid_action_feedback("Noop", "x") == (
        "\n\nYour previous output did not contain a valid action. Defaulted to action: Noop\n\nObservation:\nx"
    )


def test_presets_and_defaults():
    assert protocol.EPISODES["paper"] == {"babyai": 25, "crafter": 10, "textworld": 20, "babaisai": 5,
                                          "minihack": 5, "nle": 5}
    assert protocol.DEFAULT_ACTIONS["babyai"] == "go forward" and protocol.DEFAULT_ACTIONS["textworld"] is None
    task = get_task("balrog/babyai/putnext")
    assert task.episodes(task.params({})) == 10
    assert task.episodes(task.params({"preset": "paper"})) == 25
    tw = get_task("balrog/textworld/coin_collector")
    assert tw.episodes(tw.params({"preset": "paper"})) == 20
    assert get_task("BabyAI-MixedTrainLocal-v0/goto").id == "balrog/babyai/goto"


def test_step_limit_override():
    game = BabyAIGame(_row("goto"), max_steps=3)
    game.reset(seed=0)
    done = [game.step("turn left")[3] for _ in range(3)]
    assert done == [False, False, True]


def test_group_balrog_all():
    _, members = list_groups()["balrog/all"]
    for kind in ("goto", "pickup", "open", "putnext", "pick_up_seq_go_to"):
        assert f"balrog/babyai/{kind}" in members
    for name in ("treasure_hunter", "the_cooking_game", "coin_collector"):
        assert f"balrog/textworld/{name}" in members
    assert all(m.startswith("balrog/") for m in members)
    assert len(members) == len(set(members))
    # members of the other parts (Crafter, Baba Is AI, NetHack) join when their modules exist
    from playbench.core.registry import list_tasks

    assert set(members) == {t.id for t in list_tasks() if t.suite == "balrog"}
    envs = [m.split("/")[1] for m in members]
    order = [e for e in protocol.ENVS if e in envs]
    assert sorted(set(envs), key=order.index) == list(dict.fromkeys(envs))
    _, vlm = list_groups()["balrog/vlm"]
    assert vlm == [m for m in members if not m.startswith("balrog/textworld/")]


def test_resume_replays_exactly_the_missing_episode(tmp_path):
    """§11.12 (fixed): a deleted episode is played again with the same seed and the same result."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    exe = Path(sys.executable).with_name("playbench")
    subprocess.run([str(exe), "eval", "balrog/babyai/open", "--agent", "oracle", "--episodes", "3",
                    "--log-dir", str(tmp_path), "--quiet"], check=True, capture_output=True)
    run = next(p for p in tmp_path.iterdir() if p.is_dir())
    lines = (run / "episodes.jsonl").read_text().splitlines()
    before = {json.loads(line)["index"]: json.loads(line) for line in lines}
    kept = [line for line in lines if json.loads(line)["index"] != 1]
    (run / "episodes.jsonl").write_text("\n".join(kept) + "\n")
    subprocess.run([str(exe), "eval", "--resume", str(run), "--quiet"], check=True, capture_output=True)
    after = [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines()]
    replayed = [r for r in after if r["index"] == 1]
    assert len(after) == 3 and len(replayed) == 1
    strip = ("timing", "trajectory")
    assert {k: v for k, v in replayed[0].items() if k not in strip} == {
        k: v for k, v in before[1].items() if k not in strip}

"""A text fixed by a few settings (a manual, an instruction prompt) is one string shared by the episodes that show it:
every live episode holds its own game, and such a text is a kilobyte each."""

from playbench.core.registry import get_task
from playbench.suites.balrog.protocol import babyai_prompt


def manual(task_id: str, index: int, seed: int) -> str:
    task = get_task(task_id)
    game = task.make_game(task.params({}), index)
    _, info = game.reset(seed=seed)
    return info["manual"]


def test_the_episodes_of_a_setting_share_their_manual() -> None:
    assert manual("smartplay/hanoi-3", 0, 1) is manual("smartplay/hanoi-3", 1, 2)
    first, again = manual("grasp/energy-interactive", 0, 1), manual("grasp/energy-interactive", 0, 2)  # one setting
    assert first is again and first.endswith("Answer STOP to finish before the 20 steps are used.")


def test_a_babyai_mission_has_one_prompt() -> None:
    prompt = babyai_prompt("go to the red ball")
    assert babyai_prompt("go to the red " + "ball") is prompt and "go to the red ball" in prompt

"""GRASP's interactive game keeps one string per action name (every live episode holds its actions)."""

from playbench.core.registry import get_task


def test_interactive_actions_share_one_string_per_name():
    from playbench.suites.grasp.game import GraspInteractiveGame

    p = get_task("grasp/energy-interactive").params({})  # generated instances: no data files
    game = GraspInteractiveGame(p, 0)
    game.reset(seed=0)
    answers = ["".join(["U", "P"]), "UP", "UP"]  # equal names made apart, as models' answers are
    for answer in answers:
        game.step(answer)
    *_, info = game.step("STOP")
    assert game.actions == ["UP"] * 3 and len({id(a) for a in game.actions}) == 1
    assert info["metrics"]["plan"] == ["UP"] * 3 and info["metrics"]["plan"][0] is game.actions[0]

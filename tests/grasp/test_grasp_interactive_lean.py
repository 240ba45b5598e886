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


def test_a_generated_grids_text_is_rendered_only_when_asked():
    from playbench.suites.grasp.game import GraspGame, GraspInteractiveGame
    from playbench.suites.grasp.render import render_grid

    p = get_task("grasp/energy-interactive").params({})
    game = GraspInteractiveGame(p, 3)
    game.reset(seed=11)
    game.step("UP")
    assert game.inst is not None and "text" not in vars(game.inst)  # not held while the episode plays
    assert game.instance()["grid"] == render_grid(game.inst.grid) == game.inst.text
    one_step = GraspGame(get_task("grasp/energy").params({}), 3)
    obs, _ = one_step.reset(seed=11)
    assert one_step.inst is not None and one_step.inst.text in obs  # the one-step prompt shows it

"""``playbench play``: a person plays a task in the terminal; the result is an ordinary run (agent ``human``)."""

import sys

import click

from playbench.api.evaluate import evaluate
from playbench.api.result import RunInterrupted
from playbench.cli.common import safe_text
from playbench.cli.report_cmd import print_report


@click.command("play")
@click.argument("task")
@click.option("-T", "task_params", multiple=True, help="Task parameter key=value.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--episodes", type=int, default=1, show_default=True)
@click.option("--log-dir", type=click.Path(file_okay=False), default="runs", show_default=True)
def command(task: str, task_params: tuple[str, ...], seed: int, episodes: int, log_dir: str) -> None:
    """Play TASK yourself through exactly the text interface a model sees.

    Ctrl-C or Ctrl-D at the prompt quits: the episode is recorded with the steps played so far (as
    unfinished, agent-error) and the episodes not begun are left for ``playbench eval --resume``.
    """
    # one episode at a time: the terminal has one player
    try:
        result = evaluate(task, agent="human", episodes=episodes, seed=seed, task_params=task_params,
                          log_dir=log_dir, max_episodes=1)
    except RunInterrupted as stop:  # Ctrl-C away from the prompt (while a game is made, say)
        click.echo(f"interrupted: finished episodes are saved in {safe_text(stop.path)}", err=True)
        sys.exit(130)
    print_report(result.report())
    click.echo(f"run written to {safe_text(result.path)}")
    if result.stopped is not None:
        left = result.scheduled - result.recorded
        click.echo(f"{safe_text(result.stopped)}: {left} episode(s) not played; "
                   f"play them with: {safe_text(result.resume_command)}")

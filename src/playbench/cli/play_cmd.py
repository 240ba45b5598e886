"""``playbench play``: a person plays a task in the terminal; the result is an ordinary run (agent ``human``)."""

import click

from playbench.api.evaluate import evaluate
from playbench.cli.common import console
from playbench.cli.report_cmd import print_report


@click.command("play")
@click.argument("task")
@click.option("-T", "task_args", multiple=True, help="Task parameter key=value.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--episodes", type=int, default=1, show_default=True)
@click.option("--log-dir", type=click.Path(file_okay=False), default="runs", show_default=True)
def command(task: str, task_args: tuple[str, ...], seed: int, episodes: int, log_dir: str) -> None:
    """Play TASK yourself through exactly the text interface a model sees."""
    # one episode at a time: the terminal has one player
    result = evaluate(task, agent="human", episodes=episodes, seed=seed, task_params=task_args, log_dir=log_dir,
                      max_episodes=1)
    print_report(result.report())
    console.print(f"run written to {result.path}")

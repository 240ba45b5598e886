"""``playbench play``: a person plays a task in the terminal; the result is an ordinary run (agent ``human``)."""

from pathlib import Path

import click

from playbench.agents.human import HumanAgent
from playbench.cli.common import console, versions
from playbench.cli.eval_cmd import build_config
from playbench.cli.report_cmd import print_report
from playbench.report.build import build_report
from playbench.runner import RunSettings, RunStore, plan_jobs, run_jobs
from playbench.runner.loop import run as run_loop


@click.command("play")
@click.argument("task")
@click.option("-T", "task_args", multiple=True, help="Task parameter key=value.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--episodes", type=int, default=1, show_default=True)
@click.option("--log-dir", type=click.Path(file_okay=False), default="runs", show_default=True)
def command(task: str, task_args: tuple[str, ...], seed: int, episodes: int, log_dir: str) -> None:
    """Play TASK yourself through exactly the text interface a model sees."""
    config = build_config((task,), "human", None, episodes, seed, task_args, (), ())
    store = RunStore.create(Path(log_dir), {"config": config, "config_hash": config.hash(), "versions": versions()})
    try:
        run_loop(run_jobs(plan_jobs(config), store, HumanAgent, "human", None, RunSettings(max_episodes=1)))
    finally:
        store.close()
    print_report(build_report(store))
    console.print(f"run written to {store.path}")

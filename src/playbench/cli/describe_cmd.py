"""``playbench describe TASK``: one task (or group) in full: description, parameters, defaults, agents."""

import textwrap

import click

from playbench.cli.list_cmd import describe_lines
from playbench.core.registry import get_task, list_groups
from playbench.report.inert import inert_text


@click.command("describe")
@click.argument("task")
def command(task: str) -> None:
    """Describe TASK (an id, alias or group): full description, parameters with types and defaults."""
    groups = list_groups()
    if task in groups:
        desc, members = groups[task]
        click.echo(task)
        for line in textwrap.wrap(inert_text(desc), width=78):
            click.echo(line)
        click.echo(f"\n{len(members)} tasks:")
        for member in members:
            click.echo(f"  {member}")
        return
    for line in describe_lines(get_task(task)):
        click.echo(line)

"""The tiny suite's own command, ``playbench tiny-hello NAME`` (declared in ``tasks.py`` as a ``Command`` row)."""

import click


@click.command("tiny-hello")
@click.argument("name")
@click.option("--times", type=int, default=1, help="How often to say it.")
def command(name: str, times: int) -> None:
    """Say hello from the tiny suite.

    It exists to show that a suite declared outside playbench brings its own command.
    """
    for _ in range(times):
        click.echo(f"tiny says hello to {name}")

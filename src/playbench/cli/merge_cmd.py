"""``playbench merge``: join the shard runs of one run (``eval --shard K/N``) into one run directory."""

import click

from playbench.api.merge import merge
from playbench.cli.common import safe_text


@click.command("merge")
@click.argument("shards", nargs=-1, required=True)
@click.option("--output", "-o", required=True, type=click.Path(file_okay=False),
              help="The merged run directory to create (must not exist).")
def command(shards: tuple[str, ...], output: str) -> None:
    """Merge SHARDS (run directories of one config, each a --shard K/N) into one run."""
    run = merge(shards, output)
    click.echo(f"merged {len(run.latest_episodes())} episodes from {len(shards)} shards into {safe_text(run.path)}")

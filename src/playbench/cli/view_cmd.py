"""``playbench view``: write the static HTML viewer of one or more runs."""

import webbrowser
from pathlib import Path

import click

from playbench.cli.common import open_runs, safe_text
from playbench.report.viewer import write_site


@click.command("view")
@click.argument("runs", nargs=-1)
@click.option("--output", "-o", type=click.Path(file_okay=False), default=None,
              help="Folder for the site (default: FIRST_RUN/view).")
@click.option("--open", "open_browser", is_flag=True, help="Open the site in a browser.")
def command(runs: tuple[str, ...], output: str | None, open_browser: bool) -> None:
    """Write a static site (works from file://, no network) for RUNS and print the page to open."""
    stores = open_runs(runs)
    index = write_site(stores, Path(output) if output else stores[0].path / "view")
    click.echo(safe_text(index.resolve()))
    if open_browser:
        webbrowser.open(index.resolve().as_uri())

"""``playbench plot``: PNG and SVG figures of one or more runs."""

from pathlib import Path

import click

from playbench.cli.common import open_runs, safe_text
from playbench.core.errors import PlaybenchError
from playbench.report.build import build_report


@click.command("plot")
@click.argument("runs", nargs=-1)
@click.option("--output", "-o", type=click.Path(file_okay=False), required=True, help="Folder for the figures.")
def command(runs: tuple[str, ...], output: str) -> None:
    """Plot RUNS side by side (scores with 95% CIs, SmartPlay radar, BALROG progress, GRASP energy)."""
    stores = open_runs(runs)
    try:
        from playbench.report.plots import write_plots
    except ModuleNotFoundError:
        raise PlaybenchError("plot needs matplotlib: pip install 'playbench[plots]'") from None
    for path in write_plots([build_report(s) for s in stores], Path(output)):
        click.echo(safe_text(path))

"""``playbench view``: write the static HTML viewer of one or more runs (``--live``: keep it current)."""

import webbrowser
from pathlib import Path

import click

from playbench.cli.common import OutputError, open_runs, safe_text, writable_run
from playbench.log import RunLog


def write_view(stores: list[RunLog], out: Path) -> Path:
    """``write_site`` with a failed write as one line (exit 1); returns ``index.html``.

    ``eval --view`` writes its site through this too.
    """
    from playbench.report.viewer import SiteWriteError, write_site

    try:
        return write_site(stores, out)
    except SiteWriteError as exc:
        raise OutputError(str(exc)) from None


@click.command("view")
@click.argument("runs", nargs=-1)
@click.option("--output", "-o", type=click.Path(file_okay=False), default=None,
              help="Folder for the site: new, empty, or a site written before (default: FIRST_RUN/view).")
@click.option("--open", "open_browser", is_flag=True, help="Open the site in a browser.")
@click.option("--live", is_flag=True,
              help="Keep rewriting the site while the runs progress (pages refresh themselves); Ctrl-C stops.")
@click.option("--interval", type=click.FloatRange(min=0.2), default=2.0, show_default=True,
              help="With --live: seconds between looks at the runs.")
def command(runs: tuple[str, ...], output: str | None, open_browser: bool, live: bool, interval: float) -> None:
    """Write a static site (works from file://, no network) for RUNS and print the page to open.

    Two or more runs get a side-by-side page for every episode they share. The site goes into a new or
    empty folder, or one an earlier site was written into (it holds the file .playbench-site); any
    other folder is refused untouched.
    """
    stores = open_runs(runs)
    out = Path(output) if output else stores[0].path / "view"
    if not output:
        writable_run(stores[0].path, out)
    if not live:
        index = write_view(stores, out)
        click.echo(safe_text(index.resolve()))
        if open_browser:
            webbrowser.open(index.resolve().as_uri())
        return
    from playbench.report.viewer import SiteWriteError
    from playbench.report.viewer_live import watch

    def started(index: Path) -> None:
        click.echo(safe_text(index.resolve()))
        if open_browser:
            webbrowser.open(index.resolve().as_uri())

    try:
        watch([s.path for s in stores], out, interval, started)
    except SiteWriteError as exc:
        raise OutputError(str(exc)) from None
    except KeyboardInterrupt:
        click.echo("stopped watching; the site stays as last written", err=True)

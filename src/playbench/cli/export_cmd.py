"""``playbench export``: one flat row per episode as CSV, Parquet or JSON lines (readable by pandas as is)."""

from pathlib import Path

import click

from playbench.cli.common import open_runs, safe_text
from playbench.core.errors import PlaybenchError
from playbench.report.table import COLUMNS, episode_rows


@click.command("export")
@click.argument("run")
@click.option("--format", "fmt", type=click.Choice(["csv", "parquet", "jsonl"]), default="csv", show_default=True)
@click.option("--output", "-o", type=click.Path(dir_okay=False), default=None,
              help="File to write (default: RUN/export.<format>).")
def command(run: str, fmt: str, output: str | None) -> None:
    """Write RUN's episodes as a table."""
    try:
        import pandas as pd
    except ModuleNotFoundError:
        raise PlaybenchError("export needs pandas: pip install 'playbench[export]'") from None
    (store,) = open_runs((run,))
    frame = pd.DataFrame(episode_rows(store), columns=COLUMNS)
    target = Path(output) if output else store.path / f"export.{fmt}"
    if fmt == "csv":
        frame.to_csv(target, index=False)
    elif fmt == "jsonl":
        frame.to_json(target, orient="records", lines=True)
    else:
        try:
            frame.to_parquet(target, index=False)
        except ImportError:
            raise PlaybenchError("parquet export needs pyarrow: pip install 'playbench[export]'") from None
    click.echo(safe_text(target))

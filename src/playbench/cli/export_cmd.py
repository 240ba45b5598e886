"""``playbench export``: episodes as a table (CSV, Parquet, JSON lines) or BALROG's submission folder.

Tables hold one flat row per episode, readable by pandas as is; ``--format balrog`` writes the folder
BALROG's evaluator writes and its leaderboard publishes (``suites/balrog/submission.py``).
"""

from pathlib import Path

import click

from playbench.cli.common import err_console, open_runs, safe_markup, safe_text
from playbench.core.errors import PlaybenchError
from playbench.log.read import RunLog
from playbench.report.table import COLUMNS, episode_rows


def export_balrog(store: RunLog, target: Path) -> None:
    """Write ``store``'s BALROG episodes as BALROG's submission folder ``target`` (which must be new or empty)."""
    from playbench.suites.balrog import submission

    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise PlaybenchError(f"{target} already exists and is not an empty folder; choose another --output")
    config = store.config
    latest = store.latest_episodes()
    episodes = ((latest[key], store.read_trajectory(latest[key]) if latest[key].trajectory else None)
                for key in sorted(latest))
    written = submission.write_submission(
        target, episodes, submission.agent_config(config.agent, config.agent_params),
        submission.client_config(config.model, config.model_params))
    if written.other_tasks:
        err_console.print(f"[yellow]not BALROG tasks, left out: {safe_markup(', '.join(written.other_tasks))}[/]")
    if written.left_out:
        counts = ", ".join(f"{n} {status}" for status, n in sorted(written.left_out.items()))
        err_console.print(f"[yellow]episodes not ok, left out as BALROG leaves them ({counts}); "
                          "'playbench eval --resume RUN --retry-errors' re-runs them[/]")
    if not written.episodes:
        raise PlaybenchError(f"{store.path} has no finished BALROG episode to export")


@click.command("export")
@click.argument("run")
@click.option("--format", "fmt", type=click.Choice(["csv", "parquet", "jsonl", "balrog"]), default="csv",
              show_default=True, help="A table of episodes, or balrog: BALROG's submission folder.")
@click.option("--output", "-o", type=click.Path(), default=None,
              help="File to write (default: RUN/export.<format>); for balrog a new folder (default: RUN/balrog).")
def command(run: str, fmt: str, output: str | None) -> None:
    """Write RUN's episodes as a table, or as BALROG's submission folder."""
    (store,) = open_runs((run,))
    if fmt == "balrog":
        target = Path(output) if output else store.path / "balrog"
        export_balrog(store, target)
        click.echo(safe_text(target))
        return
    try:
        import pandas as pd
    except ModuleNotFoundError:
        raise PlaybenchError("export needs pandas: pip install 'playbench[export]'") from None
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

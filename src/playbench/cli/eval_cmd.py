"""``playbench eval``: run tasks with an agent and write a run directory (a thin caller of ``playbench.eval``)."""

import sys

import click
from click.core import ParameterSource

from playbench.agents.registry import list_agents
from playbench.api.evaluate import evaluate
from playbench.api.progress import Bar
from playbench.api.result import RunInterrupted
from playbench.cli.common import err_console, safe_markup, safe_text
from playbench.cli.report_cmd import print_report

#: command-line option -> library option, where the names differ
_LIBRARY_NAMES = {"task_args": "task_params", "agent_args": "agent_params", "model_args": "model_params"}
#: command-line options the library does not take (what to print, not what to run)
_DISPLAY = {"tasks", "quiet", "write_view", "dry_run"}


@click.command("eval")
@click.argument("tasks", nargs=-1)
@click.option("--agent", "agent", default=None,
              help=f"Agent: {', '.join(a.name for a in list_agents())} (default: random, or naive with --model).")
@click.option("--model", default=None, help="Model as provider/name, e.g. openai/gpt-4o or mock/demo.")
@click.option("--episodes", type=int, default=None, help="Episodes per task (default: each task's own count).")
@click.option("--seed", type=int, default=0, show_default=True, help="Base seed of the run.")
@click.option("--log-dir", type=click.Path(file_okay=False), default="runs", show_default=True)
@click.option("-T", "task_args", multiple=True, help="Task parameter key=value.")
@click.option("-A", "agent_args", multiple=True, help="Agent parameter key=value.")
@click.option("-M", "model_args", multiple=True, help="Model generation setting key=value.")
@click.option("--max-episodes", type=int, default=None, help="Episodes in flight (default: --max-connections).")
@click.option("--max-connections", type=int, default=8, show_default=True, help="Concurrent requests per model.")
@click.option("--max-retries", type=int, default=6, show_default=True)
@click.option("--timeout", type=float, default=120.0, show_default=True, help="Seconds per model request.")
@click.option("--base-url", default=None,
              help="Server URL for OpenAI-compatible providers (several, comma-separated, with --executor ray).")
@click.option("--cache", is_flag=True, help="Answer repeated model requests from an on-disk cache.")
@click.option("--batch", is_flag=True,
              help="Send the model's requests as provider batches (OpenAI, Anthropic, Gemini: half price, slower; "
                   "docs/models.md).")
@click.option("--batch-timeout", type=float, default=None, metavar="SECONDS",
              help="With --batch: seconds a batch is waited for before it is cancelled and its requests are sent "
                   "live (default: the provider's window + 6 h).")
@click.option("--retry-backoff", type=float, default=1.0, show_default=True,
              help="Seconds before the first retry of a failed model request (doubles each retry, jittered).")
@click.option("--max-connect-failures", type=int, default=5, show_default=True,
              help="Stop the run when this many requests in a row cannot reach the server.")
@click.option("--executor", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="Where episodes run: this process, or the workers of a Ray cluster (docs/scale.md).")
@click.option("--ray-address", default=None,
              help="With --executor ray: the cluster's head, host:port (default: $RAY_ADDRESS, else a local cluster).")
@click.option("--shard", default=None, metavar="K/N",
              help="Play only shard K of N of the episodes (a fixed rule over task and index; see docs/scale.md).")
@click.option("--resume", "resume", type=click.Path(), default=None,
              help="Continue this run directory with its recorded configuration.")
@click.option("--retry-errors", is_flag=True,
              help="With --resume: also re-run agent-error and game-error episodes.")
@click.option("--quiet", is_flag=True, help="No progress bar or table (the run path is still printed).")
@click.option("--label", default=None, help="The run's name in reports and plots (default: model + agent).")
@click.option("--dry-run", "dry_run", is_flag=True,
              help="Print the episodes, model calls, tokens and cost the run would take; call nothing.")
@click.option("--view", "write_view", is_flag=True, help="Also write the HTML viewer into RUN/view.")
@click.pass_context
def command(ctx: click.Context, /, tasks: tuple[str, ...], quiet: bool, write_view: bool, dry_run: bool,
            **_: object) -> None:
    """Run TASKS (ids, aliases or groups) and record every episode."""
    if dry_run:
        from playbench.cli.dry_run import dry_run as print_estimate

        print_estimate(tasks, ctx.params)
        return
    given = {name for name in ctx.params if ctx.get_parameter_source(name) == ParameterSource.COMMANDLINE}
    # only the options given are passed on: with --resume, giving one is asking to change it
    options = {_LIBRARY_NAMES.get(name, name): ctx.params[name] for name in given - _DISPLAY}
    try:
        result = evaluate(tasks, progress=None if quiet else Bar(err_console),
                          notes=lambda line: click.echo(safe_text(line), err=True), **options)
    except RunInterrupted as stop:
        resume_cmd = safe_text(stop.resume_command)
        click.echo(f"interrupted: finished episodes are saved in {safe_text(stop.path)}; continue with: {resume_cmd}",
                   err=True)
        sys.exit(128 + stop.signal)  # as a shell reports a process the signal ended: 130 Ctrl-C, 143 SIGTERM, 129 SIGHUP
    run_dir = result.path
    resume_cmd = safe_text(result.resume_command)
    st = result.model_stats
    if st is not None and not quiet:
        faults = ", ".join(f"{k} {v}" for k, v in sorted(st.faults.items())) or "none"
        err_console.print(safe_markup(f"model {result.config.model}: {st.calls} calls, {st.attempts} requests, "
                                      f"{st.answers} answers, {st.cache_hits} cache hits, faults: {faults}",
                                      limit=None))
    if result.stopped and not run_dir.is_dir():  # the folder itself went: nothing is left to report or resume
        click.echo(f"run stopped: {safe_text(result.stopped)}", err=True)
        sys.exit(1)
    if result.totals.replayed:
        click.echo(f"{result.totals.replayed} episode(s) were played again after the Ray worker playing them died",
                   err=True)
    if not quiet:
        print_report(result.report())
    click.echo(f"run written to {safe_text(run_dir)}")
    if write_view:
        from playbench.cli import view_cmd  # a site refused or not written: one line, no traceback

        click.echo(f"viewer: open {view_cmd.write_view([result.log], run_dir / 'view').resolve().as_uri()}")
    if result.stopped:
        click.echo(f"run stopped: {result.stopped}; finished episodes are kept; continue with: {resume_cmd}",
                   err=True)
        sys.exit(1)
    infra = result.status_counts.get("infra-error", 0)
    if infra or result.recorded < result.scheduled:
        advice = f"continue with: {resume_cmd}"
        if st is not None and st.faults.get("context-overflow"):  # --resume alone would overflow again
            advice = (f"prompts were longer than the server's context: restart it with a larger context, then "
                      f"continue with: {resume_cmd}; or send less history in a new run, e.g. -A max_text_history=8")
        click.echo(f"{result.recorded} of {result.scheduled} episodes recorded, {infra} ended with infra-error; "
                   f"{advice}", err=True)
        sys.exit(1)


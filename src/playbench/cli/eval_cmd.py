"""``playbench eval``: run tasks with an agent and write a run directory (a thin caller of ``playbench.eval``)."""

import sys
from collections.abc import Callable
from typing import Any

import click
from click.core import ParameterSource

from playbench.agents.registry import list_agents
from playbench.api.evaluate import evaluate
from playbench.api.progress import Bar
from playbench.api.result import RunInterrupted
from playbench.cli.common import err_console, safe_markup, safe_text
from playbench.cli.report_cmd import print_report
from playbench.core.records import RUN_OPTIONS, Resume, RunSettings, value_type

#: command-line options the library does not take (what to print, not what to run)
_DISPLAY = {"tasks", "quiet", "write_view", "dry_run"}

Decorator = Callable[[Callable[..., None]], Callable[..., None]]

#: the exit code of a run stopped at its ``--cost-limit`` (1: stopped by a fault, 2: a bad request)
COST_LIMIT_EXIT = 3


class _Usd(click.ParamType[float | None]):
    """A number of dollars, or ``none``: a resume lifting the run's limit."""

    name = "usd"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float | None:
        if value is None or isinstance(value, float):
            return value
        if str(value).strip().lower() == "none":
            return None
        try:
            return float(value)
        except ValueError:
            self.fail(f"{value!r} is not a number of dollars (or none, to lift a resumed run's limit)", param, ctx)


#: settings whose values the command line spells its own way
_TYPES: dict[str, click.ParamType[Any]] = {"cost_limit": _Usd()}


def _settings(*rules: Resume) -> Decorator:
    """The options of the run settings (``RunSettings``) whose resume rule is one of ``rules``, in its order."""

    def add(command: Callable[..., None]) -> Callable[..., None]:
        for name, option in reversed(RUN_OPTIONS.items()):
            if option.resume not in rules:
                continue
            kind = value_type(name)
            shape: dict[str, Any] = {"is_flag": True} if kind is bool else {
                "type": _TYPES.get(name) or (click.Choice(option.choices) if option.choices else kind)}
            command = click.option(option.flag, name, default=RunSettings.model_fields[name].default,
                                   show_default=option.show_default, metavar=option.metavar, help=option.help,
                                   **shape)(command)
        return command

    return add


@click.command("eval")
@click.argument("tasks", nargs=-1)
@click.option("--agent", "agent", default=None,
              help=f"Agent: {', '.join(a.name for a in list_agents())} (default: random, or naive with --model).")
@click.option("--model", default=None, help="Model as provider/name, e.g. openai/gpt-4o or mock/demo.")
@click.option("--episodes", type=int, default=None, help="Episodes per task (default: each task's own count).")
@click.option("--seed", type=int, default=0, show_default=True, help="Base seed of the run.")
@click.option("--log-dir", type=click.Path(file_okay=False), default="runs", show_default=True)
@click.option("-T", "task_params", multiple=True,
              help="Task parameter key=value (to each task named that takes it; refused when none does).")
@click.option("-A", "agent_params", multiple=True, help="Agent parameter key=value.")
@click.option("-M", "model_params", multiple=True, help="Model generation setting key=value.")
@_settings("change", "identity")
@click.option("--resume", "resume", type=click.Path(), default=None,
              help="Continue this run directory with its recorded configuration.")
@click.option("--retry-errors", is_flag=True,
              help="With --resume: also re-run agent-error and game-error episodes.")
@click.option("--quiet", is_flag=True, help="No progress bar or table (the run path is still printed).")
@_settings("display")
@click.option("--dry-run", "dry_run", is_flag=True,
              help="Print the episodes, model calls, tokens and cost the run would take; call nothing.")
@click.option("--view", "write_view", is_flag=True, help="Also write the HTML viewer into RUN/view.")
@click.pass_context
def command(ctx: click.Context, /, tasks: tuple[str, ...], quiet: bool, write_view: bool, dry_run: bool,
            **_: object) -> None:
    """Run TASKS (ids, aliases or groups) and record every episode."""
    given = {name for name in ctx.params if ctx.get_parameter_source(name) == ParameterSource.COMMANDLINE}
    # only the options given are passed on: with --resume, giving one is asking to change it
    options = {name: ctx.params[name] for name in given - _DISPLAY}
    if dry_run:
        from playbench.cli.dry_run import dry_run as print_estimate

        print_estimate(tasks, options)
        return
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
        earlier = f", {st.paid_earlier} answers paid for before" if st.paid_earlier else ""
        err_console.print(safe_markup(f"model {result.config.model}: {st.calls} calls, {st.attempts} requests, "
                                      f"{st.answers} answers, {st.cache_hits} cache hits{earlier}, faults: {faults}",
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
    if result.stopped and st is not None and st.cost_limit_reached:
        click.echo(f"{safe_text(result.stopped)}; finished episodes and the answers paid for are kept; continue with "
                   f"a higher limit: {resume_cmd} --cost-limit {_higher_limit(result)}", err=True)
        sys.exit(COST_LIMIT_EXIT)
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


def _higher_limit(result: Any) -> str:
    """The ``--cost-limit`` a resume could give: twice the run's, or ``none`` where its cost is not known."""
    limit = result.log.meta.settings.cost_limit
    if limit is None or "not known" in (result.stopped or ""):
        return "none"
    return f"{limit * 2:g}"

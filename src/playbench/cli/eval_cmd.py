"""``playbench eval``: run tasks with an agent and write a run directory."""

import shlex
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from playbench.agents.registry import get_agent
from playbench.cli.common import err_console, safe_markup, safe_text, versions
from playbench.cli.report_cmd import print_report
from playbench.core.errors import PlaybenchError
from playbench.core.params import parse_key_values
from playbench.core.records import EpisodeRecord, RunConfig, TaskSpec
from playbench.core.registry import get_task, resolve_members
from playbench.report.build import build_report
from playbench.runner import RunSettings, RunStore, plan_jobs, run_jobs
from playbench.runner.loop import run as run_loop
from playbench.runner.resume import IDENTITY, REFUSED, apply_settings, check_identity, resume_event, strip_credentials
from playbench.runner.runner import RunTotals


def build_config(
    tasks: tuple[str, ...], agent: str | None, model: str | None, episodes: int | None, seed: int,
    task_args: tuple[str, ...], agent_args: tuple[str, ...], model_args: tuple[str, ...],
) -> RunConfig:
    """Validate everything the user asked for and turn it into a RunConfig (or a PlaybenchError)."""
    if not tasks:
        raise PlaybenchError("give at least one task id (see 'playbench list')")
    if episodes is not None and episodes < 1:
        raise PlaybenchError("--episodes must be at least 1")
    resolved = resolve_members(tasks)
    tvals = parse_key_values(task_args, "-T")
    agent_name = agent or ("naive" if model else "random")
    spec = get_agent(agent_name)
    if spec.needs_model and not model:
        raise PlaybenchError(f"agent {agent_name!r} needs --model provider/name (e.g. mock/demo)")
    if spec.reference and model:
        raise PlaybenchError(f"agent {agent_name!r} needs no model; drop --model or pick a model agent")
    specs = []
    for task, preset in resolved:
        if spec.reference and agent_name not in task.reference_agents:
            raise PlaybenchError(
                f"agent {agent_name!r} is not available for {task.id}; reference agents there: "
                + ", ".join(task.reference_agents)
            )
        params = task.params({**preset.get("params", {}), **tvals})
        task.validate_inputs(params)
        count = episodes or preset.get("episodes") or task.episodes(params)
        task.check_episodes(params, count)
        specs.append(TaskSpec(id=task.id, params=params.model_dump(mode="json"), episodes=count))
    aparams = spec.params(parse_key_values(agent_args, "-A")).model_dump(mode="json")
    mparams = parse_key_values(model_args, "-M")
    return RunConfig(tasks=specs, agent=agent_name, agent_params=aparams, model=model, model_params=mparams, seed=seed)


def _progress(quiet: bool) -> Progress:
    return Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
        TextColumn("{task.fields[rate]:>8} steps/s"), TimeElapsedColumn(),
        console=err_console, transient=False, disable=quiet,
    )


@click.command("eval")
@click.argument("tasks", nargs=-1)
@click.option("--agent", "agent", default=None, help="Agent name (default: random, or naive with --model).")
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
@click.option("--base-url", default=None, help="Server URL for OpenAI-compatible providers.")
@click.option("--cache", is_flag=True, help="Answer repeated model requests from an on-disk cache.")
@click.option("--retry-backoff", type=float, default=1.0, show_default=True,
              help="Seconds before the first retry of a failed model request (doubles each retry, jittered).")
@click.option("--max-connect-failures", type=int, default=5, show_default=True,
              help="Stop the run when this many requests in a row cannot reach the server.")
@click.option("--resume", "resume", type=click.Path(), default=None,
              help="Continue this run directory with its recorded configuration.")
@click.option("--retry-errors", is_flag=True,
              help="With --resume: also re-run agent-error and game-error episodes.")
@click.option("--quiet", is_flag=True, help="No progress bar or table (the run path is still printed).")
@click.option("--view", "write_view", is_flag=True, help="Also write the HTML viewer into RUN/view.")
@click.pass_context
def command(ctx: click.Context, tasks: tuple[str, ...], agent: str | None, model: str | None, episodes: int | None,
            seed: int, log_dir: str, task_args: tuple[str, ...], agent_args: tuple[str, ...],
            model_args: tuple[str, ...], max_episodes: int | None, max_connections: int, max_retries: int,
            timeout: float, base_url: str | None, cache: bool, retry_backoff: float, max_connect_failures: int,
            resume: str | None, retry_errors: bool, quiet: bool, write_view: bool) -> None:
    """Run TASKS (ids, aliases or groups) and record every episode."""
    given = {name for name in ctx.params if ctx.get_parameter_source(name) == ParameterSource.COMMANDLINE}
    options = {"base_url": base_url, "max_connections": max_connections, "max_episodes": max_episodes,
               "max_retries": max_retries, "timeout": timeout, "retry_backoff": retry_backoff,
               "max_connect_failures": max_connect_failures}
    if retry_errors and not resume:
        raise PlaybenchError("--retry-errors goes with --resume RUN")
    store: RunStore | None = None
    if resume:
        store = RunStore.open_for_writing(resume)
        try:
            config, settings = _resumed(store, given, tasks, agent, model, episodes, seed, task_args, agent_args,
                                        model_args, cache, {k: v for k, v in options.items() if k in given})
            done = store.latest_episodes(repair=True)
        except BaseException:
            store.close()
            raise
    else:
        config = build_config(tasks, agent, model, episodes, seed, task_args, agent_args, model_args)
        settings = {**options, "cache": cache}
        done = {}
    _check_settings(settings)
    spec = get_agent(config.agent)
    aparams = spec.params(config.agent_params)
    model_obj = None
    try:
        if config.model:
            from playbench.agents.strategies import preflight
            from playbench.models import ModelSettings, create_model

            preflight(config.agent, aparams, [get_task(t.id) for t in config.tasks])
            model_obj = create_model(config.model, config.model_params, ModelSettings(
                base_url=settings["base_url"], max_connections=settings["max_connections"],
                max_retries=settings["max_retries"], timeout=settings["timeout"], cache=settings["cache"],
                backoff_base=settings["retry_backoff"], max_connect_failures=settings["max_connect_failures"]))
        jobs = plan_jobs(config, done, retry_errors=retry_errors)
        if store is None:
            recorded = {**settings, "base_url": strip_credentials(
                getattr(getattr(model_obj, "provider", None), "base_url", None) or settings["base_url"])}
            store = RunStore.create(Path(log_dir), {"config": config, "config_hash": config.hash(),
                                                    "versions": versions(), "settings": recorded})
    except BaseException:
        if store is not None:
            store.close()
        raise
    run_dir = store.path
    _print_notes(config)
    resume_cmd = safe_text(f"playbench eval --resume {shlex.quote(str(run_dir))}")
    try:
        totals = _execute(jobs, store, lambda: spec.factory(aparams, model_obj), config,
                          settings["max_episodes"] or settings["max_connections"], quiet, model_obj)
    except KeyboardInterrupt:
        store.close()
        click.echo(f"interrupted: finished episodes are saved in {safe_text(run_dir)}; continue with: {resume_cmd}",
                   err=True)
        sys.exit(130)
    store.close()
    if model_obj is not None and not quiet:
        st = model_obj.stats
        faults = ", ".join(f"{k} {v}" for k, v in sorted(st.faults.items())) or "none"
        err_console.print(safe_markup(f"model {config.model}: {st.calls} calls, {st.attempts} requests, {st.answers} "
                                      f"answers, {st.cache_hits} cache hits, faults: {faults}", limit=None))
    report = build_report(store)
    if not quiet:
        print_report(report)
    click.echo(f"run written to {safe_text(run_dir)}")
    if write_view:
        from playbench.report.viewer import write_site

        click.echo(f"viewer: open {write_site([store], run_dir / 'view').resolve().as_uri()}")
    if totals.stopped:
        click.echo(f"run stopped: {totals.stopped}; finished episodes are kept; continue with: {resume_cmd}",
                   err=True)
        sys.exit(1)
    latest = store.latest_episodes()
    scheduled = sum(t.episodes for t in config.tasks)
    infra = sum(1 for r in latest.values() if r.status == "infra-error")
    if infra or len(latest) < scheduled:
        click.echo(f"{len(latest)} of {scheduled} episodes recorded, {infra} ended with infra-error; "
                   f"continue with: {resume_cmd}", err=True)
        sys.exit(1)


def _resumed(store: RunStore, given: set[str], tasks: tuple[str, ...], agent: str | None, model: str | None,
             episodes: int | None, seed: int, task_args: tuple[str, ...], agent_args: tuple[str, ...],
             model_args: tuple[str, ...], cache: bool, new_settings: dict[str, Any]
             ) -> tuple[RunConfig, dict[str, Any]]:
    """The recorded config and settings of a run, after checking what the command line asks to change."""
    recorded = store.meta.config
    current = []  # the recorded parameters under today's names (a run may predate a rename)
    for spec in recorded.tasks:  # the data may have changed since the run began
        task = get_task(spec.id)
        params = task.params(spec.params)
        task.validate_inputs(params)
        current.append(spec.model_copy(update={"params": params.model_dump(mode="json")}))
    if given & (IDENTITY.keys() | REFUSED.keys()):
        asked = build_config(
            tasks or tuple(t.id for t in recorded.tasks), agent if "agent" in given else recorded.agent,
            model if "model" in given else recorded.model, episodes, seed if "seed" in given else recorded.seed,
            task_args, agent_args, model_args)
        check_identity(recorded.model_copy(update={"tasks": current}), asked, given,
                       (bool(store.meta.settings.get("cache")), cache))
    defaults = {"base_url": None, "max_connections": 8, "max_episodes": None, "max_retries": 6, "timeout": 120.0,
                "retry_backoff": 1.0, "max_connect_failures": 5, "cache": False}
    settings, changed = apply_settings({**defaults, **store.meta.settings}, new_settings)
    if changed:
        shown = {**settings, "base_url": strip_credentials(settings["base_url"])}
        meta = store.meta.model_copy(update={"settings": shown,
                                             "resumes": [*store.meta.resumes, resume_event(changed)]})
        store.save_meta(meta)
    return recorded, settings


def _print_notes(config: RunConfig) -> None:
    """One line per task that has something to say about this run (e.g. which Messenger manual it reads)."""
    for spec in config.tasks:
        task = get_task(spec.id)
        note = task.note(task.params(spec.params)) if task.note is not None else None
        if note:
            click.echo(f"{safe_text(spec.id)}: {safe_text(note)}", err=True)


def _check_settings(settings: dict[str, Any]) -> None:
    if settings["max_connections"] < 1 or (settings["max_episodes"] is not None and settings["max_episodes"] < 1):
        raise PlaybenchError("--max-connections and --max-episodes must be at least 1")
    if settings["retry_backoff"] < 0:
        raise PlaybenchError("--retry-backoff must be >= 0")
    if settings["max_connect_failures"] < 1:
        raise PlaybenchError("--max-connect-failures must be at least 1")


def _execute(jobs: list, store: RunStore, make_agent: Callable, config: RunConfig, max_episodes: int, quiet: bool,
             model: Any = None) -> RunTotals:
    """Run the jobs under a progress bar (episodes per task, steps/s, elapsed)."""
    steps = {"n": 0}
    start = time.perf_counter()
    with _progress(quiet) as progress:
        bars = {}
        for t in config.tasks:
            left = sum(1 for j in jobs if j.task.id == t.id)
            bars[t.id] = progress.add_task(safe_markup(t.id), total=t.episodes, completed=t.episodes - left, rate="-")

        def on_step(task_id: str) -> None:
            steps["n"] += 1

        def on_episode(record: EpisodeRecord) -> None:
            rate = steps["n"] / max(time.perf_counter() - start, 1e-9)
            progress.update(bars[record.task], advance=1, rate=f"{rate:,.0f}")

        settings = RunSettings(max_episodes=max_episodes, on_step=on_step, on_episode=on_episode)
        return run_loop(_closing(run_jobs(jobs, store, make_agent, config.agent, config.model, settings), model))


async def _closing(coro: Awaitable[RunTotals], model: Any) -> RunTotals:
    """Run ``coro``, then close the model's connections inside the same event loop."""
    try:
        return await coro
    finally:
        if model is not None:
            await model.aclose()

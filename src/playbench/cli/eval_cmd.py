"""``playbench eval``: run tasks with an agent and write a run directory."""

import shlex
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from playbench.agents.registry import get_agent
from playbench.cli.common import console, err_console, versions
from playbench.cli.report_cmd import print_report
from playbench.core.errors import PlaybenchError
from playbench.core.params import parse_key_values
from playbench.core.records import EpisodeRecord, RunConfig, TaskSpec
from playbench.core.registry import get_task, resolve_members
from playbench.report.build import build_report
from playbench.runner import RunSettings, RunStore, plan_jobs, run_jobs
from playbench.runner.loop import run as run_loop
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
        specs.append(TaskSpec(id=task.id, params=params.model_dump(mode="json"),
                              episodes=episodes or preset.get("episodes") or task.episodes(params)))
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
@click.option("--cache", is_flag=True, help="Answer identical model requests from an on-disk cache.")
@click.option("--retry-backoff", type=float, default=1.0, show_default=True,
              help="Seconds before the first retry of a failed model request (doubles each retry, jittered).")
@click.option("--resume", "resume", type=click.Path(), default=None, help="Continue this run directory.")
@click.option("--quiet", is_flag=True, help="No progress bar or table.")
@click.option("--view", "write_view", is_flag=True, help="Also write the HTML viewer into RUN/view.")
def command(tasks: tuple[str, ...], agent: str | None, model: str | None, episodes: int | None, seed: int,
            log_dir: str, task_args: tuple[str, ...], agent_args: tuple[str, ...], model_args: tuple[str, ...],
            max_episodes: int | None, max_connections: int, max_retries: int, timeout: float,
            base_url: str | None, cache: bool, retry_backoff: float, resume: str | None, quiet: bool,
            write_view: bool) -> None:
    """Run TASKS (ids, aliases or groups) and record every episode."""
    if max_connections < 1 or (max_episodes is not None and max_episodes < 1):
        raise PlaybenchError("--max-connections and --max-episodes must be at least 1")
    if resume:
        store = RunStore.open(resume)
        if tasks:
            asked = build_config(tasks, agent, model, episodes, seed, task_args, agent_args, model_args)
            if asked.hash() != store.meta.config_hash:
                raise PlaybenchError(
                    f"{resume} was run with a different config (hash {store.meta.config_hash}, yours {asked.hash()}); "
                    "resume with the same arguments, or with --resume alone"
                )
        config = store.meta.config
        done = store.latest_episodes(repair=True)
    else:
        config = build_config(tasks, agent, model, episodes, seed, task_args, agent_args, model_args)
        done = {}
    spec = get_agent(config.agent)
    aparams = spec.params(config.agent_params)
    model_obj = None
    if config.model:
        from playbench.agents.strategies import preflight
        from playbench.models import ModelSettings, create_model

        if retry_backoff < 0:
            raise PlaybenchError("--retry-backoff must be >= 0")
        preflight(config.agent, aparams, [get_task(t.id) for t in config.tasks])
        model_obj = create_model(config.model, config.model_params, ModelSettings(
            base_url=base_url, max_connections=max_connections, max_retries=max_retries, timeout=timeout,
            cache=cache, backoff_base=retry_backoff))
    jobs = plan_jobs(config, done)
    if not resume:
        from playbench.models.redact import redact

        store = RunStore.create(Path(log_dir), {
            "config": config, "config_hash": config.hash(), "versions": versions(),
            "settings": {"max_connections": max_connections, "max_retries": max_retries, "timeout": timeout,
                         "base_url": redact(base_url) if base_url else None, "cache": cache},
        })
    run_dir = store.path
    _execute(jobs, store, lambda: spec.factory(aparams, model_obj), config, max_episodes or max_connections,
                      quiet, model_obj)
    store.close()
    if model_obj is not None and not quiet:
        st = model_obj.stats
        faults = ", ".join(f"{k} {v}" for k, v in sorted(st.faults.items())) or "none"
        err_console.print(f"model {config.model}: {st.calls} calls, {st.attempts} requests, {st.answers} answers, "
                          f"{st.cache_hits} cache hits, faults: {faults}")
    report = build_report(store)
    if not quiet:
        print_report(report)
        console.print(f"run written to [bold]{run_dir}[/bold]")
    if write_view:
        from playbench.report.viewer import write_site

        console.print(f"viewer: open [bold]{write_site([store], run_dir / 'view').resolve().as_uri()}[/bold]")
    remaining = sum(e["status"]["infra-error"] for e in report["tasks"].values())
    if remaining:
        cmd = f"playbench eval --resume {shlex.quote(str(run_dir))}"
        click.echo(f"{remaining} episode(s) ended with infra-error; continue with: {cmd}", err=True)
        sys.exit(1)


def _execute(jobs: list, store: RunStore, make_agent: Callable, config: RunConfig, max_episodes: int, quiet: bool,
             model: Any = None) -> RunTotals:
    """Run the jobs under a progress bar (episodes per task, steps/s, elapsed)."""
    steps = {"n": 0}
    start = time.perf_counter()
    with _progress(quiet) as progress:
        bars = {}
        for t in config.tasks:
            left = sum(1 for j in jobs if j.task.id == t.id)
            bars[t.id] = progress.add_task(t.id, total=t.episodes, completed=t.episodes - left, rate="-")

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

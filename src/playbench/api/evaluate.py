"""``playbench.eval``: a run's whole lifecycle (plan, create or resume, play, record) as one call.

The command line (``playbench eval``) is a thin caller of this module; so are ``playbench play`` and the
benchmark scripts. Nothing here prints or exits: problems are exceptions (``PlaybenchError`` for what the
caller asked, ``RunInterrupted`` for Ctrl-C), and a run that stops early returns with ``stopped`` set.
"""

import time
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any, TypedDict, Unpack

from playbench.agents.base import Agent
from playbench.api.config import KeyValues, build_config, check_text, key_value_items
from playbench.api.progress import Bar, ProgressHook
from playbench.api.result import EvalResult, RunInterrupted
from playbench.api.settings import SETTING_DEFAULTS, check_settings, resumed_config
from playbench.api.versions import versions
from playbench.api.workers import WorkerKit, add_stats, base_urls, create_model, registered_agent, share
from playbench.core.errors import PlaybenchError
from playbench.core.records import RunConfig
from playbench.core.registry import get_task
from playbench.log.store import RunStore
from playbench.runner import RunSettings, plan_jobs, run_jobs
from playbench.runner.loop import run as run_loop
from playbench.runner.resume import strip_credentials
from playbench.runner.runner import RunTotals
from playbench.runner.shard import Shard, episodes_per_task, parse_shard


class EvalOptions(TypedDict, total=False):
    """The keyword options of ``playbench.eval`` (each mirrors a ``playbench eval`` option)."""

    agent: str | Callable[[], Agent] | None
    model: str | None
    episodes: int | None
    seed: int
    log_dir: str | Path
    task_params: KeyValues
    agent_params: KeyValues
    model_params: KeyValues
    max_episodes: int | None
    max_connections: int
    max_retries: int
    timeout: float
    base_url: str | None
    cache: bool
    retry_backoff: float
    max_connect_failures: int
    executor: str
    ray_address: str | None
    shard: str | None
    resume: str | Path | None
    retry_errors: bool
    progress: bool | ProgressHook | None
    label: str | None
    notes: Callable[[str], None] | None


#: library option -> the name the resume rules (``runner/resume.py``) know it by
_RESUME_NAMES = {"task_params": "task_args", "agent_params": "agent_args", "model_params": "model_args"}


def evaluate(tasks: str | Iterable[str] = (), /, **options: Unpack[EvalOptions]) -> EvalResult:
    """Run ``tasks`` (ids, aliases or groups) with an agent and record every episode in a new run directory.

    Options (all keyword, all optional) are those of ``playbench eval``: ``agent`` (a registered name, or
    a zero-argument factory of your own ``Agent``), ``model`` (``provider/name``), ``episodes``, ``seed``,
    ``log_dir`` (default ``runs``), ``task_params``/``agent_params``/``model_params`` (a mapping or
    ``key=value`` strings, like ``-T``/``-A``/``-M``), the connection settings ``base_url``,
    ``max_connections``, ``max_episodes``, ``max_retries``, ``timeout``, ``retry_backoff``,
    ``max_connect_failures``, and ``cache``; ``label`` names the run in reports and plots. ``executor="ray"`` plays the episodes on the workers of a Ray
    cluster (``ray_address``, default ``$RAY_ADDRESS``, else a local cluster; see docs/scale.md) and
    ``shard="K/N"`` plays only shard K of N of the episodes (``playbench merge`` joins the shards).
    ``resume=PATH`` continues that run with its recorded
    configuration instead (``retry_errors`` also re-plays agent- and game-error episodes); options given
    with it follow the ``--resume`` rules: settings may change, options that would change results are
    refused unless equal to the recorded ones. ``progress=True`` shows a bar on stderr; any object with
    the ``ProgressHook`` methods receives the events instead; by default nothing is shown. ``notes`` is
    called, as the run starts, with one line per task that has something to say about it (e.g. which
    Messenger manual it reads).

    Returns an ``EvalResult``; a run stopped by a fault of the whole run (refused credentials, an
    unreachable server, a full disk) returns with ``stopped`` set. Raises ``PlaybenchError`` for a bad
    request (nothing is created) and ``RunInterrupted`` on Ctrl-C (finished episodes are kept).
    """
    opts: dict[str, Any] = dict(options)
    given, ask, settings = _request(tasks, opts)
    custom = opts.get("agent") if callable(opts.get("agent")) else None
    resume, retry_errors = opts.get("resume"), bool(opts.get("retry_errors", False))
    if retry_errors and not resume:
        raise PlaybenchError("--retry-errors goes with --resume RUN")
    if custom is not None and (resume or opts.get("model")):
        raise PlaybenchError("a custom agent factory brings its own model and cannot be resumed; "
                             "give neither model nor resume with it")
    store: RunStore | None = None
    if resume:
        store = RunStore.open_for_writing(resume)
        try:
            config, settings = resumed_config(store, given, ask, settings)
            done = store.latest_episodes(repair=True)
        except BaseException:
            store.close()
            raise
    else:
        config = build_config(ask["tasks"], ask["agent"], ask["model"], ask["episodes"], ask["seed"],
                              ask["task_args"], ask["agent_args"], ask["model_args"], custom_agent=custom is not None)
        done = {}
    model_obj = None
    cluster = None
    try:
        check_settings(settings)
        if "ray_address" in given and settings["executor"] != "ray":
            raise PlaybenchError("--ray-address goes with --executor ray")
        shard = parse_shard(settings["shard"])
        settings["shard"] = None if shard is None else str(shard)
        if custom is None:
            make_agent = registered_agent(config, lambda: model_obj)
        else:
            make_agent = custom
        if config.model and custom is None:  # on a cluster too: a bad model or key is refused here, at once
            urls = base_urls(settings["base_url"])
            model_obj = create_model(config, {**settings, "base_url": urls[0] if urls else None})
        jobs = plan_jobs(config, done, retry_errors=retry_errors, shard=shard)
        if settings["executor"] == "ray":
            from playbench.runner.ray_cluster import connect

            cluster = connect(settings["ray_address"])
        if store is None:
            one_url = getattr(getattr(model_obj, "provider", None), "base_url", None)
            recorded = {**settings, "base_url": strip_credentials(
                settings["base_url"] if len(base_urls(settings["base_url"])) > 1 else one_url or settings["base_url"])}
            store = RunStore.create(Path(opts.get("log_dir", "runs")), {
                "config": config, "config_hash": config.hash(), "versions": versions(), "settings": recorded})
    except BaseException:
        if store is not None:
            store.close()
        if cluster is not None:
            cluster.leave()
        raise
    tell = opts.get("notes")
    if tell is not None:
        for line in task_notes(config):
            tell(line)
    hook = _hook(opts.get("progress"))
    started = time.perf_counter()
    in_flight = settings["max_episodes"] or settings["max_connections"]
    stats = model_obj.stats if model_obj is not None else None
    try:
        if cluster is None:
            totals = _play(jobs, store, make_agent, config, in_flight, hook, model_obj, shard)
        else:
            from playbench.runner.ray_driver import RayRun

            kit = WorkerKit(config, settings, custom)
            ray_run = RayRun(kit, config.agent, config.model, workers=cluster.cpus,
                             per_worker=share(in_flight, min(cluster.cpus, max(1, len(jobs)))))
            totals = _play(jobs, store, make_agent, config, in_flight, hook, model_obj, shard, ray_run)
            stats = None
            for more in ray_run.stats:
                stats = add_stats(stats, more)
    except KeyboardInterrupt:
        raise RunInterrupted(store.path) from None
    finally:
        store.close()
        if cluster is not None:
            cluster.leave()
    return EvalResult(path=store.path, config=config, totals=totals, elapsed_s=time.perf_counter() - started,
                      model_stats=stats, shard=shard)


def _request(tasks: str | Iterable[str], opts: dict[str, Any]
             ) -> tuple[set[str], dict[str, Any], dict[str, Any]]:
    """Check the option names and sort out what is asked.

    Returns the options given (by their resume-rule names), the asked config values and every setting
    (defaults for those not given).
    """
    unknown = sorted(set(opts) - EvalOptions.__annotations__.keys())
    if unknown:
        raise PlaybenchError(f"unknown option(s) {', '.join(unknown)}; valid: "
                             + ", ".join(EvalOptions.__annotations__))
    task_ids = (tasks,) if isinstance(tasks, str) else tuple(tasks)
    check_text({"tasks": task_ids, **opts})  # undecodable bytes refused before anything is made
    # with resume, an option given is an option asked to change; what is left out keeps its recorded value
    given = {_RESUME_NAMES.get(name, name) for name in opts if name not in ("resume", "retry_errors", "progress")}
    if task_ids:
        given.add("tasks")
    agent = opts.get("agent")
    ask = {"tasks": task_ids, "agent": _custom_name(agent) if callable(agent) else agent, "model": opts.get("model"),
           "episodes": opts.get("episodes"), "seed": opts.get("seed", 0),
           "task_args": key_value_items(opts.get("task_params")),
           "agent_args": key_value_items(opts.get("agent_params")),
           "model_args": key_value_items(opts.get("model_params"))}
    settings = {name: opts.get(name, default) for name, default in SETTING_DEFAULTS.items()}
    return given, ask, settings


def _custom_name(factory: Callable[[], Agent]) -> str:
    """The name a custom agent's records carry: its ``name`` attribute, else its function or class name."""
    name = getattr(factory, "name", None) or getattr(factory, "__name__", None) or type(factory).__name__
    return str(name)


def _hook(progress: bool | ProgressHook | None) -> ProgressHook | None:
    if progress is True:
        return Bar()
    return progress or None


def _play(jobs: list, store: RunStore, make_agent: Callable[[], Agent], config: RunConfig, max_episodes: int,
          hook: ProgressHook | None, model: Any, shard: Shard | None = None, ray_run: Any = None) -> RunTotals:
    """Play the jobs on a fresh event loop (here, or on a Ray cluster), telling ``hook`` about steps and episodes."""
    settings = RunSettings(max_episodes=max_episodes)

    def play() -> RunTotals:
        if ray_run is not None:
            from playbench.runner.ray_driver import run_jobs_ray

            return run_loop(_closing(run_jobs_ray(jobs, store, ray_run, settings), model))
        return run_loop(_closing(run_jobs(jobs, store, make_agent, config.agent, config.model, settings), model))

    if hook is None:
        return play()
    left: dict[str, int] = {}
    for job in jobs:
        left[job.task.id] = left.get(job.task.id, 0) + 1
    totals = episodes_per_task(config, shard)
    hook.start({t.id: (totals[t.id], totals[t.id] - left.get(t.id, 0)) for t in config.tasks})
    settings.on_step, settings.on_episode = hook.step, hook.episode
    try:
        return play()
    finally:
        hook.stop()



async def _closing(coro: Awaitable[RunTotals], model: Any) -> RunTotals:
    """Run ``coro``, then close the model's connections inside the same event loop."""
    try:
        return await coro
    finally:
        if model is not None:
            await model.aclose()


def task_notes(config: RunConfig) -> list[str]:
    """``TASK: note`` for every task of ``config`` that has a note for its parameters."""
    lines = []
    for spec in config.tasks:
        task = get_task(spec.id)
        note = task.note(task.params(spec.params)) if task.note is not None else None
        if note:
            lines.append(f"{spec.id}: {note}")
    return lines

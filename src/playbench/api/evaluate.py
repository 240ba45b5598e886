"""``playbench.eval``: a run's whole lifecycle (plan, create or resume, play, record) as one call.

The command line (``playbench eval``) is a thin caller of this module; so are ``playbench play`` and the
benchmark scripts. Nothing here prints or exits: problems are exceptions (``PlaybenchError`` for what the
caller asked, ``RunInterrupted`` for Ctrl-C), and a run that stops early returns with ``stopped`` set.
"""

import asyncio
import os
import signal
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
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
from playbench.models.redact import mask_url
from playbench.runner import PoolSettings, plan_jobs, run_jobs
from playbench.runner.loop import run as run_loop
from playbench.runner.plan import EpisodeJob
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
    batch: bool
    batch_timeout: float | None
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
    ``max_connect_failures``, and ``cache``; ``batch=True`` sends the model's requests as provider batches
    (OpenAI, Anthropic, Gemini: half price, answers within 24 h; see docs/models.md, "Batch runs"), and
    ``batch_timeout`` (seconds) is how long a batch is waited for before its requests are sent live; ``label`` names the run in reports and plots. ``executor="ray"`` plays the episodes on the workers of a Ray
    cluster (``ray_address``, default ``$RAY_ADDRESS``, else a local cluster; see docs/scale.md) and
    ``shard="K/N"`` plays only shard K of N of the episodes (``playbench merge`` joins the shards).
    ``resume=PATH`` continues that run with its recorded
    configuration instead (``retry_errors`` also re-plays agent- and game-error episodes); options given
    with it follow the ``--resume`` rules: settings may change, options that would change results are
    refused unless equal to the recorded ones. ``progress=True`` shows a bar on stderr; any object with
    the ``ProgressHook`` methods receives the events instead; by default nothing is shown. ``notes`` is
    called, as the run starts, with one line per task that has something to say about it (e.g. which
    Messenger manual it reads), and during the run, once, when requests time out queued in the server
    (what ``max_connections`` to set; see docs/models.md).

    Before any request, ``notes`` is also told where requests (and a key) go: ``model M: requests go to URL
    with $OPENAI_API_KEY``, and the Ray cluster's address. With ``resume``, a server or Ray cluster that
    only the run's ``run.json`` names (not the provider's default, nor ``$OPENAI_BASE_URL`` and the like,
    nor ``$RAY_ADDRESS``) is refused until given again with ``base_url``/``ray_address``. ``-M`` settings
    that carry a key (``api_key``, ``token``, an ``Authorization`` header …) are refused: keys come from
    the environment.

    The episodes play on an event loop of this call's own (uvloop where installed); inside a running loop
    (Jupyter, IPython, an async application) this raises ``PlaybenchError`` at once, before anything is
    created: ``await eval_async(...)`` there.

    Returns an ``EvalResult``; a run stopped by a fault of the whole run (refused credentials, an
    unreachable server, a full disk) returns with ``stopped`` set. Raises ``PlaybenchError`` for a bad
    request (nothing is created) and ``RunInterrupted`` on Ctrl-C (finished episodes are kept); called
    from the main thread, SIGTERM and SIGHUP (a batch system's time limit, a closed terminal) stop it the
    same way while it runs (``RunInterrupted.signal`` names the signal), unless the caller set handlers
    of its own for them.
    """
    _refuse_running_loop()
    with _signals_as_ctrl_c() as caught:
        try:
            with _prepared(tasks, dict(options)) as run:
                return run.result(run_loop(run.play()))
        except RunInterrupted as stop:
            stop.signal = caught[-1] if caught else signal.SIGINT
            raise


async def evaluate_async(tasks: str | Iterable[str] = (), /, **options: Unpack[EvalOptions]) -> EvalResult:
    """``evaluate`` for callers inside a running event loop: the same options, run and result, awaited.

    The episodes play on the caller's loop, beside its other tasks. The set-up before the first ``await``
    (checking the request, creating the run directory, connecting to a Ray cluster with
    ``executor="ray"``, which may first start a local one) runs in the caller's thread and holds the loop
    meanwhile. This call leaves the loop and the process as it found them: no signal handlers (SIGTERM
    and SIGHUP are the application's), no uvloop, no collector settings. Cancelling the awaiting task
    stops the run as Ctrl-C stops ``evaluate``: the finished episodes are kept, the ``CancelledError``
    goes on (with a note naming the run directory) and ``resume`` continues the run.
    """
    with _prepared(tasks, dict(options)) as run:
        return run.result(await run.play())


def _refuse_running_loop() -> None:
    """Refuse, before anything is made, to start a loop of our own inside a running one."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    raise PlaybenchError("playbench.eval runs an event loop of its own and cannot run inside a running one "
                         "(Jupyter, IPython, an async application): there, use `await playbench.eval_async(...)` "
                         "with the same options")


@dataclass
class _Run:
    """A run ready to play: its directory open for writing, its model made, its cluster joined."""

    store: RunStore
    config: RunConfig
    jobs: list[EpisodeJob]
    make_agent: Callable[[], Agent]
    in_flight: int
    hook: ProgressHook | None
    model: Any
    shard: Shard | None
    ray_run: Any = None
    stats: Any = None
    started: float = field(default_factory=time.perf_counter)

    async def play(self) -> RunTotals:
        """Play the jobs on the running loop (here, or on a Ray cluster), telling the hook about steps and episodes."""
        settings = PoolSettings(max_episodes=self.in_flight)
        if self.hook is not None:
            left: dict[str, int] = {}
            for job in self.jobs:
                left[job.task.id] = left.get(job.task.id, 0) + 1
            totals = episodes_per_task(self.config, self.shard)
            self.hook.start({t.id: (totals[t.id], totals[t.id] - left.get(t.id, 0)) for t in self.config.tasks})
            settings.on_step, settings.on_episode = self.hook.step, self.hook.episode
        try:
            if self.ray_run is None:
                return await _closing(run_jobs(self.jobs, self.store, self.make_agent, self.config.agent,
                                               self.config.model, settings), self.model)
            from playbench.runner.ray_driver import run_jobs_ray

            played = await _closing(run_jobs_ray(self.jobs, self.store, self.ray_run, settings), self.model)
            self.stats = None
            for more in self.ray_run.stats:
                self.stats = add_stats(self.stats, more)
            return played
        finally:
            if self.hook is not None:
                self.hook.stop()

    def result(self, totals: RunTotals) -> EvalResult:
        """What this call returns once the jobs are played."""
        return EvalResult(path=self.store.path, config=self.config, totals=totals,
                          elapsed_s=time.perf_counter() - self.started, model_stats=self.stats, shard=self.shard)


@contextmanager
def _prepared(tasks: str | Iterable[str], opts: dict[str, Any]) -> Iterator[_Run]:
    """The run asked for, ready to play; on leaving, its directory is closed and its cluster left.

    A bad request raises ``PlaybenchError`` before anything is created; Ctrl-C (a ``KeyboardInterrupt``)
    while the run is held becomes ``RunInterrupted`` naming its directory.
    """
    run, cluster = _prepare(tasks, opts)
    try:
        yield run
    except KeyboardInterrupt:
        raise RunInterrupted(run.store.path) from None
    except asyncio.CancelledError as stop:  # eval_async's task cancelled: say where the finished episodes are
        stop.add_note(f"playbench: the run so far is in {run.store.path}; resume={str(run.store.path)!r} continues it")
        raise
    finally:
        run.store.close()
        if cluster is not None:
            cluster.leave()


def _prepare(tasks: str | Iterable[str], opts: dict[str, Any]) -> tuple[_Run, Any]:
    """Check the request, then open or create the run directory, make the model and join the cluster.

    Returns the run and the Ray cluster it joined (None when local). Whatever fails on the way closes what
    was made before it; a bad request fails before anything is created.
    """
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
        tell = opts.get("notes")
        urls = base_urls(settings["base_url"])
        if config.model and custom is None:  # on a cluster too: a bad model or key is refused here, at once
            model_obj = create_model(config, {**settings, "base_url": urls[0] if urls else None})
            if tell is not None:  # before any request: where they go, and with which key
                tell(_destination(model_obj, settings, urls))
        if settings["batch"]:
            _check_batch(model_obj, config, tell)
        jobs = plan_jobs(config, done, retry_errors=retry_errors, shard=shard)
        if settings["executor"] == "ray":
            from playbench.runner.ray_cluster import connect

            cluster = connect(settings["ray_address"], tell)
        if store is None:
            from playbench.models.factory import public_url

            one_url = public_url(model_obj) if model_obj is not None else None
            recorded = {**settings, "base_url": mask_url(
                settings["base_url"] if len(urls) > 1 else one_url or settings["base_url"])}
            if not recorded["batch"]:  # recorded only when on: runs without it keep their run.json as before
                del recorded["batch"]
            if recorded["batch_timeout"] is None:
                del recorded["batch_timeout"]
            store = RunStore.create(Path(opts.get("log_dir", "runs")), {
                "config": config, "config_hash": config.hash(), "versions": versions(), "settings": recorded})
        if tell is not None:
            for line in task_notes(config):
                tell(line)
        hook = _hook(opts.get("progress"))
        if model_obj is not None:  # long waits to retry (a server's Retry-After) are shown by the hook
            model_obj.on_wait = getattr(hook, "wait", None)
            model_obj.on_note = tell  # once, at the first timeout in a queue: what --max-connections to set
        in_flight = settings["max_episodes"] or settings["max_connections"]
        if settings["batch"] and model_obj is not None:
            from playbench.log.batches import BatchJournal
            from playbench.models.batch import IN_FLIGHT, BatchCollector

            model_obj.batch = BatchCollector(model_obj.provider, BatchJournal(store.root, store.path),
                                             timeout=settings["timeout"], max_retries=settings["max_retries"],
                                             backoff=model_obj.backoff, batch_timeout=settings["batch_timeout"])
            model_obj.batch.on_change = getattr(hook, "batches", None)
            waiting = model_obj.batch.counts["submitted"] - model_obj.batch.counts["done"]
            if waiting and tell is not None:
                tell(f"--batch: {waiting} batch(es) submitted before are collected from the provider, not sent again")
            # every episode waits for its batch: as many in flight as a batch holds, unless told otherwise
            in_flight = settings["max_episodes"] or max(1, min(len(jobs), IN_FLIGHT))
        run = _Run(store, config, jobs, make_agent, in_flight, hook, model_obj, shard,
                   stats=model_obj.stats if model_obj is not None else None)
        if cluster is not None:
            from playbench.runner.ray_driver import RayRun

            kit = WorkerKit(config, settings, custom)
            run.ray_run = RayRun(kit, config.agent, config.model, workers=cluster.cpus,
                                 per_worker=share(in_flight, min(cluster.cpus, max(1, len(jobs)))))
    except BaseException:
        if store is not None:
            store.close()
        if cluster is not None:
            cluster.leave()
        raise
    return run, cluster


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
    if ask["model_args"]:  # a key given as a -M setting is refused before it could be recorded, or even shown
        from playbench.models.factory import refuse_credentials

        refuse_credentials(ask["model"], dict(item.partition("=")[::2] for item in ask["model_args"]))
    settings = {name: opts.get(name, default) for name, default in SETTING_DEFAULTS.items()}
    return given, ask, settings


def _check_batch(model: Any, config: RunConfig, tell: Callable[[str], None] | None) -> None:
    """Refuse ``batch`` where no provider batch can carry the requests; warn about multi-turn tasks."""
    if model is None:
        raise PlaybenchError("--batch needs --model (a provider with a batch API)")
    from playbench.models.batch import batch_api

    batch_api(model.provider)  # PlaybenchError for a provider without one
    many = [spec.id for spec in config.tasks if not get_task(spec.id).one_step]
    if many and tell is not None:
        tell(f"--batch: {', '.join(many[:3])}{' …' if len(many) > 3 else ''} play(s) several steps per episode: "
             "each step waits for a batch round (minutes, up to 24 hours at the provider)")


def _destination(model: Any, settings: dict[str, Any], urls: list[str]) -> str:
    """The line naming where ``model``'s requests go (on a Ray cluster: from each worker, with its own key)."""
    from playbench.models.factory import destination

    line = destination(model)
    if settings["executor"] != "ray" or not model.provider.uses_http:
        return line
    servers = mask_url(",".join(urls)) if len(urls) > 1 else line.partition(" requests go to ")[2].partition(" with ")[0]
    return (f"model {model.name}: requests go from the Ray workers to {servers}, each worker with the key of "
            "its own environment")


#: signals that stop a run the way Ctrl-C does (a batch system's time limit, a closed terminal)
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


@contextmanager
def _signals_as_ctrl_c() -> Iterator[list[int]]:
    """Inside the block, SIGTERM and SIGHUP do what Ctrl-C does; yields the list of those that arrived.

    Only in the main thread (the only one Python delivers signals to), and only for signals whose
    handler is the default one (a handler of the caller's own, or SIG_IGN under ``nohup``, is kept). The
    previous handlers come back when the block ends.
    """
    caught: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield caught
        return
    pid = os.getpid()

    def stop(signum: int, frame: FrameType | None) -> None:
        if os.getpid() != pid:  # a child forked meanwhile: it dies of the signal, as it would have
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        caught.append(signum)
        ctrl_c = signal.getsignal(signal.SIGINT)  # asyncio's while the loop runs: it cancels the run cleanly
        if callable(ctrl_c):
            ctrl_c(signal.SIGINT, frame)
        else:
            raise KeyboardInterrupt

    previous = {}
    for signum in STOP_SIGNALS:
        if signal.getsignal(signum) is signal.SIG_DFL:
            previous[signum] = signal.signal(signum, stop)
    try:
        yield caught
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _custom_name(factory: Callable[[], Agent]) -> str:
    """The name a custom agent's records carry: its ``name`` attribute, else its function or class name."""
    name = getattr(factory, "name", None) or getattr(factory, "__name__", None) or type(factory).__name__
    return str(name)


def _hook(progress: bool | ProgressHook | None) -> ProgressHook | None:
    if progress is True:
        return Bar()
    return progress or None


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

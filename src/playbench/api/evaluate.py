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
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import FrameType
from typing import Any, TypedDict, Unpack

from playbench.agents.base import Agent
from playbench.api.config import Asked, KeyValues, check_text, key_value_items
from playbench.api.progress import Bar, ProgressHook
from playbench.api.result import EvalResult, RunInterrupted
from playbench.api.resume import resumed_config
from playbench.api.settings import check_settings, run_settings
from playbench.api.versions import versions
from playbench.api.workers import WorkerKit, add_stats, base_urls, create_model, registered_agent, share
from playbench.core.errors import PlaybenchError
from playbench.core.records import EpisodeRecord, RunConfig, RunSettings
from playbench.core.registry import get_task
from playbench.log.store import RunStore
from playbench.models.redact import mask_url
from playbench.runner import PoolSettings, plan_jobs, run_jobs
from playbench.runner.loop import run as run_loop
from playbench.runner.plan import EpisodeJob
from playbench.runner.runner import RunTotals
from playbench.runner.shard import Shard, episodes_per_task, parse_shard


class EvalOptions(TypedDict, total=False):
    """The keyword options of ``playbench.eval``, each a ``playbench eval`` option of the same name.

    From ``max_episodes`` to ``shard``, ``instances`` and ``label``, they are the run's settings, declared (type, default,
    flag, resume rule) by ``RunSettings`` in ``core/records.py``; they are spelled here again for type
    checkers, and ``tests/api/test_run_settings.py`` holds the two to each other.
    """

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
    cost_limit: float | None
    retry_backoff: float
    max_connect_failures: int
    executor: str
    ray_address: str | None
    shard: str | None
    instances: str | None
    resume: str | Path | None
    retry_errors: bool
    progress: bool | ProgressHook | None
    label: str | None
    notes: Callable[[str], None] | None


def evaluate(tasks: str | Iterable[str] = (), /, **options: Unpack[EvalOptions]) -> EvalResult:
    """Run ``tasks`` (ids, aliases or groups) with an agent and record every episode in a new run directory.

    Options (all keyword, all optional) are those of ``playbench eval``: ``agent`` (a registered name, or
    a zero-argument factory of your own ``Agent``), ``model`` (``provider/name``), ``episodes``, ``seed``,
    ``log_dir`` (default ``runs``), ``task_params``/``agent_params``/``model_params`` (a mapping or
    ``key=value`` strings, like ``-T``/``-A``/``-M``), the connection settings ``base_url``,
    ``max_connections``, ``max_episodes``, ``max_retries``, ``timeout``, ``retry_backoff``,
    ``max_connect_failures``, and ``cache``; ``batch=True`` sends the model's requests as provider batches
    (OpenAI, Anthropic, Gemini: half price, answers within 24 h; see docs/models.md, "Batch runs"), and
    ``batch_timeout`` (seconds) is how long a batch is waited for before its requests are sent live;
    ``cost_limit`` (USD) stops the run before it spends more (the requests in flight finish; with ``batch``, what
    the batches submitted may cost counts; a priced model only): the result's ``stopped`` says so and
    ``model_stats.cost_limit_reached`` is set, and ``resume`` with a higher ``cost_limit`` (or None) continues
    it without buying any answer twice (docs/models.md, "Cost limit"); ``label`` names the run in reports and plots. ``executor="ray"`` plays the episodes on the workers of a Ray
    cluster (``ray_address``, default ``$RAY_ADDRESS``, else a local cluster; see docs/scale.md) and
    ``shard="K/N"`` plays only shard K of N of the episodes (``playbench merge`` joins the shards).
    ``instances=SOURCE`` (a path: a BALROG leaderboard folder, a playbench run or a file of ``TASK SEED`` lines)
    plays exactly SOURCE's instances of the tasks, by their seeds, in its order (the first ``episodes`` of each
    when given; a task SOURCE lacks or an instance playbench cannot play again is refused; see docs/reproduce.md).
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
    make_agent: Callable[[], Agent]
    hook: ProgressHook | None
    model: Any
    jobs: list[EpisodeJob] = field(default_factory=list)
    in_flight: int = 1
    shard: Shard | None = None
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
    """The run asked for, ready to play, and the Ray cluster it joined (None when local).

    request (the call checked) -> store (a resumed run opened, its rules applied) -> connect (the model made,
    the cluster joined; a new run's directory created once nothing more can be refused) -> plan (the jobs
    left, how many at once). Whatever fails closes what was made before it; a bad request fails before
    anything is created.
    """
    request = check_request(tasks, opts)
    with ExitStack() as undo:
        store, config, settings, done = _record(request, undo)
        make_agent, model, cluster = _connect(request, config, settings, undo)
        if store is None:
            store = _create(request.log_dir, config, settings, model)
            undo.callback(store.close)
        run = _plan(request, _Run(store, config, make_agent, _hook(request.progress), model), done, settings, cluster)
        undo.pop_all()  # made and kept: ``_prepared`` closes them once the run is played
    return run, cluster


@dataclass(frozen=True)
class Request:
    """A call's options, checked, each by its one name (``check_request``)."""

    given: frozenset[str]  # the options the caller gave: with ``resume``, those asked to change
    asked: Asked
    settings: RunSettings  # the given settings, the defaults for the others
    custom: Callable[[], Agent] | None  # the caller's own agent factory
    resume: str | Path | None
    retry_errors: bool
    log_dir: Path
    notes: Callable[[str], None] | None
    progress: bool | ProgressHook | None


#: options that say how to call, not what to run: never asked to change on resume
_CALL_OPTIONS = frozenset({"resume", "retry_errors", "progress", "notes"})


def check_request(tasks: str | Iterable[str], opts: dict[str, Any]) -> Request:
    """The options of a call of ``playbench.eval`` (or its dry run) checked before anything is made.

    Refused (PlaybenchError): unknown names, undecodable text, a key among the ``-M`` settings, a setting
    of the wrong type or out of its bounds, ``retry_errors`` without ``resume``, a custom agent with a
    model or ``resume``. The config itself is built (and checked) later, against a resumed run's record.
    """
    unknown = sorted(set(opts) - EvalOptions.__annotations__.keys())
    if unknown:
        raise PlaybenchError(f"unknown option(s) {', '.join(unknown)}; valid: "
                             + ", ".join(EvalOptions.__annotations__))
    task_ids = (tasks,) if isinstance(tasks, str) else tuple(tasks)
    if isinstance(opts.get("instances"), os.PathLike):  # a path given as one: recorded as its text
        opts = {**opts, "instances": os.fspath(opts["instances"])}
    check_text({"tasks": task_ids, **opts})  # undecodable bytes refused before anything is made
    agent = opts.get("agent")
    custom = agent if callable(agent) else None
    asked = Asked(task_ids, _custom_name(custom) if custom is not None else agent, opts.get("model"),
                  opts.get("episodes"), opts.get("seed", 0), key_value_items(opts.get("task_params")),
                  key_value_items(opts.get("agent_params")), key_value_items(opts.get("model_params")))
    if asked.model_params:  # a key given as a -M setting is refused before it could be recorded, or even shown
        from playbench.models.factory import refuse_credentials

        refuse_credentials(asked.model, dict(item.partition("=")[::2] for item in asked.model_params))
    resume, retry_errors = opts.get("resume"), bool(opts.get("retry_errors", False))
    if opts.get("instances") is not None and "seed" in opts and not resume:
        raise PlaybenchError("--seed has no meaning with --instances: each episode is reset with its instance's seed")
    if retry_errors and not resume:
        raise PlaybenchError("--retry-errors goes with --resume RUN")
    if custom is not None and (resume or asked.model):
        raise PlaybenchError("a custom agent factory brings its own model and cannot be resumed; "
                             "give neither model nor resume with it")
    given = frozenset(opts) - _CALL_OPTIONS | ({"tasks"} if task_ids else set())
    settings = run_settings(opts)
    if not resume:  # a new run's tasks play the instances; a resumed run's config holds them already
        asked = replace(asked, instances=settings.instances)
    return Request(given, asked, settings, custom, resume, retry_errors, Path(opts.get("log_dir", "runs")),
                    opts.get("notes"), opts.get("progress"))


def _record(request: Request, undo: ExitStack
            ) -> tuple[RunStore | None, RunConfig, RunSettings, dict[tuple[str, int], EpisodeRecord]]:
    """The config and settings to run with and the episodes done: a resumed run's, from its opened store.

    A new run has no store yet (None): it is created once the model and the cluster cannot refuse it.
    """
    if not request.resume:
        check_settings(request.settings, request.given)
        return None, request.asked.config(custom_agent=request.custom is not None), request.settings, {}
    store = RunStore.open_for_writing(request.resume)
    undo.callback(store.close)
    config, settings = resumed_config(store, request.given, request.asked, request.settings)
    return store, config, settings, store.latest_episodes(repair=True)


def _connect(request: Request, config: RunConfig, settings: RunSettings, undo: ExitStack
             ) -> tuple[Callable[[], Agent], Any, Any]:
    """The agent factory, the model (None without one) and the Ray cluster joined (None when local)."""
    model = None
    make_agent = request.custom or registered_agent(config, lambda: model)
    urls = base_urls(settings.base_url)
    if config.model and request.custom is None:  # on a cluster too: a bad model or key is refused here, at once
        model = create_model(config, settings.model_copy(update={"base_url": urls[0] if urls else None}))
        if request.notes is not None:  # before any request: where they go, and with which key
            request.notes(_destination(model, settings, urls))
    if settings.batch:
        _check_batch(model, config, request.notes)
    if settings.cost_limit is not None:
        _check_cost_limit(model, settings)
    cluster = None
    if settings.executor == "ray":
        from playbench.runner.ray_cluster import connect

        cluster = connect(settings.ray_address, request.notes)
        undo.callback(cluster.leave)
    return make_agent, model, cluster


def _create(log_dir: Path, config: RunConfig, settings: RunSettings, model: Any) -> RunStore:
    """A new run directory whose ``run.json`` records the config and the settings (the server's URL masked)."""
    from playbench.models.factory import public_url

    several = len(base_urls(settings.base_url)) > 1
    url = settings.base_url if several or model is None else public_url(model) or settings.base_url
    recorded = settings.model_copy(update={"base_url": mask_url(url)})
    return RunStore.create(log_dir, {"config": config, "config_hash": config.hash(), "versions": versions(),
                                     "settings": recorded})


def _plan(request: Request, run: _Run, done: dict[tuple[str, int], EpisodeRecord], settings: RunSettings,
          cluster: Any) -> _Run:
    """``run`` with the jobs left to play and how many play at once (here, or on each worker of ``cluster``)."""
    run.shard = parse_shard(settings.shard)
    run.jobs = plan_jobs(run.config, done, retry_errors=request.retry_errors, shard=run.shard)
    if request.notes is not None:
        for line in task_notes(run.config):
            request.notes(line)
    run.in_flight = settings.max_episodes or settings.max_connections
    if run.model is not None:  # long waits to retry (a server's Retry-After) are shown by the hook
        run.model.on_wait = getattr(run.hook, "wait", None)
        run.model.on_note = request.notes  # once, at the first timeout in a queue: what --max-connections to set
        run.stats = run.model.stats
        _hold_to_budget(run, settings, done, request.notes)
        if settings.batch:
            run.in_flight = _collect_batches(run, settings, request.notes)
    if cluster is not None:
        from playbench.runner.ray_driver import RayRun

        kit = WorkerKit(run.config, settings, request.custom)
        run.ray_run = RayRun(kit, run.config.agent, run.config.model, workers=cluster.cpus,
                             per_worker=share(run.in_flight, min(cluster.cpus, max(1, len(run.jobs)))))
    return run


def _collect_batches(run: _Run, settings: RunSettings, tell: Callable[[str], None] | None) -> int:
    """Send the model's requests as provider batches, journalled in the run; the episodes to keep in flight."""
    from playbench.log.batches import BatchJournal
    from playbench.models.batch import IN_FLIGHT, BatchCollector

    model = run.model
    model.batch = BatchCollector(model.provider, BatchJournal(run.store.root, run.store.path),
                                 timeout=settings.timeout, max_retries=settings.max_retries, backoff=model.backoff,
                                 batch_timeout=settings.batch_timeout)
    model.batch.on_change = getattr(run.hook, "batches", None)
    waiting = model.batch.counts["submitted"] - model.batch.counts["done"]
    if waiting and tell is not None:
        tell(f"--batch: {waiting} batch(es) submitted before are collected from the provider, not sent again")
    # every episode waits for its batch: as many in flight as a batch holds, unless told otherwise
    return settings.max_episodes or max(1, min(len(run.jobs), IN_FLIGHT))


def _check_cost_limit(model: Any, settings: RunSettings) -> None:
    """Refuse ``cost_limit`` where the run's cost cannot be counted in this process, or not before it is paid."""
    if model is None:
        raise PlaybenchError("--cost-limit needs --model (a model whose price is known)")
    if model.prices is None:
        raise PlaybenchError(f"--cost-limit: no price is known for {model.name}; give -M price_input=USD "
                             "-M price_output=USD (per million tokens)")
    if settings.executor == "ray":
        raise PlaybenchError("--cost-limit goes with the local executor: one process counts the run's cost")
    if settings.batch and not model.config.output_budget():
        raise PlaybenchError("--cost-limit with --batch needs -M max_tokens=N: a batch is paid when it completes, so "
                             "each request counts at the most it may cost as it joins one")


def _hold_to_budget(run: _Run, settings: RunSettings, done: dict[tuple[str, int], EpisodeRecord],
                    tell: Callable[[str], None] | None) -> None:
    """Give the model the run's cost so far, its limit and the answers it kept for a resume (``models/budget.py``).

    Refused (PlaybenchError): a limit on a run whose recorded cost is not known (answers without token counts),
    or already reached.
    """
    from playbench.log.answers import AnswerJournal
    from playbench.models.budget import Budget, usd

    kept = AnswerJournal(run.store.root, run.store.path)
    if settings.cost_limit is None and not kept.entries():
        return
    spent = sum(record.usage.get("cost_micro_usd", 0) for record in done.values())
    limit = None if settings.cost_limit is None else round(settings.cost_limit * 1e6)
    if limit is not None:
        unreported = sum(record.usage.get("tokens_unreported", 0) for record in done.values())
        if unreported:
            raise PlaybenchError(f"--cost-limit: this run's cost so far is not known ({unreported} answer(s) came "
                                 "without token counts); resume it without --cost-limit")
        if spent >= limit:
            raise PlaybenchError(f"--cost-limit: this run has spent {usd(spent)}, at or above the {usd(limit)} limit; "
                                 "give a higher --cost-limit to continue it")
        if tell is not None and done:
            tell(f"--cost-limit: {usd(spent)} of {usd(limit)} spent by the episodes recorded"
                 + (f"; the answers paid for before the stop ({len(kept.entries())} kept) are used, not bought again"
                    if kept.entries() else ""))
    run.model.budget = Budget(limit, spent=spent, kept=kept)


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


def _destination(model: Any, settings: RunSettings, urls: list[str]) -> str:
    """The line naming where ``model``'s requests go (on a Ray cluster: from each worker, with its own key)."""
    from playbench.models.factory import destination

    line = destination(model)
    if settings.executor != "ray" or not model.provider.uses_http:
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

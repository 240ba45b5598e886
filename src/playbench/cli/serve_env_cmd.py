"""``playbench serve-env``: TASKS over OpenEnv's HTTP reset/step/state interface, for RL trainers (TRL...).

``--workers N`` serves from N processes on one port. Each worker listens on its own socket of the port
(Linux's ``SO_REUSEPORT``: the kernel spreads new connections over the workers' sockets), so a WebSocket
session, one connection, lives in one process from its first message to its last. Nothing else keeps state
across requests: OpenEnv's HTTP ``/reset`` and ``/step`` make an environment per call, and the app serves no
``/mcp`` sessions (``playbench.rl.openenv``). The workers are forked from the process that made the app, so
every worker plays an episode named by ``(task, index, seed)`` alike.
"""

import multiprocessing
import os
import signal
import socket
import sys
import threading
import time
from multiprocessing.connection import wait
from typing import Any

import click

from playbench.cli.common import safe_text
from playbench.core.errors import PlaybenchError

#: how often a worker checks that the process that started it is still there (it stops when not)
PARENT_CHECK_S = 1.0
#: how long stopping workers may take before they are killed
STOP_S = 30.0


@click.command("serve-env")
@click.argument("tasks", nargs=-1)
@click.option("--agent", default="naive", show_default=True, help="The model agent whose requests are served.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Base seed (a client's reset(seed=...) may name another).")
@click.option("-T", "task_params", multiple=True,
              help="Task parameter key=value (to each task named that takes it; refused when none does).")
@click.option("-A", "agent_params", multiple=True, help="Agent parameter key=value.")
@click.option("--model", default="rl/policy", show_default=True, help="The model name records carry.")
@click.option("--rewards", type=click.Choice(["score", "game"]), default="score", show_default=True,
              help="score: the suite's official score on the last step; game: the game's step rewards.")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=int, default=8000, show_default=True, help="0 picks a free port.")
@click.option("--runs", "runs", type=click.Path(file_okay=False), default=None,
              help="A folder of recorded runs that clients may branch (reset(run=NAME, task=..., index=..., step=K)); "
                   "no other folder is read.")
@click.option("--max-sessions", type=int, default=64, show_default=True, help="Concurrent client sessions (one episode each); more are refused until one ends.")
@click.option("--workers", type=int, default=1, show_default=True,
              help="Server processes on the port (Linux), one CPU core each; a session stays in the one that "
                   "accepted its connection. --max-sessions bounds each.")
def command(tasks: tuple[str, ...], agent: str, seed: int, task_params: tuple[str, ...], agent_params: tuple[str, ...],
            model: str, rewards: str, host: str, port: int, max_sessions: int, runs: str | None, workers: int) -> None:
    """Serve TASKS over OpenEnv's HTTP reset/step/state interface, for RL trainers.

    Each client session (OpenEnv's WebSocket client, e.g. ``playbench.rl.openenv.PlaybenchEnvClient`` or
    TRL's OpenEnv rollouts) plays one ChatEnv episode at a time: ``reset(task=..., index=..., seed=...)``
    starts episode INDEX of a run with base seed SEED, the one ``playbench eval --seed SEED`` plays; each
    step takes the model's raw answer and returns the next request. With ``--runs DIR``,
    ``reset(run=NAME, task=..., index=..., step=K)`` starts at step K of episode INDEX of the run DIR/NAME
    (re-played as recorded; TASKS may then be left out). ``--workers N`` serves from N processes sharing the
    port. Needs ``playbench[openenv]``.
    """
    if not tasks and runs is None:
        raise PlaybenchError("serve-env: name TASKS to serve, or --runs DIR to branch recorded runs")
    if max_sessions < 1:
        raise PlaybenchError("--max-sessions must be at least 1")
    cores = os.cpu_count() or 1
    if not 1 <= workers <= cores:
        raise PlaybenchError(f"--workers {workers}: 1 to {cores} (this machine's CPUs; a worker keeps one busy)")
    if workers > 1 and not sys.platform.startswith("linux"):
        raise PlaybenchError("--workers above 1 needs Linux (SO_REUSEPORT spreads the connections); start one "
                             "serve-env per port instead (docs/rl.md)")
    try:
        import uvicorn  # noqa: F401 (checked now: the extra's piece that serves)

        from playbench.rl.openenv import make_app
    except ImportError as missing:
        raise PlaybenchError(f"serve-env needs OpenEnv: pip install 'playbench[openenv]' ({missing})") from None
    app = make_app(list(tasks), seed=seed, agent=agent, task_params=task_params, agent_params=agent_params,
                   model=model, rewards=rewards, max_sessions=max_sessions, runs=runs)  # type: ignore[arg-type]
    sockets = _listen(host, port, workers)
    bound = sockets[0].getsockname()[1]
    where = f"on http://{safe_text(host)}:{bound}" + (f" from {workers} processes" if workers > 1 else "")
    click.echo(f"serving {len(tasks)} task argument(s) {where} (OpenEnv; Ctrl-C stops)", err=True)
    if workers == 1:
        _server(app).run(sockets=sockets)
        return
    _supervise(app, sockets)


def _server(app: Any) -> Any:
    """The uvicorn server of ``app``, its WebSocket messages uncompressed.

    permessage-deflate (uvicorn's default, and OpenEnv's client asks for it) cost the server about 0.07 ms of
    CPU a step and the client some more, to shrink a few KB of text: on a trainer's network the CPU is dearer.
    """
    import uvicorn

    return uvicorn.Server(uvicorn.Config(app, log_level="warning", ws_per_message_deflate=False))


def _listen(host: str, port: int, count: int) -> list[socket.socket]:
    """``count`` listening sockets of one port (``SO_REUSEPORT`` when more than one); one line if it is taken."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sockets: list[socket.socket] = []
    try:
        if count > 1:
            # A port where another process already listens with SO_REUSEPORT would take our sockets into its
            # group (connections shared with a stranger): a socket without the option finds such a port taken.
            with socket.socket(family) as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                probe.bind((host, port))
                port = probe.getsockname()[1]
        for _ in range(count):
            sock = socket.socket(family)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if count > 1:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            sock.bind((host, port))
            sock.listen(2048)  # clients that come before the server's loop runs wait in the backlog
            port = sock.getsockname()[1]  # port 0: the others join the one picked
    except OSError as err:
        for sock in sockets:
            sock.close()
        raise PlaybenchError(f"cannot listen on {host}:{port}: {err.strerror}") from None
    return sockets


def _supervise(app: Any, sockets: list[socket.socket]) -> None:
    """Run a worker process per socket until a signal stops them all, or one ends (then the rest are stopped).

    The workers are forked from this process, which has made the app and started no thread (a fork copies
    only the calling thread): each serves its copy of the app, ready at once.
    """
    context = multiprocessing.get_context("fork")
    procs = [context.Process(target=_worker, args=(app, sockets, n, os.getpid()), name=f"serve-env worker {n}")
             for n in range(len(sockets))]
    for proc in procs:
        proc.start()
    for sock in sockets:
        sock.close()  # each socket is its worker's alone now: a worker gone takes its share of the port with it
    signalled = threading.Event()

    def stop() -> None:
        for proc in procs:
            if proc.is_alive() and proc.pid is not None:
                os.kill(proc.pid, signal.SIGTERM)

    def on_signal(signum: int, frame: Any) -> None:
        signalled.set()
        stop()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    ready = wait([proc.sentinel for proc in procs])  # until a signal stops them or one of them ends
    stop()
    deadline = time.monotonic() + STOP_S
    for proc in procs:
        proc.join(max(0.0, deadline - time.monotonic()))
        if proc.is_alive():
            proc.kill()
            proc.join()
    if not signalled.is_set():
        ended = ", ".join(f"{proc.name}, exit code {proc.exitcode}" for proc in procs if proc.sentinel in ready)
        raise PlaybenchError(f"serve-env: a worker ended ({ended}); the others were stopped")


def _worker(app: Any, sockets: list[socket.socket], mine: int, parent: int) -> None:
    """One server process: ``app`` served on ``sockets[mine]`` until SIGTERM or until its parent goes."""
    for n, sock in enumerate(sockets):
        if n != mine:
            sock.close()  # the other workers' sockets: held here, they would outlive their worker
    threading.Thread(target=_stop_without, args=(parent,), daemon=True).start()
    _server(app).run(sockets=[sockets[mine]])


def _stop_without(parent: int) -> None:
    """SIGTERM this process once ``parent`` is gone (a supervisor killed outright leaves no worker behind)."""
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_S)
    os.kill(os.getpid(), signal.SIGTERM)

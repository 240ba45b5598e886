"""``playbench serve-env``: TASKS over OpenEnv's HTTP reset/step/state interface, for RL trainers (TRL...)."""

import socket

import click

from playbench.cli.common import safe_text
from playbench.core.errors import PlaybenchError


@click.command("serve-env")
@click.argument("tasks", nargs=-1)
@click.option("--agent", default="naive", show_default=True, help="The model agent whose requests are served.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Base seed (a client's reset(seed=...) may name another).")
@click.option("-T", "task_params", multiple=True, help="Task parameter key=value.")
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
def command(tasks: tuple[str, ...], agent: str, seed: int, task_params: tuple[str, ...], agent_params: tuple[str, ...],
            model: str, rewards: str, host: str, port: int, max_sessions: int, runs: str | None) -> None:
    """Serve TASKS over OpenEnv's HTTP reset/step/state interface, for RL trainers.

    Each client session (OpenEnv's WebSocket client, e.g. ``playbench.rl.openenv.PlaybenchEnvClient`` or
    TRL's OpenEnv rollouts) plays one ChatEnv episode at a time: ``reset(task=..., index=..., seed=...)``
    starts episode INDEX of a run with base seed SEED, the one ``playbench eval --seed SEED`` plays; each
    step takes the model's raw answer and returns the next request. With ``--runs DIR``,
    ``reset(run=NAME, task=..., index=..., step=K)`` starts at step K of episode INDEX of the run DIR/NAME
    (re-played as recorded; TASKS may then be left out). Needs ``playbench[openenv]``.
    """
    if not tasks and runs is None:
        raise PlaybenchError("serve-env: name TASKS to serve, or --runs DIR to branch recorded runs")
    if max_sessions < 1:
        raise PlaybenchError("--max-sessions must be at least 1")
    try:
        import uvicorn

        from playbench.rl.openenv import make_app
    except ImportError as missing:
        raise PlaybenchError(f"serve-env needs OpenEnv: pip install 'playbench[openenv]' ({missing})") from None
    app = make_app(list(tasks), seed=seed, agent=agent, task_params=task_params, agent_params=agent_params,
                   model=model, rewards=rewards, max_sessions=max_sessions, runs=runs)  # type: ignore[arg-type]
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(2048)  # clients that come before the server's loop runs wait in the backlog
    except OSError as err:
        raise PlaybenchError(f"cannot listen on {host}:{port}: {err.strerror}") from None
    bound = sock.getsockname()[1]
    click.echo(f"serving {len(tasks)} task argument(s) on http://{safe_text(host)}:{bound} (OpenEnv; Ctrl-C stops)",
               err=True)
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])

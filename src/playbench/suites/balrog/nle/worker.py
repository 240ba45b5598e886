"""NLE engines in worker processes whose clock is fixed (see ``clock.py``): the engines games use.

``ClockedEngine`` has ``Engine``'s interface; the NetHack process state lives in a worker with libfaketime
preloaded, and only seeds, actions and raw observations cross the pipe. Text is decoded here, from the raw
observation, with the same language wrapper calls.

A worker holds up to ``GAMES_PER_WORKER`` games: NLE loads a private copy of NetHack for each game (its own
globals and random state), so games in one process do not touch each other, and every game wants the same
fixed date, which is the whole process's. A game takes a seat in the worker with the fewest games that has
room; when none has, a new worker is forked at once from the *fork server*, a process started with the
fixed clock that imported gym, NLE and MiniHack once: a worker starts in milliseconds, and shares those
imports' memory with the others (copy-on-write). Nothing waits for a new worker but its first call.
Workers are kept after their games close. Every process here exits when its pipe from this one closes,
so a killed run leaves none behind.
"""

import atexit
import contextlib
import datetime
import gc
import itertools
import os
import pickle
import signal
import socket
import subprocess
import sys
import threading
import weakref
from multiprocessing.connection import Connection, Pipe
from typing import Any

from playbench.core.errors import PlaybenchError
from playbench.suites.balrog.nle import clock
from playbench.suites.balrog.nle.engine import language_texts, message_text, modules, unknown_action

#: Games one worker holds at most: enough that a worker's own memory is a small part of each game's,
#: few enough that many games are spread over several processes.
GAMES_PER_WORKER = 16


class EngineProcessError(RuntimeError):
    """The engine's worker process died or could not start its clock: a fault of the game, not the agent."""


class _ForkServer:
    """The process that forks workers: started with the clock at ``when``, the engine's modules imported once."""

    def __init__(self, when: datetime.datetime) -> None:
        ours, theirs = socket.socketpair()
        self.process = subprocess.Popen(
            [sys.executable, "-m", __name__, str(theirs.fileno())],
            env=clock.worker_environment(when),
            pass_fds=(theirs.fileno(),),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
        )
        theirs.close()
        self.sock = ours

    def fork(self, conn: Connection) -> None:
        """Have a worker forked that serves the other end of ``conn``'s pipe (sent along, not waited for)."""
        socket.send_fds(self.sock, [b"w"], [conn.fileno()])

    def stop(self) -> None:
        """Close the socket (the server exits on EOF; its workers stay until their own pipes close)."""
        self.sock.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class _Worker:
    """One worker process, our end of its pipe, and the games seated in it."""

    def __init__(self, conn: Connection, when: datetime.datetime) -> None:
        self.conn = conn
        self.pid: int | None = None  # the worker's, once it answered
        self.seats = 0  # games seated here (changed under the pool's lock)
        self.failure: BaseException | None = None  # why this worker cannot serve (it is then left alone)
        self.orphans: list[int] = []  # games whose engine was dropped unclosed: closed before the next call
        self._games = itertools.count(1)
        self._lock = threading.Lock()  # one call at a time on the pipe
        self.conn.send(("hello", 0, (when.timestamp(),)))  # answered once the worker runs and has checked its clock
        self._ready = False

    def new_game(self) -> int:
        """A fresh game number in this worker."""
        return next(self._games)

    def wait(self) -> None:
        """Wait until the worker serves; raise why it cannot."""
        with self._lock:
            self._wait()

    def call(self, method: str, game: int, *args: Any) -> Any:
        """Run ``method`` on the worker's game number ``game``; re-raise its exception here."""
        with self._lock:
            self._wait()
            while self.orphans:
                with contextlib.suppress(Exception):  # the game's own fault matters to nobody now
                    self._exchange("close", self.orphans.pop(), ())
            self._wait()  # the worker may have died closing them
            return self._exchange(method, game, args)

    def _wait(self) -> None:
        if self.failure is not None:
            raise self.failure
        if not self._ready:
            try:
                self.pid = self._receive()
            except BaseException as exc:
                self.failure = exc
                raise
            self._ready = True

    def _exchange(self, method: str, game: int, args: tuple[Any, ...]) -> Any:
        try:
            self.conn.send((method, game, args))
        except (OSError, ValueError) as exc:
            self.failure = EngineProcessError(f"the NetHack engine process died: {exc!r}")
            raise self.failure from None
        return self._receive()

    def _receive(self) -> Any:
        try:
            ok, value = self.conn.recv()
        except (EOFError, OSError, ValueError) as exc:
            self.failure = EngineProcessError(f"the NetHack engine process died: {exc!r}")
            raise self.failure from None
        if not ok:
            raise value
        return value

    def stop(self) -> None:
        """Close the pipe: the worker exits on EOF."""
        self.failure = self.failure or EngineProcessError("this NetHack engine process was stopped")
        self.conn.close()


class Seat:
    """A game's place in a worker: its worker and game number. Released, the place is free again.

    A seat dropped without ``release`` (an engine nobody closed) frees its place too, and its game is
    closed in the worker before the worker's next call.
    """

    def __init__(self, pool: "_Pool", worker: _Worker) -> None:
        self.worker = worker
        self.game = worker.new_game()
        self._finalizer = weakref.finalize(self, _abandon, pool, worker, self.game)
        self._finalizer.atexit = False
        self._pool = pool

    def wait(self) -> None:
        """Wait until the worker serves (a new worker's first game waits for it; the first one for the imports)."""
        self.worker.wait()

    def call(self, method: str, *args: Any) -> Any:
        """Run ``method`` on this seat's game in the worker."""
        return self.worker.call(method, self.game, *args)

    def release(self) -> None:
        """Free the place (the game is closed, or its worker died); later calls are harmless."""
        if self._finalizer.detach() is not None:
            self._pool.release(self.worker)


def _abandon(pool: "_Pool", worker: _Worker, game: int) -> None:
    worker.orphans.append(game)  # list.append: safe from any thread, even inside a call
    pool.release(worker)


class _Pool:
    """The workers of this process whose clock reads ``when``, and the fork server they come from."""

    def __init__(self, when: datetime.datetime = clock.FIXED_DATE) -> None:
        self.when = when
        self.workers: list[_Worker] = []
        self.server: _ForkServer | None = None
        self._lock = threading.RLock()  # reentrant: a seat's finalizer may run while it is held

    def seat(self) -> Seat:
        """A seat in the worker with the fewest games that has room, or in a new worker (forked, not waited)."""
        with self._lock:
            failed = [w for w in self.workers if w.failure is not None]
            self.workers = [w for w in self.workers if w.failure is None]
            with_room = [w for w in self.workers if w.seats < GAMES_PER_WORKER]
            if with_room:
                worker = min(with_room, key=lambda w: w.seats)
            else:
                worker = self._new_worker()
                self.workers.append(worker)
            worker.seats += 1
        for dead in failed:  # no call uses a failed worker any more
            dead.stop()
        return Seat(self, worker)

    def _new_worker(self) -> _Worker:
        ours, theirs = Pipe()
        try:
            try:
                self._server().fork(theirs)
            except OSError:  # the fork server died: start another
                self._stop_server()
                self._server().fork(theirs)
        finally:
            theirs.close()  # the server holds its own copy until it forks
        return _Worker(ours, self.when)

    def _server(self) -> _ForkServer:
        if self.server is None:
            self.server = _ForkServer(self.when)
        return self.server

    def _stop_server(self) -> None:
        server, self.server = self.server, None
        if server is not None:
            server.stop()

    def release(self, worker: _Worker) -> None:
        """One game fewer in ``worker``."""
        with self._lock:
            worker.seats -= 1

    def stop(self, idle_only: bool) -> None:
        """Stop the workers without games (``idle_only``), or every worker and the fork server."""
        with self._lock:
            chosen = [w for w in self.workers if not idle_only or w.seats == 0]
            self.workers = [w for w in self.workers if w not in chosen]
            if not idle_only:
                self._stop_server()
        for worker in chosen:
            worker.stop()


_POOL = _Pool()
#: the pools of other clocks: one per date an episode named (``clock.noon_of``, ``--instances``)
_DATED: dict[datetime.datetime, _Pool] = {}
_DATED_LOCK = threading.Lock()


def take_seat(when: datetime.datetime = clock.FIXED_DATE) -> Seat:
    """A seat for one game, in a worker whose clock reads ``when``.

    A new worker is forked if every worker of that clock is full (``Seat.wait`` waits for it).
    """
    modules()  # the engine must be installed here too (texts are decoded here): one clear error if not
    if when == clock.FIXED_DATE:
        return _POOL.seat()
    with _DATED_LOCK:
        pool = _DATED.setdefault(when, _Pool(when))
    return pool.seat()


def _pools() -> list[_Pool]:
    with _DATED_LOCK:
        return [_POOL, *_DATED.values()]


def stop_idle_workers() -> None:
    """Stop every worker that holds no game (tests use it to start from none)."""
    for pool in _pools():
        pool.stop(idle_only=True)


@atexit.register
def _stop_all_workers() -> None:
    """At exit, stop every worker, idle or still holding games nobody closed."""
    for pool in _pools():
        pool.stop(idle_only=False)


class ClockedEngine:
    """``Engine`` in a worker process with NetHack's clock fixed (at ``clock.FIXED_DATE`` unless its seat's differs).

    ``seat``: a place taken beforehand with ``take_seat`` (by default one is taken here, at the fixed date).
    """

    def __init__(self, env_id: str, boxoban_level: str | None = None, max_episode_steps: int | None = None,
                 seat: Seat | None = None) -> None:
        self.env_id = env_id
        self.is_nethack = env_id.startswith("NetHack")
        self._seat: Seat | None = seat or take_seat()
        try:
            facts = self._seat.call("open", env_id, boxoban_level, max_episode_steps)
        except BaseException:
            self._seat.release()
            self._seat = None
            raise
        #: the first name of each of the env's actions, in the env's order
        self.action_names: list[str] = facts["action_names"]
        self._accepted: frozenset[str] = frozenset(facts["accepted"])
        self.obs: dict[str, Any] = {}
        self.done = False
        self.info: dict[str, Any] = {}

    def _call(self, method: str, *args: Any) -> Any:
        if self._seat is None:
            raise EngineProcessError("this NetHack engine is closed")
        try:
            return self._seat.call(method, *args)
        except EngineProcessError:
            self._seat.release()  # its worker is dead: the game with it
            self._seat = None
            raise

    def seed(self, seed: int) -> None:
        """Seed NetHack's two RNGs (see ``Engine.seed``)."""
        self._call("seed", seed)

    def seed_raw(self, core: int, disp: int) -> None:
        """Seed NetHack's core and display RNGs with these exact values."""
        self._call("seed_raw", core, disp)

    def engine_steps(self) -> int:
        """Steps the NLE env has taken this episode (AutoMore's presses included)."""
        return int(self._call("engine_steps"))

    def reset(self) -> dict[str, Any]:
        """Start the game (after ``seed``) and return the raw NLE observation dict."""
        self.obs = self._call("reset")
        self.done = False
        self.info = {"end_status": 0}
        return self.obs

    def accepts(self, action: str) -> bool:
        """Whether the engine maps this string (a name or key of one of its actions)."""
        return action in self._accepted

    def step(self, action: str) -> tuple[dict[str, Any], float, bool, str]:
        """Play one text action, then AutoMore; returns (obs, summed reward, done, message text)."""
        if action not in self._accepted:
            raise unknown_action(action)
        self.obs, reward, self.done, message, self.info = self._call("step", action)
        return self.obs, reward, self.done, message

    def set_boxoban_level(self, level: str) -> None:
        """Play this Boxoban level from the next reset on."""
        self._call("set_boxoban_level", level)

    def message(self, obs: dict[str, Any]) -> str:
        """The top-line message as the language wrapper decodes it."""
        return message_text(obs)

    def language_obs(self, obs: dict[str, Any]) -> dict[str, str]:
        """The NLE language wrapper's five texts for a raw observation."""
        return language_texts(obs)

    def end_status(self) -> int:
        """NLE's end status of the last step: -1 aborted, 0 running, 1 death, 2 task successful."""
        return int(self.info.get("end_status", 0))

    def ascended(self) -> bool:
        """Whether the game ended by ascension."""
        return bool(self.info.get("is_ascended", False))

    def close(self) -> None:
        """Close the game in its worker and free its seat (the worker stays, for other games)."""
        seat, self._seat = self._seat, None
        if seat is None:
            return
        with contextlib.suppress(EngineProcessError):
            seat.call("close")
        seat.release()


# -- the worker side ---------------------------------------------------------------------------------


class _Server:
    """The worker's games, by number, and the calls it answers."""

    def __init__(self) -> None:
        self.engines: dict[int, Any] = {}

    def hello(self, game: int, timestamp: float) -> int:
        if not clock.clock_is_fixed(datetime.datetime.fromtimestamp(timestamp, datetime.UTC)):
            raise PlaybenchError(
                "could not fix NetHack's clock: libfaketime did not load in the engine process "
                f"(LD_PRELOAD={clock.preload_library()})"
            )
        return os.getpid()

    def open(self, game: int, env_id: str, boxoban_level: str | None, max_episode_steps: int | None) -> dict[str, Any]:
        from playbench.suites.balrog.nle.engine import Engine

        self.close(game)
        engine = self.engines[game] = Engine(env_id, boxoban_level=boxoban_level, max_episode_steps=max_episode_steps)
        return {"action_names": engine.action_names, "accepted": sorted(engine._index)}

    def seed(self, game: int, seed: int) -> None:
        self.engines[game].seed(seed)

    def seed_raw(self, game: int, core: int, disp: int) -> None:
        self.engines[game].seed_raw(core, disp)

    def engine_steps(self, game: int) -> int:
        return int(self.engines[game].engine_steps())

    def reset(self, game: int) -> dict[str, Any]:
        return dict(self.engines[game].reset())

    def step(self, game: int, action: str) -> tuple[dict[str, Any], float, bool, str, dict[str, Any]]:
        engine = self.engines[game]
        obs, reward, done, message = engine.step(action)
        return obs, reward, done, message, engine.info

    def set_boxoban_level(self, game: int, level: str) -> None:
        self.engines[game].set_boxoban_level(level)

    def close(self, game: int) -> None:
        engine = self.engines.pop(game, None)
        if engine is not None:
            engine.close()


def serve(conn: Connection) -> None:
    """Answer calls until the parent closes its end of the pipe."""
    server = _Server()
    names = ("hello", "open", "seed", "seed_raw", "engine_steps", "reset", "step", "set_boxoban_level", "close")
    calls = {name: getattr(server, name) for name in names}
    while True:
        try:
            method, game, args = conn.recv()
        except (EOFError, OSError):
            break
        try:
            reply: tuple[bool, Any] = (True, calls[method](game, *args))
        except Exception as exc:  # every failure goes back to the caller, who re-raises it
            reply = (False, exc)
        try:
            conn.send(reply)
        except (pickle.PicklingError, TypeError, AttributeError):
            conn.send((False, RuntimeError(f"{type(reply[1]).__name__}: {reply[1]}")))
    for game in list(server.engines):
        with contextlib.suppress(Exception):
            server.close(game)


def fork_workers(sock: socket.socket) -> None:
    """The fork server: import the engine once, then fork a worker for each pipe end received."""
    modules()
    gc.freeze()  # what the workers share stays shared: the collector does not touch it in them
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the kernel reaps the workers
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(sock, 1, 1)
        except OSError:
            break
        if not message:
            break
        if os.fork() == 0:
            sock.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # MiniHack waits for its own subprocesses
            code = 1
            try:
                serve(Connection(fds[0]))
                code = 0
            finally:
                os._exit(code)
        for fd in fds:
            os.close(fd)


if __name__ == "__main__":
    fork_workers(socket.socket(fileno=int(sys.argv[1])))

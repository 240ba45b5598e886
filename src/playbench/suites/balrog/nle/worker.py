"""NLE engines in worker processes whose clock is fixed (see ``clock.py``): the engines games use.

``ClockedEngine`` has ``Engine``'s interface; the NetHack process state lives in a worker started with
libfaketime preloaded, and only seeds, actions and raw observations cross the pipe. Text is decoded here,
from the raw observation, with the same language wrapper calls. Workers are kept and reused after an
engine closes (starting one costs the imports of gym, NLE and MiniHack); one exits when its parent's end
of the pipe closes, so a killed run leaves none behind.
"""

import atexit
import contextlib
import pickle
import subprocess
import sys
import threading
import weakref
from multiprocessing.connection import Connection, Pipe
from typing import Any

from playbench.core.errors import PlaybenchError
from playbench.suites.balrog.nle import clock
from playbench.suites.balrog.nle.engine import language_texts, message_text, modules, unknown_action


class EngineProcessError(RuntimeError):
    """The engine's worker process died or could not start its clock: a fault of the game, not the agent."""


class _Worker:
    """One worker process and our end of its pipe."""

    def __init__(self) -> None:
        ours, theirs = Pipe()
        self.process = subprocess.Popen(
            [sys.executable, "-m", __name__, str(theirs.fileno())],
            env=clock.worker_environment(),
            pass_fds=(theirs.fileno(),),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
        )
        theirs.close()
        self.conn = ours
        _LIVE.add(self)
        self.call("hello")

    def call(self, method: str, *args: Any) -> Any:
        """Run ``method`` on the worker's engine; re-raise its exception here."""
        try:
            self.conn.send((method, args))
            ok, value = self.conn.recv()
        except (EOFError, OSError) as exc:
            code = self.process.poll()
            raise EngineProcessError(f"the NetHack engine process died (exit code {code}): {exc!r}") from None
        if not ok:
            raise value
        return value

    def stop(self) -> None:
        """Close the pipe (the worker exits on EOF) and reap the process."""
        self.conn.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


_IDLE: list[_Worker] = []
_LIVE: "weakref.WeakSet[_Worker]" = weakref.WeakSet()
_LOCK = threading.Lock()


def _take() -> _Worker:
    with _LOCK:
        if _IDLE:
            return _IDLE.pop()
    return _Worker()


def _give_back(worker: _Worker) -> None:
    with _LOCK:
        _IDLE.append(worker)


def stop_idle_workers() -> None:
    """Stop every idle worker (tests use it to start from none)."""
    with _LOCK:
        workers, _IDLE[:] = list(_IDLE), []
    for worker in workers:
        worker.stop()


@atexit.register
def _stop_all_workers() -> None:
    """At exit, stop every worker, idle or still holding an engine nobody closed."""
    _IDLE.clear()
    for worker in list(_LIVE):
        worker.stop()


class ClockedEngine:
    """``Engine`` in a worker process with NetHack's clock fixed at ``clock.FIXED_DATE``."""

    def __init__(self, env_id: str, boxoban_level: str | None = None, max_episode_steps: int | None = None) -> None:
        modules()  # the engine must be installed here too (texts are decoded here): one clear error if not
        self.env_id = env_id
        self.is_nethack = env_id.startswith("NetHack")
        self._worker: _Worker | None = _take()
        try:
            facts = self._worker.call("open", env_id, boxoban_level, max_episode_steps)
        except BaseException:
            self._worker.stop()
            self._worker = None
            raise
        #: the first name of each of the env's actions, in the env's order
        self.action_names: list[str] = facts["action_names"]
        self._accepted: frozenset[str] = frozenset(facts["accepted"])
        self.obs: dict[str, Any] = {}
        self.done = False
        self.info: dict[str, Any] = {}

    def _call(self, method: str, *args: Any) -> Any:
        if self._worker is None:
            raise EngineProcessError("this NetHack engine is closed")
        try:
            return self._worker.call(method, *args)
        except EngineProcessError:
            self._worker = None  # dead: never handed back
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
        """Release the game; the worker goes back to the idle pool."""
        worker, self._worker = self._worker, None
        if worker is None:
            return
        try:
            worker.call("close")
        except EngineProcessError:
            return
        _give_back(worker)


# -- the worker side ---------------------------------------------------------------------------------


class _Server:
    """The worker's one engine and the calls it answers."""

    def __init__(self) -> None:
        self.engine: Any = None

    def hello(self) -> None:
        if not clock.clock_is_fixed():
            raise PlaybenchError(
                "could not fix NetHack's clock: libfaketime did not load in the engine process "
                f"(LD_PRELOAD={clock.preload_library()})"
            )

    def open(self, env_id: str, boxoban_level: str | None, max_episode_steps: int | None) -> dict[str, Any]:
        from playbench.suites.balrog.nle.engine import Engine

        self.close()
        self.engine = Engine(env_id, boxoban_level=boxoban_level, max_episode_steps=max_episode_steps)
        return {"action_names": self.engine.action_names, "accepted": sorted(self.engine._index)}

    def seed(self, seed: int) -> None:
        self.engine.seed(seed)

    def seed_raw(self, core: int, disp: int) -> None:
        self.engine.seed_raw(core, disp)

    def engine_steps(self) -> int:
        return int(self.engine.engine_steps())

    def reset(self) -> dict[str, Any]:
        return dict(self.engine.reset())

    def step(self, action: str) -> tuple[dict[str, Any], float, bool, str, dict[str, Any]]:
        obs, reward, done, message = self.engine.step(action)
        return obs, reward, done, message, self.engine.info

    def set_boxoban_level(self, level: str) -> None:
        self.engine.set_boxoban_level(level)

    def close(self) -> None:
        if self.engine is not None:
            self.engine.close()
            self.engine = None


def serve(conn: Connection) -> None:
    """Answer calls until the parent closes its end of the pipe."""
    server = _Server()
    names = ("hello", "open", "seed", "seed_raw", "engine_steps", "reset", "step", "set_boxoban_level", "close")
    calls = {name: getattr(server, name) for name in names}
    while True:
        try:
            method, args = conn.recv()
        except (EOFError, OSError):
            break
        try:
            reply: tuple[bool, Any] = (True, calls[method](*args))
        except Exception as exc:  # every failure goes back to the caller, who re-raises it
            reply = (False, exc)
        try:
            conn.send(reply)
        except (pickle.PicklingError, TypeError, AttributeError):
            conn.send((False, RuntimeError(f"{type(reply[1]).__name__}: {reply[1]}")))
    with contextlib.suppress(Exception):
        server.close()


if __name__ == "__main__":
    serve(Connection(int(sys.argv[1])))

"""MiniHack and NetHack episodes of a leaderboard row, re-played at the row's date in a child process.

What decided such an episode in BALROG: ``env.reset(seed=seed)`` seeds NetHack's core RNG with the episode
seed itself (the character, drawn from ``"@"``, and the levels follow from it); the display RNG comes from
NLE's ``SystemRandom`` (recorded nowhere: it changes only what a hallucinating hero sees); NetHack reads the
calendar (a full or new moon, Friday the 13th, the night change the game). The child process runs the
engines with its clock at noon UTC of the row's date (libfaketime, as playbench's NetHack workers); the hour
of the run is not recorded, nor its day: the row's date is when it was submitted, and a run can span
midnight. Where the episode parts on the row's date, the nearest days within ``CLOCK_DAYS`` of it whose
calendar differs for NetHack (full moon, new moon, Friday 13th) are tried, then the date the folder's name
starts with and its neighbours likewise, where it differs (the run's date: Qwen2.5-7B's row, ``20241115_…``, was
submitted on 2024-11-25 and shows the full moon of the 15th), and the first whose clock gives all its steps is
taken (Microsoft phi-4's row of 2025-01-13 shows the full moon of the 14th). MiniHack's Boxoban tasks draw their level with ``random.choice`` over the
level files of a downloaded folder read in ``os.listdir`` order (machine-dependent), so which level an
episode played is not determined by its seed: given the official levels (``verify -T levels=PATH``), it is
the one level there whose walls, goals and start its first recorded map shows
(``leaderboard_instances.identify_levels``), re-played on it; without them, a map or a single such level:
not verifiable.

Which build of NetHack: balrog-nle 0.9.0's Linux wheel is compiled with gcc, its macOS wheels with clang. C leaves
the order in which a call's arguments are evaluated open: gcc draws ``somey`` before ``somex`` in
``mkgold(0L, somex(croom), somey(croom))`` (and in ``mkobj_at``, ``mkstairs``), clang ``somex`` first, so the same
seed makes the same rooms but puts gold, objects and down stairs elsewhere, and the game parts from there (the
pet follows them). The rows of DeepSeek-R1-distill, Grok-4 and Gemini-2.5-flash were played on a clang build:
BALROG's own code of their dates with the Linux wheel parts from their records at the steps playbench's re-play
does, and with balrog-nle 0.9.0's source built by clang both give their records (docs/reproduce.md). Given such a
build (``verify -T nethack=PATH``, its ``libnethack.so``), an episode that parts on the installed build is tried
on it too (on each clock day above), and taken on the first that gives all its steps.

While the hero hallucinates, the monsters and objects the screen shows are drawn from NetHack's display RNG,
which NLE seeds from ``SystemRandom`` (recorded nowhere): a step that differs where both the record and the
re-play show ``Hallu`` is not verifiable from there (the steps before agree).

Two texts of the step: BALROG before 2025-03-06 (``980e1e5``) answered a ``--More--`` by pressing it from
inside its wrapper, keeping the first message (its ``--More--`` and newlines made spaces) and the message
after the last press, the reward of the first step only; from then on its AutoMore wrapper (``skip_more``
true in its config) presses it, joins every message and sums the rewards, as playbench's engine does.
"""

import datetime
import os
import pickle
import re
import subprocess
import sys
import threading
from collections.abc import Mapping
from typing import IO, Any

from playbench.core.verdict import NotVerifiable, same
from playbench.suites.balrog.leaderboard import Played, Player, Row, recorded_number, valid, with_note

#: BALROG's AutoMore wrapper replaced the in-wrapper ``--More--`` handling on this date.
AUTO_MORE_SINCE = "2025-03-06"
#: What ``verify`` says of the clock beside its counts.
CLOCK_NOTE = ("MiniHack and NetHack episodes were re-played with the clock at {date} 12:00 UTC (the row's date), "
              "or where they part there, at noon of the nearest day within 3 of it (then of the folder name's date) "
              "with another moon phase or Friday 13th that gives all their steps; the hour of the run itself is not recorded: a night that "
              "differed then could part a re-play; the display RNG (hallucination only) is not recorded either")
#: What verify says where NetHack episodes differ on the installed build and no other build was given.
BUILD_NOTE = ("{count} NetHack/MiniHack episodes differ on the installed NetHack (balrog-nle's Linux wheel, built "
              "with gcc): a build by clang (balrog-nle's macOS wheels) places gold, objects and stairs elsewhere from "
              "the same seed; give one with -T nethack=PATH (its libnethack.so) to try them on it (docs/reproduce.md)")
#: What verify says of the episodes taken on the build ``-T nethack`` gave.
GIVEN_BUILD_NOTE = "{count} NetHack/MiniHack episodes were re-played on the given NetHack build ({path}): {names}"
#: Why a hallucinating step that differs is not verifiable.
HALLUCINATING = ("from step {step} the hero hallucinates: the monsters and objects shown are drawn from NetHack's "
                 "display RNG, which NLE seeds from SystemRandom, recorded nowhere (the steps before agree)")
#: How far from the row's date (days, either side) a clock is tried.
CLOCK_DAYS = 3
_BOXOBAN = ("the level was drawn with random.choice over MiniHack's Boxoban level files in os.listdir order "
            "(machine-dependent): which level it played is not determined by its seed; give the official levels "
            "(verify -T levels=PATH) to find it by the map its first step shows")
#: A Boxoban episode's (task id, index) -> (its level's text, None) or (None, why it has none)
BoxobanLevels = Mapping[tuple[str, int], tuple[str | None, str | None]]


def boxoban_levels(episodes: list[Played], path: str | None) -> dict[tuple[str, int], tuple[str | None, str | None]]:
    """The level each Boxoban episode played: the one official level under ``path`` its first recorded map shows.

    Each level file is read once for all the episodes; without ``path`` none is given (``open_nethack`` then
    says why). A ``path`` that holds no official levels is a PlaybenchError.
    """
    from playbench.core.registry import find_task
    from playbench.suites.balrog.leaderboard_instances import NO_MAP, identify_levels, map_grid
    from playbench.suites.balrog.nle.boxoban.source import official_level

    out: dict[tuple[str, int], tuple[str | None, str | None]] = {}
    wanted: dict[str, dict[str, list[str]]] = {}  # preset -> {episode key: its map}
    keys: dict[str, tuple[str, int]] = {}
    for episode in episodes:
        task = find_task(episode.task_id)
        if path is None or task is None or task.facts is None or task.facts.kind != "boxoban" or not episode.steps:
            continue
        grid = map_grid(episode.steps[0].observation)
        if grid is None:
            out[episode.task_id, episode.index] = None, NO_MAP
            continue
        key = f"{episode.task_id}#{episode.index}"
        keys[key] = episode.task_id, episode.index
        wanted.setdefault(task.facts.name.removeprefix("boxoban-"), {})[key] = grid
    for preset, grids in wanted.items():
        for key, (level_id, why) in identify_levels(path or "", preset, grids).items():
            text = official_level(path or "", preset, level_id).text() if level_id is not None else None
            out[keys[key]] = text, why
    return out


class _Child:
    """One child process whose clock reads the row's date, serving episodes one at a time."""

    def __init__(self, date: str, library: str | None = None) -> None:
        from playbench.suites.balrog.nle import clock

        env = clock.worker_environment()
        env["FAKETIME"] = f"{date} 12:00:00"
        command = [sys.executable, "-m", __name__, *([library] if library else [])]
        self.process = subprocess.Popen(command, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL)
        self.lock = threading.Lock()

    def call(self, *message: Any) -> Any:
        """Send one request, return its answer (re-raising the child's exception here)."""
        assert self.process.stdin is not None and self.process.stdout is not None
        with self.lock:
            pickle.dump(message, self.process.stdin)
            self.process.stdin.flush()
            try:
                ok, value = pickle.load(self.process.stdout)  # our own child's answer, not a record's text
            except EOFError:
                raise RuntimeError("the NetHack re-play process died") from None
        if not ok:
            raise value
        return value

    def stop(self) -> None:
        """Close its input (it exits) and wait."""
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


_CHILDREN: dict[tuple[str, str | None], _Child] = {}
_CHILDREN_LOCK = threading.Lock()


def _child(date: str, library: str | None = None) -> _Child:
    with _CHILDREN_LOCK:
        if (date, library) not in _CHILDREN:
            _CHILDREN[date, library] = _Child(date, library)
        return _CHILDREN[date, library]


def stop_children() -> None:
    """End every child process (verify calls it when the folder is done)."""
    with _CHILDREN_LOCK:
        for child in _CHILDREN.values():
            child.stop()
        _CHILDREN.clear()


class NetHackPlayer:
    """The parent's side of one episode played in the row's child."""

    def __init__(self, child: _Child, env_id: str, seed: int, vlm: bool, auto_more: bool, limit: int,
                 level: str | None = None) -> None:
        self.child = child
        self.legal, self.default = child.call("open", env_id, seed, vlm, auto_more, level)
        self.limit = limit
        self._last, self._done, self._steps = "", False, 0

    def step(self, action: str) -> tuple[str, float, bool]:
        """One action in the child (an end screen's top-ten list left out: ``recorded`` leaves it out too)."""
        text, reward, done = self.child.call("step", action)
        self._last, self._done = without_top_ten(str(text)), bool(done)
        self._steps += 1
        return self._last, float(reward), self._done

    def recorded(self, text: str) -> str | None:
        """The recorded text before any top-ten list; a last step's end screen is not compared.

        After the game ends NetHack shows screens that depend on the record file of the machine that ran it
        (``You made the top ten list!``, the list): where the re-play ends at the same step, its own end
        screen is not compared (reward and done still are). A step that differs while both hallucinate is
        NotVerifiable (``HALLUCINATING``).
        """
        if self._done and (TOP_TEN in text or "You made the top ten list!" in text):
            return None
        shown = without_top_ten(text)
        if shown != self._last and hallucinating(shown) and hallucinating(self._last):
            raise NotVerifiable(HALLUCINATING.format(step=self._steps - 1))
        return shown

    def progression(self) -> float:
        """BALROG's progress tracker's progression (compat)."""
        return float(self.child.call("progression"))

    def close(self) -> None:
        """Nothing to release: the child keeps its engines for the next episode."""


def open_nethack(episode: Played, row: Row, boxoban: BoxobanLevels | None = None, library: str | None = None,
                 taken: list[str] | None = None) -> Player:
    """The episode's engine, seeded with its recorded seed, in the child of the row's date.

    ``boxoban``: the Boxoban episodes' levels (``boxoban_levels``); one it does not give is not verifiable.
    ``library``: another build's ``libnethack.so`` (``-T nethack``), tried where the installed build parts on
    every clock day; an episode taken on it is named in ``taken``.
    """
    from playbench.core.registry import find_task

    task = find_task(episode.task_id)
    if task is None or task.facts is None:
        raise NotVerifiable(f"this playbench has no task {episode.task_id}")
    level = None
    if task.facts.kind == "boxoban":
        level, why = (boxoban or {}).get((episode.task_id, episode.index), (None, _BOXOBAN))
        if level is None:
            raise NotVerifiable(why or _BOXOBAN)
    if episode.early:
        raise NotVerifiable("played by BALROG's evaluator before its public code (steps table Step, Observation, "
                            "...): its MiniHack/NetHack settings are published nowhere (its rewards, e.g. 0.001 "
                            "a step, are not those of any public config)")
    if row.date is None:
        raise NotVerifiable("the row names no date (metadata.yaml, folder name): NetHack's game depends on it")
    agent = episode.data.get("agent")
    images = agent.get("max_image_history", 0) if isinstance(agent, dict) else 0
    vlm = isinstance(images, int) and images > 0

    def player(day: str, build: str | None) -> NetHackPlayer:
        assert row.date is not None
        return NetHackPlayer(_child(day, build), task.facts.original, episode.seed, vlm, row.date >= AUTO_MORE_SINCE,
                             task.facts.max_steps, level)

    days = row_days(row)
    tries = [(day, build) for build in [None, *([library] if library else [])] for day in days]
    day, build = next((t for t in tries if _agrees(player(*t), episode, row)), tries[0])
    if build is not None and taken is not None:
        taken.append(f"{episode.label} #{episode.index}")
    return player(day, build)


def row_days(row: Row) -> list[str]:
    """The clock days a row's episode is tried on: ``clock_days`` of its date, then of its folder name's."""
    days = clock_days(row.date)
    return days + [day for day in clock_days(row.named_date()) if day not in days]


def clock_days(date: str | None) -> list[str]:
    """The row's date, then each nearest day within ``CLOCK_DAYS`` whose NetHack calendar is another one."""
    if date is None:
        return []
    from playbench.suites.balrog.nle import clock

    noon, seen, days = clock.noon_of(date), set(), []
    for offset in sorted(range(-CLOCK_DAYS, CLOCK_DAYS + 1), key=lambda d: (abs(d), -d)):
        when = noon + datetime.timedelta(days=offset)
        phase = clock.moon_phase(when)
        calendar = (phase == 4, phase == 0, when.day == 13 and when.weekday() == 4)  # full, new, Friday 13th
        if calendar not in seen:
            seen.add(calendar)
            days.append(when.date().isoformat())
    return days


def _agrees(player: NetHackPlayer, episode: Played, row: Row) -> bool:
    """Whether the player gives the episode's steps as recorded (it is stepped; a full moon can part late).

    Where it parts only while hallucinating, the steps before agree: as far as a re-play can tell, it agrees.
    """
    for step in episode.steps:
        action = step.answer if valid(step.answer, player.legal) else player.default
        text, reward, done = player.step(action)
        if action != step.answer:
            text = with_note(row.style, episode.early, step.answer, action, text)
        try:
            shown = player.recorded(step.observation)
        except NotVerifiable:
            return True
        if (shown is not None and shown != text) or not same(recorded_number(step.reward), reward) or step.done != str(done):
            return False
        if done:
            break
    return True




# -- the child ------------------------------------------------------------------------------------------


class _Episode:
    """BALROG's NLE language wrapper over one engine, with the ``--More--`` handling of its version."""

    def __init__(self, engines: dict[str, Any], env_id: str, seed: int, vlm: bool, auto_more: bool,
                 level: str | None = None) -> None:
        from playbench.suites.balrog.nle import actions as A
        from playbench.suites.balrog.nle.engine import Engine, useful_action_names
        from playbench.suites.balrog.nle.progression import MiniHackProgress, NetHackProgress

        if env_id not in engines:
            engines[env_id] = Engine(env_id, boxoban_level=level)
        elif level is not None:
            engines[env_id].set_boxoban_level(level)  # a Boxoban engine plays the level it is given from reset on
        self.engine = engines[env_id]
        self.nethack = env_id.startswith("NetHack")
        self.mode = "vlm" if vlm else "text"
        self.auto_more = auto_more
        self.tracker: Any = NetHackProgress(compat=True) if self.nethack else MiniHackProgress(compat=True)
        self.legal = (A.nethack_action_names(useful_action_names(), True) if self.nethack
                      else A.minihack_action_names(self.engine.action_names))
        self.default = "esc" if self.nethack else "north"
        self.engine.seed_raw(seed, seed ^ 0x5EED)  # BALROG's display seed is SystemRandom's: any will do
        self.engine.reset()
        self.done = False

    def _raw(self, action: str) -> tuple[dict[str, Any], float, bool, dict[str, Any]]:
        if action not in self.engine._index:
            raise ValueError(f"Action {action!r} is not recognized or not supported for this environment")
        obs, reward, done, info = self.engine.env.step(self.engine._index[action])
        return dict(obs), float(reward), bool(done), dict(info)

    def _track(self, obs: dict[str, Any], reward: float, info: dict[str, Any]) -> None:
        status = int(info.get("end_status", 0))
        if self.nethack:
            from playbench.suites.balrog.nle.game import tombstone_reason

            reason = tombstone_reason(status, obs["tty_chars"]) if self.done else None
            self.tracker.update(obs["blstats"], reward, self.done, reason, bool(info.get("is_ascended", False)))
        else:
            self.tracker.update(reward, status)

    def _wrapper_step(self, action: str) -> tuple[str, dict[str, Any], float]:
        """BALROG's wrapper step before 2025-03-06: (message, final raw observation, reward of this step)."""
        from playbench.suites.balrog.nle.engine import MORE, message_text

        obs, reward, done, info = self._raw(action)
        message = message_text(obs)
        if MORE in message and not self.done:  # pressed from inside the wrapper, recursively
            message = message.replace(MORE, " ").replace("\n", " ")
            _, obs, _ = self._wrapper_step("more")
            message += message_text(obs)
        self.done = self.done or done
        self._track(obs, reward, info)
        return message, obs, reward

    def step(self, action: str) -> tuple[str, float, bool]:
        """One evaluator step: the long-term text, the reward and done BALROG recorded."""
        from playbench.suites.balrog.nle import render

        if self.auto_more:
            obs, reward, done, message = self.engine.step(action)
            self.done = self.done or done
            self._track(obs, reward, self.engine.info)
        else:
            message, obs, reward = self._wrapper_step(action)
        long_term, _ = render.contexts(self.engine.language_obs(obs), message, obs, self.mode)
        return long_term, reward, self.done


_HALLU = re.compile(r"^Dlvl:.*\bHallu\b", re.M)


def hallucinating(text: str) -> bool:
    """Whether the status line of a step's text says the hero hallucinates."""
    return _HALLU.search(text) is not None


#: The head of NetHack's top-ten list on its end screen.
TOP_TEN = "No  Points     Name"


def without_top_ten(text: str) -> str:
    """The text before NetHack's top-ten list.

    The list holds the earlier games of the machine that ran it (NetHack's record file), in the original and
    in a re-play alike.
    """
    return text.split(TOP_TEN, 1)[0]


def _serve(source: IO[bytes], sink: IO[bytes]) -> None:
    engines: dict[str, Any] = {}
    episode: _Episode | None = None
    while True:
        try:
            message = pickle.load(source)  # from the parent process that started us
        except EOFError:
            return
        try:
            if message[0] == "open":
                episode = _Episode(engines, *message[1:])
                answer: Any = (episode.legal, episode.default)
            elif message[0] == "library":
                import nle.nethack.nethack as nethack_module

                answer = nethack_module.DLPATH
            elif message[0] == "step":
                assert episode is not None
                answer = episode.step(message[1])
            else:
                assert episode is not None
                answer = episode.tracker.progression
            reply: tuple[bool, Any] = (True, answer)
        except Exception as exc:  # noqa: BLE001  (handed to the parent, which blames the game)
            reply = (False, RuntimeError(f"{type(exc).__name__}: {exc}"))
        pickle.dump(reply, sink)
        sink.flush()


def _use_library(path: str) -> None:
    """Make every NLE engine of this process load NetHack from ``path`` (NLE copies it per engine)."""
    import nle.nethack.nethack as nethack_module

    nethack_module.DLPATH = path


if __name__ == "__main__":
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # whatever the engines print goes to stderr, never into the answers' pipe
    if len(sys.argv) > 1:
        _use_library(sys.argv[1])
    _serve(sys.stdin.buffer, out)

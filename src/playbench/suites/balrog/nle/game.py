"""BALROG's MiniHack and NetHack games as playbench Games (text in, text out; tile image in VLM mode).

They follow BALROG's episode protocol through ``BalrogGame`` (invalid output -> default action with
feedback, step limit, counters); this module adds the engine, the action sets, progression and oracles.
"""

import asyncio
from typing import Any, ClassVar

import numpy as np

from playbench.core.seeding import derive_seed
from playbench.suites.balrog import facts
from playbench.suites.balrog.facts import BalrogTask
from playbench.suites.balrog.game import BalrogGame, Frame
from playbench.suites.balrog.nle import actions as A
from playbench.suites.balrog.nle import clock, prompts
from playbench.suites.balrog.nle.params import BoxobanParams, NLEParams
from playbench.suites.balrog.nle.progression import ABORTED, TASK_SUCCESSFUL, MiniHackProgress, NetHackProgress

_STATUS_NAMES = {-1: "ABORTED", 0: "RUNNING", 1: "DEATH", 2: "TASK_SUCCESSFUL"}


def tombstone_reason(status: int, tty_chars: np.ndarray) -> str:
    """The end reason as BALROG's progress tracker writes it, from the final screen.

    The screen is read as one string (rows not separated, undecodable bytes dropped), the top-ten line
    removed; words 7..-2 are the tombstone's cause (word 7 skipped when it is the player's name "Agent…").
    Only the first sentence's words before "in" are kept ("quit in The Dungeons of Doom on level 1." ->
    "quit."), then any further sentences.
    """
    text = bytes(np.asarray(tty_chars, dtype=np.uint8).reshape(-1)).decode("utf-8", errors="ignore")
    words = text.replace("You made the top ten list!", "").split()
    start = 8 if len(words) > 7 and words[7].startswith("Agent") else 7
    first, *rest = " ".join(words[start:-2]).split(".")
    cause = first.split()
    if "in" in cause:
        cause = cause[: cause.index("in")]
    return f"{_STATUS_NAMES.get(status, status)}: {' '.join(cause)}. {'.'.join(rest).strip()}".strip()


class NLEGame(BalrogGame):
    """One BALROG NLE-based task: ``env_id`` is the original id (``MiniHack-Corridor-R3-v0`` ...).

    Reset options (``--instances``, an episode of a BALROG leaderboard row): ``balrog_seeding`` true seeds
    NetHack with the episode's seed itself, as BALROG's evaluator does (playbench's own: a seed derived from it);
    ``clock`` (``YYYY-MM-DD``) runs the engine with NetHack's clock at noon UTC of that date, the row's, instead
    of ``clock.FIXED_DATE``.
    """

    reference_policies: ClassVar[tuple[str, ...]] = ("random",)
    option_names: ClassVar[frozenset[str]] = frozenset({"balrog_seeding", "clock"})

    def __init__(self, row: BalrogTask, params: NLEParams) -> None:
        """``row``: the task's facts row (its original env id and step limit)."""
        super().__init__(row, images=params.images, feedback=params.feedback, max_steps=params.max_steps)
        env_id = row.original
        self.env_id = env_id
        self.params = params
        self.compat = params.compat
        self.is_nethack = env_id.startswith("NetHack")
        self.env_name = "nle" if self.is_nethack else "minihack"
        self.engine: Any = None
        self.seed_value: int | None = None
        self._actions: list[str] = []
        self.tracker: MiniHackProgress | NetHackProgress = self._new_tracker()
        self._oracle: Any = None
        self._raw: dict[str, Any] = {}
        self._seat: Any = None  # a worker seat ``prepare`` took for an engine made at reset (Boxoban)
        self.when = clock.FIXED_DATE  # NetHack's clock in the engine's worker (option ``clock``)
        self._engine_when = clock.FIXED_DATE  # the clock of the worker the engine is open in

    # -- construction ------------------------------------------------------------------------

    def _new_tracker(self) -> MiniHackProgress | NetHackProgress:
        return NetHackProgress(compat=self.compat) if self.is_nethack else MiniHackProgress(compat=self.compat)

    def _make_engine(self, seat: Any) -> Any:
        from playbench.suites.balrog.nle.worker import ClockedEngine

        return ClockedEngine(self.env_id, seat=seat)

    async def prepare(self, options: dict[str, Any] | None = None) -> None:
        """Open the engine off the event loop, so that many episodes start at once (at ``options``' clock).

        The seat is taken on the loop (a new worker is forked, not waited for), so games starting together
        fill a worker and start the next ones at once; only the waiting and the opening run in a thread.
        """
        self._use_options(options)
        if self.engine is None:
            self.engine = await asyncio.to_thread(self._make_engine, self._take_seat())
            self._build_actions()

    def _take_seat(self) -> Any:
        """A worker seat at this episode's clock (the engine opened on it will be of that clock)."""
        from playbench.suites.balrog.nle.worker import take_seat

        self._engine_when = self.when
        return take_seat(self.when)

    def _use_options(self, options: dict[str, Any] | None) -> None:
        """Check ``balrog_seeding`` and ``clock``; an engine open at another clock is closed (reopened at reset)."""
        super()._use_options(options)
        if not isinstance(self.options.get("balrog_seeding", False), bool):
            raise ValueError(f"{self.row.id}: the reset option balrog_seeding is true or false")
        day = self.options.get("clock")
        self.when = clock.FIXED_DATE if day is None else clock.noon_of(day)
        if self._engine_when != self.when:  # the engine (or seat) is of another clock: given up
            self.close()

    def _prepare(self, seed: int) -> None:
        """Hook: per-episode set-up before the engine reset (Boxoban picks its level here)."""

    def _build_actions(self) -> None:
        from playbench.suites.balrog.nle.engine import useful_action_names

        if self.is_nethack:
            self._actions = A.nethack_action_names(useful_action_names(), self.compat)
            self._manual = prompts.nethack_prompt(A.nethack_prompt_actions(set(self._actions), self.compat))
        else:
            self._actions = A.minihack_action_names(self.engine.action_names)
            self._manual = prompts.minihack_prompt(self.env_id, self._actions)

    # -- the Game interface ------------------------------------------------------------------

    def legal_actions(self) -> list[str]:
        """BALROG's text action set for this task (fixed: NetHack without ``00``-``99``, B4)."""
        return list(self._actions)

    @property
    def default_action(self) -> str:
        """``esc`` for NetHack, ``north`` for MiniHack."""
        return str(facts.env(self.env_name).default_action)

    def progression(self) -> float:
        """NetHack: max Dlvl/Xp table value so far (1.0 on ascension, fixed); MiniHack: 1 on success."""
        return float(self.tracker.progression)

    def won(self) -> bool:
        """MiniHack: the end status is TASK_SUCCESSFUL; NetHack: the game was ascended."""
        if self.is_nethack:
            return bool(getattr(self.tracker, "ascended", False))
        return self.tracker.end_reason == TASK_SUCCESSFUL

    def stats(self) -> dict[str, Any]:
        """BALROG's ``get_stats()`` keys of the progress tracker."""
        return self.tracker.stats()

    def instance(self) -> dict[str, Any]:
        """The env id and the NetHack seed (NetHack's levels are a function of it), and the clock's date if given."""
        found: dict[str, Any] = {"env_id": self.env_id, "nethack_seed": self.seed_value}
        if "clock" in self.options:
            found["clock"] = self.options["clock"]
        return found

    def _engine_reset(self, seed: int) -> tuple[Frame, str]:
        """Seed NetHack's RNGs from ``seed`` (the engine's own call), reset, and build the first frame."""
        self.seed_value = seed if self.options.get("balrog_seeding") else derive_seed("nle", seed)
        self._prepare(seed)
        if self.engine is None:
            seat, self._seat = self._seat, None
            self.engine = self._make_engine(seat or self._take_seat())
            self._build_actions()
        self.engine.seed(self.seed_value)
        obs = self.engine.reset()
        self.tracker = self._new_tracker()
        self._oracle = None
        return self._frame_of(obs, self.engine.message(obs)), self._manual

    def _engine_step(self, action: str) -> tuple[Frame, float, bool, bool]:
        """Play one text action (plus AutoMore); unmapped strings raise ValueError as in BALROG."""
        obs, reward, done, message = self.engine.step(action)
        status = self.engine.end_status()
        if self.is_nethack:
            end_reason = tombstone_reason(status, obs["tty_chars"]) if done else None
            assert isinstance(self.tracker, NetHackProgress)  # _new_tracker() picks it by is_nethack
            self.tracker.update(obs["blstats"], reward, done, end_reason, self.engine.ascended())
        else:
            assert isinstance(self.tracker, MiniHackProgress)
            self.tracker.update(reward, status)
        return self._frame_of(obs, message), reward, done and status != ABORTED, done and status == ABORTED

    def close(self) -> None:
        """Release the engine."""
        if self.engine is not None:
            self.engine.close()
            self.engine = None
        if self._seat is not None:
            self._seat.release()
            self._seat = None

    def _frame_of(self, obs: dict[str, Any], message: str) -> Frame:
        from playbench.suites.balrog.nle import render

        self._raw = obs
        lang = self.engine.language_obs(obs)
        long_term, short_term = render.contexts(lang, message, obs, "vlm" if self.images else "text")
        image = render.tile_image(obs["glyphs"]) if self.images else None
        return Frame(long_term, short_term, image)

    # -- reference policies ------------------------------------------------------------------

    def reference_action(self, policy: str, rng: np.random.Generator) -> str:
        """``random`` for every task; ``oracle`` where the subclass provides one."""
        if policy == "oracle" and "oracle" in self.reference_policies:
            return self._oracle_action()
        if policy != "random":
            raise NotImplementedError(f"{self.env_id} has no {policy!r} policy")
        return self._actions[int(rng.integers(len(self._actions)))]

    def _oracle_action(self) -> str:
        raise NotImplementedError


class NavigationGame(NLEGame):
    """Corridor and MazeWalk: the oracle walks shortest paths on the surveyed map to the down staircase."""

    reference_policies: ClassVar[tuple[str, ...]] = ("random", "oracle")

    def _oracle_action(self) -> str:
        from playbench.suites.balrog.nle.oracle import Navigator, survey

        if self._oracle is None:
            actions = set(self._actions)
            assert self.seed_value is not None  # set by reset()
            self._oracle = Navigator(actions, survey(self.env_id, self.seed_value, actions))
        return self._oracle.act(self._raw) or self.default_action


class BoxobanGame(NLEGame):
    """Boxoban on an offline level: generated (preset ``medium``/``hard``) or read from ``levels=PATH``.

    Reset option ``level`` (``--instances``, besides NLEGame's): the id (``FILE;N``) of the official level
    under ``levels=PATH`` to play, a leaderboard row's episode's level, found by its recorded map.
    """

    reference_policies: ClassVar[tuple[str, ...]] = ("random", "oracle")
    option_names: ClassVar[frozenset[str]] = NLEGame.option_names | {"level"}

    def __init__(self, row: BalrogTask, params: BoxobanParams, preset: str) -> None:
        super().__init__(row, params)
        self.preset = preset
        self.levels_path = params.levels
        self.level: Any = None
        self._solution: tuple[str, ...] | None = None

    def _prepare(self, seed: int) -> None:
        from playbench.core.errors import PlaybenchError
        from playbench.suites.balrog.nle.boxoban import source

        if "level" in self.options:  # the official level a leaderboard row's episode played
            named = self.options["level"]
            if not isinstance(named, str) or self.levels_path is None:
                raise ValueError(f"{self.row.id}: the reset option level names an official level (FILE;N) of the "
                                 "levels given with -T levels=PATH")
            try:
                self.level, self._solution = source.official_level(self.levels_path, self.preset, named), None
            except PlaybenchError as exc:
                raise ValueError(str(exc)) from None
        else:
            # compat: BALROG's draw, seeded as BALROG seeds it, with the number NetHack is seeded with
            balrog_seed = self.seed_value if self.compat else None
            self.level, self._solution = source.pick(seed, self.preset, self.levels_path, balrog_seed)
        if self.engine is not None:
            self.engine.set_boxoban_level(self.level.text())

    async def prepare(self, options: dict[str, Any] | None = None) -> None:
        """Take a worker seat off the event loop; the engine opens at reset, on the level the seed picks."""
        self._use_options(options)
        if self.engine is None and self._seat is None:
            seat = self._take_seat()
            await asyncio.to_thread(seat.wait)
            self._seat = seat

    def _make_engine(self, seat: Any) -> Any:
        from playbench.suites.balrog.nle.worker import ClockedEngine

        return ClockedEngine(self.env_id, boxoban_level=self.level.text(), seat=seat)

    def instance(self) -> dict[str, Any]:
        """Env id, NetHack seed, and which level: source (generated/official), id and rows."""
        out = super().instance()
        if self.level is not None:
            out.update(
                {
                    "level_source": self.level.source,
                    "level_id": self.level.level_id,
                    "preset": self.preset if self.level.source == "generated" else None,
                    "levels_path": self.levels_path,
                    "level": self.level.rows(),
                }
            )
        return out

    def _oracle_action(self) -> str:
        from playbench.suites.balrog.nle.boxoban.solver import solve

        if self._oracle is None:
            if self._solution is None:
                found = solve(self.level)
                self._solution = found.moves if found is not None else ()
            self._oracle = list(self._solution)
        return self._oracle.pop(0) if self._oracle else self.default_action

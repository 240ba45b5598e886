"""BALROG's MiniHack and NetHack games as playbench Games (text in, text out; tile image in VLM mode)."""

from typing import Any, ClassVar, Literal

import numpy as np

from playbench.core.game import Game
from playbench.core.params import Params
from playbench.core.seeding import derive_seed
from playbench.suites.balrog.nle import actions as A
from playbench.suites.balrog.nle import prompts
from playbench.suites.balrog.nle.progression import ABORTED, TASK_SUCCESSFUL, MiniHackProgress, NetHackProgress

_STATUS_NAMES = {-1: "ABORTED", 0: "RUNNING", 1: "DEATH", 2: "TASK_SUCCESSFUL"}


class NLEParams(Params):
    """Parameters of the MiniHack and NetHack tasks.

    ``mode``: ``text`` (language text + ASCII map) or ``vlm`` (language text + 1264x336 tile image);
    ``compat``: reproduce BALROG's bugs (NetHack ``00``-``99`` actions crash, prompt lists invalid
    actions, last-step-reward success, no ascension credit); ``max_steps``: agent step cap.
    """

    mode: Literal["text", "vlm"] = "text"
    compat: bool = False
    max_steps: int | None = None


class BoxobanParams(NLEParams):
    """Boxoban adds the level source: ``levels`` = a folder (or file) of official Boxoban level files.

    Without it, levels come from playbench's generator with the task's preset (``medium``/``hard``).
    """

    levels: str | None = None


class NLEGame(Game):
    """One BALROG NLE-based task: ``env_id`` is the original id (``MiniHack-Corridor-R3-v0`` ...)."""

    reference_policies: ClassVar[tuple[str, ...]] = ("random",)

    def __init__(self, env_id: str, params: NLEParams, default_steps: int) -> None:
        super().__init__()
        self.env_id = env_id
        self.params = params
        self.mode = params.mode
        self.compat = params.compat
        self.is_nethack = env_id.startswith("NetHack")
        self.max_steps = params.max_steps or default_steps
        self.engine: Any = None
        self.seed_value: int | None = None
        self.t = 0
        self._actions: list[str] = []
        self.tracker: MiniHackProgress | NetHackProgress = self._new_tracker()
        self._oracle: Any = None
        self._done = False

    # -- construction ------------------------------------------------------------------------

    def _new_tracker(self) -> MiniHackProgress | NetHackProgress:
        return NetHackProgress(compat=self.compat) if self.is_nethack else MiniHackProgress(compat=self.compat)

    def _make_engine(self) -> Any:
        from playbench.suites.balrog.nle.engine import Engine

        return Engine(self.env_id)

    def _prepare(self, seed: int) -> None:
        """Hook: per-episode set-up before the engine reset (Boxoban picks its level here)."""

    def _build_actions(self) -> None:
        from playbench.suites.balrog.nle.engine import useful_action_names

        if self.is_nethack:
            self._actions = A.nethack_action_names(useful_action_names(), self.compat)
            valid = set(self._actions)
            self.manual = prompts.nethack_prompt(A.nethack_prompt_actions(valid, self.compat))
        else:
            self._actions = A.minihack_action_names(self.engine.action_names)
            self.manual = prompts.minihack_prompt(self.env_id, self._actions)

    # -- the Game interface ------------------------------------------------------------------

    def legal_actions(self) -> list[str]:
        """BALROG's text action set for this task (fixed: NetHack without ``00``-``99``, B4)."""
        return list(self._actions)

    @property
    def default_action(self) -> str:
        """``esc`` for NetHack, ``north`` for MiniHack."""
        return A.NETHACK_DEFAULT_ACTION if self.is_nethack else A.MINIHACK_DEFAULT_ACTION

    @property
    def progress(self) -> float:
        """NetHack: max Dlvl/Xp table value so far; MiniHack: 1 on success."""
        return float(self.tracker.progression)

    @property
    def completed(self) -> int:
        """MiniHack: the task was solved; NetHack: the game was ascended."""
        if self.is_nethack:
            return int(getattr(self.tracker, "ascended", False))
        return int(self.tracker.end_reason == TASK_SUCCESSFUL)

    def instance(self) -> dict[str, Any]:
        """The env id and the NetHack seed (NetHack's levels are a function of it)."""
        return {"env_id": self.env_id, "nethack_seed": self.seed_value}

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[str, dict[str, Any]]:
        """Seed NetHack's RNGs from ``seed`` (engine call), reset, and return the first observation."""
        super().reset(seed=seed)
        if seed is None:
            seed = int(self.np_random.integers(2**31))
        self.seed_value = derive_seed("nle", seed)
        self._prepare(seed)
        if self.engine is None:
            self.engine = self._make_engine()
            self._build_actions()
        self.engine.seed(self.seed_value)
        obs = self.engine.reset()
        self.t, self._done = 0, False
        self.tracker = self._new_tracker()
        self._oracle = None
        message = self.engine.message(obs)
        return self._observe(obs, message)

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Play one text action (plus AutoMore); unmapped strings raise ValueError as in BALROG."""
        if self._done:
            raise RuntimeError("step() called after the episode ended; call reset()")
        obs, reward, done, message = self.engine.step(action)
        self.t += 1
        status = self.engine.end_status()
        if self.is_nethack:
            end_reason = f"{_STATUS_NAMES.get(status, status)}: {message.strip()}" if done else None
            self.tracker.update(obs["blstats"], reward, done, end_reason, self.engine.ascended())
        else:
            self.tracker.update(reward, status)
        truncated = (done and status == ABORTED) or (not done and self.t >= self.max_steps)
        terminated = done and status != ABORTED
        self._done = terminated or truncated
        text, info = self._observe(obs, message)
        return text, float(reward), terminated, truncated, info

    def close(self) -> None:
        """Release the engine."""
        if self.engine is not None:
            self.engine.close()
            self.engine = None

    # -- views -------------------------------------------------------------------------------

    def _observe(self, obs: dict[str, Any], message: str) -> tuple[str, dict[str, Any]]:
        from playbench.suites.balrog.nle import render

        lang = self.engine.language_obs(obs)
        long_term, short_term = render.contexts(lang, message, obs, self.mode)
        # BALROG shows the current observation as short-term context, then long-term context
        text = f"{short_term}\n{long_term}" if short_term else long_term
        self._last_obs = text
        self._raw = obs
        info: dict[str, Any] = {
            "manual": self.manual,
            "obs": text,
            "history": "",
            "long_term_context": long_term,
            "short_term_context": short_term,
            "score": self.progress,
            "completed": self.completed,
            "progress": self.progress,
            "metrics": {**self.tracker.stats(), "steps": self.t},
        }
        if self.mode == "vlm":
            info["image"] = render.tile_image(obs["glyphs"])
        return text, info

    # -- reference policies ------------------------------------------------------------------

    def reference_action(self, policy: str, rng: np.random.Generator) -> str:
        """``random`` for every task; ``oracle`` where the subclass provides one."""
        if policy == "oracle" and "oracle" in self.reference_policies:
            return self._oracle_action()
        return super().reference_action(policy, rng)

    def _oracle_action(self) -> str:
        raise NotImplementedError


class NavigationGame(NLEGame):
    """Corridor and MazeWalk: the oracle walks shortest paths on the known map to the down staircase."""

    reference_policies: ClassVar[tuple[str, ...]] = ("random", "oracle")

    def _oracle_action(self) -> str:
        from playbench.suites.balrog.nle.oracle import Navigator

        if self._oracle is None:
            self._oracle = Navigator(set(self._actions))
        return self._oracle.act(self._raw)


class BoxobanGame(NLEGame):
    """Boxoban on an offline level: generated (preset ``medium``/``hard``) or read from ``levels=PATH``."""

    reference_policies: ClassVar[tuple[str, ...]] = ("random", "oracle")

    def __init__(self, env_id: str, params: BoxobanParams, default_steps: int, preset: str) -> None:
        super().__init__(env_id, params, default_steps)
        self.preset = preset
        self.levels_path = params.levels
        self.level: Any = None
        self._solution: tuple[str, ...] | None = None

    def _prepare(self, seed: int) -> None:
        from playbench.suites.balrog.nle.boxoban import source

        self.level, self._solution = source.pick(seed, self.preset, self.levels_path)
        if self.engine is not None:
            self.engine.env._levels = [self.level.text()]

    def _make_engine(self) -> Any:
        from playbench.suites.balrog.nle.engine import Engine

        return Engine(self.env_id, boxoban_level=self.level.text())

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

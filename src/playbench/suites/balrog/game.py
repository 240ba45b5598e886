"""The game side of BALROG's episode protocol, shared by the BALROG environments of this package.

A ``BalrogGame`` turns an engine into a playbench Game the way BALROG's evaluator drives it
(``specs/balrog.md`` §2.3): the instruction prompt is ``info["manual"]``; the observation is the
long-term context (``info["long_term_context"]``; ``info["short_term_context"]`` holds the
short-term part, empty for BabyAI and TextWorld); an output that is not a valid action executes the
default action and the *next* observation carries BALROG's "Defaulted to action" note; the episode
stops at the step limit (the facts row's, unless ``-T max_steps=`` gives another); ``info["score"]`` is the progression (0..1) and ``info["completed"]`` 1 for
a won episode.

The runner tells the game about an invalid output through ``note_invalid_action(raw)`` before it
steps with the default action; a gymnasium user may instead pass any string to ``step`` and the game
applies the same substitution itself.
"""

from collections import Counter
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from playbench.core.game import Game
from playbench.suites.balrog.facts import BalrogTask
from playbench.suites.balrog.protocol import invalid_action_feedback


@dataclass
class Frame:
    """One engine observation in BALROG's terms."""

    long_term: str
    short_term: str = ""
    image: np.ndarray | None = None


class BalrogGame(Game):
    """Base class: feedback, step limit, counters and the ``info`` dict; subclasses wrap an engine."""

    #: The BALROG environment name (``babyai``, ``textworld`` ...).
    env_name: str = ""  # per instance for NetHack/MiniHack (nle/game.py)
    reference_policies: ClassVar[tuple[str, ...]] = ("random", "oracle")
    #: The reset options this game takes besides its seed (``--instances``: what fixed BALROG's instance); any
    #: other is refused
    option_names: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, row: BalrogTask, *, images: bool = False, feedback: bool = True,
                 max_steps: int | None = None) -> None:
        """``row``: the task's facts row; ``max_steps``: BALROG's ``eval.max_steps_per_episode`` (None: the row's).

        The engine itself keeps the row's limit (``row.max_steps``) either way, as BALROG's environments do.
        """
        super().__init__()
        self.row = row
        self.images = images
        self.feedback = feedback
        self.max_steps: int = max_steps or row.max_steps
        self.steps = 0
        self.failed_candidates: list[str] = []
        self.action_frequency: Counter[str] = Counter()
        self.episode_return = 0.0
        self._pending_invalid: str | None = None
        self._frame = Frame("")
        self._done = False
        self.options: dict[str, Any] = {}

    # -- subclass hooks -------------------------------------------------------------------------

    def _engine_reset(self, seed: int) -> tuple[Frame, str]:
        """Reset the engine from the episode seed (and ``self.options``): (first frame, instruction prompt)."""
        raise NotImplementedError

    def _use_options(self, options: dict[str, Any] | None) -> None:
        """Take the episode's reset options (``prepare`` and ``reset`` give them): checked, kept in ``options``.

        A name this game does not take is a ValueError (a subclass checks the values it takes, and sets up
        for them).
        """
        given = dict(options or {})
        unknown = sorted(set(given) - self.option_names)
        if unknown:
            takes = f"it takes {', '.join(sorted(self.option_names))}" if self.option_names else "it takes none"
            raise ValueError(f"{self.row.id} takes no reset option {unknown[0]!r} ({takes})")
        self.options = given

    def _engine_step(self, action: str) -> tuple[Frame, float, bool, bool]:
        """Execute a valid action: (frame, reward, terminated, truncated)."""
        raise NotImplementedError

    def progression(self) -> float:
        """BALROG's per-episode progression in [0, 1] (``get_stats()["progression"]``)."""
        return 0.0

    def won(self) -> bool:
        """Whether the episode is won."""
        return False

    def stats(self) -> dict[str, Any]:
        """The environment's own ``get_stats()`` keys besides ``progression``."""
        return {}

    # -- the Game interface ---------------------------------------------------------------------

    @property
    def progress(self) -> float:
        """The progression so far."""
        return self.progression()

    def note_invalid_action(self, raw: str | None) -> None:
        """Record an output that named no valid action; the next observation will say so."""
        self.failed_candidates.append("" if raw is None else raw)
        self._pending_invalid = "" if raw is None else raw

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """Start an episode from ``seed`` (and ``options``, see ``option_names``); the first observation and info."""
        super().reset(seed=seed)
        self.steps = 0
        self.failed_candidates = []
        self.action_frequency = Counter()
        self.episode_return = 0.0
        self._pending_invalid = None
        self._done = False
        self.invalid_actions = 0
        self._use_options(options)
        frame, self.manual = self._engine_reset(self.next_seed(seed))
        self._frame = frame
        return frame.long_term, self._info(frame)

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Execute one action (an illegal one plays the default action, with feedback, counted invalid)."""
        before = self.invalid_actions
        played = self.legal_or_default(action)
        if self.invalid_actions > before:
            self.note_invalid_action(action if isinstance(action, str) else None)
        action = played
        self.action_frequency[action] += 1
        frame, reward, terminated, truncated = self._engine_step(action)
        self.steps += 1
        self.episode_return += float(reward)
        if self.steps >= self.max_steps and not terminated:
            truncated = True
        if self._pending_invalid is not None and self.feedback:
            frame = Frame(invalid_action_feedback(action, frame.long_term), frame.short_term, frame.image)
        self._pending_invalid = None
        self._frame = frame
        self._done = bool(terminated or truncated)
        return frame.long_term, float(reward), bool(terminated), bool(truncated), self._info(frame)

    def _info(self, frame: Frame) -> dict[str, Any]:
        progression = self.progression()
        metrics: dict[str, Any] = {
            "progression": progression,
            "episode_return": self.episode_return,
            "num_steps": self.steps,
            "action_frequency": dict(self.action_frequency),
            "failed_candidates": list(self.failed_candidates),
        }
        metrics.update(self.stats())
        info: dict[str, Any] = {
            "manual": self.manual,
            "obs": frame.long_term,
            "history": "",
            "long_term_context": frame.long_term,
            "short_term_context": frame.short_term,
            "score": progression,
            "completed": int(self.won()),
            "progress": progression,
            "metrics": metrics,
            "invalid_actions": self.invalid_actions,
        }
        if self.images and frame.image is not None:
            info["image"] = frame.image
        self._last_obs = frame.long_term
        return info

"""The Game contract: a gymnasium.Env with text in and text out."""

from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces

_TEXT = spaces.Text(max_length=10_000_000, charset=frozenset(chr(i) for i in range(32, 127)) | {"\n", "\t"})


class Game(gymnasium.Env[str, str]):
    """A benchmark game.

    Observations are strings (the current observation); ``info`` always carries

    - ``manual``: the long-term context (instructions), fixed for the episode,
    - ``obs``: the current observation text (same as the returned observation),
    - ``history``: the suite's own history text where it has one, else ``""``,
    - ``score``, ``completed`` (0/1) and ``progress`` (0..1): the suite's native metrics,
    - optionally ``image`` (an RGB ``numpy`` array) in image mode.

    Actions are strings. ``legal_actions()`` lists them, or returns ``None`` for free text
    (one-step games whose action is a whole answer). ``default_action`` is executed when an
    agent names no legal action.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"]}  # gymnasium.Env declares it an instance variable
    observation_space = _TEXT
    action_space = _TEXT

    #: Names of reference policies this game implements in ``reference_action``.
    reference_policies: ClassVar[tuple[str, ...]] = ("random",)

    def __init__(self) -> None:
        super().__init__()
        self.manual: str = ""

    # -- the interface a Game fills in ------------------------------------------------------

    def legal_actions(self) -> list[str] | None:
        """The actions allowed now, or ``None`` when the action is free text."""
        return None

    @property
    def default_action(self) -> str:
        """The action executed when the agent's answer names no legal action."""
        legal = self.legal_actions()
        return legal[0] if legal else ""

    @property
    def progress(self) -> float:
        """Progress towards the goal in [0, 1]."""
        return 0.0

    def instance(self) -> dict[str, Any]:
        """What identifies this episode's concrete instance (level, grid, game file ...)."""
        return {}

    def reference_action(self, policy: str, rng: np.random.Generator) -> str:
        """The next action of a reference policy (``random``, ``oracle`` ...) from full state."""
        if policy == "random":
            legal = self.legal_actions()
            if not legal:
                raise NotImplementedError(f"{type(self).__name__} has no random policy for free-text actions")
            return legal[int(rng.integers(len(legal)))]
        raise NotImplementedError(f"{type(self).__name__} has no {policy!r} policy")

    def render(self) -> str:
        """The current observation as text (``ansi`` render mode)."""
        return getattr(self, "_last_obs", "")

"""The Game contract: a gymnasium.Env with text in and text out."""

from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding

#: Every character a game writes: printable ASCII, tab and newline.
CHARSET = frozenset(chr(i) for i in range(32, 127)) | {"\n", "\t"}
#: Observations are whole prompts (a MANGO walkthrough, a NetHack screen) and may be long.
OBSERVATION_SPACE = spaces.Text(max_length=10_000_000, min_length=0, charset=CHARSET)
#: Actions are commands or one-step answers; the bound keeps ``action_space.sample()`` cheap.
ACTION_SPACE = spaces.Text(max_length=100_000, min_length=0, charset=CHARSET)


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
    agent names no legal action; ``step`` does the same for an illegal action it is given, and
    ``info["invalid_actions"]`` counts those of the episode.

    ``reset(seed=s)`` seeds ``np_random`` and the episode; ``reset()`` without a seed takes the
    episode seed from ``np_random`` (``next_seed``), so it continues deterministically.
    """

    #: ``render_mode="ansi"``: ``render()`` returns the observation text. A frame rate means nothing for text, but
    #: gymnasium's checker asks every renderable env for one (one frame a step, as gymnasium's text games declare).
    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 1}  # an instance variable in gymnasium.Env
    observation_space = OBSERVATION_SPACE
    action_space = ACTION_SPACE

    #: Names of reference policies this game implements in ``reference_action``.
    reference_policies: ClassVar[tuple[str, ...]] = ("random",)
    #: The step limit its episodes play: the facts row's, unless ``-T max_steps=`` gives another (None: none).
    max_steps: int | None = None
    #: ``np_random`` once made, and the seed it is still to be made from (``reset``): most episodes never use it
    #: (they are given their seed), and a generator is 1.5 KB each live episode would hold.
    _generator: np.random.Generator | None = None
    _generator_seed: int | None = None

    def __init__(self) -> None:
        super().__init__()
        self.manual: str = ""
        self.invalid_actions = 0

    # -- what every game shares ---------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """Seed ``np_random`` as gymnasium's ``Env.reset`` does (subclasses call it first and ignore its result).

        The generator is made from ``seed`` on first use (``_np_random``), the very one gymnasium makes at once;
        a bad seed is refused here, by gymnasium, as before.
        """
        if seed is not None:
            if not (isinstance(seed, int) and seed >= 0):
                seeding.np_random(seed)  # gymnasium's refusal (it raises)
            self._generator, self._generator_seed, self._np_random_seed = None, seed, seed
        return super().reset(options=options)

    @property
    def _np_random(self) -> np.random.Generator | None:
        """The generator gymnasium keeps (behind ``np_random``): made from the seed ``reset`` was given, on first use."""
        if self._generator is None and self._generator_seed is not None:
            self._generator = seeding.np_random(self._generator_seed)[0]
            self._generator_seed = None
        return self._generator

    @_np_random.setter
    def _np_random(self, generator: np.random.Generator | None) -> None:
        self._generator, self._generator_seed = generator, None

    def next_seed(self, seed: int | None) -> int:
        """The episode seed: ``seed`` itself, or the next draw from ``np_random`` when none is given."""
        if seed is not None:
            return int(seed)
        return int(self.np_random.integers(2**31 - 1))

    def is_legal(self, action: str) -> bool:
        """Whether ``action`` may be played now: one of ``legal_actions()``, or any text when that is ``None``."""
        legal = self.legal_actions()
        return legal is None or action in legal

    def legal_or_default(self, action: Any) -> str:
        """``action`` if it is legal now, else the default action (counted in ``invalid_actions``)."""
        if isinstance(action, str) and self.is_legal(action):
            return action
        self.invalid_actions += 1
        return self.default_action

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

    async def prepare(self, options: dict[str, Any] | None = None) -> None:
        """Slow one-time set-up the runner awaits before ``reset`` (e.g. making a game file in a thread).

        It lets other episodes play meanwhile; ``reset`` must still work without it (gymnasium users).
        ``options``: the reset options the next ``reset`` will be given (``start``), so it sets up for them.
        """

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


async def start(game: Game, seed: int, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
    """Prepare ``game`` and reset it from ``seed``: the first observation and info (how every episode starts).

    ``options`` (``--instances``: what fixes the instance besides its seed) go to both ``prepare`` and
    ``reset``; without them neither is given any, so a game that takes none is started as it always was.
    """
    if options is None:
        await game.prepare()  # slow set-up off the event loop (TextWorld makes its game file)
        return game.reset(seed=seed)
    await game.prepare(options=options)
    return game.reset(seed=seed, options=options)

"""``-T`` parameters of the SmartPlay tasks (apart from the games: listing tasks loads no engine or numpy)."""

from playbench.core.params import ExistingPath, Field, Params


class SmartPlayParams(Params):
    """Parameters common to SmartPlay tasks.

    ``compat`` reproduces the original code, bugs included; ``history``/``max_steps``/``episodes`` default
    to the original code's values (``history`` may be set to the paper's values, e.g. 30 for Hanoi).
    ``max_steps`` is the step limit, named as in BALROG, and ``episodes`` the default episode count (the
    original's trials), named as in MANGO; the old names ``steps`` and ``trials`` still work.
    """

    renamed = {"steps": "max_steps", "trials": "episodes"}

    compat: bool = False
    history: int | None = None
    max_steps: int | None = Field(default=None, ge=1)
    episodes: int | None = Field(default=None, ge=1)


class MessengerParams(SmartPlayParams):
    """SmartPlay parameters plus ``messenger_text``: path to messenger-emma's ``text_test.json``.

    Without it the manual is written from playbench's templates (same information content); compat numbers
    are comparable to the paper only with the official text.
    """

    messenger_text: ExistingPath | None = None

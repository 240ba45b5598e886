"""Parameters of the MiniHack and NetHack tasks (kept apart from the game: listing tasks loads no engine)."""

from playbench.core.params import ExistingPath
from playbench.suites.balrog.params import BalrogParams


class NLEParams(BalrogParams):
    """Parameters of the MiniHack and NetHack tasks (BALROG's common ones).

    ``images``: VLM mode (language text + 1264x336 tile image) instead of text mode (language text +
    ASCII map); ``compat``: reproduce BALROG's bugs (NetHack ``00``-``99`` actions crash the episode, the
    prompt lists invalid actions, last-step-reward success, no ascension credit).
    """


class BoxobanParams(NLEParams):
    """Boxoban adds the level source: ``levels`` = a folder (or file) of official Boxoban level files.

    Without it, levels come from playbench's generator with the task's preset (``medium``/``hard``).
    """

    levels: ExistingPath | None = None

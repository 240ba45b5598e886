"""Task parameters of ``smartplay/crafter`` (kept free of engine imports so registration stays light)."""

from playbench.suites.smartplay.params import SmartPlayParams


class SmartPlayCrafterParams(SmartPlayParams):
    """``smartplay/crafter``: SmartPlay's ``compat``/``history``/``max_steps``/``episodes`` plus ``images``.

    Defaults are the original code's: 10,000 steps, history 2 (the paper says 5), 10 trials (episodes).
    ``images=true`` also renders the 64x64 frame into ``info["image"]`` (the text is the same).
    """

    images: bool = False

"""Task parameters of ``balrog/crafter/default`` (kept free of engine imports so registration stays light)."""

from playbench.suites.balrog.params import BalrogParams


class BalrogCrafterParams(BalrogParams):
    """``balrog/crafter/default`` (balrog.md §6.2, §12): BALROG's common parameters.

    ``images`` turns on VLM mode (256x256 RGB in ``info["image"]``); ``preset`` picks the episode count
    (``config`` or ``paper``: both 10 for Crafter); ``max_steps`` overrides BALROG's cap of 2000;
    ``feedback`` adds BALROG's "Defaulted to action" note after an invalid output. ``compat`` changes
    nothing observable for Crafter: the world-seed fix (B1b) is always on, since the original's worlds
    cannot be reproduced anyway; the reset tick (B20), the empty text at the low map edges and the second
    render of each frame (two night-noise draws a step) are BALROG's in both modes.
    """

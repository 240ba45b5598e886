"""Task parameters of the Baba Is AI tasks (``-T key=value``)."""

from typing import Literal

from playbench.suites.balrog.params import BalrogParams


class BabaParams(BalrogParams):
    """BALROG parameters plus Baba Is AI's text options.

    ``baba_text``: ``compat`` keeps BALROG's wording (``3 step to the left``, bug B14, the benchmark's
    input); ``corrected`` says ``steps`` for every distance above one. ``add_ruleset``: list the
    active rules in the observation (BALROG ignores this flag and always lists them, bug B13; honoured
    unless ``compat=true``).
    """

    baba_text: Literal["compat", "corrected"] = "compat"
    add_ruleset: bool = True

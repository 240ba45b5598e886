"""What the two Crafter games share: engine ownership, world seeds, reference policies, instance data.

The games themselves live with their suites (``suites/smartplay/crafter/game.py`` and
``suites/balrog/crafter/game.py``), so this engine package depends on no suite that uses it. Both run the
reproducible :class:`~playbench.suites.crafter.engine.CrafterEngine` seeded with the episode seed (world seed ``hash((seed, 1)) % (2**31 - 1)``, SmartPlay §5.5.1 and BALROG B1b fixed), both take
crafter's hidden ``noop`` tick at reset, and they differ only in the text they show and what they score.
"""

from typing import Any

import numpy as np

from playbench.suites.crafter.engine import CrafterEngine
from playbench.suites.crafter.oracle import OraclePolicy
from playbench.suites.crafter.prompts import ACTIONS


def world_seed(seed: int) -> int:
    """Crafter's world seed for the first reset of ``crafter.Env(seed=seed)``."""
    return hash((int(seed), 1)) % (2**31 - 1)


class _CrafterMixin:
    """Engine ownership, reference policies and instance data shared by both games."""

    engine: CrafterEngine
    episode_seed: int
    _oracle: OraclePolicy | None

    def _new_episode(self, seed: int) -> None:
        self.episode_seed = seed
        self.engine.reset_seed(seed)
        self._oracle = None
        self.engine.step(0)  # both originals take one hidden noop tick at reset

    def _policy_action(self, policy: str, rng: np.random.Generator) -> str | None:
        if policy == "oracle":
            if self._oracle is None:
                self._oracle = OraclePolicy()
            return ACTIONS[self._oracle.act(self.engine, rng)]
        return None

    def _instance(self, **extra: Any) -> dict[str, Any]:
        return {"seed": self.episode_seed, "world_seed": world_seed(self.episode_seed), "area": [64, 64], **extra}

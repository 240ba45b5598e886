"""SmartPlay's history text: the last observations, numbered, never including the current one."""


class HistoryTracker:
    """Keeps the last ``history`` observations and renders SmartPlay's history block."""

    def __init__(self, history: int) -> None:
        self.history = history
        self._kept = max(1, history)
        self._obs: list[str] = []  # oldest first; a list, as every live episode holds one (a deque takes 0.7 KB)
        self._count = 0  # observations stored so far, including those dropped

    def reset(self) -> None:
        """Forget everything (a new episode)."""
        self._obs.clear()
        self._count = 0

    def text(self) -> str:
        """The history block for the observations stored so far ("" when none)."""
        if not self._obs:
            return ""
        n = len(self._obs)
        first = self._count - n
        blocks = [f"Player Observation Step {first + i}:\n{obs}" for i, obs in enumerate(self._obs)]
        return (f"Most recent {n} steps of the player's in-game observation:\n\n" + "\n\n".join(blocks)).strip()

    def add(self, obs: str) -> None:
        """Store an observation (after the history text for it was built)."""
        self._obs.append(obs)
        if len(self._obs) > self._kept:
            del self._obs[0]
        self._count += 1

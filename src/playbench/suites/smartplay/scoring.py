"""SmartPlay's per-game score normalization (§4.1).

The 7 benchmark games are human-normalized: ``(raw - min) / (human - min)``, not clipped. The other
games have no recorded human score (calling the original's normalizer on them crashes, bug B9); for them
playbench reports a range-normalized score over the theoretical bounds, labelled as such.
"""

# task id -> (human score, min score)
HUMAN: dict[str, tuple[float, float]] = {
    "smartplay/bandit-highlow": (45, 0),
    "smartplay/rps-basic": (43, 0),
    "smartplay/hanoi-3": (3, 0),
    "smartplay/messenger-1": (1, -1),
    "smartplay/messenger-2": (1, -1),
    "smartplay/crafter": (2680, 0),
    "smartplay/minecraft-plains": (1, 0),
}

# task id -> (min, max) theoretical bounds for the range-normalized score
RANGE: dict[str, tuple[float, float]] = {
    "smartplay/bandit-deterministic": (0, 50),
    "smartplay/bandit-highhigh": (0, 50),
    "smartplay/bandit-lowlow": (0, 50),
    "smartplay/rps-different-score": (0, 50),
    "smartplay/hanoi-4": (0, 4),
    "smartplay/messenger-3": (-1, 1),
    **{f"smartplay/minecraft-{b}": (0, 1) for b in ("forest", "ocean", "beach", "taiga", "ice-spikes", "jungle", "desert")},
}

BENCHMARK_TASKS: tuple[str, ...] = tuple(HUMAN)


def normalize(task_id: str, raw: float) -> tuple[float, str] | None:
    """``(value, kind)`` with kind ``human`` or ``range``; None for unknown ids."""
    if task_id in HUMAN:
        human, low = HUMAN[task_id]
        return (raw - low) / (human - low), "human"
    if task_id in RANGE:
        low, high = RANGE[task_id]
        return (raw - low) / (high - low), "range"
    return None

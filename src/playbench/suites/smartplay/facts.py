"""SmartPlay's table of task facts (``specs/smartplay.md`` §1, §4): the one place these numbers live.

One row per task: the game and its variant, the original gym id (aliases ``<Id>`` and ``<Id>-v0``),
the default episode count (the original's trials), the step limit, the reference scores of the normalized score and the capability degrees (Table 3).
Scoring, capabilities, the report, the ``smartplay/benchmark-v0`` group and ``playbench list`` read it.
This module imports no game code.
"""

from dataclasses import dataclass
from typing import Literal

from playbench.stats.metric import Metric

#: The nine capabilities of Table 3, in the order of every ``degrees`` tuple.
CAPABILITIES: tuple[str, ...] = (
    "Long Text Understanding",
    "Reasoning",
    "Instruction Following",
    "Planning",
    "Generalization",
    "Understanding the Odds",
    "Learning from Interactions",
    "Error/Mistake Handling",
    "Spatial Reasoning",
)

Degrees = tuple[int, int, int, int, int, int, int, int, int]


@dataclass(frozen=True)
class Reference:
    """The scores a raw score is normalized against: ``(raw - low) / (high - low)``, not clipped.

    ``kind="human"``: ``high`` is the recorded human score and ``low`` the min score (§4.1, ★ games);
    ``kind="range"``: the theoretical bounds, for games without a human score (B9).
    """

    kind: Literal["human", "range"]
    high: float
    low: float


@dataclass(frozen=True)
class SmartPlayTask:
    """One SmartPlay task. ``table2`` is its column title in the paper's Table 2 (★ benchmark games only)."""

    name: str
    game: Literal["bandit", "rps", "hanoi", "messenger", "crafter", "minecraft"]
    variant: str | int | None
    original: str
    #: The default episode count (the original's trials; ``-T episodes=`` sets another).
    episodes: int
    #: The rollout's step limit and the history kept (the original code's values, §1; ``-T max_steps=`` and
    #: ``-T history=`` set others).
    max_steps: int
    history: int
    reference: Reference
    degrees: Degrees
    table2: str | None = None
    #: What sets this variant apart, for its description (Messenger's stages).
    note: str = ""
    #: A typical episode's length, for ``eval --dry-run``'s typical cost, where the step limit is far above
    #: it (None: priced at the limit). Source: the median of 5 episodes of playbench's random agent, seed 0.
    typical_steps: int | None = None

    @property
    def id(self) -> str:
        """``smartplay/<name>``."""
        return f"smartplay/{self.name}"

    @property
    def score(self) -> Metric:
        """What the raw score is, for its interval: a range only where no parameter moves it.

        Hanoi counts the disks on the goal rod, Messenger ends in -1..1, Minecraft's goal is reached or
        not; bandits and RPS count rounds up to ``-T max_steps`` and Crafter's running sum has no top, so
        those are plain means.
        """
        if self.game == "hanoi":
            return Metric("score", "bounded-mean", 0.0, float(self.variant or 0))
        if self.game == "messenger":
            return Metric("score", "bounded-mean", -1.0, 1.0)
        if self.game == "minecraft":
            return Metric("score", "rate")
        return Metric("score")

    @property
    def aliases(self) -> tuple[str, ...]:
        """The original gym id with and without ``-v0``."""
        return (f"{self.original}-v0", self.original)


# Degrees per game family (evaluation.yml = paper Table 3), in CAPABILITIES order.
_BANDIT: Degrees = (1, 1, 1, 1, 2, 3, 2, 1, 1)
_RPS: Degrees = (2, 1, 3, 1, 2, 3, 3, 1, 1)
_HANOI: Degrees = (2, 3, 2, 3, 1, 1, 1, 2, 1)
_MESSENGER_1: Degrees = (3, 1, 2, 1, 2, 2, 1, 1, 2)
_MESSENGER_2: Degrees = (3, 2, 2, 2, 2, 2, 1, 1, 2)  # L3 uses the L2 column
_CRAFTER: Degrees = (4, 3, 3, 3, 3, 2, 4, 3, 2)
_MINECRAFT: Degrees = (1, 1, 2, 1, 3, 2, 1, 2, 3)

_OF_50 = Reference("range", 50, 0)  # bandits and RPS: 50 rounds


def _minecraft(biome: str, creative: int) -> SmartPlayTask:
    return SmartPlayTask(f"minecraft-{biome}", "minecraft", biome, f"MinedojoCreative{creative}", 20, 200, 2,
                         Reference("range", 1, 0), _MINECRAFT)


TASKS: tuple[SmartPlayTask, ...] = (
    SmartPlayTask("bandit-deterministic", "bandit", "deterministic", "BanditTwoArmedDeterministicFixed", 20, 50, 50,
                  _OF_50, _BANDIT),
    SmartPlayTask("bandit-highhigh", "bandit", "highhigh", "BanditTwoArmedHighHighFixed", 20, 50, 50, _OF_50, _BANDIT),
    SmartPlayTask("bandit-highlow", "bandit", "highlow", "BanditTwoArmedHighLowFixed", 20, 50, 50,
                  Reference("human", 45, 0), _BANDIT, table2="Bandit"),
    SmartPlayTask("bandit-lowlow", "bandit", "lowlow", "BanditTwoArmedLowLowFixed", 20, 50, 50, _OF_50, _BANDIT),
    SmartPlayTask("rps-basic", "rps", "basic", "RockPaperScissorBasic", 20, 50, 50, Reference("human", 43, 0), _RPS,
                  table2="RPS"),
    SmartPlayTask("rps-different-score", "rps", "different-score", "RockPaperScissorDifferentScore", 20, 50, 50,
                  _OF_50, _RPS),
    SmartPlayTask("hanoi-3", "hanoi", 3, "Hanoi3Disk", 10, 30, 5, Reference("human", 3, 0), _HANOI, table2="Hanoi"),
    SmartPlayTask("hanoi-4", "hanoi", 4, "Hanoi4Disk", 10, 30, 5, Reference("range", 4, 0), _HANOI),
    SmartPlayTask("messenger-1", "messenger", 1, "MessengerL1", 100, 4, 2, Reference("human", 1, -1), _MESSENGER_1,
                  table2="MsgrL1", note="stage 1: the message is one step away, entities never move; 4 steps"),
    SmartPlayTask("messenger-2", "messenger", 2, "MessengerL2", 100, 64, 2, Reference("human", 1, -1), _MESSENGER_2,
                  table2="MsgrL2", note="stage 2: new dynamics (chasing, fleeing, immovable entities); 64 steps"),
    SmartPlayTask("messenger-3", "messenger", 3, "MessengerL3", 100, 128, 2, Reference("range", 1, -1), _MESSENGER_2,
                  note="stage 3: decoy message and goal that kill on contact; 128 steps"),
    SmartPlayTask("crafter", "crafter", None, "Crafter", 10, 10000, 2, Reference("human", 2680, 0), _CRAFTER,
                  table2="Crafter", typical_steps=157),
    SmartPlayTask("minecraft-plains", "minecraft", "plains", "MinedojoCreative0", 20, 200, 2, Reference("human", 1, 0),
                  _MINECRAFT, table2="Minecraft*"),
    _minecraft("forest", 1),
    _minecraft("ocean", 2),
    _minecraft("beach", 4),
    _minecraft("taiga", 5),
    _minecraft("ice-spikes", 7),
    _minecraft("jungle", 8),
    _minecraft("desert", 9),
)

#: The benchmark group: SmartPlay's ``benchmark_games_v0``, the ★ games in Table 2's column order.
BENCHMARK_GROUP = "smartplay/benchmark-v0"


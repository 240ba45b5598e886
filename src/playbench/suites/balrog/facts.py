"""BALROG's table of facts (``specs/balrog.md`` §1, §6, §12): environments and tasks, the one place they live.

``ENVS`` holds each environment's title, episodes per preset (``config`` = the repository's config.yaml,
``paper`` = the paper's tables) and default action; ``TASKS`` one row per task with its step limit
(``max_steps``), the level it plays and its aliases, in BALROG's environment order (the order of ``balrog/all``). Games, the report, the groups and
``playbench list`` read it. Only plain data is imported here (Baba Is AI's level list).
"""

from dataclasses import dataclass

from playbench.stats.metric import Metric
from playbench.suites.balrog.babaisai.data import LEVELS

#: An episode's progression where it is a success (1) or not (0): a rate, with Wilson intervals.
SUCCESS = Metric("progression", "rate")
#: A progression with partial credit (achievements, points, dungeon depth) in [0, 1]: a bounded mean.
PARTIAL = Metric("progression", "bounded-mean", 0.0, 1.0)


@dataclass(frozen=True)
class BalrogEnv:
    """One BALROG environment."""

    name: str
    title: str
    config_episodes: int
    paper_episodes: int
    #: The action executed when the model's output is not a valid one (§1); TextWorld accepts any text.
    default_action: str | None
    #: What an episode's progression (its score) is: ``SUCCESS`` or ``PARTIAL`` (its interval follows).
    progression: Metric = SUCCESS

    def episodes(self, preset: str) -> int:
        """Episodes per task under a preset (``config`` or ``paper``)."""
        return {"config": self.config_episodes, "paper": self.paper_episodes}[preset]


#: The task kinds of BabyAI's ``MixedTrainLocal``: the levels a BabyAI row may play.
BABYAI_LEVELS: tuple[str, ...] = ("goto", "pickup", "open", "putnext", "pick_up_seq_go_to")


@dataclass(frozen=True)
class BalrogTask:
    """One BALROG task ``balrog/<env>/<name>``."""

    env: str
    name: str
    #: The episode step limit (the environment's own; ``-T max_steps=`` stops episodes sooner or later).
    max_steps: int
    aliases: tuple[str, ...] = ()
    #: MiniHack/NetHack: the original env id and the game kind (``boxoban``, ``navigation``, ``plain``).
    original: str = ""
    kind: str = ""
    #: TextWorld: the step count its prompt states, used with ``-T max_steps_mode=prompt`` (B10).
    prompt_steps: int | None = None
    #: A typical episode's length, for ``eval --dry-run``'s typical cost, where the step limit is far above
    #: it (None: priced at the limit). Source: the median of 5 episodes of playbench's random agent, seed 0.
    typical_steps: int | None = None
    #: BabyAI, TextWorld and Baba Is AI: the level the game builds (a ``BABYAI_LEVELS`` kind, a TextWorld game
    #: kind of ``textworld.published.GAMES``, a ``babaisai.data.LEVELS`` id); the row's name need not be it.
    level: str = ""

    @property
    def id(self) -> str:
        """``balrog/<env>/<name>``."""
        return f"balrog/{self.env}/{self.name}"


#: The six environments in BALROG's order (the summary table's column order).
ENVS: tuple[BalrogEnv, ...] = (
    BalrogEnv("babyai", "BabyAI", 10, 25, "go forward"),
    BalrogEnv("crafter", "Crafter", 10, 10, "Noop", PARTIAL),
    BalrogEnv("textworld", "TextWorld", 10, 20, None, PARTIAL),
    BalrogEnv("babaisai", "Baba Is AI", 3, 5, "idle"),
    BalrogEnv("minihack", "MiniHack", 5, 5, "north"),
    BalrogEnv("nle", "NetHack", 5, 5, "esc", PARTIAL),
)


def _babyai(kind: str, steps: int) -> BalrogTask:
    return BalrogTask("babyai", kind, steps, (f"BabyAI-MixedTrainLocal-v0/{kind}",), level=kind)


def _minihack(name: str, original: str, kind: str) -> BalrogTask:
    return BalrogTask("minihack", name, 100, (original,), original, kind)


TASKS: tuple[BalrogTask, ...] = (
    # BabyAI's limits are Minigrid's own max_steps for each kind
    _babyai("goto", 64),
    _babyai("pickup", 64),
    _babyai("open", 128),
    _babyai("putnext", 128),
    _babyai("pick_up_seq_go_to", 128),
    BalrogTask("crafter", "default", 2000, typical_steps=137),
    *(BalrogTask("textworld", kind, 80, prompt_steps=steps, level=kind)
      for kind, steps in (("treasure_hunter", 40), ("the_cooking_game", 80), ("coin_collector", 25))),
    *(BalrogTask("babaisai", level, 100, (f"env/{level}",), level=level) for level in LEVELS),
    _minihack("boxoban-hard", "MiniHack-Boxoban-Hard-v0", "boxoban"),
    _minihack("boxoban-medium", "MiniHack-Boxoban-Medium-v0", "boxoban"),
    _minihack("mazewalk-9x9", "MiniHack-MazeWalk-9x9-v0", "navigation"),
    _minihack("mazewalk-15x15", "MiniHack-MazeWalk-15x15-v0", "navigation"),
    _minihack("corridor-r3", "MiniHack-Corridor-R3-v0", "navigation"),
    _minihack("corridorbattle-dark", "MiniHack-CorridorBattle-Dark-v0", "plain"),
    _minihack("quest-easy", "MiniHack-Quest-Easy-v0", "plain"),
    _minihack("quest-medium", "MiniHack-Quest-Medium-v0", "plain"),
    BalrogTask("nle", "nethackchallenge", 100_000, ("NetHackChallenge-v0",), "NetHackChallenge-v0", "plain",
               typical_steps=232),
)

_ENV_BY_NAME = {env.name: env for env in ENVS}


def env(name: str) -> BalrogEnv:
    """The environment row ``name`` (KeyError for unknown names)."""
    return _ENV_BY_NAME[name]


def env_names() -> tuple[str, ...]:
    """The environment names in BALROG's order."""
    return tuple(e.name for e in ENVS)

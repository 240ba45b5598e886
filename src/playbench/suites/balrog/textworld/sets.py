"""The games a TextWorld task cycles through: BALROG's published set, a user's folder, or the legacy set.

* ``balrog`` (default): BALROG's 25 games per task (``published.py``), regenerated locally as ``.z8``
  from their recorded seeds and settings and checked against the published facts.
* a folder (``-T games=PATH``): the user's games, in BALROG's order (``folder.py``).
* ``legacy``: the set playbench generated before it played BALROG's games (seeds 1..n with its own
  settings: treasure hunter level 30 unfiltered, cooking with ``--drop`` and no split, coin collector
  level 120). Runs recorded before keep it, so they resume with the games they started with.
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playbench.suites.balrog.textworld.generate import GameSpec
from playbench.suites.balrog.textworld.published import GAMES, RECIPES, PublishedGame

#: The legacy set's generator settings (``tw-make`` challenge, settings), as playbench used them.
LEGACY: dict[str, tuple[str, dict[str, Any]]] = {
    "treasure_hunter": ("tw-treasure_hunter", {"level": 30}),
    "the_cooking_game": (
        "tw-cooking",
        {"recipe": 5, "take": 5, "go": 12, "open": True, "cook": True, "cut": True, "drop": True,
         "recipe_seed": 0, "split": None},
    ),
    "coin_collector": ("tw-coin_collector", {"level": 120}),
}


@dataclass(frozen=True)
class GameRef:
    """One game of a set: made from ``spec``, or a ready ``.z8`` file at ``path``."""

    label: str
    spec: GameSpec | None = None
    path: Path | None = None
    #: the published facts the made game must match (BALROG's set only)
    published: PublishedGame | None = None


@dataclass(frozen=True)
class GameSet:
    """The games a task cycles through, in order."""

    name: str
    games: tuple[GameRef, ...]
    folder: str = ""


def balrog_specs(task: str) -> list[GameSpec]:
    """The specs of BALROG's 25 games of a task, in BALROG's order."""
    recipe = RECIPES[task]
    return [GameSpec(task=task, stem=game.label, challenge=recipe.challenge, settings=dict(recipe.settings),
                     seeds=game.seed_dict(), only_last_action=recipe.only_last_action,
                     closed_oven=recipe.closed_oven) for game in GAMES[task]]


def legacy_spec(task: str, seed: int) -> GameSpec:
    """The legacy set's game with generation seed ``seed`` (1..n)."""
    challenge, settings = LEGACY[task]
    return GameSpec(task=task, stem=f"{task}_seed{seed:04d}", challenge=challenge, settings=dict(settings),
                    seeds=seed)


def game_set(task: str, games: int | str | None, kind: str, preset_episodes: int) -> GameSet:
    """The set a task's parameters name (``games``: None, a count, or a folder; ``kind``: balrog|legacy)."""
    if isinstance(games, str):
        from playbench.suites.balrog.textworld.folder import folder_games

        return GameSet("folder", tuple(folder_games(Path(games).expanduser(), task)), str(games))
    if kind == "legacy":
        count = games or preset_episodes
        return GameSet("legacy", tuple(GameRef(f"seed {s}", spec=legacy_spec(task, s)) for s in range(1, count + 1)))
    refs = [GameRef(g.label, spec=s, published=g) for g, s in zip(GAMES[task], balrog_specs(task), strict=True)]
    return GameSet("balrog", tuple(refs[:games] if games else refs))

"""Where questions come from: an official data folder (``-T data=PATH``) or a procedural maze per episode."""

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from playbench.core.errors import PlaybenchError
from playbench.suites.mango.datacheck import check_game
from playbench.suites.mango.evaluate import GameEvaluator, Mode, TaskKind
from playbench.suites.mango.formats import GameFiles, JsonObject, game_names, open_data
from playbench.suites.mango.labels import difficulty
from playbench.suites.mango.procedural import GameData, MazeParams, generate
from playbench.suites.mango.prompts import KEYS, PromptStyle
from playbench.suites.mango.walkthrough import Prefix, walkthrough_prefix

Game = GameFiles | GameData


@dataclass
class PreparedGame:
    """A game with its prefix and question lists for one cutoff rule."""

    data: Game
    prefix: Prefix
    questions: dict[str, list[JsonObject]]  # "df"/"rf" -> answerable skeletons in file order
    shortest: dict[tuple[str, str], JsonObject]  # (S, D) -> first shortest DF skeleton

    @property
    def name(self) -> str:
        """The game's name."""
        return self.data.name

    def evaluator(self, mode: Mode, style: PromptStyle) -> GameEvaluator:
        """A scorer for this game."""
        return _evaluator(self, mode, style)


_EVALUATORS: dict[tuple[int, str, str], GameEvaluator] = {}


def _evaluator(game: PreparedGame, mode: Mode, style: PromptStyle) -> GameEvaluator:
    key = (id(game), mode, style)
    if key not in _EVALUATORS:
        d = game.data
        _EVALUATORS[key] = GameEvaluator(d.edges, d.actions, d.all2all, d.all_pairs, mode, KEYS[style])
    return _EVALUATORS[key]


def prepare(data: Game, cutoff: Literal["release", "paper"] = "release") -> PreparedGame:
    """The prefix, the answerable questions and the shortest-route index of a game."""
    prefix = walkthrough_prefix(data.walkthrough_text, cutoff)
    questions = {
        "df": [s for s in data.all2all if difficulty(s, prefix.cutoff) is not None],
        "rf": [s for s in data.all_pairs if difficulty(s, prefix.cutoff) is not None],
    }
    shortest: dict[tuple[str, str], JsonObject] = {}
    for r in data.all2all:
        if r["diff_shortest"] == 0:
            shortest.setdefault((r["src_node"], r["dst_node"]), r)
    return PreparedGame(data, prefix, questions, shortest)


@lru_cache(maxsize=8)
def data_games(path: str, games: str | None, cutoff: str) -> tuple[PreparedGame, ...]:
    """Every (filtered) game of an official data folder, each file read and checked once, then prepared.

    A bad file is a PlaybenchError naming it; the result is cached, so the check before a run (``check_data``)
    and the episodes share one reading.
    """
    out = []
    for game in open_data(path, game_names(games)):
        check_game(game)
        try:
            out.append(prepare(game, cutoff))  # type: ignore[arg-type]
        except ValueError as exc:  # the token-budget cut found no step header to stop at
            raise PlaybenchError(f"{game.path('walkthrough')}: cannot cut the walkthrough at the token budget "
                                 f"({exc})") from None
    return tuple(out)


def check_data(params: Any) -> None:
    """``Task.check_inputs`` of ``mango/df`` and ``mango/rf``: read and check every file of ``-T data=``."""
    if params.data:
        data_games(params.data, params.games, params.cutoff)


def data_question(path: str, games: str | None, cutoff: str, task: TaskKind, index: int) -> tuple[PreparedGame, JsonObject]:
    """The ``index``-th answerable question over the games of a data folder (games in name order)."""
    for game in data_games(path, games, cutoff):
        qs = game.questions[task]
        if index < len(qs):
            return game, qs[index]
        index -= len(qs)
    raise IndexError("question index beyond the data")


def data_question_count(path: str, games: str | None, cutoff: str, task: TaskKind) -> int:
    """How many answerable questions a data folder holds for a task."""
    return sum(len(g.questions[task]) for g in data_games(path, games, cutoff))


@lru_cache(maxsize=64)
def procedural_game(seed: int, locations: int, cutoff: str) -> PreparedGame:
    """The procedural game of a seed, prepared."""
    return prepare(generate(seed, MazeParams(locations=locations)), cutoff)  # type: ignore[arg-type]

"""The SmartPlay suite: a Task for every row of ``facts.TASKS`` and the benchmark group.

Engines are imported lazily inside ``make_game``.
"""

import importlib
from typing import TYPE_CHECKING, Any

from playbench.core.params import Params
from playbench.core.suite import Group, Suite
from playbench.core.task import PictureKind, Task
from playbench.suites.engines import CRAFTER
from playbench.suites.smartplay.crafter.params import SmartPlayCrafterParams
from playbench.suites.smartplay.facts import BENCHMARK_GROUP, CAPABILITIES, TASKS, SmartPlayTask
from playbench.suites.smartplay.params import MessengerParams, SmartPlayParams
from playbench.suites.smartplay.voxel.biomes import FIND_TASKS

if TYPE_CHECKING:  # games load when one is made, not to list tasks
    from playbench.core.game import Game


#: game -> (its Game class as ``module:Class``, imported when a game is made; its parameter model)
_GAMES: dict[str, tuple[str, type[Params]]] = {
    "bandit": ("playbench.suites.smartplay.bandit:BanditGame", SmartPlayParams),
    "rps": ("playbench.suites.smartplay.rps:RPSGame", SmartPlayParams),
    "hanoi": ("playbench.suites.smartplay.hanoi:HanoiGame", SmartPlayParams),
    "messenger": ("playbench.suites.smartplay.messenger.game:MessengerGame", MessengerParams),
    "crafter": ("playbench.suites.smartplay.crafter.game:SmartPlayCrafter", SmartPlayCrafterParams),
    "minecraft": ("playbench.suites.smartplay.voxel.game:MinecraftGame", SmartPlayParams),
}


def _make_game(params: Any, row: SmartPlayTask) -> "Game":
    """The Game of ``row``, handed its row."""
    module, _, name = _GAMES[row.game][0].partition(":")
    game: Game = getattr(importlib.import_module(module), name)(params, row)
    return game


def _check_messenger_text(params: MessengerParams) -> None:
    """Read and check ``-T messenger_text=`` before a run exists; compat refuses to run without it."""
    from playbench.core.errors import PlaybenchError
    from playbench.suites.smartplay.messenger.manual import OFFICIAL_FILE, make_source

    if params.compat and not params.messenger_text:
        raise PlaybenchError("Messenger with -T compat=true needs the official manual sentences: "
                             f"-T messenger_text=PATH, PATH = {OFFICIAL_FILE}")

    make_source(params.messenger_text)


def _messenger_note(params: MessengerParams) -> str:
    """Which manual source the run uses (templated manuals are not comparable with the paper)."""
    from playbench.suites.smartplay.messenger.manual import source_note

    return source_note("official" if params.messenger_text else "templated", hint=True)


def _describe(row: SmartPlayTask) -> str:
    v = row.variant
    if row.game == "bandit":
        return f"SmartPlay two-armed bandit ({v}): {row.max_steps} pulls, score = pulls of the best arm"
    if row.game == "rps":
        return f"SmartPlay rock-paper-scissors ({v}) against a biased opponent, {row.max_steps} rounds"
    if row.game == "hanoi":
        return f"SmartPlay Tower of Hanoi with {v} disks, {row.max_steps} steps, score = disks on rod C"
    if row.game == "messenger":
        return f"SmartPlay Messenger {row.note}. Native engine (no py-vgdl); score +1 delivered / -1 lost"
    if row.game == "crafter":
        return ("SmartPlay Crafter on the real crafter 1.8.3 engine (reproducible, text-only by default): 64x64 "
                f"world, {row.max_steps:,} steps, score = running sum of achievements unlocked (human 2680)")
    num, word = FIND_TASKS[str(v)]
    return (f"SmartPlay Minecraft creative:{num}, find a {word} biome in {row.max_steps} steps. SUBSTITUTE WORLD: a native "
            "voxel world with MineDojo's text interface (MineDojo itself cannot run offline); scores are not "
            "comparable with the paper's Minecraft column")




#: what the viewer draws from each game's observation text
_PICTURES: dict[str, PictureKind] = {"hanoi": "hanoi", "messenger": "compass-map", "crafter": "compass-map",
                                     "minecraft": "block-map"}


def build_task(row: SmartPlayTask) -> Task:
    """The Task of one facts row."""
    extra: dict[str, Any] = {}
    if row.game == "messenger":
        extra["check_inputs"] = _check_messenger_text
        extra["note"] = _messenger_note
    if row.game == "crafter":
        extra["engine"] = CRAFTER
        extra["tags"] = ("smartplay", "crafter")
    if row.game == "minecraft":
        extra["tags"] = ("substitute",)
    return Task(
        id=row.id,
        description=_describe(row),
        make_game=lambda params, index: _make_game(params, row),
        default_episodes=lambda params: params.episodes or row.episodes,
        params_model=_GAMES[row.game][1],
        aliases=row.aliases,
        reference_agents=("random", "oracle"),
        facts=row,
        max_steps=row.max_steps,
        picture=_PICTURES.get(row.game),
        **extra,
    )


def check_facts(task: Task) -> list[str]:
    """What the SmartPlay report needs of a task: its row, reference scores and nine capability degrees."""
    row = task.facts
    if not isinstance(row, SmartPlayTask):
        return [f"{task.id}: no SmartPlay facts row"]
    problems = []
    ref = row.reference
    if ref.kind not in ("human", "range") or ref.high == ref.low:
        problems.append(f"{task.id}: reference scores must be human or range with high != low")
    if len(row.degrees) != len(CAPABILITIES) or not all(1 <= d <= 4 for d in row.degrees):
        problems.append(f"{task.id}: needs {len(CAPABILITIES)} capability degrees between 1 and 4")
    if row.table2 is not None and ref.kind != "human":
        problems.append(f"{task.id}: a Table 2 game needs a human reference score")
    if min(row.episodes, row.max_steps, row.history) < 1:
        problems.append(f"{task.id}: episodes, max_steps and history must be at least 1")
    return problems


def benchmark_group(rows: tuple[SmartPlayTask, ...]) -> Group:
    """``smartplay/benchmark-v0``: the rows with a Table 2 column, in table order."""
    return Group.of(BENCHMARK_GROUP, "SmartPlay's benchmark set: the 7 starred games with their default trials",
                    [row.id for row in rows if row.table2 is not None])


SUITE = Suite(
    name="smartplay",
    tasks=tuple(build_task(row) for row in TASKS),
    groups=(benchmark_group(TASKS),),
    check_facts=check_facts,
    summary="playbench.suites.smartplay.summary:SUMMARY",
)

"""Registers SmartPlay's Messenger and Minecraft-substitute tasks, and the ``smartplay/benchmark-v0`` group.

Engines are imported lazily inside ``make_game``.
"""

from typing import Any

from playbench.core.game import Game
from playbench.core.params import ExistingPath
from playbench.core.registry import register_group, register_task
from playbench.core.task import Task
from playbench.suites.smartplay.base import SmartPlayParams
from playbench.suites.smartplay.voxel.biomes import FIND_TASKS


class MessengerParams(SmartPlayParams):
    """SmartPlay parameters plus ``messenger_text``: path to messenger-emma's ``text_test.json``.

    Without it the manual is written from playbench's templates (same information content); compat numbers
    are comparable to the paper only with the official text.
    """

    messenger_text: ExistingPath | None = None


def _trials(default: int):
    return lambda params: params.episodes or default


def _messenger(params: Any, index: int, level: int) -> Game:
    from playbench.suites.smartplay.messenger.game import MessengerGame

    return MessengerGame(params, level)


def _minecraft(params: Any, index: int, biome: str) -> Game:
    from playbench.suites.smartplay.voxel.game import MinecraftGame

    return MinecraftGame(params, biome)


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


_MESSENGER_TEXT = {
    1: "stage 1: the message is one step away, entities never move; 4 steps",
    2: "stage 2: new dynamics (chasing, fleeing, immovable entities); 64 steps",
    3: "stage 3: decoy message and goal that kill on contact; 128 steps",
}
for _level, _what in _MESSENGER_TEXT.items():
    register_task(Task(
        id=f"smartplay/messenger-{_level}",
        description=f"SmartPlay Messenger {_what}. Native engine (no py-vgdl); score +1 delivered / -1 lost",
        make_game=lambda params, index, lv=_level: _messenger(params, index, lv),
        default_episodes=_trials(100), params_model=MessengerParams,
        aliases=(f"MessengerL{_level}-v0", f"MessengerL{_level}"),
        reference_agents=("random", "oracle"),
        check_inputs=_check_messenger_text,
        note=_messenger_note,
    ))

for _biome, (_num, _word) in FIND_TASKS.items():
    register_task(Task(
        id=f"smartplay/minecraft-{_biome}",
        description=(
            f"SmartPlay Minecraft creative:{_num}, find a {_word} biome in 200 steps. SUBSTITUTE WORLD: a native "
            "voxel world with MineDojo's text interface (MineDojo itself cannot run offline); scores are not "
            "comparable with the paper's Minecraft column"
        ),
        make_game=lambda params, index, b=_biome: _minecraft(params, index, b),
        default_episodes=_trials(20), params_model=SmartPlayParams,
        aliases=(f"MinedojoCreative{_num}-v0", f"MinedojoCreative{_num}"),
        reference_agents=("random", "oracle"),
        tags=("substitute",),
    ))

register_group(
    "smartplay/benchmark-v0",
    "SmartPlay's benchmark set: the 7 starred games with their default trials",
    ["smartplay/bandit-highlow", "smartplay/rps-basic", "smartplay/hanoi-3", "smartplay/messenger-1",
     "smartplay/messenger-2", "smartplay/crafter", "smartplay/minecraft-plains"],
)

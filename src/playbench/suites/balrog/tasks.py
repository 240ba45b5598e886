"""BALROG tasks of this package (BabyAI-Text, TextWorld) and the ``balrog/all`` group.

Engines are imported lazily inside the game factories. The group collects every registered task id
with the ``balrog/`` prefix at import time, after importing the other BALROG task modules (Crafter,
Baba Is AI, MiniHack/NetHack) when they exist.
"""

import importlib
from typing import Any

from playbench.core.game import Game
from playbench.core.registry import _TASKS, register_group, register_task
from playbench.core.task import Task
from playbench.suites.balrog.params import BalrogParams, TextWorldParams
from playbench.suites.balrog.protocol import ENVS, episodes_for

BABYAI_TASKS: tuple[str, ...] = ("goto", "pickup", "open", "putnext", "pick_up_seq_go_to")
TEXTWORLD_TASKS: tuple[str, ...] = ("treasure_hunter", "the_cooking_game", "coin_collector")
#: The other BALROG task modules (owned by other parts of the suite), imported before building the group.
OTHER_TASK_MODULES: tuple[str, ...] = (
    "playbench.suites.balrog.crafter.tasks",
    "playbench.suites.balrog.babaisai.tasks",
    "playbench.suites.balrog.nle.tasks",
)


def _common(params: BalrogParams) -> dict[str, Any]:
    return {"images": params.images, "feedback": params.feedback, "max_steps": params.max_steps}


def _babyai(kind: str) -> Task:
    def make(params: BalrogParams, index: int) -> Game:
        from playbench.suites.balrog.babyai.game import BabyAIGame

        return BabyAIGame(kind, **_common(params))

    return Task(
        id=f"balrog/babyai/{kind}",
        description=f"BALROG BabyAI-Text MixedTrainLocal '{kind}' (Minigrid, level from the episode seed)",
        make_game=make,
        default_episodes=lambda p: episodes_for("babyai", p.preset),
        params_model=BalrogParams,
        aliases=(f"BabyAI-MixedTrainLocal-v0/{kind}",),
        reference_agents=("random", "oracle"),
        tags=("balrog", "babyai"),
    )


def _textworld(name: str) -> Task:
    def make(params: TextWorldParams, index: int) -> Game:
        from playbench.suites.balrog.textworld.game import TextWorldGame

        n_games = params.games or episodes_for("textworld", params.preset)
        return TextWorldGame(
            name, index, n_games, compat=params.compat, step_limit=params.step_limit, **_common(params)
        )

    return Task(
        id=f"balrog/textworld/{name}",
        description=f"BALROG TextWorld '{name}' on a locally generated, deterministic game set (text only)",
        make_game=make,
        default_episodes=lambda p: episodes_for("textworld", p.preset),
        params_model=TextWorldParams,
        reference_agents=("random", "oracle"),
        tags=("balrog", "textworld"),
    )


for _kind in BABYAI_TASKS:
    register_task(_babyai(_kind))
for _name in TEXTWORLD_TASKS:
    register_task(_textworld(_name))


def _import_other_parts() -> None:
    for module in OTHER_TASK_MODULES:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module and not module.startswith(f"{exc.name}."):
                raise  # a missing dependency inside an existing module is a real error


def _env_of(task_id: str) -> str:
    return task_id.split("/")[1]


def balrog_members() -> list[str]:
    """Every registered ``balrog/`` task, in BALROG's environment order, then in registration order."""
    ids = [tid for tid in _TASKS if tid.startswith("balrog/")]
    order = {env: i for i, env in enumerate(ENVS)}
    return sorted(ids, key=lambda tid: order.get(_env_of(tid), len(order)))


_import_other_parts()
register_group(
    "balrog/all",
    "BALROG: every registered environment's tasks (episodes per task: -T preset=config|paper)",
    balrog_members(),
)
register_group(
    "balrog/vlm",
    "BALROG's VLM set: every registered BALROG task except TextWorld (add -T images=true)",
    [tid for tid in balrog_members() if _env_of(tid) != "textworld"],
)

"""The BALROG suite: a Task for every row of ``facts.TASKS`` and the ``balrog/all`` and ``balrog/vlm`` groups.

Engines are imported lazily inside the game factories.
"""

from typing import TYPE_CHECKING, Any

from playbench.core.suite import Group, Suite
from playbench.core.task import Task
from playbench.suites.balrog import facts
from playbench.suites.balrog.babaisai.data import LEVELS as BABA_LEVELS
from playbench.suites.balrog.babaisai.tasks import build_task as babaisai_task
from playbench.suites.balrog.crafter.params import BalrogCrafterParams
from playbench.suites.balrog.facts import BalrogTask
from playbench.suites.balrog.nle.tasks import build_task as nle_task
from playbench.suites.balrog.params import BalrogParams, TextWorldParams
from playbench.suites.balrog.protocol import episodes_for
from playbench.suites.engines import BABYAI, CRAFTER, TEXTWORLD

if TYPE_CHECKING:  # games load when one is made, not to list tasks
    from playbench.core.game import Game


def _common(params: BalrogParams) -> dict[str, Any]:
    return {"images": params.images, "feedback": params.feedback, "max_steps": params.max_steps}


def _babyai(row: BalrogTask) -> Task:
    def make(params: BalrogParams, index: int) -> "Game":
        from playbench.suites.balrog.babyai.game import BabyAIGame

        return BabyAIGame(row, **_common(params))

    return Task(
        id=row.id,
        description=f"BALROG BabyAI-Text MixedTrainLocal '{row.level}' (Minigrid, level from the episode seed)",
        make_game=make,
        default_episodes=lambda p: episodes_for("babyai", p.preset),
        params_model=BalrogParams,
        aliases=row.aliases,
        reference_agents=("random", "oracle"),
        tags=("balrog", "babyai"),
        picture="facing-map",
        engine=BABYAI,
        facts=row,
        max_steps=row.max_steps,
    )


def _textworld_set(row: BalrogTask, params: TextWorldParams) -> Any:
    from playbench.suites.balrog.textworld.sets import game_set

    return game_set(row.level, params.games, params.game_set, episodes_for("textworld", params.preset))


def _check_games(row: BalrogTask, params: TextWorldParams) -> None:
    """Check the games before the run exists.

    A folder of games is listed (its unplayable formats refused); the cache where the other sets are made
    must be writable, unless it already holds every game.
    """
    games = _textworld_set(row, params)
    if games.name != "folder":
        from playbench.suites.balrog.textworld.cache import check_cache

        check_cache([ref.spec for ref in games.games if ref.spec is not None])


def _textworld(row: BalrogTask) -> Task:
    def make(params: TextWorldParams, index: int) -> "Game":
        from playbench.suites.balrog.textworld.game import TextWorldGame

        return TextWorldGame(row, index, _textworld_set(row, params), compat=params.compat,
                             max_steps_mode=params.max_steps_mode, **_common(params))

    def note(params: TextWorldParams) -> str:
        games = _textworld_set(row, params)
        if games.name == "folder":
            return f"{len(games.games)} games from {games.folder}"
        if games.name == "legacy":
            return f"playbench's legacy generated set ({len(games.games)} games)"
        return f"BALROG's published games ({len(games.games)}), regenerated as .z8 on first use"

    return Task(
        id=row.id,
        description=f"BALROG TextWorld '{row.level}' on BALROG's 25 published games, regenerated locally (text only)",
        make_game=make,
        default_episodes=lambda p: episodes_for("textworld", p.preset),
        params_model=TextWorldParams,
        aliases=row.aliases,
        reference_agents=("random", "oracle"),
        tags=("balrog", "textworld"),
        check_inputs=lambda params: _check_games(row, params),
        note=note,
        engine=TEXTWORLD,
        facts=row,
        max_steps=row.max_steps,
    )


def _crafter(row: BalrogTask) -> Task:
    def make(params: BalrogCrafterParams, index: int) -> "Game":
        from playbench.suites.balrog.crafter.game import BalrogCrafter

        return BalrogCrafter(params, row)

    return Task(
        id=row.id,
        description=(
            f"BALROG Crafter on the real crafter 1.8.3 engine (reproducible): {row.max_steps:,} steps, "
            "progression = achievements unlocked / 22; images=true for VLM mode (256x256)"
        ),
        make_game=make,
        default_episodes=lambda params: episodes_for("crafter", params.preset),
        params_model=BalrogCrafterParams,
        aliases=row.aliases,
        reference_agents=("random", "oracle"),
        tags=("balrog", "crafter"),
        picture="compass-map",
        engine=CRAFTER,
        facts=row,
        max_steps=row.max_steps,
    )


_BUILDERS = {"babyai": _babyai, "textworld": _textworld, "crafter": _crafter, "babaisai": babaisai_task,
             "minihack": nle_task, "nle": nle_task}


def build_task(row: BalrogTask) -> Task:
    """The Task of one facts row."""
    return _BUILDERS[row.env](row)


def check_facts(task: Task) -> list[str]:
    """What the BALROG report needs of a task: its row, a known environment, a step limit and the level it plays."""
    row = task.facts
    if not isinstance(row, BalrogTask):
        return [f"{task.id}: no BALROG facts row"]
    problems = []
    if row.env not in facts.env_names():
        problems.append(f"{task.id}: environment {row.env!r} is not in facts.ENVS")
    if task.id != row.id:
        problems.append(f"{task.id}: the id must be balrog/<env>/<name> of its row")
    if row.max_steps < 1:
        problems.append(f"{task.id}: needs a step limit (max_steps) of at least 1")
    problems += _level_problems(task.id, row)
    if row.env == "textworld" and not row.prompt_steps:
        problems.append(f"{task.id}: a TextWorld task needs the step count its prompt states")
    if row.kind and row.env not in ("minihack", "nle"):
        problems.append(f"{task.id}: only MiniHack/NetHack rows have a game kind")
    if row.env in ("minihack", "nle") and (not row.original or row.kind not in ("boxoban", "navigation", "plain")):
        problems.append(f"{task.id}: a MiniHack/NetHack row needs its original env id and a game kind")
    return problems


def _level_problems(task_id: str, row: BalrogTask) -> list[str]:
    """A BabyAI, TextWorld or Baba Is AI row names a level its engine builds; no other row names one."""
    from playbench.suites.balrog.textworld.published import GAMES  # plain data, read when rows are checked

    known = {"babyai": (facts.BABYAI_LEVELS, "facts.BABYAI_LEVELS"),
             "textworld": (tuple(GAMES), "textworld.published.GAMES"),
             "babaisai": (tuple(BABA_LEVELS), "babaisai.data.LEVELS")}.get(row.env)
    if known is None:
        return [f"{task_id}: only BabyAI, TextWorld and Baba Is AI rows name a level"] if row.level else []
    levels, where = known
    if row.level not in levels:
        return [f"{task_id}: level {row.level!r} is not in {where}"]
    return []


_ALL = [row.id for row in facts.TASKS]

SUITE = Suite(
    name="balrog",
    tasks=tuple(build_task(row) for row in facts.TASKS),
    groups=(
        Group.of("balrog/all", "BALROG: every registered environment's tasks (episodes per task: -T preset=config|paper)",
                 _ALL),
        Group.of("balrog/vlm", "BALROG's VLM set: every registered BALROG task except TextWorld (add -T images=true)",
                 [tid for row, tid in zip(facts.TASKS, _ALL, strict=True) if row.env != "textworld"]),
    ),
    check_facts=check_facts,
    summary="playbench.suites.balrog.summary:SUMMARY",
    demos="playbench.suites.balrog.records:read_demos",
    formats={"balrog": "playbench.suites.balrog.folder:FORMAT"},
)

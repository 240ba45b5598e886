"""playbench's tasks as gymnasium environments: ``gymnasium.make("playbench/<suite>.<name>-v0")``.

The ids are registered when ``playbench`` is imported, from the fixed list below, so registering imports
no suite and no engine: a task's suite (and its engine) is imported by ``make`` alone. gymnasium 1.x no
longer loads plugins from entry points; ``gymnasium.make("playbench:playbench/…")`` imports playbench
itself, so that form needs no other call.

Importing gymnasium (and numpy under it) takes longer than the whole ``playbench --help``, so
``import playbench`` does not: when gymnasium is already imported the ids are registered at once,
otherwise the first ``import gymnasium`` registers them as it finishes (a finder on ``sys.meta_path``
that wraps gymnasium's own loader and then steps aside).
"""

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import importlib.machinery

    import gymnasium

NAMESPACE = "playbench"

#: Every registered task id (``tests/core/test_gym_face.py`` checks this list against the registry).
TASK_IDS: tuple[str, ...] = (
    "balrog/babaisai/goto_win",
    "balrog/babaisai/goto_win-distr_obj",
    "balrog/babaisai/goto_win-distr_obj-irrelevant_rule",
    "balrog/babaisai/goto_win-distr_obj_rule",
    "balrog/babaisai/goto_win-distr_rule",
    "balrog/babaisai/make_win",
    "balrog/babaisai/make_win-distr_obj",
    "balrog/babaisai/make_win-distr_obj-irrelevant_rule",
    "balrog/babaisai/make_win-distr_obj_rule",
    "balrog/babaisai/make_win-distr_rule",
    "balrog/babaisai/two_room-break_stop-goto_win",
    "balrog/babaisai/two_room-break_stop-goto_win-distr_obj",
    "balrog/babaisai/two_room-break_stop-goto_win-distr_obj-irrelevant_rule",
    "balrog/babaisai/two_room-break_stop-goto_win-distr_obj_rule",
    "balrog/babaisai/two_room-break_stop-goto_win-distr_rule",
    "balrog/babaisai/two_room-break_stop-make_win",
    "balrog/babaisai/two_room-break_stop-make_win-distr_obj",
    "balrog/babaisai/two_room-break_stop-make_win-distr_obj-irrelevant_rule",
    "balrog/babaisai/two_room-break_stop-make_win-distr_obj_rule",
    "balrog/babaisai/two_room-break_stop-make_win-distr_rule",
    "balrog/babaisai/two_room-goto_win",
    "balrog/babaisai/two_room-goto_win-distr_obj",
    "balrog/babaisai/two_room-goto_win-distr_obj-irrelevant_rule",
    "balrog/babaisai/two_room-goto_win-distr_obj_rule",
    "balrog/babaisai/two_room-goto_win-distr_rule",
    "balrog/babaisai/two_room-goto_win-distr_win_rule",
    "balrog/babaisai/two_room-make_wall_win",
    "balrog/babaisai/two_room-make_win",
    "balrog/babaisai/two_room-make_win-distr_obj",
    "balrog/babaisai/two_room-make_win-distr_obj-irrelevant_rule",
    "balrog/babaisai/two_room-make_win-distr_obj_rule",
    "balrog/babaisai/two_room-make_win-distr_rule",
    "balrog/babaisai/two_room-make_win-distr_win_rule",
    "balrog/babaisai/two_room-make_you",
    "balrog/babaisai/two_room-make_you-make_win",
    "balrog/babaisai/two_room-maybe_break_stop-goto_win",
    "balrog/babaisai/two_room-maybe_break_stop-goto_win-distr_obj",
    "balrog/babaisai/two_room-maybe_break_stop-goto_win-distr_obj-irrelevant_rule",
    "balrog/babaisai/two_room-maybe_break_stop-goto_win-distr_obj_rule",
    "balrog/babaisai/two_room-maybe_break_stop-goto_win-distr_rule",
    "balrog/babyai/goto",
    "balrog/babyai/open",
    "balrog/babyai/pick_up_seq_go_to",
    "balrog/babyai/pickup",
    "balrog/babyai/putnext",
    "balrog/crafter/default",
    "balrog/minihack/boxoban-hard",
    "balrog/minihack/boxoban-medium",
    "balrog/minihack/corridor-r3",
    "balrog/minihack/corridorbattle-dark",
    "balrog/minihack/mazewalk-15x15",
    "balrog/minihack/mazewalk-9x9",
    "balrog/minihack/quest-easy",
    "balrog/minihack/quest-medium",
    "balrog/nle/nethackchallenge",
    "balrog/textworld/coin_collector",
    "balrog/textworld/the_cooking_game",
    "balrog/textworld/treasure_hunter",
    "grasp/energy",
    "grasp/energy-interactive",
    "mango/df",
    "mango/minigame",
    "mango/rf",
    "smartplay/bandit-deterministic",
    "smartplay/bandit-highhigh",
    "smartplay/bandit-highlow",
    "smartplay/bandit-lowlow",
    "smartplay/crafter",
    "smartplay/hanoi-3",
    "smartplay/hanoi-4",
    "smartplay/messenger-1",
    "smartplay/messenger-2",
    "smartplay/messenger-3",
    "smartplay/minecraft-beach",
    "smartplay/minecraft-desert",
    "smartplay/minecraft-forest",
    "smartplay/minecraft-ice-spikes",
    "smartplay/minecraft-jungle",
    "smartplay/minecraft-ocean",
    "smartplay/minecraft-plains",
    "smartplay/minecraft-taiga",
    "smartplay/rps-basic",
    "smartplay/rps-different-score",
)


def gym_id(task_id: str) -> str:
    """The gymnasium id of a task: ``playbench/<id with '/' as '.'>-v0``."""
    return f"{NAMESPACE}/" + task_id.replace("/", ".") + "-v0"


def make_env(task_id: str, index: int = 0, **params: Any) -> "gymnasium.Env":
    """Build the Game of episode ``index`` of a task with ``key=value`` parameters (the gymnasium entry point)."""
    from playbench.core.registry import get_task  # the suites load here, not at registration

    task = get_task(task_id)
    return task.make_game(task.params(params), index)


#: ids of tasks declared outside the package, registered with the built-in ones
_EXTRA_IDS: list[str] = []


def register_env(task_id: str) -> None:
    """Register one task's gymnasium id, now if gymnasium is imported, else when it is (never imports it)."""
    module = sys.modules.get("gymnasium")
    if module is None or not hasattr(module, "registry"):
        if task_id not in TASK_IDS and task_id not in _EXTRA_IDS:
            _EXTRA_IDS.append(task_id)
        register_when_imported()
        return
    gid = gym_id(task_id)
    if gid not in module.registry:
        module.register(id=gid, entry_point=f"{__name__}:make_env", kwargs={"task_id": task_id})


def register_envs() -> None:
    """Register every built-in task's gymnasium id, and those of tasks declared since by the user's suites."""
    for task_id in (*TASK_IDS, *_EXTRA_IDS):
        register_env(task_id)


def register_when_imported() -> None:
    """Register the ids now if gymnasium is imported, else as soon as it is (without importing it)."""
    module = sys.modules.get("gymnasium")
    if module is not None and hasattr(module, "registry"):
        register_envs()
    elif not any(isinstance(f, _OnGymnasiumImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _OnGymnasiumImport())


class _OnGymnasiumImport:  # an importlib.abc.MetaPathFinder (importlib.abc itself costs 10 ms to import)
    """Finds gymnasium with the finders after it, and registers the ids once its module has run."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> "importlib.machinery.ModuleSpec | None":
        """Only for ``gymnasium``: its real spec, with a loader that registers the ids after loading it."""
        if fullname != "gymnasium":
            return None
        import importlib.util

        sys.meta_path.remove(self)  # once only, and out of the way of the search below
        spec = importlib.util.find_spec(fullname)
        if spec is not None and spec.loader is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = _RegisteringLoader(spec.loader)  # type: ignore[assignment]
        return spec


class _RegisteringLoader:  # an importlib.abc.Loader
    """gymnasium's own loader, then ``register_envs``."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:  # get_code, get_resource_reader …: gymnasium's loader answers
        return getattr(self.inner, name)

    def create_module(self, spec: "importlib.machinery.ModuleSpec") -> Any:
        """As gymnasium's loader does."""
        return self.inner.create_module(spec)

    def exec_module(self, module: Any) -> None:
        """Run gymnasium's ``__init__``, then register playbench's ids in its registry."""
        self.inner.exec_module(module)
        register_envs()

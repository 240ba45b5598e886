"""playbench's tasks as gymnasium environments: ``gymnasium.make("playbench/<suite>.<name>-v0")``.

Every registered task has an id: this face subscribes to the task registry (``registry.on_register``; core
imports nothing of it), so the ids follow the suites' facts tables and the user's suites, each with its row's
step limit as ``max_episode_steps``. Registering reads the suites' task tables, never a game module or an
engine: ``make`` alone imports those.

gymnasium must be imported to register into its registry, and ``import playbench`` must not import it (that
costs more than the whole ``playbench --help``). So importing playbench registers the ids at once when
gymnasium is already imported (as it is for ``gymnasium.make("playbench:playbench/…")``, gymnasium's own way
of naming the module that registers an id), and otherwise when gymnasium is first imported: gymnasium 1.x no
longer loads plugins from the ``gymnasium.envs`` entry points, so a finder on ``sys.meta_path`` wraps its
loader for that one import and then steps aside.
"""

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import importlib.machinery

    import gymnasium

    from playbench.core.task import Task

NAMESPACE = "playbench"
#: The one render mode: ``render()`` returns the current observation text.
RENDER_MODES = ("ansi",)


def gym_id(task_id: str) -> str:
    """The gymnasium id of a task: ``playbench/<id with '/' as '.'>-v0``."""
    return f"{NAMESPACE}/" + task_id.replace("/", ".") + "-v0"


def make_env(task_id: str, index: int = 0, render_mode: str | None = None, **params: Any) -> "gymnasium.Env":
    """Build the Game of episode ``index`` of a task with ``key=value`` parameters (the gymnasium entry point).

    Its inputs are checked as ``playbench eval`` checks them (engine, data files, compat's official texts).
    """
    from playbench.core.errors import PlaybenchError
    from playbench.core.registry import get_task  # the suites load here, not at registration

    if render_mode is not None and render_mode not in RENDER_MODES:
        raise PlaybenchError(f"{gym_id(task_id)}: render_mode {render_mode!r}: the only render mode is 'ansi' "
                             "(render() returns the observation text)")
    task = get_task(task_id)
    values = task.params(params)
    task.validate_inputs(values)
    game = task.make_game(values, index)
    game.render_mode = render_mode
    return game


def register_env(task: "Task") -> None:
    """Register one task's gymnasium id (gymnasium is imported by then)."""
    import gymnasium

    gid = gym_id(task.id)
    if gid not in gymnasium.registry:
        gymnasium.register(id=gid, entry_point=f"{__name__}:make_env", kwargs={"task_id": task.id},
                           max_episode_steps=task.max_steps)


def register_envs() -> None:
    """Register the id of every task, and of each task registered later (imports gymnasium)."""
    from playbench.core import registry

    registry.on_register(register_env)
    try:
        registry.load_suites()
    except Exception:  # noqa: BLE001 - a user's suite module that fails must not break ``import gymnasium``
        pass  # the built-in ids are registered; the failure is raised again by whatever loads the suites next


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

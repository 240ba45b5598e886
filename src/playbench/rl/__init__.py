"""Reinforcement-learning faces of playbench: each benchmark's own requests and score, one episode per seed.

``ChatEnv`` plays one episode of a task as a chat environment (``reset() -> messages``, ``step(text)``)
through the same runner, agents and records as ``playbench eval``; ``write_run`` writes finished
rollouts as a playbench run that ``report``, ``view`` and ``verify`` read; ``ToolEnv`` is an episode as TRL's
tool environment (``act(action)``). See docs/rl.md.

The names below are imported on first use, so ``import playbench.rl`` stays cheap.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playbench.rl.chat_env import DEFAULT_MODEL, ChatEnv, EnvSpec, Rollout, StepResult, env_spec
    from playbench.rl.rollouts import write_run
    from playbench.rl.tool_env import ToolEnv

# public name -> module
_LAZY = {
    "ChatEnv": "chat_env", "EnvSpec": "chat_env", "Rollout": "chat_env", "StepResult": "chat_env",
    "env_spec": "chat_env", "DEFAULT_MODEL": "chat_env", "write_run": "rollouts", "ToolEnv": "tool_env",
}

__all__ = ["DEFAULT_MODEL", "ChatEnv", "EnvSpec", "Rollout", "StepResult", "ToolEnv", "env_spec", "write_run"]


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'playbench.rl' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"playbench.rl.{_LAZY[name]}"), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})

"""The ``-A`` parameters of the model agents (prompt strategies); ``preflight`` refuses bad combinations early.

The agents themselves are rows of ``agents/registry.py``, which names these declarations.
"""

from collections.abc import Iterable
from typing import Literal

import numpy as np

from playbench.agents.few_shot import MISSING, demo_candidates, load_demos
from playbench.agents.registry import get_agent
from playbench.core.errors import PlaybenchError
from playbench.core.params import Field, Params
from playbench.core.task import Task


class StrategyParams(Params):
    """``-A`` parameters of the BALROG strategies."""

    compat: bool = False  # reproduce BALROG's parsing and history bugs (B5-B8)
    max_text_history: int = Field(16, ge=0)
    max_image_history: int = Field(1, ge=0)
    max_cot_history: int = Field(1, ge=0)
    feedback_on_invalid_action: bool = True
    # Opt-in departure: add "List of all actions:" (auto: unless the prompt already numbers them).
    list_actions: Literal["never", "auto", "always"] = "never"
    allow_prompt_change: bool = False  # let this strategy alter a one-step task's official prompt


class FewShotParams(StrategyParams):
    """``-A`` parameters of the few-shot strategy."""

    demos: str | None = None  # a playbench run directory (or a folder of runs) with demonstration episodes
    icl_episodes: int = Field(1, ge=1)
    max_icl_history: int = Field(1000, ge=1)


class TwoStageParams(Params):
    """``-A`` parameters of SmartPlay's two-stage strategy."""

    compat: bool = False  # SmartPlay's substring match_act and its silent fallback (B8)
    list_actions: Literal["never", "auto", "always"] = "never"  # opt-in, as for the BALROG strategies
    allow_prompt_change: bool = False


#: Strategies that send a one-step task's official prompt unchanged.
KEEPS_ONE_STEP_PROMPT = frozenset({"naive"})


def preflight(agent: str, params: Params, tasks: Iterable[Task]) -> None:
    """Refuse, before anything runs, what cannot work.

    That is: prompt-altering strategies on one-step tasks (unless ``allow_prompt_change``), and
    few-shot without demonstrations for every task.
    """
    spec = get_agent(agent)
    if not spec.needs_model:
        return
    tasks = list(tasks)
    allow = bool(getattr(params, "allow_prompt_change", False))
    for task in tasks:
        if task.one_step and agent not in KEEPS_ONE_STEP_PROMPT and not allow:
            raise PlaybenchError(
                f"agent {agent!r} would alter the official prompt of one-step task {task.id}; use --agent naive "
                "(sends it unchanged) or -A allow_prompt_change=true")
    if agent == "few-shot":
        demos_path = getattr(params, "demos", None)
        if not demos_path:
            raise PlaybenchError(MISSING)
        demos = load_demos(str(demos_path))
        for task in tasks:
            if not demo_candidates(demos, task.id, np.random.default_rng(0)):
                raise PlaybenchError(f"no demonstration for {task.id} in {demos_path} (an ok episode of the task, "
                                     "or for BALROG's records of Baba Is AI, a record of another Baba Is AI task)")

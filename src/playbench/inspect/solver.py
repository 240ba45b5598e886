"""The solver: plays one playbench episode through ``ChatEnv``, asking Inspect's model at every step.

Each request the agent builds is converted to Inspect's messages as is (``messages.to_inspect``) and sent
with ``get_model().generate``, so Inspect's provider, connection limit, retries, cache and batch mode
apply and every call is a model event of the sample's transcript. The answer's text goes back to the
episode; the runner's own loop parses it, plays the game and scores, as in ``playbench eval``. Beside the
model calls the transcript gets the game's side of each turn and then the episode's record (``events``).
"""

import dataclasses

from inspect_ai.log import transcript
from inspect_ai.model import ChatMessage, ChatMessageAssistant, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from playbench.core.errors import PlaybenchError
from playbench.inspect.events import SOURCE, episode_data, step_data
from playbench.inspect.messages import to_inspect
from playbench.rl.chat_env import ChatEnv, EnvSpec


class EpisodeFault(Exception):
    """An episode that ended ``infra-error`` (the machine failed the game): an Inspect sample error, not a score."""


def for_model(spec: EnvSpec, model: str) -> EnvSpec:
    """``spec`` with the records naming ``model`` (Inspect's ``provider/name``)."""
    return dataclasses.replace(spec, config=spec.config.model_copy(update={"model": model}))


@solver
def play_episode(specs: dict[str, EnvSpec]) -> Solver:
    """Play the sample's episode (metadata ``task``, ``index``) of the matching spec with the task's model."""
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        meta = state.metadata
        spec = specs.get(str(meta.get("task")))
        if spec is None:
            raise PlaybenchError(f"sample {state.sample_id}: task {meta.get('task')!r} is not one of this eval's")
        model = get_model()
        env = ChatEnv.from_spec(for_model(spec, str(state.model)), int(meta["index"]))
        last: list[ChatMessage] = []
        logged = 0
        try:
            await env.areset()
            while env.request is not None:
                last = to_inspect(env.request)
                output = await model.generate(last)
                state.output = output
                last = [*last, ChatMessageAssistant(content=output.completion, model=output.model)]
                result = await env.astep(output.completion)
                steps = env.steps()
                for step in steps[logged:]:  # the game's side of the turn, beside its model call
                    progress = result.info.get("progress") if step is steps[-1] else None
                    transcript().info(step_data(step, progress), source=SOURCE)
                logged = len(steps)
        finally:
            await env.aclose()
        record = env.record()
        transcript().info(episode_data(record), source=SOURCE)
        state.messages = last
        if record.status == "infra-error":
            raise EpisodeFault(f"{record.task} #{record.index}: infra-error: {record.error}")
        return state

    return solve

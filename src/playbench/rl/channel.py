"""The channel model: a real ``Model`` whose provider hands each request to the ChatEnv caller.

The agent calls ``Model.generate`` as in any run, so the episode's ledger, usage and answer cleaning are
the Model's own. Only the provider differs: instead of asking a server it awaits the text the caller
gives to ``ChatEnv.step``. Its token counts are the mock provider's estimate (4 characters a token), so a
rollout's records equal those of a ``playbench eval`` run with a ``mock/…`` model that gave the same
answers; they are not the policy's own tokenizer counts.

As in an eval run, one Model serves many episodes at once: each episode's task names where its requests
go (``answered_by``), as each sets its own ledger. A ChatEnv shares one channel model between the
episodes of its spec on one event loop.
"""

from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any

from playbench.models.mockbrain import approx_tokens
from playbench.models.model import Model, ModelSettings
from playbench.models.providers.base import Provider
from playbench.models.providers.mock import prompt_tokens
from playbench.models.types import GenerateConfig, Message, ModelOutput

#: ``ask(messages) -> answer``: hands a request to the caller and waits for the model's raw answer
Ask = Callable[[list[Message]], Awaitable[str]]

#: the ``ask`` of the episode whose task is running (each task has its own, see ``answered_by``)
_ASK: ContextVar[Ask] = ContextVar("playbench_channel_ask")

#: requests a channel model lets wait for their answers at once: no bound (each episode holds one while
#: its caller thinks; a bound would leave the episodes past it waiting for another's answer)
UNBOUNDED = 2**31 - 1


def answered_by(ask: Ask) -> None:
    """Send the requests the current task makes through a channel model to ``ask``: call it in the episode's task."""
    _ASK.set(ask)


class ChannelProvider(Provider):
    """Answers with whatever the ChatEnv caller gives; makes no HTTP request and never fails."""

    name = "channel"
    uses_http = False
    in_process = True

    def __init__(self, model: str) -> None:
        super().__init__(model, "channel://", None)

    async def generate(self, client: Any, messages: list[Message], config: GenerateConfig) -> ModelOutput:
        """The caller's answer, stripped as every provider strips it, with the mock provider's token counts."""
        ask = _ASK.get(None)
        if ask is None:
            raise RuntimeError("a channel model was asked outside an episode that named its answerer (answered_by)")
        text = await ask(messages)
        return ModelOutput(text=text.strip(), input_tokens=request_tokens(messages), output_tokens=approx_tokens(text))


def request_tokens(messages: list[Message]) -> int:
    """The mock provider's ``prompt_tokens``: the same sum, without building a tagged text for messages with no image.

    A request repeats its whole history at every step, so this runs over every message of it every step: in one
    pass, each message's ``approx_tokens`` summed inline (``len // 4 + 1``; a call a message would cost more).
    """
    total = 0
    for m in messages:
        if m.images:
            return prompt_tokens(messages)
        total += len(m.content) // 4
    return total + len(messages)


def channel_model(name: str, config: GenerateConfig) -> Model:
    """A Model named ``name`` (``provider/model``) whose answers come from each episode's ``answered_by``.

    It carries a cost only when ``config`` gives prices: a list price applied to estimated tokens would be
    a number that looks measured and is not.
    """
    model = Model(name, ChannelProvider(name.partition("/")[2] or name), config,
                  ModelSettings(max_connections=UNBOUNDED, max_retries=0))
    if config.price_input is None and config.price_output is None:
        model.prices = None
    return model

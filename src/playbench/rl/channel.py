"""The channel model: a real ``Model`` whose provider hands each request to the ChatEnv caller.

The agent calls ``Model.generate`` as in any run, so the episode's ledger, usage and answer cleaning are
the Model's own. Only the provider differs: instead of asking a server it awaits the text the caller
gives to ``ChatEnv.step``. Its token counts are the mock provider's estimate (4 characters a token), so a
rollout's records equal those of a ``playbench eval`` run with a ``mock/…`` model that gave the same
answers; they are not the policy's own tokenizer counts.
"""

from collections.abc import Awaitable, Callable
from typing import Any

from playbench.models.mockbrain import approx_tokens
from playbench.models.model import Model, ModelSettings
from playbench.models.providers.base import Provider
from playbench.models.providers.mock import prompt_tokens
from playbench.models.types import GenerateConfig, Message, ModelOutput

#: ``ask(messages) -> answer``: hands a request to the caller and waits for the model's raw answer
Ask = Callable[[list[Message]], Awaitable[str]]


class ChannelProvider(Provider):
    """Answers with whatever the ChatEnv caller gives; makes no HTTP request and never fails."""

    name = "channel"
    uses_http = False

    def __init__(self, model: str, ask: Ask) -> None:
        super().__init__(model, "channel://", None)
        self.ask = ask

    async def generate(self, client: Any, messages: list[Message], config: GenerateConfig) -> ModelOutput:
        """The caller's answer, stripped as every provider strips it, with the mock provider's token counts."""
        text = await self.ask(messages)
        return ModelOutput(text=text.strip(), input_tokens=prompt_tokens(messages), output_tokens=approx_tokens(text))


def channel_model(name: str, config: GenerateConfig, ask: Ask) -> Model:
    """A Model named ``name`` (``provider/model``) whose answers come from ``ask``.

    It carries a cost only when ``config`` gives prices: a list price applied to estimated tokens would be
    a number that looks measured and is not.
    """
    model = Model(name, ChannelProvider(name.partition("/")[2] or name, ask), config,
                  ModelSettings(max_connections=1, max_retries=0))
    if config.price_input is None and config.price_output is None:
        model.prices = None
    return model

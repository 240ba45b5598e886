"""The wire formats: for each, the provider class that speaks it live and its batch flow (None: it has none).

A provider row (``models/providers_table.py``) names one of these by its key; the factory builds the row's
live class and ``--batch`` uses the batch flow of the wire format a provider speaks (its ``name``). Nothing
else chooses a class by a provider's name.
"""

from typing import NamedTuple

from playbench.models.providers.anthropic import AnthropicProvider
from playbench.models.providers.anthropic_batch import AnthropicBatches
from playbench.models.providers.base import Provider
from playbench.models.providers.batching import BatchFlow
from playbench.models.providers.google import GoogleProvider
from playbench.models.providers.google_batch import GeminiBatches
from playbench.models.providers.mock import MockProvider
from playbench.models.providers.openai import OpenAIProvider
from playbench.models.providers.openai_batch import OpenAIBatches
from playbench.models.providers_table import PROVIDERS, check_rows


class Wire(NamedTuple):
    """What speaks one wire format."""

    live: type[Provider]  # built by the factory (from its row's server and key, or in process without ``uses_http``)
    batches: type[BatchFlow] | None  # the provider's batch API under ``--batch``; None: it has none


#: wire format -> its classes; each live class's ``name`` is its key (what a provider instance says it speaks)
WIRES: dict[str, Wire] = {
    "openai": Wire(OpenAIProvider, OpenAIBatches),
    "anthropic": Wire(AnthropicProvider, AnthropicBatches),
    "google": Wire(GoogleProvider, GeminiBatches),
    "mock": Wire(MockProvider, None),
}

check_rows(PROVIDERS, WIRES)  # a row naming a wire format not here fails on import, before any model is made


def batch_flow(provider: Provider) -> type[BatchFlow] | None:
    """The batch flow of the wire format ``provider`` speaks (None: it has no batch API)."""
    wire = WIRES.get(provider.name)
    return wire.batches if wire is not None else None

"""Optional price table: USD per million tokens, turned into micro-dollars per call.

Prices change; the table holds a few list prices as a convenience and ``-M price_input=…``
``-M price_output=…`` (``price_cache_read``, ``price_cache_write``) override it. Unknown models simply
carry no cost.

A prompt token is priced by what the provider's prompt cache did with it: read from the cache
(``cache_read_tokens``: the cached rate), written to it (``cache_write_tokens``: Anthropic's write rate,
the input rate elsewhere), neither (the input rate). All three are parts of ``input_tokens``.
"""

from typing import NamedTuple

from playbench.models.types import GenerateConfig, ModelOutput

#: The providers' batch APIs bill every token at half the price of an interactive request: OpenAI Batch
#: API, Anthropic Message Batches, Gemini Batch Mode (each provider's pricing page, checked 2025-06).
BATCH_DISCOUNT = 0.5


class Price(NamedTuple):
    """USD per million tokens; ``batch`` is the factor a provider batch applies to all of them."""

    input: float
    output: float
    cache_read: float
    cache_write: float
    batch: float = BATCH_DISCOUNT


#: model name (without provider) -> its list prices (the providers' pricing pages, checked 2025-06).
#: OpenAI and Gemini charge nothing extra to write their caches (write = input); Anthropic charges 1.25
#: times the input price for its 5-minute cache and 0.1 times to read it. Gemini 1.5: the prompts up to
#: 128k tokens.
PRICES: dict[str, Price] = {
    "gpt-4o": Price(2.50, 10.00, 1.25, 2.50),
    "gpt-4o-mini": Price(0.15, 0.60, 0.075, 0.15),
    "gpt-4.1": Price(2.00, 8.00, 0.50, 2.00),
    "gpt-4.1-mini": Price(0.40, 1.60, 0.10, 0.40),
    "claude-3-5-sonnet-20241022": Price(3.00, 15.00, 0.30, 3.75),
    "claude-3-5-haiku-20241022": Price(0.80, 4.00, 0.08, 1.00),
    "gemini-1.5-pro": Price(1.25, 5.00, 0.3125, 1.25),
    "gemini-1.5-flash": Price(0.075, 0.30, 0.01875, 0.075),
}


def price_for(model: str, config: GenerateConfig) -> Price | None:
    """The prices of ``model`` (without provider prefix), or ``None`` when unknown.

    ``-M price_input/price_output`` replace the table's; cached tokens then cost ``price_cache_read`` and
    ``price_cache_write`` when given, else the input price (no discount is assumed that was not stated).
    """
    if config.price_input is not None or config.price_output is not None:
        given = config.price_input or 0.0
        read = config.price_cache_read if config.price_cache_read is not None else given
        write = config.price_cache_write if config.price_cache_write is not None else given
        return Price(given, config.price_output or 0.0, read, write)
    return PRICES.get(model)


def token_cost_usd(prices: Price, input_tokens: int, output_tokens: int, cache_read: int = 0, cache_write: int = 0,
                   batch: bool = False) -> float:
    """Dollars for these counts; ``cache_read`` and ``cache_write`` are parts of ``input_tokens``."""
    return _micro(prices, input_tokens, output_tokens, cache_read, cache_write, batch) / 1e6


def _micro(prices: Price, input_tokens: int, output_tokens: int, cache_read: int, cache_write: int,
           batch: bool = False) -> float:
    """Micro-dollars (USD per million tokens times tokens)."""
    fresh = max(0, input_tokens - cache_read - cache_write)
    micro = (fresh * prices.input + cache_read * prices.cache_read + cache_write * prices.cache_write
             + output_tokens * prices.output)
    return micro * prices.batch if batch else micro


def cost_micro_usd(output: ModelOutput, prices: Price) -> int:
    """Cost of one answer in micro-dollars, cached prompt tokens at their rates (answer-cache hits cost nothing)."""
    if output.cached:
        return 0
    return round(_micro(prices, output.input_tokens, output.output_tokens, output.cache_read_tokens or 0,
                        output.cache_write_tokens or 0))

"""Optional price table: USD per million input/output tokens, turned into micro-dollars per call.

Prices change; the table holds a few list prices as a convenience and ``-M price_input=…``
``-M price_output=…`` override it. Unknown models simply carry no cost.
"""

from playbench.models.types import GenerateConfig, ModelOutput

#: model name (without provider) -> (input, output) USD per million tokens.
PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "claude-3-5-sonnet-20241022": (3.00, 15.00),
    "claude-3-5-haiku-20241022": (0.80, 4.00),
    "gemini-1.5-pro": (1.25, 5.00),
    "gemini-1.5-flash": (0.075, 0.30),
}


def price_for(model: str, config: GenerateConfig) -> tuple[float, float] | None:
    """(input, output) prices for ``model`` (without provider prefix), or ``None`` when unknown."""
    if config.price_input is not None or config.price_output is not None:
        return (config.price_input or 0.0, config.price_output or 0.0)
    return PRICES.get(model)


def cost_micro_usd(output: ModelOutput, prices: tuple[float, float]) -> int:
    """Cost of one answer in micro-dollars (cache hits cost nothing)."""
    if output.cached:
        return 0
    return round(output.input_tokens * prices[0] + output.output_tokens * prices[1])

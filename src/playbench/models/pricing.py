"""Prices: USD per million tokens from one maintained source, turned into micro-dollars per answer.

The source is the ``genai-prices`` package (Pydantic's, MIT): its price data ships inside the package, so
nothing is fetched at run time, and the version installed is recorded in each run's ``run.json``
(``versions``). It holds OpenAI's, Anthropic's and Google's list prices with their cache-read and
cache-write rates, their batch rates and the tiers above a prompt-length threshold (OpenAI's long-context
rates above 272k prompt tokens, Google's and Anthropic's above 200k), each with the date it starts. A model
of another provider (vLLM, Ollama, ``openai-api/…``) has no list price. ``-M price_input=… -M price_output=…``
(``price_cache_read``, ``price_cache_write``) replace the source's for any model.

A prompt token is priced by what the provider's prompt cache did with it: read from the cache
(``cache_read_tokens``: the cached rate), written to it (``cache_write_tokens``: Anthropic's write rate,
the input rate elsewhere), neither (the input rate). All three are parts of ``input_tokens``. A tier
applies to every token of a request whose prompt (``input_tokens``, cached parts included) is longer than
its threshold, as the providers bill it. Each answer's cost is recorded with it (``cost_micro_usd``), so a
run's cost does not move when prices change later.
"""

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from playbench.models.types import GenerateConfig, ModelOutput

#: The providers' batch APIs bill half the interactive price (OpenAI Batch API, Anthropic Message Batches,
#: Gemini Batch Mode): the batch rates of a model whose batch rates the source does not list, and of
#: prices given with ``-M price_*``.
BATCH_DISCOUNT = 0.5

#: playbench's providers whose list prices the source holds -> the source's name for the provider
PRICED_PROVIDERS = {"openai": "openai", "anthropic": "anthropic", "google": "google"}

#: the source's price variant for a provider batch
_BATCH = {"processing": "batch"}


@dataclass(frozen=True)
class Rates:
    """USD per million tokens: fresh input, output, input read from and written to the prompt cache."""

    input: float
    output: float
    cache_read: float
    cache_write: float

    def scaled(self, factor: float) -> "Rates":
        """Every rate times ``factor``."""
        return Rates(self.input * factor, self.output * factor, self.cache_read * factor, self.cache_write * factor)


@dataclass(frozen=True)
class Tier:
    """The rates of a request whose prompt is longer than ``above`` tokens."""

    above: int
    live: Rates
    batch: Rates


@dataclass(frozen=True)
class Price:
    """A model's prices: interactive (``live``) and provider-batch rates, and the tiers of long prompts."""

    live: Rates
    batch: Rates
    tiers: tuple[Tier, ...] = ()  # by threshold, lowest first
    source: str = ""  # where they come from, in words

    @property
    def input(self) -> float:
        """The interactive input rate of a short prompt."""
        return self.live.input

    @property
    def output(self) -> float:
        """The interactive output rate of a short prompt."""
        return self.live.output

    @property
    def cache_read(self) -> float:
        """The interactive rate of prompt tokens read from the cache, for a short prompt."""
        return self.live.cache_read

    @property
    def cache_write(self) -> float:
        """The interactive rate of prompt tokens written to the cache, for a short prompt."""
        return self.live.cache_write

    def rates(self, prompt_tokens: int, batch: bool = False) -> Rates:
        """The rates of one request of ``prompt_tokens`` prompt tokens (interactive, or in a provider batch)."""
        chosen = self.batch if batch else self.live
        for tier in self.tiers:
            if prompt_tokens > tier.above:
                chosen = tier.batch if batch else tier.live
        return chosen


def price_for(model: str, config: GenerateConfig) -> Price | None:
    """The prices of ``model`` (``provider/name``), or ``None`` when unknown.

    ``-M price_input/price_output`` replace the source's; cached tokens then cost ``price_cache_read`` and
    ``price_cache_write`` when given, else the input price (no discount is assumed that was not stated),
    and a batch costs half.
    """
    if config.price_input is not None or config.price_output is not None:
        given = config.price_input or 0.0
        read = config.price_cache_read if config.price_cache_read is not None else given
        write = config.price_cache_write if config.price_cache_write is not None else given
        live = Rates(given, config.price_output or 0.0, read, write)
        return Price(live, live.scaled(BATCH_DISCOUNT), source="-M price_input/price_output")
    provider, _, name = model.partition("/")
    if provider not in PRICED_PROVIDERS or not name:
        return None
    return listed_price(PRICED_PROVIDERS[provider], name)


def listed_price(provider: str, name: str, when: datetime | None = None) -> Price | None:
    """The source's prices of model ``name`` at ``provider`` in force at ``when`` (now), or None if it has none."""
    import importlib.metadata

    from genai_prices.data_snapshot import get_snapshot

    try:
        _, info = get_snapshot().find_provider_model(name, None, provider, None)
    except LookupError:
        return None
    when = when or datetime.now(UTC)
    live = info.get_prices(when)
    batched = any(v.when == _BATCH for v in info.price_variants or ())
    batch = info.get_prices(when, _BATCH) if batched else None
    if live.input_mtok is None or live.output_mtok is None:
        return None  # priced by the request or the second only: no token price to apply
    starts = sorted({t.start for p in (live, batch) if p is not None for key in _KEYS
                     for t in getattr(getattr(p, key), "tiers", ())})

    def both(tokens: int) -> tuple[Rates, Rates]:
        rates = _rates(live, tokens)
        return rates, _rates(batch, tokens) if batch is not None else rates.scaled(BATCH_DISCOUNT)

    base = both(0)
    tiers = tuple(Tier(start, *both(start + 1)) for start in starts)
    version = importlib.metadata.version("genai-prices")
    how = "" if batched else f"; batch: {BATCH_DISCOUNT:g} of these (no batch rates listed)"
    return Price(*base, tiers, f"genai-prices {version}: {provider}/{info.id}{how}")


#: the source's price keys of the four rates, in ``Rates``' order
_KEYS = ("input_mtok", "output_mtok", "cache_read_mtok", "cache_write_mtok")


def _rates(prices: Any, prompt_tokens: int) -> Rates:
    """The four rates of one of the source's ``ModelPrice`` for a prompt of ``prompt_tokens`` tokens."""
    values = [_rate(getattr(prices, key), prompt_tokens) for key in _KEYS]
    read = values[2] if values[2] is not None else values[0]  # no cached rate listed: the input rate
    write = values[3] if values[3] is not None else values[0]  # no write charge listed: the input rate
    return Rates(float(values[0] or 0), float(values[1] or 0), float(read or 0), float(write or 0))


def _rate(value: Any, prompt_tokens: int) -> Any:
    """A rate as listed (a number), or the one its tiers give a prompt of ``prompt_tokens`` tokens."""
    if value is None or not hasattr(value, "tiers"):
        return value
    chosen = value.base
    for tier in sorted(value.tiers, key=lambda t: t.start):
        if prompt_tokens > tier.start:
            chosen = tier.price
    return chosen


def token_cost_usd(prices: Price, input_tokens: int, output_tokens: int, cache_read: int = 0, cache_write: int = 0,
                   batch: bool = False, prompt_tokens: int | None = None) -> float:
    """Dollars for these counts; ``cache_read`` and ``cache_write`` are parts of ``input_tokens``.

    ``prompt_tokens`` is the prompt length of each request, which picks the tier (default: ``input_tokens``,
    the counts of one request); pass it when the counts add up several requests.
    """
    rates = prices.rates(input_tokens if prompt_tokens is None else prompt_tokens, batch)
    return _micro(rates, input_tokens, output_tokens, cache_read, cache_write) / 1e6


def _micro(rates: Rates, input_tokens: int, output_tokens: int, cache_read: int, cache_write: int) -> float:
    """Micro-dollars (USD per million tokens times tokens)."""
    fresh = max(0, input_tokens - cache_read - cache_write)
    return (fresh * rates.input + cache_read * rates.cache_read + cache_write * rates.cache_write
            + output_tokens * rates.output)


def cost_micro_usd(output: ModelOutput, prices: Price) -> int:
    """Cost of one answer in micro-dollars; an answer-cache hit costs nothing.

    At the batch rates when a provider batch answered it, cached prompt tokens at their rates, every token at
    the tier its prompt length falls in.
    """
    if output.cached:
        return 0
    rates = prices.rates(output.input_tokens, output.batch)
    return round(_micro(rates, output.input_tokens, output.output_tokens, output.cache_read_tokens or 0,
                        output.cache_write_tokens or 0))


def inspect_cost(model: str) -> dict[str, float] | None:
    """``model``'s prices as Inspect's ``ModelCost`` takes them (``inspect eval --model-cost-config``), or None.

    The interactive rates of a prompt below any tier: Inspect applies neither tiers nor batch rates.
    """
    price = price_for(model, GenerateConfig())
    if price is None:
        return None
    rates = price.live
    return {"input": rates.input, "output": rates.output, "input_cache_write": rates.cache_write,
            "input_cache_read": rates.cache_read}


def main(argv: list[str] | None = None) -> int:
    """``python -m playbench.models.pricing MODEL...``: the models' prices as an Inspect ``--model-cost-config``."""
    import json
    import sys

    names = sys.argv[1:] if argv is None else argv
    costs = {name: inspect_cost(name) for name in names}
    unknown = [name for name, cost in costs.items() if cost is None]
    if not names or unknown:
        print(f"error: no price is known for {', '.join(unknown)}" if unknown else
              "usage: python -m playbench.models.pricing PROVIDER/MODEL... > costs.json", file=sys.stderr)
        return 2
    print(json.dumps(costs, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

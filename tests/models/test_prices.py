"""The price source: models priced from the genai-prices data (its own arithmetic as the check), the tier above a
prompt-length threshold, cache-read, cache-write and batch rates, ``-M price_*``, and the run recording it."""

import json
from pathlib import Path

import pytest
from genai_prices import Usage, calc_price

import playbench
from playbench.models.pricing import BATCH_DISCOUNT, price_for, token_cost_usd
from playbench.models.types import GenerateConfig, ModelOutput

NONE = GenerateConfig()


def _source_usd(model: str, provider: str, batch: bool = False, **usage: int) -> float:
    """What the price library itself computes for one request of these counts."""
    context = {"processing": "batch"} if batch else None
    return float(calc_price(Usage(**usage), model, provider_id=provider, price_context=context).total_price)


@pytest.mark.parametrize(("model", "provider"), [("gpt-4o-mini", "openai"), ("claude-3-5-haiku-20241022", "anthropic"),
                                                 ("gemini-2.5-flash", "google")])
def test_each_provider_is_priced_from_the_source_as_it_prices(model: str, provider: str) -> None:
    price = price_for(f"{provider}/{model}", NONE)
    assert price is not None and price.source.startswith("genai-prices ")
    ours = token_cost_usd(price, 12_000, 700, cache_read=4_000)
    assert ours == pytest.approx(_source_usd(model, provider, input_tokens=12_000, output_tokens=700,
                                             cache_read_tokens=4_000))
    assert ours > token_cost_usd(price, 12_000, 700, cache_read=8_000) > 0  # a cached token costs less


def test_a_prompt_past_the_threshold_is_billed_at_the_long_context_tier() -> None:
    for name, threshold in (("openai/gpt-5.4", 272_000), ("google/gemini-2.5-pro", 200_000)):
        price = price_for(name, NONE)
        assert price is not None and [t.above for t in price.tiers] == [threshold]
        model, provider = name.split("/")[1], name.split("/")[0]
        short, long = token_cost_usd(price, threshold, 1_000), token_cost_usd(price, threshold + 1, 1_000)
        assert short == pytest.approx(_source_usd(model, provider, input_tokens=threshold, output_tokens=1_000))
        assert long == pytest.approx(_source_usd(model, provider, input_tokens=threshold + 1, output_tokens=1_000))
        assert long > 1.5 * short  # every token of the request at the higher rate, not only those past it
        # counts that add up many short requests are priced at each request's tier, not the sum's
        assert token_cost_usd(price, 10 * threshold, 0, prompt_tokens=threshold) == pytest.approx(
            10 * token_cost_usd(price, threshold, 0))


def test_cache_write_and_batch_rates_come_from_the_source() -> None:
    claude = price_for("anthropic/claude-sonnet-4-5", NONE)
    assert claude is not None
    assert claude.cache_write == pytest.approx(1.25 * claude.input) and claude.cache_read == pytest.approx(
        0.1 * claude.input)
    assert token_cost_usd(claude, 3_000, 100, cache_write=2_000) == pytest.approx(
        _source_usd("claude-sonnet-4-5", "anthropic", input_tokens=3_000, output_tokens=100, cache_write_tokens=2_000))
    gpt = price_for("openai/gpt-4o", NONE)
    assert gpt is not None
    # the source's batch table: half the input and output rates, the cached rate kept as OpenAI lists it
    assert token_cost_usd(gpt, 5_000, 200, cache_read=1_000, batch=True) == pytest.approx(
        _source_usd("gpt-4o", "openai", batch=True, input_tokens=5_000, output_tokens=200, cache_read_tokens=1_000))
    assert gpt.batch.input == gpt.input / 2 and gpt.batch.cache_read == gpt.cache_read
    # a model the source lists no batch rates for: the providers' stated half price, and it says so
    haiku = price_for("anthropic/claude-3-5-haiku-20241022", NONE)
    assert haiku is not None and haiku.batch == haiku.live.scaled(BATCH_DISCOUNT) and "no batch rates" in haiku.source
    answer = ModelOutput("a", input_tokens=1_000, output_tokens=10, batch=True)
    from playbench.models.pricing import cost_micro_usd

    assert cost_micro_usd(answer, gpt) == round(token_cost_usd(gpt, 1_000, 10, batch=True) * 1e6)


def test_given_prices_replace_the_source_and_unknown_models_have_none() -> None:
    given = price_for("openai/gpt-4o", GenerateConfig(price_input=1.0, price_output=2.0))
    assert given is not None and (given.input, given.output, given.cache_read) == (1.0, 2.0, 1.0)
    assert given.batch == given.live.scaled(BATCH_DISCOUNT) and given.source.startswith("-M")
    for unknown in ("openai/no-such-model", "vllm/gpt-4o", "mock/demo", "openai-api/together/gpt-4o"):
        assert price_for(unknown, NONE) is None


def test_a_run_records_the_price_data_it_used(tmp_path: Path) -> None:
    result = playbench.eval("smartplay/hanoi-3", model="mock/x", episodes=1, task_params={"max_steps": 1},
                            log_dir=tmp_path)
    versions = json.loads((result.path / "run.json").read_text())["versions"]
    from importlib.metadata import version

    assert versions["genai-prices"] == version("genai-prices")


def test_the_dry_run_of_a_sources_instances_shows_the_tokens_it_recorded(tmp_path: Path) -> None:
    from helpers import run_cli
    from playbench.api.estimate import estimate
    from playbench.log import read_run
    from playbench.models.fakeserver import FakeServer

    with FakeServer() as srv:
        source = playbench.eval("smartplay/hanoi-3", model="openai/gpt-4o-mini", base_url=srv.url + "/v1",
                                episodes=3, task_params={"max_steps": 4}, log_dir=tmp_path / "source").path
    usage = [r.usage for r in read_run(source).episodes()]
    est = estimate("smartplay/hanoi-3", model="openai/gpt-4o-mini", instances=str(source), episodes=2,
                   task_params={"max_steps": 4})
    # the first two of its three instances, and what their tokens cost at this model's rates
    recorded = est.source_tokens()
    assert recorded == (usage[0]["input_tokens"] + usage[1]["input_tokens"],
                        usage[0]["output_tokens"] + usage[1]["output_tokens"])
    price = price_for("openai/gpt-4o-mini", NONE)
    assert price is not None and est.source_cost_usd() == pytest.approx(token_cost_usd(price, *recorded))
    shown = run_cli("eval", "smartplay/hanoi-3", "--model", "openai/gpt-4o-mini", "--instances", str(source),
                    "-T", "max_steps=4", "--dry-run", env={"COLUMNS": "400"})
    assert shown.returncode == 0, shown.stderr
    line = next(ln for ln in shown.stdout.splitlines() if ln.startswith("instances of "))
    assert f"it recorded {sum(u['input_tokens'] for u in usage):,} input" in line and "this run: typical" in line
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("smartplay/hanoi-3 7\n")
    bare = run_cli("eval", "smartplay/hanoi-3", "--model", "openai/gpt-4o-mini", "--instances", str(seeds),
                   "--dry-run", env={"COLUMNS": "400"})
    assert bare.returncode == 0 and "it records no token counts" in bare.stdout, bare.stderr


def test_the_dry_run_of_a_leaderboard_rows_instances_shows_its_recorded_tokens(shared_data: Path) -> None:
    from playbench.api.estimate import estimate

    row = shared_data / "balrog-leaderboard/LLM/20241030_naive-Llama-3.2-1B-Instruct"
    files = sorted((row / "babyai/BabyAI-MixedTrainLocal-v0/goto/BabyAI-MixedTrainLocal-v0").glob("goto_run_*.json"))
    published = [json.loads(path.read_text()) for path in files[:3]]
    est = estimate("balrog/babyai/goto", model="openai/gpt-4o-mini", instances=str(row), episodes=3)
    assert est.source_tokens() == (sum(e["input_tokens"] for e in published), sum(e["output_tokens"] for e in published))
    assert est.source_cost_usd() is not None and est.cost_usd() is not None

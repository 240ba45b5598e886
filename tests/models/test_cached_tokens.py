"""Provider prompt caching: cached-token usage in each wire format, over real HTTP, priced at the cached rates.

Recorded answers (``data/cached_usage/*.json``, shaped as each API documents them) are served by a loopback
server; the fake server's ``prompt_cache`` mode answers a conversation as a prefix cache would.
"""

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

import playbench
from playbench.core.errors import PlaybenchError
from playbench.log import read_run
from playbench.models import Message, ModelSettings, create_model
from playbench.models.errors import RetryableError
from playbench.models.fakeserver import FakeServer, _format_of
from playbench.models.pricing import Price, Rates, price_for, token_cost_usd
from playbench.models.providers.anthropic import AnthropicProvider
from playbench.models.providers.google import GoogleProvider
from playbench.models.providers.openai import OpenAIProvider
from playbench.models.types import GenerateConfig
from playbench.report.build import build_report

DATA = Path(__file__).parent / "data" / "cached_usage"
#: provider -> (model with a list price, base URL suffix, recorded answer)
RECORDED = {"openai": ("gpt-4o-mini", "/v1", "openai.json"),
            "anthropic": ("claude-3-5-haiku-20241022", "", "anthropic.json"),
            "google": ("gemini-1.5-flash", "", "gemini.json")}


class Recorded(FakeServer):
    """Answers every request with the recorded answer of its wire format."""

    async def _respond(self, writer, method, path, headers, body):  # noqa: ANN001
        self.stats.requests += 1
        name = {"openai": "openai.json", "anthropic": "anthropic.json", "gemini": "gemini.json"}[_format_of(path)]
        await self._send(writer, 200, (DATA / name).read_bytes())
        return True


def ask(provider: str, url: str, messages: list[Message], params: dict[str, Any] | None = None) -> tuple[Any, Any]:
    model_name, suffix, _ = RECORDED[provider]
    model = create_model(f"{provider}/{model_name}", params or {}, ModelSettings(base_url=url + suffix, max_retries=0))
    return model, asyncio.run(model.generate(messages))


# (provider) -> (input_tokens as playbench counts them, read, written, output)
EXPECTED = {"openai": (2342, 2176, None, 3), "anthropic": (214 + 96 + 2048, 2048, 96, 5), "google": (2350, 2037, None, 3)}


@pytest.mark.parametrize("provider", list(RECORDED))
def test_recorded_answers_give_cached_tokens_and_every_prompt_token(provider: str) -> None:
    with Recorded() as srv:
        model, out = ask(provider, srv.url, [Message("user", "where now?")])
    total, read, written, output = EXPECTED[provider]
    # input_tokens is every prompt token everywhere: Anthropic's own input_tokens (after the last breakpoint)
    # is added to its cache reads and writes; OpenAI's and Gemini's prompt counts already hold theirs
    assert (out.input_tokens, out.cache_read_tokens, out.cache_write_tokens, out.output_tokens) == EXPECTED[provider]
    usage = model.usage(out)
    assert usage["input_tokens"] == total and usage["cache_read_tokens"] == read
    assert ("cache_write_tokens" in usage) == (written is not None)


def _listed(model: str) -> Price:
    price = price_for(model, GenerateConfig())
    assert price is not None
    return price


def test_cost_uses_the_cached_rates_of_the_price_table() -> None:
    assert _listed("openai/gpt-4o-mini").live == Rates(0.15, 0.60, 0.075, 0.15)
    assert _listed("anthropic/claude-3-5-haiku-20241022").live == Rates(0.80, 4.00, 0.08, 1.00)
    assert _listed("google/gemini-1.5-flash").live == Rates(0.075, 0.30, 0.01875, 0.075)
    micro = {}
    with Recorded() as srv:
        for provider in RECORDED:
            model, out = ask(provider, srv.url, [Message("user", "where now?")])
            micro[provider] = model.usage(out)["cost_micro_usd"]
    # fresh input at the input rate, cache reads at the cached rate, writes at the write rate, output
    assert micro["openai"] == round((2342 - 2176) * 0.15 + 2176 * 0.075 + 3 * 0.60)  # 190
    assert micro["anthropic"] == round(214 * 0.80 + 2048 * 0.08 + 96 * 1.00 + 5 * 4.00)  # 451
    assert micro["google"] == round((2350 - 2037) * 0.075 + 2037 * 0.01875 + 3 * 0.30)  # 63
    # the same tokens uncached, and as a provider batch (OpenAI's batch table: half the input and output rates,
    # no cached rate of its own, so cached input keeps its rate)
    price = _listed("openai/gpt-4o-mini")
    assert token_cost_usd(price, 2342, 3) == pytest.approx((2342 * 0.15 + 3 * 0.60) / 1e6)
    assert token_cost_usd(price, 2342, 3, 2176, batch=True) == pytest.approx(
        ((2342 - 2176) * 0.075 + 2176 * 0.075 + 3 * 0.30) / 1e6)


def test_given_prices_price_cached_tokens_at_the_input_rate_unless_told() -> None:
    plain = price_for("x", GenerateConfig(price_input=2.0, price_output=8.0))
    assert plain is not None and (plain.cache_read, plain.cache_write) == (2.0, 2.0)
    told = price_for("x", GenerateConfig(price_input=2.0, price_output=8.0, price_cache_read=0.5))
    assert told is not None and (told.cache_read, told.cache_write) == (0.5, 2.0)
    assert _listed("openai/gpt-4o").live == Rates(2.50, 10.00, 1.25, 2.50) and price_for("x", GenerateConfig()) is None


def test_unreported_cache_is_unknown_not_zero() -> None:
    with FakeServer() as srv:  # no prompt_tokens_details: vLLM without --enable-prompt-tokens-details
        model, out = ask("openai", srv.url, [Message("user", "hi")])
    assert out.cache_read_tokens is None and "cache_read_tokens" not in model.usage(out)
    bare = {"choices": [{"message": {"content": "x"}}], "usage": {"prompt_tokens": 5, "completion_tokens": 1,
                                                                   "prompt_tokens_details": None}}
    assert OpenAIProvider("m", "http://x/v1", None).parse(bare).cache_read_tokens is None
    # Gemini leaves cachedContentTokenCount out when nothing was cached: 0 once usage is there at all
    gemini = json.loads((DATA / "gemini.json").read_text())
    del gemini["usageMetadata"]["cachedContentTokenCount"]
    assert GoogleProvider("m", "http://x", None).parse(gemini).cache_read_tokens == 0
    del gemini["usageMetadata"]
    assert GoogleProvider("m", "http://x", None).parse(gemini).cache_read_tokens is None


@pytest.mark.parametrize("provider,path,bad", [
    ("openai", ("usage", "prompt_tokens_details", "cached_tokens"), "12"),
    ("openai", ("usage", "prompt_tokens_details"), [1]),
    ("anthropic", ("usage", "cache_read_input_tokens"), -1),
    ("anthropic", ("usage", "cache_creation_input_tokens"), True),
    ("google", ("usageMetadata", "cachedContentTokenCount"), {"n": 1}),
])
def test_a_broken_cached_count_is_a_malformed_answer(provider: str, path: tuple[str, ...], bad: Any) -> None:
    body = json.loads((DATA / RECORDED[provider][2]).read_text())
    node = body
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = bad
    parser = {"openai": OpenAIProvider("m", "http://x/v1", None), "anthropic": AnthropicProvider("m", "http://x", None),
              "google": GoogleProvider("m", "http://x", None)}[provider]
    with pytest.raises(RetryableError) as err:
        parser.parse(body)
    assert err.value.kind == "malformed"


CONVERSATION = [Message("system", "You play a maze game. " * 40), Message("user", "You see a wall ahead. " * 10),
                Message("assistant", "turn left"), Message("user", "You see a door. " * 10),
                Message("assistant", "go forward"), Message("user", "You see the key. " * 10)]


def converse(srv: FakeServer, provider: str, params: dict[str, Any] | None = None) -> list[Any]:
    """The three requests of a growing conversation (each step adds an answer and a new observation)."""
    return [ask(provider, srv.url, CONVERSATION[:n], params)[1] for n in (2, 4, 6)]


@pytest.mark.parametrize("provider", list(RECORDED))
def test_a_growing_conversation_reads_its_earlier_prefix(provider: str) -> None:
    with FakeServer(prompt_cache=True) as srv:
        outs = converse(srv, provider)
    reads = [o.cache_read_tokens for o in outs]
    assert reads[0] == 0 and 0 < reads[1] < reads[2] < outs[2].input_tokens
    assert all(o.cache_read_tokens <= o.input_tokens for o in outs)
    if provider == "anthropic":  # written where the breakpoints are: then read back by the next request
        assert outs[0].cache_write_tokens > 0 and outs[1].cache_write_tokens > 0
    else:
        assert all(o.cache_write_tokens is None for o in outs)


def test_anthropic_without_breakpoints_caches_nothing_and_counts_the_same_tokens() -> None:
    with FakeServer(prompt_cache=True, record=True) as srv:
        marked = converse(srv, "anthropic")
    with FakeServer(prompt_cache=True, record=True) as srv:
        bare = converse(srv, "anthropic", {"cache_prompt": "false"})
        sent = [body for _, body in srv.received]
    assert all(o.cache_read_tokens == 0 and o.cache_write_tokens == 0 for o in bare)
    assert [o.input_tokens for o in bare] == [o.input_tokens for o in marked]  # the same prompt, however cached
    assert "cache_control" not in json.dumps(sent) and all(isinstance(b["system"], str) for b in sent)


def test_cache_prompt_is_refused_where_no_breakpoints_are_sent() -> None:
    for name in ("openai/gpt-4o", "google/gemini-1.5-flash", "mock/x"):
        with pytest.raises(PlaybenchError, match="cache_prompt"):
            create_model(name, {"cache_prompt": "false"}, ModelSettings(base_url="http://127.0.0.1:9"))


def test_a_run_reports_cached_tokens_hit_rate_and_cost_at_cached_prices(tmp_path: Path) -> None:
    with FakeServer(prompt_cache=True) as srv:
        result = playbench.eval("balrog/babyai/goto", model="anthropic/claude-3-5-haiku-20241022", base_url=srv.url,
                                episodes=1, task_params={"max_steps": 6}, log_dir=str(tmp_path))
    run = read_run(result.path)
    steps = [s for rec in run.episodes() for s in run.read_trajectory(rec)]
    usage = build_report(run)["tasks"]["balrog/babyai/goto"]["usage"]
    assert usage["cache_read_tokens"] == sum(s.usage["cache_read_tokens"] for s in steps) > 0
    assert usage["cache_write_tokens"] == sum(s.usage["cache_write_tokens"] for s in steps) > 0
    assert usage["cache_hit_rate"] == pytest.approx(usage["cache_read_tokens"] / usage["input_tokens"])
    assert 0 < usage["cache_hit_rate"] < 1
    price = _listed("anthropic/claude-3-5-haiku-20241022")
    cached = token_cost_usd(price, usage["input_tokens"], usage["output_tokens"], usage["cache_read_tokens"],
                            usage["cache_write_tokens"])
    assert usage["cost_usd"] == pytest.approx(cached, abs=1e-5)
    assert usage["cost_usd"] < token_cost_usd(price, usage["input_tokens"], usage["output_tokens"])


def test_report_compare_and_viewer_show_the_prompt_cache(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from playbench.cli.report_cmd import command as report_command
    from playbench.report.compare import compare_runs
    from playbench.report.viewer import write_site

    runs = []
    for cache in ("true", "false"):
        with FakeServer(prompt_cache=True) as srv:
            runs.append(playbench.eval("smartplay/hanoi-3", model="anthropic/claude-3-5-haiku-20241022",
                                       base_url=srv.url, episodes=1, task_params={"max_steps": 4},
                                       model_params={"cache_prompt": cache}, log_dir=str(tmp_path / cache)).path)
    text = CliRunner(env={"COLUMNS": "120"}).invoke(report_command, [str(runs[0])]).output
    assert "cache read" in text and "prompt cache" in text
    row = next(line for line in text.splitlines() if "total (run)" in line)
    usage = build_report(read_run(runs[0]))["run"]["usage"]
    assert f"({usage['cache_hit_rate']:.0%})" in row
    # compare: each run's prompt-cache reads per task, the run without breakpoints reading nothing
    cmp = compare_runs(read_run(runs[0]), read_run(runs[1]))["tasks"]["smartplay/hanoi-3"]["usage"]
    assert cmp["cache_read_tokens"]["a"] == usage["cache_read_tokens"] > 0 and cmp["cache_read_tokens"]["b"] == 0
    assert cmp["input_tokens"]["a"] == cmp["input_tokens"]["b"] and cmp["cost_usd"]["a"] < cmp["cost_usd"]["b"]
    page = write_site([read_run(runs[0])], tmp_path / "site").read_text()  # run facts and task table
    assert f"{usage['cache_read_tokens']:,} read from the prompt cache" in page
    assert f"({usage['cache_hit_rate']:.0%} of input)" in page


def test_dry_run_shows_live_cached_and_batch_estimates_side_by_side() -> None:
    from click.testing import CliRunner

    from playbench.api.estimate import estimate
    from playbench.cli.common import fmt_cost
    from playbench.cli.eval_cmd import command as eval_command

    est = estimate(["smartplay/crafter"], agent="two-stage", model="openai/gpt-4o-mini", episodes=2)
    task = est.tasks[0]
    # the second question of a step repeats the first request: an automatic prefix cache serves much of it
    assert 0 < task.cache_read_tokens < task.input_tokens and task.cache_write_tokens == 0
    live, cached, batch = est.cost_usd(), est.cost_usd(cached=True), est.cost_usd(batch=True)
    assert live is not None and cached is not None and batch is not None
    assert cached == pytest.approx(token_cost_usd(_listed("openai/gpt-4o-mini"), task.input_tokens, task.output_tokens,
                                                  task.cache_read_tokens))
    assert cached < live and batch == pytest.approx(live / 2)
    shown = est.to_dict()
    assert shown["cached_cost_usd"] == cached and shown["batch_cost_usd"] == batch
    assert shown["tasks"][0]["cache_read_tokens"] == task.cache_read_tokens
    out = CliRunner(env={"COLUMNS": "100"}).invoke(
        eval_command, ["smartplay/crafter", "--agent", "two-stage", "--model", "openai/gpt-4o-mini", "--episodes", "2",
                       "--dry-run"]).output
    share = f"{task.cache_read_tokens / task.input_tokens:.0%}"
    assert "cache" in out and share in out
    assert f"with the provider's prompt cache: typical ~{fmt_cost(est.cost_usd(typical=True, cached=True))}, " \
           f"at most {fmt_cost(cached)}\n" in out
    assert f"as a batch: typical ~{fmt_cost(est.cost_usd(typical=True, batch=True))}, at most {fmt_cost(batch)}" in out

"""An answer without token counts (no ``usage``, or a null one) is recorded as not reported, never as a free
answer: the report's cost says it is a lower bound (or not known), in the table and in the JSON."""

import asyncio
import json
from pathlib import Path

import pytest

from helpers import only_run_dir, run_cli
from playbench.models import Message, ModelSettings, create_model
from playbench.models.fakeserver import FakeServer
from playbench.report.build import usage_total

ASK = [Message("user", "Pick one:\n1. left\n2. right")]
MODELS = {"openai": ("openai/fake", "/v1"), "anthropic": ("anthropic/fake", ""), "gemini": ("google/fake", "")}


def _usage_of_one_answer(srv: FakeServer, fmt: str) -> dict[str, int]:
    name, suffix = MODELS[fmt]
    model = create_model(name, {}, ModelSettings(base_url=srv.url + suffix, max_retries=0))

    async def one() -> dict[str, int]:
        try:
            return model.usage(await model.generate(ASK))
        finally:
            await model.aclose()

    return asyncio.run(one())


@pytest.mark.parametrize("fmt", sorted(MODELS))
@pytest.mark.parametrize("usage", ["missing", "null"])
def test_each_api_answer_without_token_counts_is_marked_not_reported(fmt: str, usage: str) -> None:
    with FakeServer(usage=usage) as srv:
        got = _usage_of_one_answer(srv, fmt)
        assert srv.stats.answers == 1
    assert got["tokens_unreported"] == 1 and got["input_tokens"] == 0 and got["output_tokens"] == 0
    with FakeServer() as srv:  # the same API with its counts: nothing to say
        got = _usage_of_one_answer(srv, fmt)
    assert "tokens_unreported" not in got and got["input_tokens"] > 0


def _eval_and_report(srv: FakeServer, log_dir: Path) -> tuple[dict, str, dict]:
    """(the episode's record, the text report, the JSON report) of a priced run against ``srv``."""
    done = run_cli("eval", "smartplay/hanoi-3", "--model", "openai/gpt-4o-mini", "--base-url", srv.url + "/v1",
                   "--episodes", "1", "-T", "max_steps=4", "--log-dir", str(log_dir), "--quiet",
                   env={"OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""})
    assert done.returncode == 0, done.stderr
    run = only_run_dir(log_dir)
    [record] = [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines()]
    text = run_cli("report", str(run), env={"COLUMNS": "200"})
    as_json = run_cli("report", "--json", str(run))
    assert text.returncode == 0 and as_json.returncode == 0, text.stderr + as_json.stderr
    return record, " ".join(text.stdout.split()), json.loads(as_json.stdout)


def test_a_server_that_stops_reporting_usage_makes_the_cost_a_lower_bound(tmp_path: Path) -> None:
    with FakeServer(usage="null", usage_answers=2) as srv:  # 4 answers: the last two without counts
        record, text, report = _eval_and_report(srv, tmp_path)
    assert record["usage"]["tokens_unreported"] == 2 and record["usage"]["calls"] == 4
    usage = report["run"]["usage"]
    assert usage["tokens_unreported"] == 2
    assert usage["cost_usd"] is None  # not the cost: a figure that may be wrong is not given as one
    assert usage["cost_usd_at_least"] > 0
    note = "usage not reported for 2 answers (the server sent no token counts): token counts and cost are lower bounds"
    assert usage["usage_note"] == note
    assert note in text
    cost = f"${usage['cost_usd_at_least']:.4f}"
    assert f"≥ {cost}" in text
    view = run_cli("view", str(only_run_dir(tmp_path)), "--output", str(tmp_path / "site"))
    assert view.returncode == 0, view.stderr
    page = (tmp_path / "site" / "index.html").read_text()
    assert f"≥ {cost} · usage not reported for 2 answers" in page


def test_a_server_that_never_reports_usage_has_no_cost(tmp_path: Path) -> None:
    with FakeServer(usage="missing") as srv:
        record, text, report = _eval_and_report(srv, tmp_path)
    assert record["usage"]["tokens_unreported"] == 4 and record["usage"]["input_tokens"] == 0
    usage = report["run"]["usage"]
    assert usage["cost_usd"] is None and usage["cost_usd_at_least"] == 0
    assert "usage not reported for 4 answers" in usage["usage_note"] and "usage not reported for 4 answers" in text
    assert " n/a " in text and "$0.0000" not in text


def test_runs_recorded_before_read_as_before() -> None:
    # episodes written before the count existed carry no tokens_unreported: an exact cost, no note
    old = usage_total([{"calls": 3, "input_tokens": 900, "output_tokens": 30, "cost_micro_usd": 153}])
    assert old["cost_usd"] == pytest.approx(153e-6) and "usage_note" not in old and "cost_usd_at_least" not in old
    # a run's total sums task totals that already carry the derived figures: they are not summed again
    task = usage_total([{"calls": 2, "cost_micro_usd": 100, "tokens_unreported": 1}])
    run = usage_total([task, task])
    assert run["tokens_unreported"] == 2 and run["cost_usd_at_least"] == pytest.approx(200e-6)
    assert run["usage_note"].startswith("usage not reported for 2 answers")


def test_the_inspect_export_leaves_an_unreported_count_unknown(tmp_path: Path) -> None:
    from inspect_ai.log import read_eval_log

    with FakeServer(usage="null", usage_answers=2) as srv:
        record, _, _ = _eval_and_report(srv, tmp_path)
    assert record["usage"]["tokens_unreported"] == 2
    run = only_run_dir(tmp_path)
    done = run_cli("export", str(run), "--format", "inspect", "-o", str(tmp_path / "out.eval"))
    assert done.returncode == 0, done.stderr
    [sample] = read_eval_log(str(tmp_path / "out.eval")).samples or []
    assert sample.model_usage == {}  # a partial count would read as the episode's whole usage

"""``--cost-limit``: a priced run (``openai/gpt-4o-mini`` on a loopback server) stops before it spends more than its
limit plus what is in flight, says so in one line with the resume command (exit 3), and a resume with a higher
limit finishes it without the server seeing any request twice; the library, batches, cache hits and answers
without token counts."""

import json
import shlex
from pathlib import Path
from typing import Any

import pytest

import playbench
from helpers import only_run_dir, run_cli
from playbench.core.errors import PlaybenchError
from playbench.log import read_run
from playbench.models.fakebatch import FakeBatchServer
from playbench.models.fakeserver import FakeServer

ENV = {"OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""}
#: a multi-step task whose episodes (other seeds) and steps (longer history) never ask the same thing twice
TASK = ["balrog/babyai/goto", "--episodes", "4", "-T", "max_steps=5"]
#: a little over half the run (20 answers, about $0.0009): it stops partway, and twice the limit finishes it
LIMIT = 0.0005


def _paid(run: Path) -> list[dict[str, Any]]:
    """The answers the run kept as it paid for them."""
    return [json.loads(line) for line in (run / "paid-answers.jsonl").read_text().splitlines()]


def _eval(srv: FakeServer, *args: str, log_dir: Path | None = None) -> Any:
    where = ["--log-dir", str(log_dir)] if log_dir is not None else []
    return run_cli("eval", *args, "--model", "openai/gpt-4o-mini", "--base-url", srv.url + "/v1", "--quiet", *where,
                   env=ENV)


def test_a_run_stops_at_its_limit_and_a_higher_limit_finishes_it_paying_for_nothing_twice(tmp_path: Path) -> None:
    with FakeServer(record=True, latency=0.05) as srv:
        stopped = _eval(srv, *TASK, "--max-connections", "2", "--cost-limit", str(LIMIT), log_dir=tmp_path)
        assert stopped.returncode == 3, stopped.stderr
        run = only_run_dir(tmp_path)
        [line] = [ln for ln in stopped.stderr.splitlines() if "cost limit" in ln]
        assert line.startswith("cost limit reached: $") and f"of the ${LIMIT:.4f} limit" in line
        resume = line.partition("continue with a higher limit: ")[2]
        assert resume == f"playbench eval --resume {shlex.quote(str(run))} --cost-limit {2 * LIMIT:g}"
        first = list(srv.bodies)
        paid = _paid(run)
        # every request the server answered was paid for and kept; no request went out once the limit was reached
        # but the two in flight (--max-connections 2), so at most two answers' worth past it
        assert len(paid) == len(first) > 0
        costs = [p["cost_micro_usd"] for p in paid]
        assert sum(costs) >= LIMIT * 1e6 and sum(costs[:-2]) < LIMIT * 1e6
        assert sum(costs) - LIMIT * 1e6 <= 2 * max(costs)
        # the printed command (with the server given again), as a user would run it
        again = run_cli(*shlex.split(resume)[1:], "--base-url", srv.url + "/v1", "--quiet", env=ENV)
        assert again.returncode == 0, again.stderr
    records = list(read_run(run).latest_episodes().values())
    assert sorted(r.status for r in records) == ["ok"] * 4
    # each call of the finished run was asked once: the kept answers stood in for the ones bought before the stop
    assert len(set(srv.bodies)) == len(srv.bodies) == sum(r.usage["calls"] for r in records)
    reused = sum(r.usage.get("paid_earlier", 0) for r in records)
    assert 0 < reused <= len(first)
    assert sum(r.usage["attempts"] for r in records) + reused == len(srv.bodies)
    # the run's cost is what the server was paid for, each answer once
    cost = read_run(run).meta.settings.cost_limit
    assert cost == 2 * LIMIT
    total = sum(r.usage["cost_micro_usd"] for r in records)
    assert total > LIMIT * 1e6 and total == pytest.approx(sum(p["cost_micro_usd"] for p in _paid(run)), abs=2)


def test_the_library_takes_cost_limit_and_resumes_with_a_higher_one(tmp_path: Path) -> None:
    with FakeServer(record=True) as srv:
        opts: dict[str, Any] = {"model": "openai/gpt-4o-mini", "base_url": srv.url + "/v1"}
        result = playbench.eval("smartplay/hanoi-3", episodes=3, task_params={"max_steps": 4}, log_dir=tmp_path,
                                max_connections=1, cost_limit=0.0001, **opts)
        assert result.stopped is not None and result.stopped.startswith("cost limit reached")
        assert result.model_stats.cost_limit_reached and not result.complete
        sent = len(srv.bodies)
        assert sent == len(_paid(result.path))
        done = playbench.eval(resume=result.path, cost_limit=1.0, **opts)
        assert done.complete and done.model_stats.paid_earlier > 0
        records = list(read_run(result.path).latest_episodes().values())
        assert len(srv.bodies) == sum(r.usage["calls"] for r in records)  # nothing asked twice
        with pytest.raises(PlaybenchError, match="give a higher --cost-limit"):  # its cost is past the first limit
            playbench.eval(resume=result.path, cost_limit=0.0001, **opts)


def test_answer_cache_hits_cost_nothing(tmp_path: Path) -> None:
    opts = ("smartplay/hanoi-3", "--episodes", "2", "-T", "max_steps=3", "--cache")
    env = {**ENV, "PLAYBENCH_CACHE_DIR": str(tmp_path / "cache")}
    with FakeServer(record=True) as srv:
        for name, limit in (("first", "1"), ("again", "0.00001")):  # the second run's limit is below one answer
            done = run_cli("eval", *opts, "--model", "openai/gpt-4o-mini", "--base-url", srv.url + "/v1", "--quiet",
                           "--log-dir", str(tmp_path / name), "--cost-limit", limit, env=env)
            assert done.returncode == 0, done.stderr
        assert len(srv.bodies) == 6  # the second run sent nothing
    [record, _] = read_run(only_run_dir(tmp_path / "again")).episodes()
    assert record.usage["cache_hits"] == 3 and record.usage["cost_micro_usd"] == 0


def test_answers_without_token_counts_stop_a_limited_run(tmp_path: Path) -> None:
    with FakeServer(usage="null", usage_answers=2) as srv:
        stopped = _eval(srv, "smartplay/hanoi-3", "--episodes", "1", "-T", "max_steps=6", "--max-connections", "1",
                        "--cost-limit", "1", log_dir=tmp_path)
        assert stopped.returncode == 3
        run = only_run_dir(tmp_path)
        [line] = [ln for ln in stopped.stderr.splitlines() if "cost limit" in ln]
        assert "sent no token counts for 1 answer(s), so the cost so far is not known" in line
        assert line.endswith(f"--resume {shlex.quote(str(run))} --cost-limit none")
        assert srv.stats.answers == 3 == len(_paid(run))  # two with counts, then the one without: nothing after it
        lifted = run_cli("eval", "--resume", str(run), "--cost-limit", "none", "--base-url", srv.url + "/v1",
                         "--quiet", env=ENV)
        assert lifted.returncode == 0, lifted.stderr
        assert srv.stats.answers == 6  # the three kept answers were not asked again
    [record] = read_run(run).episodes()
    assert record.usage["paid_earlier"] == 3 and record.usage["tokens_unreported"] == 4
    assert "cost_limit" not in json.loads((run / "run.json").read_text())["settings"]


def test_with_batch_no_request_joins_a_batch_once_the_committed_cost_reaches_the_limit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLAYBENCH_BATCH_POLL", "0.05")
    monkeypatch.setenv("PLAYBENCH_BATCH_WAIT", "0.05")
    opts: dict[str, Any] = {"model": "openai/x", "batch": True, "max_retries": 1, "retry_backoff": 0.01,
                            "model_params": {"price_input": "2", "price_output": "8", "max_tokens": "100"}}
    with FakeBatchServer(delay=0.05) as server:
        opts["base_url"] = f"{server.url}/v1"
        # each request commits its prompt (a few hundred tokens at $1/M) and 100 answer tokens at $4/M
        first = playbench.eval("mango/df", episodes=6, log_dir=tmp_path, cost_limit=0.0015, **opts)
        assert first.stopped is not None and first.model_stats.cost_limit_reached
        assert "committed in batches" in first.stopped
        assert len(server.submitted_items()) < 6 and not server.live
        done = playbench.eval(resume=first.path, cost_limit=1.0, **opts)
        assert done.complete
        items = server.submitted_items()
        assert len(items) == len(set(items)) == 6 and not server.live  # no request bought twice
    with pytest.raises(PlaybenchError, match="needs -M max_tokens"):
        playbench.eval("mango/df", episodes=1, log_dir=tmp_path, cost_limit=1.0,
                       **{**opts, "model_params": {"price_input": "2", "price_output": "8"}})


def test_a_limit_that_cannot_be_held_is_refused_in_one_line(tmp_path: Path) -> None:
    for args, says in ((["--model", "mock/x"], "no price is known for mock/x"),
                       ([], "--cost-limit needs --model"),
                       (["--model", "openai/gpt-4o-mini", "--base-url", "http://127.0.0.1:9/v1", "--executor", "ray"], "goes with the local executor"),
                       (["--model", "openai/gpt-4o-mini", "--cost-limit", "-1"], "must be more than 0"),
                       (["--model", "openai/gpt-4o-mini", "--cost-limit", "lots"], "not a number of dollars")):
        done = run_cli("eval", "smartplay/hanoi-3", "--log-dir", str(tmp_path), "--cost-limit", "1", *args, env=ENV)
        assert done.returncode == 2 and says in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert not tmp_path.exists() or not any(tmp_path.iterdir())  # nothing was created
    assert "--cost-limit USD" in run_cli("eval", "--help", env={"COLUMNS": "200"}).stdout


def test_the_kept_answers_skip_a_torn_line_and_refuse_a_foreign_one(tmp_path: Path) -> None:
    from playbench.log.answers import PAID_ANSWERS, AnswerJournal
    from playbench.models.budget import answer_entry
    from playbench.models.types import ModelOutput

    first, second = (answer_entry(c * 64, ModelOutput(text, 10, 2), 5) for c, text in (("a", "go"), ("b", "stop")))
    AnswerJournal(tmp_path, tmp_path).add(first)
    file = tmp_path / PAID_ANSWERS
    file.write_bytes(file.read_bytes() + b'{"key": "bbb')  # a kill mid-write
    journal = AnswerJournal(tmp_path, tmp_path)
    assert journal.find("a" * 64) == first and journal.find("b" * 64) is None
    journal.add(second)  # the torn end is cut first
    assert [json.loads(line)["text"] for line in file.read_text().splitlines()] == ["go", "stop"]
    file.write_text(file.read_text() + json.dumps({**first, "input_tokens": -1}) + "\n")
    with pytest.raises(PlaybenchError, match="line 3 is not a paid answer"):
        AnswerJournal(tmp_path, tmp_path).entries()
    file.unlink()
    file.symlink_to(tmp_path / "elsewhere.jsonl")
    with pytest.raises(PlaybenchError, match="refusing to open"):
        AnswerJournal(tmp_path, tmp_path).entries()

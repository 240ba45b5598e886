"""``--batch``: OpenAI, Anthropic and Gemini provider batches against loopback servers (delays, partial failures,
expiry), records equal to a live run's, and a run killed after submitting that resumes without sending a
request twice."""

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from tests.helpers import PLAYBENCH, stable_trajectories

import playbench
from playbench.core.errors import PlaybenchError
from playbench.log import read_run
from playbench.models.fakebatch import FakeBatchServer

#: usage keys a batch changes (how the answer was bought, not what it was)
_BOUGHT = ("batch", "batch_resent", "cost_micro_usd", "attempts")


@pytest.fixture(autouse=True)
def _fast_polls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLAYBENCH_BATCH_POLL", "0.05")
    monkeypatch.setenv("PLAYBENCH_BATCH_WAIT", "0.05")


def _base(server: FakeBatchServer, provider: str) -> str:
    return f"{server.url}/v1" if provider == "openai" else server.url


def _item_of(line: dict[str, Any]) -> str:
    """A request line's item id: ``custom_id`` (OpenAI, Anthropic) or ``metadata.key`` (Gemini)."""
    return str(line["custom_id"]) if "custom_id" in line else str(line["metadata"]["key"])


def _run(tmp: Path, name: str, server: FakeBatchServer, provider: str, *, batch: bool, episodes: int = 6,
         task: str = "mango/df", **extra: Any) -> Any:
    opts: dict[str, Any] = {"batch": True} if batch else {}
    return playbench.eval(task, model=f"{provider}/x", base_url=_base(server, provider), episodes=episodes,
                          log_dir=tmp / name, max_retries=1, retry_backoff=0.01, **opts, **extra)


def _without(usage: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in usage.items() if k not in _BOUGHT}


def _records(path: Path) -> list[dict[str, Any]]:
    rows = []
    for record in read_run(path).episodes():
        row = record.model_dump(mode="json", exclude={"timing", "usage"})
        row["usage"] = _without(record.usage)
        rows.append(row)
    return sorted(rows, key=lambda r: (r["task"], r["index"]))


def _steps(path: Path) -> dict[str, list[dict[str, Any]]]:
    out = stable_trajectories(path)
    for steps in out.values():
        for step in steps:
            step["usage"] = _without(step.get("usage") or {})
    return out


@pytest.mark.parametrize("provider", ["openai", "anthropic", "google"])
def test_a_batch_run_records_what_a_live_run_records(tmp_path: Path, provider: str) -> None:
    with FakeBatchServer(delay=0.3) as server:
        live = _run(tmp_path, "live", server, provider, batch=False)
        assert len(server.live) == 6 and not server.submissions
        batched = _run(tmp_path, "batch", server, provider, batch=True)
        assert len(server.live) == 6  # nothing more sent live
        assert len(server.submissions) == 1 and len(server.submitted_items()) == 6
        assert server.polls >= 2  # it waited while the batch was in progress
    assert batched.status_counts == {"ok": 6}
    assert _records(batched.path) == _records(live.path)
    assert _steps(batched.path) == _steps(live.path)
    for record in read_run(batched.path).episodes():
        assert record.usage["batch"] == 1 and "batch" not in next(iter(read_run(live.path).episodes())).usage
    # the journal names the batch, its items and the request file kept in the run
    entries = [json.loads(line) for line in (batched.path / "batches.jsonl").read_text().splitlines()]
    assert [e["kind"] for e in entries] == ["submitted", "ended"]
    assert sorted(i for i, _ in entries[0]["items"]) == sorted(server.submitted_items())
    kept = (batched.path / entries[0]["requests"]).read_text().splitlines()
    assert sorted(_item_of(json.loads(line)) for line in kept) == sorted(server.submitted_items())
    assert "batch" in json.loads((batched.path / "run.json").read_text())["settings"]
    assert "batch" not in json.loads((live.path / "run.json").read_text())["settings"]


def test_batch_answers_are_priced_at_the_batch_rate(tmp_path: Path) -> None:
    prices = {"price_input": "2", "price_output": "8"}
    with FakeBatchServer(delay=0.05) as server:
        live = _run(tmp_path, "live", server, "openai", batch=False, episodes=3, model_params=prices)
        batched = _run(tmp_path, "batch", server, "openai", batch=True, episodes=3, model_params=prices)
    live_cost = {(r.task, r.index): r.usage["cost_micro_usd"] for r in read_run(live.path).episodes()}
    for record in read_run(batched.path).episodes():
        assert live_cost[(record.task, record.index)] > 0
        assert abs(record.usage["cost_micro_usd"] - live_cost[(record.task, record.index)] / 2) <= 1
    assert batched.report()["run"]["usage"]["cost_usd"] == pytest.approx(live.report()["run"]["usage"]["cost_usd"] / 2, abs=1e-5)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_errored_and_expired_items_are_sent_again_live_and_counted(tmp_path: Path, provider: str) -> None:
    with FakeBatchServer(delay=0.1, errored=0.25, expired=0.25) as server:
        live = _run(tmp_path, "live", server, provider, batch=False, episodes=12)
        before = len(server.live)
        batched = _run(tmp_path, "batch", server, provider, batch=True, episodes=12)
        resent = len(server.live) - before
        items = server.submitted_items()
    assert 0 < resent < 12 and len(items) == 12
    stats = batched.model_stats
    assert stats.faults["batch-errored"] + stats.faults["batch-expired"] == resent
    assert stats.faults["batch-errored"] > 0 and stats.faults["batch-expired"] > 0
    assert batched.status_counts == {"ok": 12}
    episodes = read_run(batched.path).episodes()
    assert sum(r.usage.get("batch_resent", 0) for r in episodes) == resent
    assert sum(r.usage.get("batch", 0) for r in episodes) == 12 - resent  # the re-sent ones at the live rate
    assert _records(batched.path) == _records(live.path)


def test_gemini_errored_items_and_an_expired_batch_are_sent_again_live_and_counted(tmp_path: Path) -> None:
    with FakeBatchServer(delay=0.1, errored=0.25) as server:
        live = _run(tmp_path, "live", server, "google", batch=False, episodes=12)
        before = len(server.live)
        batched = _run(tmp_path, "batch", server, "google", batch=True, episodes=12)
        resent = len(server.live) - before
        assert len(server.submitted_items()) == 12
    assert 0 < resent < 12  # the errored items only: the others were answered inline
    assert batched.model_stats.faults["batch-errored"] == resent and not batched.model_stats.faults["batch-expired"]
    episodes = read_run(batched.path).episodes()
    assert sum(r.usage.get("batch_resent", 0) for r in episodes) == resent
    assert sum(r.usage.get("batch", 0) for r in episodes) == 12 - resent
    assert batched.status_counts == {"ok": 12}
    assert _records(batched.path) == _records(live.path)
    # an expired Gemini batch answers nothing: every item is sent again live, each counted as expired
    with FakeBatchServer(delay=0.1, expired=0.6) as server:  # the share that takes one of the four items
        expired = _run(tmp_path, "expired", server, "google", batch=True, episodes=4)
        assert len(server.submitted_items()) == 4 and len(server.live) == 4
    assert expired.model_stats.faults["batch-expired"] == 4 and expired.status_counts == {"ok": 4}
    assert json.loads((expired.path / "batches.jsonl").read_text().splitlines()[-1])["status"] == "expired"
    assert _records(expired.path) == _records(live.path)[:4]


def _journal_holds_a_batch(log_dir: Path) -> Path | None:
    for journal in log_dir.glob("*/batches.jsonl"):
        if b'"submitted"' in journal.read_bytes():
            return journal.parent
    return None


@pytest.mark.parametrize("provider", ["openai", "anthropic", "google"])
def test_a_run_killed_after_submitting_resumes_without_sending_anything_twice(tmp_path: Path, provider: str) -> None:
    env = {**os.environ, "PLAYBENCH_BATCH_POLL": "0.1", "PLAYBENCH_BATCH_WAIT": "0.1"}
    with FakeBatchServer(delay=4.0) as server:
        base = _base(server, provider)
        args = [*PLAYBENCH, "eval", "mango/df", "--model", f"{provider}/x", "--base-url", base, "--batch",
                "--episodes", "8", "--log-dir", str(tmp_path / "runs"), "--quiet"]
        proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        run = None
        deadline = time.monotonic() + 60
        while run is None and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
            run = _journal_holds_a_batch(tmp_path / "runs") if server.submissions else None
        assert run is not None, proc.communicate()
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert len(server.submissions) == 1 and not server.live
        assert (run / "episodes.jsonl").read_bytes() == b""  # killed before any answer came back
        resumed = subprocess.run([*PLAYBENCH, "eval", "--resume", str(run), "--base-url", base, "--quiet"],
                                 env=env, capture_output=True, text=True, timeout=120)
        assert resumed.returncode == 0, resumed.stderr
        assert "1 batch(es) submitted before are collected from the provider, not sent again" in resumed.stderr
        items = server.submitted_items()
        assert len(server.submissions) == 1 and len(items) == 8 == len(set(items))  # one submission per item
        assert not server.live
    log = read_run(run)
    assert sorted(r.index for r in log.episodes()) == list(range(8))
    assert {r.status for r in log.episodes()} == {"ok"}
    assert all(r.usage["batch"] == 1 for r in log.episodes())


_WHERE = {"task": "t", "index": 0, "seed": 1, "call": 0}
_BODY = {"model": "x", "messages": [{"role": "user", "content": "Pick one:\n1. north\n2. south"}]}


class _Journal:
    """A journal in memory holding one recorded batch."""

    def __init__(self, batch: str, item_digest: str) -> None:
        from playbench.models.batch import custom_id

        self.lines: list[dict[str, Any]] = [
            {"kind": "submitted", "api": "openai", "batch": batch, "requests": "batches/000001.jsonl",
             "items": [[custom_id(_WHERE, 0), item_digest]]}]

    def entries(self) -> list[dict[str, Any]]:
        return self.lines

    def save_requests(self, content: bytes) -> str:
        return "batches/000002.jsonl"

    def append(self, entry: dict[str, Any]) -> None:
        self.lines.append(entry)


def _ask_once(server: FakeBatchServer, journal: _Journal) -> Any:
    import asyncio

    from playbench.models.batch import BatchCollector
    from playbench.models.providers.openai import OpenAIProvider

    collector = BatchCollector(OpenAIProvider("x", f"{server.url}/v1", None), journal)

    async def ask() -> Any:
        try:
            return await collector.ask(_BODY, _WHERE)
        finally:
            await collector.aclose()

    return asyncio.run(ask())


def test_a_resumed_request_that_differs_is_sent_anew(tmp_path: Path) -> None:
    from playbench.models.batch import custom_id, digest

    with FakeBatchServer(delay=0.05) as server:
        outcome = _ask_once(server, _Journal("batch_old", digest({"a": 1})))
        assert outcome.output is not None
        assert server.submitted_items() == [custom_id(_WHERE, 0) + "-1"]


def test_a_recorded_batch_the_server_does_not_know_is_sent_again(tmp_path: Path) -> None:
    from playbench.models.batch import digest

    with FakeBatchServer(delay=0.05) as server:
        outcome = _ask_once(server, _Journal("batch_gone", digest(_BODY)))
        assert not server.submissions  # the Model sends it live (counted as batch-missing)
    assert outcome.output is None and outcome.fault == "missing"


def test_batch_is_refused_where_no_batch_api_exists(tmp_path: Path) -> None:
    with pytest.raises(PlaybenchError, match="batch API"):
        playbench.eval("mango/df", model="mock/demo", batch=True, log_dir=tmp_path, episodes=1)
    with pytest.raises(PlaybenchError, match="--batch needs --model"):
        playbench.eval("mango/df", agent="random", batch=True, log_dir=tmp_path, episodes=1)
    assert not list(tmp_path.iterdir())  # refused before the run exists


def test_the_eval_command_takes_batch() -> None:
    shown = subprocess.run([*PLAYBENCH, "eval", "--help"], capture_output=True, text=True)
    assert "--batch" in shown.stdout, shown.stderr


def test_a_multi_turn_task_plays_one_batch_round_per_step(tmp_path: Path) -> None:
    notes: list[str] = []
    with FakeBatchServer(delay=0.05) as server:
        live = _run(tmp_path, "live", server, "openai", batch=False, episodes=2, task="smartplay/hanoi-3",
                    task_params={"max_steps": "4"})
        batched = _run(tmp_path, "batch", server, "openai", batch=True, episodes=2, task="smartplay/hanoi-3",
                       task_params={"max_steps": "4"}, notes=notes.append)
        rounds = len(server.submissions)
    steps = sum(r.steps for r in read_run(batched.path).episodes())
    assert steps > 2 and 2 <= rounds <= steps  # the two episodes' steps share their rounds
    assert _records(batched.path) == _records(live.path)
    assert _steps(batched.path) == _steps(live.path)
    assert any("each step waits for a batch round" in line for line in notes)


def test_a_server_without_a_batch_api_stops_the_run_in_one_line(tmp_path: Path) -> None:
    from playbench.models.fakeserver import FakeServer

    with FakeServer() as server:  # live endpoints only: /v1/files is not there
        result = playbench.eval("mango/df", model="openai/x", base_url=f"{server.url}/v1", batch=True, episodes=3,
                                log_dir=tmp_path, max_retries=1, retry_backoff=0.01)
        assert server.stats.answers == 0
    assert result.stopped and "uploading a batch's requests: HTTP 4" in result.stopped
    assert "needs a server offering the openai batch API" in result.stopped
    assert "\n" not in result.stopped
    assert result.recorded == 0  # nothing blamed on an episode: the run is resumable


def test_the_journal_skips_a_torn_line_and_refuses_a_foreign_one(tmp_path: Path) -> None:
    from playbench.log.batches import BatchJournal

    entry = {"kind": "submitted", "api": "openai", "batch": "batch_1", "requests": "batches/000001.jsonl",
             "items": [["pb-a-0-0", "d" * 64]]}
    journal = BatchJournal(tmp_path, tmp_path)
    journal.append(entry)
    with (tmp_path / "batches.jsonl").open("ab") as fh:
        fh.write(b'{"kind": "ended", "bat')  # a kill mid-append
    assert BatchJournal(tmp_path, tmp_path).entries() == [entry]
    again = BatchJournal(tmp_path, tmp_path)
    again.append({"kind": "ended", "batch": "batch_1", "status": "completed"})  # the torn piece is cut off first
    assert [e["kind"] for e in BatchJournal(tmp_path, tmp_path).entries()] == ["submitted", "ended"]
    (tmp_path / "batches.jsonl").write_text(json.dumps({**entry, "batch": "../files/x"}) + "\n")
    with pytest.raises(PlaybenchError, match="line 1 is not a batch journal entry"):
        BatchJournal(tmp_path, tmp_path).entries()
    (tmp_path / "batches.jsonl").unlink()
    (tmp_path / "batches.jsonl").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(PlaybenchError, match="symbolic link"):
        BatchJournal(tmp_path, tmp_path).entries()


def test_a_live_run_resumed_with_batch_sends_the_rest_as_batches(tmp_path: Path) -> None:
    stopped = playbench.eval("mango/df", model="openai/x", base_url="http://127.0.0.1:9/v1", episodes=4,
                             log_dir=tmp_path, max_retries=0, max_connect_failures=1)
    before = read_run(stopped.path).episodes()  # none ok: the server was never reached
    assert stopped.stopped and all(r.status == "infra-error" for r in before)
    with FakeBatchServer(delay=0.05) as server:
        resumed = playbench.eval(resume=stopped.path, base_url=f"{server.url}/v1", batch=True)
        assert not server.live and len(server.submitted_items()) == 4
    log = read_run(resumed.path)
    assert log.latest_episodes().keys() == {("mango/df", i) for i in range(4)}
    assert {r.status for r in log.latest_episodes().values()} == {"ok"}
    meta = json.loads((resumed.path / "run.json").read_text())
    assert meta["settings"]["batch"] is True and meta["resumes"][-1]["changed"]["batch"] == [False, True]


def test_the_progress_bar_shows_the_batches(tmp_path: Path) -> None:
    import io

    from rich.console import Console

    from playbench.api.progress import Bar

    out = io.StringIO()
    with FakeBatchServer(delay=0.2) as server:
        _run(tmp_path, "batch", server, "openai", batch=True, episodes=2,
             progress=Bar(Console(file=out, force_terminal=False, width=120)))
    assert "batches: 1 submitted, 0 in progress, 1 done" in out.getvalue()


def test_gemini_responses_without_keys_are_matched_by_position() -> None:
    import asyncio

    from playbench.models.batch import GeminiBatches
    from playbench.models.fakeserver import reply_body
    from playbench.models.providers.google import GoogleProvider

    api = GeminiBatches(GoogleProvider("x", "http://127.0.0.1:9", None))
    answered = reply_body("gemini", "x", "north", [("user", "Pick one")])
    info = {"name": "batches/b1", "done": True, "metadata": {"state": "BATCH_STATE_SUCCEEDED"},
            "response": {"inlinedResponses": {"inlinedResponses": [{"response": answered}, {"error": {"code": 13}}]}}}
    results = asyncio.run(api.results(None, "b1", info, ["pb-a-0-0", "pb-b-1-0"]))  # type: ignore[arg-type]
    assert results["pb-a-0-0"].output is not None and results["pb-a-0-0"].output.text == "north"
    assert results["pb-b-1-0"].output is None and results["pb-b-1-0"].fault == "errored"
    # a count that differs from the batch's cannot be matched by position: nothing is taken (all re-sent live)
    assert asyncio.run(api.results(None, "b1", info, ["pb-a-0-0", "pb-b-1-0", "pb-c-2-0"])) == {}  # type: ignore[arg-type]


def test_a_queue_larger_than_geminis_inline_limit_goes_out_as_several_batches() -> None:
    from playbench.models.batch import BatchCollector, _Item
    from playbench.models.providers.google import GoogleProvider

    collector = BatchCollector(GoogleProvider("x", "http://127.0.0.1:9", None), _Journal("b0", "d" * 64))
    assert collector.api.max_bytes is not None and collector.api.max_bytes < 20 * 2**20  # Google's 20 MB
    items = [_Item(f"pb-{n}", "d", collector.api.line(f"pb-{n}", {"contents": [{"parts": [{"text": "x" * 90}]}]}),
                   None) for n in range(5)]  # type: ignore[arg-type]
    size = len(json.dumps(items[0].line, separators=(",", ":"))) + 1  # every line has this size
    collector.api.max_bytes = 2 * size + size // 2
    assert collector._cut(items) == 2  # two lines fit, a third does not
    collector.api.max_bytes = 10
    assert collector._cut(items) == 1  # one too large still goes, alone

"""``--batch`` over a real transport: bodies that arrive in small delayed pieces (as TLS records do) are read
whole, a body cut short of its Content-Length is fetched again, an oversized one is refused, and a batch
that never ends is given up at its deadline (its requests sent live, counted)."""

import asyncio
import json
import math
import subprocess
from pathlib import Path
from typing import Any

import pytest
from tests.helpers import PLAYBENCH

import playbench
from playbench.core.errors import PlaybenchError
from playbench.log import read_run
from playbench.models.batch import BatchCollector, digest
from playbench.models.fakebatch import FakeBatchServer
from playbench.models.providers.openai import OpenAIProvider

_PROVIDERS = ["openai", "anthropic", "google"]


@pytest.fixture(autouse=True)
def _fast_polls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLAYBENCH_BATCH_POLL", "0.05")
    monkeypatch.setenv("PLAYBENCH_BATCH_WAIT", "0.05")


def _run(tmp: Path, server: FakeBatchServer, provider: str, episodes: int, **extra: Any) -> Any:
    base = f"{server.url}/v1" if provider == "openai" else server.url
    return playbench.eval("mango/df", model=f"{provider}/x", base_url=base, episodes=episodes, log_dir=tmp,
                          max_retries=2, retry_backoff=0.01, batch=True, **extra)


def _batch_faults(result: Any) -> dict[str, int]:
    return {k: v for k, v in result.model_stats.faults.items() if k.startswith("batch-") and v}


@pytest.mark.parametrize("provider", _PROVIDERS)
def test_a_body_in_small_delayed_pieces_is_read_whole(tmp_path: Path, provider: str) -> None:
    # 24 answers of ~5 KB each (~130 KB of results), written 4 KB at a time, 5 ms apart
    with FakeBatchServer(delay=0.05, piece=4096, piece_delay=0.005, pad=5000) as server:
        result = _run(tmp_path, server, provider, episodes=24)
        assert len(server.submitted_items()) == 24
        assert not server.live  # no answer dropped and bought again at the live rate
    assert not _batch_faults(result)  # nothing recorded as batch-missing (or anything else)
    assert result.status_counts == {"ok": 24}
    assert sum(r.usage.get("batch", 0) for r in read_run(result.path).episodes()) == 24


@pytest.mark.parametrize("provider", _PROVIDERS)
def test_a_body_cut_short_of_its_content_length_is_fetched_again(tmp_path: Path, provider: str) -> None:
    with FakeBatchServer(delay=0.05, piece=2048, piece_delay=0.002, pad=3000, cut=1) as server:
        result = _run(tmp_path, server, provider, episodes=6)
        assert server.cut == 0  # one body was cut halfway (Gemini: its first poll answer)
        assert not server.live
    assert not _batch_faults(result) and result.status_counts == {"ok": 6}
    assert result.stopped is None


def test_a_results_body_over_the_cap_is_refused_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("playbench.models.batch.MAX_RESULTS_BYTES", 10_000)
    with FakeBatchServer(delay=0.05, pad=5000) as server:
        result = _run(tmp_path, server, "openai", episodes=4)
        assert not server.live
    assert result.stopped is not None and "larger than 10,000 bytes" in result.stopped
    assert "\n" not in result.stopped


@pytest.mark.parametrize("provider", _PROVIDERS)
def test_a_batch_that_never_ends_is_cancelled_at_its_deadline_and_sent_live(tmp_path: Path, provider: str) -> None:
    with FakeBatchServer(delay=math.inf) as server:
        result = _run(tmp_path, server, provider, episodes=3, batch_timeout=0.3)
        batches = [s["batch"] for s in server.submissions]
        assert len(batches) == 1 and server.cancelled == batches
        assert len(server.live) == 3
    assert _batch_faults(result) == {"batch-timeout": 3} and result.status_counts == {"ok": 3}
    assert sum(r.usage.get("batch_resent", 0) for r in read_run(result.path).episodes()) == 3
    last = json.loads((result.path / "batches.jsonl").read_text().splitlines()[-1])
    assert last == {"kind": "ended", "batch": batches[0], "status": "timeout"}
    recorded = json.loads((result.path / "run.json").read_text())["settings"]
    assert recorded["batch_timeout"] == 0.3


_WHERE = {"task": "mango/df", "index": 0, "seed": 1, "call": 0}
_BODY = {"model": "x", "messages": [{"role": "user", "content": "Pick one:\n1. north\n2. south"}]}


class _Journal:
    """A journal in memory: one batch, recorded as given up at its deadline by an earlier run."""

    def __init__(self, batch: str, item: str) -> None:
        self.lines: list[dict[str, Any]] = [
            {"kind": "submitted", "api": "openai", "batch": batch, "requests": "batches/000001.jsonl",
             "items": [[item, digest(_BODY)]]},
            {"kind": "ended", "batch": batch, "status": "timeout"}]

    def entries(self) -> list[dict[str, Any]]:
        return self.lines

    def save_requests(self, content: bytes) -> str:
        return "batches/000002.jsonl"

    def append(self, entry: dict[str, Any]) -> None:
        self.lines.append(entry)


def test_a_resumed_run_polls_a_timed_out_batch_once_and_does_not_wait_again() -> None:
    from playbench.models.batch import custom_id

    with FakeBatchServer(delay=math.inf) as server:
        provider = OpenAIProvider("x", f"{server.url}/v1", None)
        created = asyncio.run(_create(server))  # a batch the server holds, never ending
        journal = _Journal(created, custom_id(_WHERE, 0))
        collector = BatchCollector(provider, journal, batch_timeout=3600.0)

        async def ask() -> Any:
            try:
                return await asyncio.wait_for(collector.ask(_BODY, _WHERE), 5)
            finally:
                await collector.aclose()

        outcome = asyncio.run(ask())
        assert server.polls == 1 and not server.submissions[1:]
    assert outcome.output is None and outcome.fault == "timeout"
    assert len(journal.lines) == 2  # its end was recorded by the earlier run


async def _create(server: FakeBatchServer) -> str:
    """Submit one batch straight to the server (as an earlier run did)."""
    import aiohttp

    async with aiohttp.ClientSession() as session:
        form = aiohttp.FormData()
        form.add_field("purpose", "batch")
        form.add_field("file", json.dumps({"custom_id": "a", "method": "POST", "url": "/v1/chat/completions",
                                           "body": _BODY}).encode(), filename="r.jsonl")
        async with session.post(f"{server.url}/v1/files", data=form) as answer:
            file_id = (await answer.json())["id"]
        async with session.post(f"{server.url}/v1/batches", json={
                "input_file_id": file_id, "endpoint": "/v1/chat/completions", "completion_window": "24h"}) as answer:
            return str((await answer.json())["id"])


def test_a_batch_timeout_needs_a_positive_number_and_batch(tmp_path: Path) -> None:
    with pytest.raises(PlaybenchError, match="--batch-timeout"):
        playbench.eval("mango/df", model="openai/x", base_url="http://127.0.0.1:9/v1", batch=True,
                       batch_timeout=0, log_dir=tmp_path, episodes=1)
    with pytest.raises(PlaybenchError, match="--batch-timeout goes with --batch"):
        playbench.eval("mango/df", model="openai/x", base_url="http://127.0.0.1:9/v1", batch_timeout=10,
                       log_dir=tmp_path, episodes=1)
    assert not list(tmp_path.iterdir())


def test_the_eval_command_takes_batch_timeout(tmp_path: Path) -> None:
    shown = subprocess.run([*PLAYBENCH, "eval", "--help"], capture_output=True, text=True)
    assert "--batch-timeout" in shown.stdout, shown.stderr
    refused = subprocess.run([*PLAYBENCH, "eval", "mango/df", "--model", "openai/x", "--base-url",
                              "http://127.0.0.1:9/v1", "--batch-timeout", "5", "--log-dir", str(tmp_path)],
                             capture_output=True, text=True)
    assert refused.returncode != 0 and "--batch-timeout goes with --batch" in refused.stderr
    assert "Traceback" not in refused.stderr and not list(tmp_path.iterdir())

"""A long wait to retry (a server's ``Retry-After``) is said on the progress bar while it lasts (issue 27)."""

import asyncio
import io
from collections.abc import Mapping
from pathlib import Path

import pytest
from rich.console import Console

import playbench
from playbench.api.progress import Bar
from playbench.core.records import EpisodeRecord
from playbench.models import Message, ModelSettings, create_model
from playbench.models.fakeserver import FakeServer

ASK = [Message("user", "Pick one:\n1. left\n2. right")]


def test_the_model_tells_a_long_wait_and_its_end() -> None:
    with FakeServer(sequence=["429", "429"], retry_after="4") as srv:
        model = create_model("openai/fake", {}, ModelSettings(base_url=srv.url + "/v1", retry_backoff=0.001))
        told: list[str | None] = []
        model.on_wait = told.append

        async def two_calls() -> list:
            return await asyncio.gather(model.generate(ASK), model.generate(ASK))

        outs = asyncio.run(two_calls())
    assert [out.attempts for out in outs] == [2, 2]
    # both calls wait at once: the line is cleared when the last wait ends
    assert told == ["rate limited: retrying in 4 s", "rate limited: retrying in 4 s", None]


def test_short_waits_are_not_told() -> None:
    with FakeServer(sequence=["429", "500"], retry_after="0.2") as srv:
        model = create_model("openai/fake", {}, ModelSettings(base_url=srv.url + "/v1", retry_backoff=0.001))
        told: list[str | None] = []
        model.on_wait = told.append
        assert asyncio.run(model.generate(ASK)).attempts == 3
    assert told == []


class Recorder:
    """A progress hook that keeps what it is told about waits."""

    def __init__(self) -> None:
        self.waits: list[str | None] = []
        self.episodes = 0

    def start(self, plan: Mapping[str, tuple[int, int]]) -> None:
        """Nothing to show."""

    def step(self, task_id: str) -> None:
        """Nothing to show."""

    def episode(self, record: EpisodeRecord) -> None:
        """Count the episode."""
        self.episodes += 1

    def stop(self) -> None:
        """Nothing to show."""

    def wait(self, line: str | None) -> None:
        """Keep the line."""
        self.waits.append(line)


def test_eval_tells_the_progress_hook_of_a_frozen_429(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    hook = Recorder()
    with FakeServer(sequence=["429"], retry_after="5") as srv:
        result = playbench.eval("smartplay/hanoi-3", model="openai/fake", base_url=srv.url + "/v1", episodes=1,
                                task_params={"max_steps": "2"}, log_dir=str(tmp_path), progress=hook)
    assert result.status_counts == {"ok": 1} and hook.episodes == 1
    assert hook.waits == ["rate limited: retrying in 5 s", None]


def test_the_bar_shows_the_wait_under_the_bars_and_clears_it() -> None:
    out = io.StringIO()
    bar = Bar(Console(file=out, force_terminal=True, width=100))
    bar.start({"smartplay/hanoi-3": (2, 0)})
    bar.wait("rate limited: retrying in 118 s")
    shown = out.getvalue()
    bar.wait(None)
    after = out.getvalue()[len(shown):]
    bar.stop()
    assert "rate limited: retrying in 118 s" in shown and "smartplay/hanoi-3" in shown
    assert "smartplay/hanoi-3" in after and "rate limited" not in after

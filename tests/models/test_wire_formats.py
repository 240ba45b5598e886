"""A provider row names its wire format (``providers/wires.py``): the live factory and ``--batch`` both derive
from it. Every row's format resolves to a live provider class and, where the API has one, a batch flow; a
row naming an unknown format is refused by the table's check; a new row speaking Anthropic's or Gemini's
format plays live and in batches with no other code."""

import inspect
import json
import subprocess
import sys
from pathlib import Path

import pytest

import playbench
from playbench.core.errors import PlaybenchError
from playbench.log import read_run
from playbench.models.batch import BatchCollector, batch_api
from playbench.models.factory import create_model, provider_row
from playbench.models.fakebatch import FakeBatchServer
from playbench.models.model import ModelSettings
from playbench.models.providers.base import Provider
from playbench.models.providers.batching import BatchFlow
from playbench.models.providers.wires import WIRES
from playbench.models.providers_table import PROVIDERS, ProviderRow, check_rows

LOOPBACK = "http://127.0.0.1:9"  # never contacted: the models are built, not asked


@pytest.mark.parametrize("provider", sorted(PROVIDERS))
def test_every_rows_wire_format_resolves_to_its_live_class_and_batch_flow(provider: str) -> None:
    row = PROVIDERS[provider]
    wire = WIRES[row.wire]
    assert issubclass(wire.live, Provider) and wire.live.name == row.wire  # an instance says which format it speaks
    if wire.live.uses_http:  # the live interface: a request and its answer parsed
        assert wire.live.request is not Provider.request and wire.live.parse is not Provider.parse
    else:  # answered in this process
        assert wire.live.generate is not Provider.generate
    model = create_model(f"{provider}/x", settings=ModelSettings(base_url=LOOPBACK))
    assert type(model.provider) is wire.live
    if wire.batches is None:
        with pytest.raises(PlaybenchError, match="batch API"):
            batch_api(model.provider)
        return
    assert issubclass(wire.batches, BatchFlow) and not inspect.isabstract(wire.batches)
    assert wire.batches.name == row.wire  # the name the run's batch journal records
    assert type(batch_api(model.provider)) is wire.batches


def test_the_rows_name_the_formats_they_speak() -> None:
    assert {p: r.wire for p, r in PROVIDERS.items()} == {
        "openai": "openai", "vllm": "openai", "ollama": "openai", "anthropic": "anthropic", "google": "google",
        "mock": "mock"}
    assert provider_row("openai-api/together/m")[0].wire == "openai"  # a service without a row
    assert ProviderRow(None, "X_BASE_URL", ("X_API_KEY",), None).wire == "openai"  # an alias row as the docs show it


def test_a_row_with_an_unknown_wire_format_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    bad = ProviderRow(None, "ACME_BASE_URL", ("ACME_API_KEY",), None, wire="grpc")
    with pytest.raises(ValueError, match="provider row 'acme' names the wire format 'grpc', not one of openai"):
        check_rows({**PROVIDERS, "acme": bad}, WIRES)
    check_rows(PROVIDERS, WIRES)  # the table itself passes
    monkeypatch.setitem(PROVIDERS, "acme", bad)  # a row added at run time is checked when it is used
    with pytest.raises(ValueError, match="'grpc'"):
        create_model("acme/x", settings=ModelSettings(base_url=LOOPBACK))


def test_a_table_with_an_unknown_wire_format_fails_to_load() -> None:
    code = ("import playbench.models.providers_table as t\n"
            "t.PROVIDERS['acme'] = t.ProviderRow(None, 'ACME_BASE_URL', (), None, wire='grpc')\n"
            "import playbench.models.factory\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "ValueError: provider row 'acme' names the wire format 'grpc'" in done.stderr


@pytest.mark.parametrize("wire", ["anthropic", "google"])
def test_a_new_row_plays_in_batches_in_the_format_it_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           wire: str) -> None:
    monkeypatch.setenv("PLAYBENCH_BATCH_POLL", "0.05")
    monkeypatch.setenv("PLAYBENCH_BATCH_WAIT", "0.05")
    monkeypatch.setitem(PROVIDERS, "acme", ProviderRow(None, "ACME_BASE_URL", ("ACME_API_KEY",), None, wire=wire))
    with FakeBatchServer(delay=0.05) as server:
        result = playbench.eval("mango/df", model="acme/x", base_url=server.url, episodes=2, log_dir=tmp_path,
                                max_retries=1, retry_backoff=0.01, batch=True)
        assert len(server.submitted_items()) == 2 and not server.live
    assert result.status_counts == {"ok": 2}
    assert {r.usage.get("batch") for r in read_run(result.path).episodes()} == {1}
    entries = [json.loads(line) for line in (result.path / "batches.jsonl").read_text().splitlines()]
    assert entries[0]["kind"] == "submitted" and entries[0]["api"] == wire


def test_the_collector_takes_the_flow_of_the_providers_format() -> None:
    class Journal:
        def entries(self) -> list[dict[str, object]]:
            return []

        def save_requests(self, content: bytes) -> str:
            raise AssertionError("nothing is sent")

        def append(self, entry: dict[str, object]) -> None:
            raise AssertionError("nothing is sent")

    for name, wire in WIRES.items():
        if wire.batches is None:
            continue
        provider = create_model(f"{name}/x", settings=ModelSettings(base_url=LOOPBACK)).provider
        collector = BatchCollector(provider, Journal())  # type: ignore[arg-type]
        assert type(collector.api) is wire.batches and collector.deadline > collector.api.window

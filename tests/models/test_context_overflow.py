"""A prompt longer than the server's context: recognised in each server's words, counted as its own fault,
never retried, and the error says what helps (issue 28)."""

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from helpers import only_run_dir, run_cli, stable_trajectories
from playbench.cli.eval_cmd import command as eval_command
from playbench.core.ledger import CURRENT_EPISODE, EpisodeLedger
from playbench.models import Message, ModelSettings, create_model
from playbench.models.errors import ContextOverflowError, FatalModelError
from playbench.models.fakeserver import OVERFLOW_BODIES, FakeServer
from playbench.models.model import Model

ASK = [Message("user", "Pick one:\n1. left\n2. right")]

#: what servers answer to a prompt longer than their context: (model, URL suffix, status, body)
OVERFLOWS: dict[str, tuple[str, str, int, Any]] = {
    "openai": ("openai/fake", "/v1", 400, OVERFLOW_BODIES["openai"]),
    "vllm": ("openai/fake", "/v1", 400, {
        "object": "error", "type": "BadRequestError", "param": None, "code": 400,
        "message": "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens "
                   "(4000 in the messages, 1000 in the completion). Please reduce the length of the messages or "
                   "completion."}),
    "llama.cpp": ("openai/fake", "/v1", 400, {"error": {
        "code": 400, "message": "the request exceeds the available context size, try increasing it",
        "type": "exceed_context_size_error", "n_prompt_tokens": 9000, "n_ctx": 8192}}),
    "llama.cpp-counts": ("openai/fake", "/v1", 400, {"error": {
        "code": 400, "message": "request (4476 tokens) exceeds the available context size (4096 tokens)",
        "type": "invalid_request_error"}}),
    "llama-cpp-python-raw": ("openai/fake", "/v1", 500, {"error": {
        "message": "Requested tokens (9437) exceed context window of 8192", "type": "internal_server_error"}}),
    "vllm-decoder": ("openai/fake", "/v1", 400, {  # vLLM with image prompts
        "object": "error", "type": "BadRequestError", "param": None, "code": 400,
        "message": "The decoder prompt (length 9437) is longer than the maximum model length of 8192. Make sure "
                   "that `max_model_len` is no smaller than the number of text tokens plus multimodal tokens."}),
    "ollama": ("openai/fake", "/v1", 400, {"error": {
        "message": "the input length exceeds the context length", "type": "invalid_request_error",
        "param": None, "code": None}}),
    "anthropic": ("anthropic/fake", "", 400, OVERFLOW_BODIES["anthropic"]),
    "google": ("google/fake", "", 400, OVERFLOW_BODIES["gemini"]),
}


class Answers(FakeServer):
    """Answers every request with one status and body."""

    def __init__(self, status: int, body: Any) -> None:
        super().__init__()
        self.answer = (status, json.dumps(body).encode())

    async def _respond(self, writer: Any, method: str, path: str, headers: dict[str, str], body: bytes) -> bool:
        self.stats.requests += 1
        await self._send(writer, *self.answer)
        return True


def _ask_in_episode(model: Model) -> tuple[EpisodeLedger, BaseException | None]:
    async def go() -> tuple[EpisodeLedger, BaseException | None]:
        ledger = EpisodeLedger("t", 0)
        CURRENT_EPISODE.set(ledger)
        try:
            await model.generate(ASK)
            return ledger, None
        except Exception as exc:  # noqa: BLE001 - the test looks at what was raised
            return ledger, exc
        finally:
            await model.aclose()

    return asyncio.run(go())


@pytest.mark.parametrize("server", sorted(OVERFLOWS))
def test_each_servers_overflow_is_one_refused_attempt(server: str) -> None:
    name, suffix, status, body = OVERFLOWS[server]
    with Answers(status, body) as srv:
        model = create_model(name, {}, ModelSettings(base_url=srv.url + suffix, max_retries=5, retry_backoff=0.001))
        ledger, error = _ask_in_episode(model)
        assert srv.stats.requests == 1  # no retry storm
    assert isinstance(error, ContextOverflowError)
    line = str(error)
    assert line.startswith(f"{name}: the prompt is longer than the server's context (HTTP {status}: ")
    assert line.endswith("start the server with a larger context or send less history, e.g. -A max_text_history=8")
    assert "\n" not in line
    stats = model.stats
    assert stats.faults == {"context-overflow": 1} and stats.attempts == 1 and stats.calls == 0
    assert ledger.usage == {"calls": 0, "attempts": 1}  # refused requests are attempts, not calls


def test_other_refusals_are_not_overflows_and_not_calls() -> None:
    with Answers(400, {"error": {"message": "tool_choice is not supported", "type": "invalid_request_error"}}) as srv:
        model = create_model("openai/fake", {}, ModelSettings(base_url=srv.url + "/v1", max_retries=5))
        ledger, error = _ask_in_episode(model)
        assert srv.stats.requests == 1
    assert isinstance(error, FatalModelError) and not isinstance(error, ContextOverflowError)
    assert model.stats.faults == {} and model.stats.calls == 0 and ledger.usage == {"calls": 0, "attempts": 1}


def test_eval_counts_the_overflows_and_says_what_helps(tmp_path: Path) -> None:
    with FakeServer(faults={"overflow": 1.0}) as srv:
        proc = run_cli("eval", "smartplay/hanoi-3", "--model", "openai/fake", "--base-url", srv.url + "/v1",
                       "--episodes", "2", "-T", "max_steps=3", "--max-retries", "3", "--log-dir", str(tmp_path),
                       env={"OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""})
        requests = srv.stats.requests
    assert proc.returncode == 1, proc.stderr
    said = " ".join(proc.stderr.split())  # the summary may wrap on a narrow terminal
    assert f"0 calls, {requests} requests, 0 answers, 0 cache hits, faults: context-overflow {requests}" in said
    closing = proc.stderr.strip().splitlines()[-1]
    assert closing.startswith("2 of 2 episodes recorded, 2 ended with infra-error; ")
    assert "prompts were longer than the server's context: restart it with a larger context" in closing
    assert "-A max_text_history=8" in closing
    run = only_run_dir(tmp_path)
    records = [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines() if line.strip()]
    assert [r["status"] for r in records] == ["infra-error"] * 2
    assert all("start the server with a larger context" in r["error"] for r in records)
    assert sum(r["usage"]["attempts"] for r in records) == requests
    assert sum(r["usage"].get("calls", 0) for r in records) == 0


@pytest.mark.parametrize("server", sorted(s for s in OVERFLOWS if OVERFLOWS[s][0] == "openai/fake"))
def test_a_balrog_episode_trims_its_history_to_fit_each_servers_context(server: str, tmp_path: Path) -> None:
    # The BabyAI prompt grows from about 240 to 390 tokens over 8 steps; the server refuses those over 300
    # in its own words. Each wording must read as an overflow: the agent drops the oldest history and asks
    # again, and the episode ends ok (an unrecognised one ends it infra-error at the first refusal).
    body = json.dumps(OVERFLOWS[server][3]).encode()
    with FakeServer(context=300, overflow_body=body) as srv:
        result = CliRunner().invoke(eval_command, [
            "balrog/babyai/goto", "--model", "openai/fake", "--base-url", srv.url + "/v1", "--episodes", "1",
            "-T", "max_steps=8", "--log-dir", str(tmp_path), "--quiet"], env={"OPENAI_API_KEY": ""},
            catch_exceptions=False)
        refused = srv.stats.faults["overflow"]
    assert result.exit_code == 0, result.output
    run = only_run_dir(tmp_path)
    [record] = [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines()]
    assert record["status"] == "ok" and record["steps"] == 8, record
    [steps] = stable_trajectories(run).values()
    dropped = [step["extra"].get("history_dropped", 0) for step in steps]
    assert dropped[0] == 0 and max(dropped) > 0 and refused > 0
